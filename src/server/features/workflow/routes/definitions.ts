import type { FastifyInstance } from 'fastify';
import { ok } from '../../../lib/http.js';
import { flag, object, text } from '../../../lib/route-schema.js';
import { setDefinitionSuspended } from '../services/deploy.js';
import { definitionXml, queryDefinitions } from '../services/queries.js';
import { deleteDefinition } from '../services/removal.js';
import { actorOf, BASE, BY_ID, PAGE, PAGING, schema, SELF } from './shared.js';

/** Process definitions (docs/product.md §2.3 /processdefinition; the start screen lists them too). */
export async function workflowDefinitionRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  app.get(
    `${BASE}/processdefinition/query`,
    {
      ...SELF,
      ...schema(
        'Process definitions of the tenant, paged (every signed-in user: the start screen lists them)',
        {
          querystring: object({
            ...PAGING,
            key: text(100),
            name: text(100),
            category: text(100),
            latestOnly: flag('Only the latest version of each key'),
          }),
        },
        PAGE,
      ),
    },
    async (request) => {
      const query = request.query as {
        key?: string;
        name?: string;
        category?: string;
        latestOnly?: string;
        currentPage?: number;
        pageSize?: number;
      };
      return ok(
        await queryDefinitions(ctx.db, actorOf(request), {
          ...query,
          latestOnly: query.latestOnly === 'true',
        }),
      );
    },
  );
  app.get(
    `${BASE}/processdefinition/xml`,
    schema('The BPMN file a definition was deployed from', { querystring: BY_ID('The definition') }),
    async (request) =>
      ok(await definitionXml(ctx.db, actorOf(request), (request.query as { id: number }).id)),
  );
  for (const [action, suspended] of [
    ['suspend', true],
    ['activate', false],
  ] as const) {
    app.post(
      `${BASE}/processdefinition/${action}`,
      schema(suspended ? 'Suspends a definition: new starts get 409' : 'Activates a suspended definition', {
        querystring: BY_ID('The definition'),
      }),
      async (request) =>
        ok(
          await setDefinitionSuspended(
            ctx,
            actorOf(request),
            (request.query as { id: number }).id,
            suspended,
          ),
        ),
    );
  }
  app.post(
    `${BASE}/processdefinition/delete`,
    schema('Deletes a definition with its ended instances (409 while one runs)', {
      querystring: BY_ID('The definition'),
    }),
    async (request) =>
      ok(await deleteDefinition(ctx, actorOf(request), (request.query as { id: number }).id)),
  );
}
