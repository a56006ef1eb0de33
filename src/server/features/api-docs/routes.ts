import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openApiDocumentOf } from '../../../engine/index.js';
import { ok } from '../../lib/http.js';
import { answer, anyJson, arrayOf, object, PUBLIC_SECURITY, typed } from '../../lib/route-schema.js';
import { formValidatorsModule } from '../forms/index.js';

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
 * Sends a body that changes only with a restart or a form's publication under its ETag: a browser that has it already
 * (If-None-Match) gets a 304 without the body, so each back-office load checks rather than downloads.
 */
function sendCached(request: FastifyRequest, reply: FastifyReply, body: string, type: string, etag: string) {
  reply.header('etag', etag).header('cache-control', 'no-cache');
  const known = request.headers['if-none-match'];
  if (known && known.split(',').some((tag) => tag.trim() === etag)) return reply.code(304).send();
  return reply.type(type).send(body);
}

const tags = ['docs'];
const PUBLIC = { isPublic: true };

/** The OpenAPI document as this route answers it: the document itself, not in the envelope. */
const OPENAPI_DOCUMENT = {
  type: 'object',
  description: 'The OpenAPI 3.1 document (the answer itself, not in the envelope)',
  properties: {
    openapi: { description: 'the version of OpenAPI: 3.1.0' },
    info: { description: 'title, version and a description of the envelope' },
    tags: { description: 'the modules, as {name}' },
    components: { description: 'the titled schemas (records, bodies) and the security schemes' },
    security: { description: 'the bearer token, unless an operation says otherwise' },
    paths: { description: 'every /api route with its parameters, body and answers' },
  },
  required: ['openapi', 'info', 'tags', 'components', 'security', 'paths'],
  additionalProperties: true,
};

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const api = typed(app);
  // Made on first use: by then every route of the app is registered with its schema.
  let document: Record<string, unknown> | undefined;
  // The entity set changes with each publish of a form: the answers are made per registry generation.
  let schemas: { generation: number; body: string; tag: string } | undefined;
  const currentSchemas = (): { body: string; tag: string } => {
    const { registry } = app.ctx;
    if (schemas?.generation !== registry.generation) {
      const body = JSON.stringify(
        ok({ entities: registry.all.map((entity) => ({ name: entity.name, schema: entity.schema })) }),
      );
      schemas = { generation: registry.generation, body, tag: etagOf(body) };
    }
    return schemas;
  };
  api.get(
    '/api/openapi.json',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'This document',
        security: PUBLIC_SECURITY,
        response: { 200: OPENAPI_DOCUMENT },
      },
    },
    async () => {
      document ??= openApiDocumentOf(app.routeSchemas, {
        title: 'EcoBid API',
        version: '1',
        description:
          'Every answer is the envelope {code, message, data}; errors are {code, message, errors:[{field, message}]} with the field as a JSON pointer.',
      });
      return document;
    },
  );
  api.get(
    '/api/schemas',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'The entity schemas',
        security: PUBLIC_SECURITY,
        response: answer(
          object(
            {
              entities: arrayOf(
                object(
                  {
                    name: { type: 'string' },
                    schema: anyJson({
                      description: 'the entity schema as its file has it (schemas/<name>.schema.json)',
                    }),
                  },
                  ['name', 'schema'],
                ),
              ),
            },
            ['entities'],
          ),
        ),
      },
    },
    // The answer is written once per generation of the registry, under its ETag.
    async (request, reply) => {
      const current = currentSchemas();
      return sendCached(request, reply, current.body, 'application/json; charset=utf-8', current.tag);
    },
  );
  // Built on first use (a second or two) and kept until a form is published or unpublished.
  let validators: Promise<string> | undefined;
  let validatorsTag: string | undefined;
  let validatorsGeneration = -1;
  const validatorsSchema = {
    tags,
    summary: "The forms' validators, compiled on the server",
    security: PUBLIC_SECURITY,
    produces: 'text/javascript',
    response: {},
  };
  api.get(
    '/api/schemas/validators.js',
    { config: PUBLIC, schema: validatorsSchema },
    async (request, reply) => {
      if (validatorsGeneration !== app.ctx.registry.generation) {
        validatorsGeneration = app.ctx.registry.generation;
        validators = undefined;
        validatorsTag = undefined;
      }
      validators ??= formValidatorsModule({
        entities: app.ctx.registry.all,
        engineDir: app.ctx.config.engineDir,
      });
      const code = await validators.catch((error: unknown) => {
        validators = undefined;
        throw error;
      });
      validatorsTag ??= etagOf(code);
      return sendCached(request, reply, code, 'text/javascript; charset=utf-8', validatorsTag);
    },
  );
}
