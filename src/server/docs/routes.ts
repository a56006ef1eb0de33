import type { FastifyInstance } from 'fastify';
import { openApiDocument } from '../../engine/index.js';
import { ok } from '../http.js';

/**
 * GET /api/openapi.json: the OpenAPI document of the running schemas (dropped-in entities included).
 * GET /api/schemas: the entity schemas themselves, from which the back-office derives its list
 * columns, filters and forms with the same engine functions as the server.
 */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const document = openApiDocument(app.ctx.registry.all, { title: 'EcoBid API', version: '1' });
  const schemas = ok({
    entities: app.ctx.registry.all.map((entity) => ({ name: entity.name, schema: entity.schema })),
  });
  app.get('/api/openapi.json', { config: { isPublic: true } }, async () => document);
  app.get('/api/schemas', { config: { isPublic: true } }, async () => schemas);
}
