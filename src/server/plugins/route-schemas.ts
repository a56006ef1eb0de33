import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createAjv, type DocumentedRoute, type RouteSchema } from '../../engine/index.js';
import { routeSchemaManifest } from '../routes/schemas.js';

/**
 * Route schemas: Fastify validates params, query string and body with them and compiles the
 * 200 answer's serializer from them; the API document is made of the same objects.
 *
 * Bodies are checked with the entity ajv's options (no coercion: a JSON body has its types);
 * query strings and path parameters are text, so "12" becomes 12 where an integer is declared.
 * A route that declares no schema itself gets the one of the manifest (routes/schemas.ts);
 * every registered /api route is recorded for the document.
 */
async function routeSchemasPlugin(app: FastifyInstance): Promise<void> {
  const bodyAjv = createAjv();
  const textAjv = createAjv({ coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body'
      ? bodyAjv.compile(schema as Record<string, unknown>)
      : finiteNumbersOnly(textAjv.compile(schema as Record<string, unknown>)),
  );
  const manifest = routeSchemaManifest(app.ctx);
  const declared: DocumentedRoute[] = [];
  app.decorate('routeSchemas', declared);
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().filter((method) => method !== 'HEAD');
    for (const method of methods) {
      route.schema ??= manifest.get(`${method} ${route.url}`);
      if (!route.url.startsWith('/api/')) continue;
      declared.push({
        method: method as DocumentedRoute['method'],
        url: route.url,
        schema: (route.schema ?? {}) as RouteSchema,
        isPublic: route.config?.isPublic === true,
      });
    }
  });
}

/**
 * Text coerced to a number can be infinite ("1e400"), which ajv's integer and range checks let
 * through; such a value is refused here, named, before it reaches a handler or SQL.
 */
function finiteNumbersOnly(validate: ValidateFunction): (data: unknown) => boolean {
  const check = (data: unknown): boolean => {
    if (!validate(data)) {
      check.errors = validate.errors;
      return false;
    }
    const entries = typeof data === 'object' && data !== null ? Object.entries(data) : [];
    const infinite = entries.find(([, value]) =>
      [value].flat().some((item) => typeof item === 'number' && !Number.isFinite(item)),
    );
    check.errors = infinite ? [infiniteNumber(infinite[0])] : null;
    return infinite === undefined;
  };
  check.errors = null as ErrorObject[] | null | undefined;
  return check;
}

function infiniteNumber(name: string): ErrorObject {
  return {
    instancePath: `/${name}`,
    schemaPath: '#/type',
    keyword: 'type',
    params: { type: 'integer' },
    message: 'must be integer',
  };
}

export const routeSchemas = fp(routeSchemasPlugin, { name: 'route-schemas' });
