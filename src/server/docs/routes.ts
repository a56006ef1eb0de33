import type { FastifyInstance } from 'fastify';
import { openApiDocument } from '../../engine/index.js';

/** GET /api/openapi.json: the OpenAPI document of the running schemas (dropped-in entities included). */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const document = openApiDocument(app.ctx.registry.all, { title: 'EcoBid API', version: '1' });
  app.get('/api/openapi.json', { config: { isPublic: true } }, async () => document);
}
