import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { DocumentedRoute, RouteSchema } from '../../engine/index.js';
import { createRouteValidators } from '../lib/route-validators.js';
import { serializerSchemaOf } from '../lib/serializer-schemas.js';
import { routeSchemaManifest } from '../routes/schemas.js';

/**
 * Route schemas: Fastify validates params, query string and body with them and compiles the
 * 200 answer's serializer from them (records written as they are go through JSON.stringify:
 * lib/serializer-schemas.ts); the API document is made of the same objects.
 *
 * Bodies are checked with the entity ajv's options (no coercion: a JSON body has its types);
 * query strings and path parameters are text, so "12" becomes 12 where an integer is declared
 * (lib/route-validators.ts).
 * A route that declares no schema itself gets the one of the manifest (routes/schemas.ts);
 * every registered /api route is recorded for the document.
 */
async function routeSchemasPlugin(app: FastifyInstance): Promise<void> {
  const validators = createRouteValidators();
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body'
      ? validators.body(schema as Record<string, unknown>)
      : validators.text(schema as Record<string, unknown>),
  );
  const manifest = routeSchemaManifest(app.ctx);
  const declared: DocumentedRoute[] = [];
  app.decorate('routeSchemas', declared);
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().filter((method) => method !== 'HEAD');
    let documented = route.schema;
    for (const method of methods) {
      documented ??= manifest.get(`${method} ${route.url}`);
      if (!route.url.startsWith('/api/')) continue;
      declared.push({
        method: method as DocumentedRoute['method'],
        url: route.url,
        schema: (documented ?? {}) as RouteSchema,
        isPublic: route.config?.isPublic === true,
      });
    }
    // Fastify's copy: the same schema, with the serializer's shortcuts (lib/serializer-schemas.ts).
    route.schema =
      documented?.response === undefined
        ? documented
        : { ...documented, response: serializerSchemaOf(documented.response) };
  });
}

export const routeSchemas = fp(routeSchemasPlugin, { name: 'route-schemas' });
