import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
/** A strong validator of an answer's bytes. */
function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * Sends a body that changes only with a restart under its ETag: a browser that has it already
 * (If-None-Match) gets a 304 without the body, so each back-office load checks rather than downloads.
 */
function sendCached(request: FastifyRequest, reply: FastifyReply, body: string, type: string, etag: string) {
  reply.header('etag', etag).header('cache-control', 'no-cache');
  const known = request.headers['if-none-match'];
  if (known && known.split(',').some((tag) => tag.trim() === etag)) return reply.code(304).send();
  return reply.type(type).send(body);
}

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  // Made on first use: by then every route of the app is registered with its schema.
  let document: Record<string, unknown> | undefined;
  const schemas = JSON.stringify(
    ok({
      entities: app.ctx.registry.all.map((entity) => ({ name: entity.name, schema: entity.schema })),
    }),
  );
  const schemasTag = etagOf(schemas);
  app.get('/api/openapi.json', { config: { isPublic: true } }, async () => {
    document ??= openApiDocumentOf(app.routeSchemas, {
      title: 'EcoBid API',
      version: '1',
      description:
        'Every answer is the envelope {code, message, data}; errors are {code, message, errors:[{field, message}]} with the field as a JSON pointer.',
    });
    return document;
  });
  app.get('/api/schemas', { config: { isPublic: true } }, async (request, reply) =>
    sendCached(request, reply, schemas, 'application/json; charset=utf-8', schemasTag),
  );
  // Built on first use (a second or two) and kept: the schemas change only with a restart.
  let validators: Promise<string> | undefined;
  let validatorsTag: string | undefined;
  app.get('/api/schemas/validators.js', { config: { isPublic: true } }, async (request, reply) => {
    validators ??= formValidatorsModule(app.ctx.registry.all, app.ctx.config.engineDir);
    const code = await validators.catch((error: unknown) => {
      validators = undefined;
      throw error;
    });
    validatorsTag ??= etagOf(code);
    return sendCached(request, reply, code, 'text/javascript; charset=utf-8', validatorsTag);
  });
}
