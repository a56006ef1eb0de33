import type { FastifyInstance } from 'fastify';
import type { Feature } from '../../lib/feature.js';
import { fileRoutes } from './routes/files.js';
import { fileLinkRoutes } from './routes/links.js';
import { fileTableSpecs } from './tables.js';

async function filesRoutes(app: FastifyInstance): Promise<void> {
  await app.register(fileRoutes);
  await app.register(fileLinkRoutes);
}

/** Uploads, downloads, pictures, the netdisc with its recycle bin and shares. */
export const filesFeature: Feature = { name: 'files', tables: fileTableSpecs, routes: filesRoutes };
