import type { FastifyInstance } from 'fastify';
import { ok } from '../../../lib/http.js';
import { answer, flag, id, object, text, typed } from '../../../lib/route-schema.js';
import { setDefinitionSuspended } from '../services/deploy.js';
import { definitionXml, queryDefinitions } from '../services/queries.js';
import { deleteDefinition } from '../services/removal.js';
import { DEFINITION, DEFINITION_SUSPENDED, DEFINITION_XML, DELETED, pageOf } from './answers.js';
import { actorOf, BASE, byId, candidate, flagValue, PAGING, SELF, TAGS as tags } from './shared.js';

/** Process definitions (docs/product.md §2.3 /processdefinition; the start screen lists them too). */
export async function workflowDefinitionRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  api.get(
    `${BASE}/processdefinition/query`,
    {
      config: SELF,
      schema: {
        tags,
        summary:
          'Process definitions of the tenant, paged (every signed-in user: the start screen lists them)',
        querystring: object({
          ...PAGING,
          key: text(100),
          name: text(100),
          category: text(100),
          latestOnly: flag('Only the latest version of each key'),
          startable: flag('Only those the caller may start: their candidate starters name them (发起流程)'),
        }),
        response: answer(pageOf(DEFINITION)),
      },
    },
    async (request) => {
      const { latestOnly, startable, ...filters } = request.query;
      return ok(
        await queryDefinitions({
          db: ctx.db,
          actor: actorOf(request),
          params: { ...filters, latestOnly: latestOnly === 'true' },
          ...(startable === 'true' ? { starter: await candidate(request) } : {}),
        }),
      );
    },
  );
  api.get(
    `${BASE}/processdefinition/xml`,
    {
      schema: {
        tags,
        summary: 'The BPMN file a definition was deployed from',
        querystring: byId('The definition'),
        response: answer(DEFINITION_XML),
      },
    },
    async (request) => ok(await definitionXml({ db: ctx.db, actor: actorOf(request), id: request.query.id })),
  );
  for (const [action, suspended] of [
    ['suspend', true],
    ['activate', false],
  ] as const) {
    api.post(
      `${BASE}/processdefinition/${action}`,
      {
        schema: {
          tags,
          summary: suspended
            ? 'Suspends a definition: new starts get 409; with instances=true its running instances are suspended too'
            : 'Activates a suspended definition; with instances=true its suspended running instances too',
          querystring: object(
            {
              id: id('The definition'),
              instances: flag(
                suspended
                  ? 'Also suspend its running instances (同时挂起运行中的流程实例); default false'
                  : 'Also activate its suspended running instances; default false',
              ),
            },
            ['id'],
          ),
          response: answer(DEFINITION_SUSPENDED),
        },
      },
      async (request) =>
        ok(
          await setDefinitionSuspended({
            ctx,
            actor: actorOf(request),
            id: request.query.id,
            suspended,
            withInstances: flagValue(request.query.instances) === true,
          }),
        ),
    );
  }
  api.post(
    `${BASE}/processdefinition/delete`,
    {
      schema: {
        tags,
        summary: 'Deletes a definition with its ended instances (409 while one runs)',
        querystring: byId('The definition'),
        response: answer(DELETED),
      },
    },
    async (request) => ok(await deleteDefinition({ ctx, actor: actorOf(request), id: request.query.id })),
  );
}
