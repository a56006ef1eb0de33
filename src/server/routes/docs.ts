import type { FastifyInstance } from 'fastify';
import { openApiDocumentOf } from '../../engine/index.js';
import { ok } from '../lib/http.js';
import { formValidatorsModule } from '../services/docs/form-validators.js';

/**
 * GET /api/openapi.json: the OpenAPI document of every route of the API, made from the route
 * schemas the server validates and serializes with (dropped-in entities included).
 * GET /api/schemas: the entity schemas themselves, from which the back-office derives its list
 * columns, filters and forms with the same engine functions as the server.
 * GET /api/schemas/validators.js: the forms' validators, compiled here (see form-validators.ts).
 */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  // Made on first use: by then every route of the app is registered with its schema.
  let document: Record<string, unknown> | undefined;
  const schemas = ok({
    entities: app.ctx.registry.all.map((entity) => ({ name: entity.name, schema: entity.schema })),
  });
  app.get('/api/openapi.json', { config: { isPublic: true } }, async () => {
    document ??= openApiDocumentOf(app.routeSchemas, {
      title: 'EcoBid API',
      version: '1',
      description:
        'Every answer is the envelope {code, message, data}; errors are {code, message, errors:[{field, message}]} with the field as a JSON pointer.',
    });
    return document;
  });
  app.get('/api/schemas', { config: { isPublic: true } }, async () => schemas);
  // Built on first use (a second or two) and kept: the schemas change only with a restart.
  let validators: Promise<string> | undefined;
  app.get('/api/schemas/validators.js', { config: { isPublic: true } }, async (_request, reply) => {
    validators ??= formValidatorsModule(app.ctx.registry.all, app.ctx.config.engineDir);
    const code = await validators.catch((error: unknown) => {
      validators = undefined;
      throw error;
    });
    return reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(code);
  });
}
