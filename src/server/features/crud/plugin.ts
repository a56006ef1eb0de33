import type { FastifyInstance } from 'fastify';
import type { Feature } from '../../lib/feature.js';
import { importJobTableSpecs } from './import/jobs.js';
import { importJobRoutes } from './routes/import-jobs.js';
import { crudRoutes } from './routes/records.js';
import { recycleRoutes } from './routes/recycle.js';

/**
 * The generated API of every entity of schemas/ (query, add, update, delete, export, tree,
 * import), the recycle bins and version restores. What an entity
 * does beyond its schema comes from the modules' hooks (lib/modules), which the services run.
 */
export const crudFeature: Feature = {
  name: 'crud',
  tables: importJobTableSpecs,
  routes: async (app: FastifyInstance) => {
    await app.register(importJobRoutes);
    await app.register(crudRoutes);
    await app.register(recycleRoutes);
  },
};
