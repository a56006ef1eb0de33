import type { FastifyInstance, preSerializationHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { DocumentedRoute, RouteSchema } from '../../engine/index.js';
import { createAnswerChecks, type AnswerMismatch } from '../lib/answer-check.js';
import { createRouteValidators } from '../lib/route-validators.js';
import { serializerSchemaOf } from '../lib/serializer-schemas.js';

/**
 * Route schemas: Fastify validates params, query string and body with them and compiles the
 * 200 answer's serializer from them (records written as they are go through JSON.stringify:
 * lib/serializer-schemas.ts); the API document is made of the same objects.
 *
 * Bodies are checked with the entity ajv's options (no coercion: a JSON body has its types);
 * query strings and path parameters are text, so "12" becomes 12 where an integer is declared
 * (lib/route-validators.ts).
 * Every route declares its schema where it is registered (features/<name>/routes); every
 * registered /api route is recorded for the document, and one without a schema fails the
 * document's test (tests/integration/openapi.test.ts).
 */
export interface RouteSchemasOptions {
  /**
   * Called with every 200 JSON answer that differs from its route's declared schema (the
   * integration suite fails on any: lib/answer-check.ts); unset, answers are not checked.
   */
  onAnswerMismatch?: ((mismatch: AnswerMismatch) => void) | undefined;
}

async function routeSchemasPlugin(app: FastifyInstance, options: RouteSchemasOptions): Promise<void> {
  const { onAnswerMismatch } = options;
  const answerCheckOf = onAnswerMismatch ? createAnswerChecks() : undefined;
  const validators = createRouteValidators();
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body'
      ? validators.body(schema as Record<string, unknown>)
      : validators.text(schema as Record<string, unknown>),
  );
  const declared: DocumentedRoute[] = [];
  app.decorate('routeSchemas', declared);
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().filter((method) => method !== 'HEAD');
    const documented = route.schema;
    for (const method of methods) {
      if (!route.url.startsWith('/api/')) continue;
      declared.push({
        method: method as DocumentedRoute['method'],
        url: route.url,
        schema: (documented ?? {}) as RouteSchema,
        isPublic: route.config?.isPublic === true,
      });
    }
    const answerSchema = (documented?.response as Record<number, Record<string, unknown>> | undefined)?.[200];
    if (answerCheckOf && onAnswerMismatch && answerSchema && route.url.startsWith('/api/')) {
      const check = answerCheckOf(answerSchema);
      const checkAnswer: preSerializationHookHandler<unknown> = (request, reply, payload, done) => {
        const problems = reply.statusCode === 200 ? check(payload) : [];
        if (problems.length > 0) onAnswerMismatch({ method: request.method, url: route.url, problems });
        done(null, payload);
      };
      route.preSerialization = [...[route.preSerialization ?? []].flat(), checkAnswer];
    }
    // Fastify's copy: the same schema, with the serializer's shortcuts (lib/serializer-schemas.ts).
    route.schema =
      documented?.response === undefined
        ? documented
        : { ...documented, response: serializerSchemaOf(documented.response) };
  });
}

export const routeSchemas = fp(routeSchemasPlugin, { name: 'route-schemas' });
