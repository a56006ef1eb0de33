import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openApiDocumentOf } from '../../../engine/index.js';
import type { AppContext } from '../../lib/context.js';
import { bearerToken, ok, tokenCookie } from '../../lib/http.js';
import { answer, anyJson, arrayOf, object, PUBLIC_SECURITY, typed } from '../../lib/route-schema.js';
import { formValidatorsModule, tenantsEntities } from '../forms/index.js';
import { findSession } from '../sessions/index.js';

/**
 * GET /api/openapi.json: the OpenAPI document of every route of the API, made from the route
 * schemas the server validates and serializes with (dropped-in entities included).
 * GET /api/schemas: the entity schemas themselves, from which the back-office derives its list
 * columns, filters and forms with the same engine functions as the server.
 * GET /api/schemas/validators.js: the forms' validators, compiled here (see form-validators.ts).
 * Both are public but list the published forms of the caller's tenant only (none to an anonymous
 * caller): each tenant has its answer and its ETag, and a shared cache keeps them apart (Vary).
 */
/** A strong validator of an answer's bytes. */
function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** The request headers that choose a tenant's answer: a shared cache keys the answers by them. */
const VARY = 'authorization, cookie';

/**
 * Sends a body that changes only with a restart or a form's publication under its ETag: a browser that has it already
 * (If-None-Match) gets a 304 without the body, so each back-office load checks rather than downloads.
 */
function sendCached(request: FastifyRequest, reply: FastifyReply, body: string, type: string, etag: string) {
  reply.header('etag', etag).header('cache-control', 'no-cache').header('vary', VARY);
  const known = request.headers['if-none-match'];
  if (known && known.split(',').some((tag) => tag.trim() === etag)) return reply.code(304).send();
  return reply.type(type).send(body);
}

/**
 * The tenant of the caller of a public route, undefined for an anonymous caller or a token that
 * names no live session (the answer is then the anonymous one, never an error): the bearer token,
 * else the token cookie, which is all a browser's module import (validators.js) sends.
 */
async function callerTenant(ctx: AppContext, request: FastifyRequest): Promise<string | undefined> {
  const token = bearerToken(request) ?? tokenCookie(request.headers.cookie);
  if (token === undefined) return undefined;
  const session = await findSession({
    db: ctx.db,
    userTable: ctx.registry.require('sysuser').table,
    accessToken: token,
    cache: ctx.sessionCache,
  });
  return session?.tenantCode;
}

/** The key of a tenant's answers ("" for the anonymous one). */
const keyOf = (tenantCode: string | undefined): string => (tenantCode === undefined ? '' : `t:${tenantCode}`);

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
  // The entity set changes with each publish of a form: the answers are made per registry
  // generation, one per tenant (its published forms), the tenant in its ETag's input.
  let generation = -1;
  const schemas = new Map<string, { body: string; tag: string }>();
  const validators = new Map<string, { code: Promise<string>; tag?: string }>();
  const forCurrentGeneration = (): void => {
    if (generation === app.ctx.registry.generation) return;
    generation = app.ctx.registry.generation;
    schemas.clear();
    validators.clear();
  };
  const currentSchemas = (tenantCode: string | undefined): { body: string; tag: string } => {
    forCurrentGeneration();
    const key = keyOf(tenantCode);
    let current = schemas.get(key);
    if (!current) {
      const entities = tenantsEntities(app.ctx, tenantCode);
      const body = JSON.stringify(
        ok({
          entities: entities.map((entity) => ({ name: entity.name, schema: entity.schema })),
          messages: app.ctx.modules.messages(),
        }),
      );
      current = { body, tag: etagOf(`${key}\n${body}`) };
      schemas.set(key, current);
    }
    return current;
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
              messages: anyJson({
                description:
                  "the server modules' texts by language, under modules.<module name> (their rules' messages name them)",
              }),
            },
            ['entities'],
          ),
        ),
      },
    },
    // The answer is written once per generation of the registry and tenant, under its ETag.
    async (request, reply) => {
      const current = currentSchemas(await callerTenant(app.ctx, request));
      return sendCached(request, reply, current.body, 'application/json; charset=utf-8', current.tag);
    },
  );
  // Built on first use (a second or two) per tenant and kept until a form is published or unpublished.
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
      const tenantCode = await callerTenant(app.ctx, request);
      forCurrentGeneration();
      const key = keyOf(tenantCode);
      const entry = validators.get(key) ?? {
        code: formValidatorsModule({
          entities: tenantsEntities(app.ctx, tenantCode),
          engineDir: app.ctx.config.engineDir,
        }),
      };
      validators.set(key, entry);
      const code = await entry.code.catch((error: unknown) => {
        if (validators.get(key) === entry) validators.delete(key);
        throw error;
      });
      entry.tag ??= etagOf(`${key}\n${code}`);
      return sendCached(request, reply, code, 'text/javascript; charset=utf-8', entry.tag);
    },
  );
}
