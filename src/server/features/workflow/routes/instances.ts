import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { localizerFor } from '../../../lib/i18n.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { flag, id, object, text } from '../../../lib/route-schema.js';
import {
  finishInstance,
  setInstanceSuspended,
  startInstance,
  type StartInput,
} from '../services/instances.js';
import { instanceDetail, queryInstances, takesPart, type InstanceFilters } from '../services/queries.js';
import {
  actorOf,
  BASE,
  BY_ID,
  candidate,
  COMMENT,
  FORM_DATA,
  oversees,
  PAGE,
  PAGING,
  schema,
  SELF,
  VARIABLES,
  WITH_NEXT_TASKS,
} from './shared.js';
import { deleteInstance } from '../services/removal.js';

const INSTANCE_FILTERS = {
  ...PAGING,
  processInstanceId: id('An instance'),
  processDefinitionKey: text(100),
  name: text(100),
  businessKey: text(200),
  status: { type: 'string', enum: ['running', 'over', 'rejected', 'terminated', 'withdrawn', ''] },
  ended: flag('Ended (true) or running (false) instances only'),
};

type FilterQuery = Omit<InstanceFilters, 'ended'> & { ended?: string };
const filtersOf = (query: FilterQuery): InstanceFilters => ({
  ...query,
  ended: query.ended === 'true' ? true : query.ended === 'false' ? false : undefined,
});

/** Process instances: start (personal office), the administrators' list and actions. */
export async function workflowInstanceRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  app.post(
    `${BASE}/processinstance/start`,
    {
      ...SELF,
      ...schema(
        'Starts the latest version of a process (or the definition named); 409 when it is suspended',
        {
          body: object(
            {
              processDefinitionKey: text(100, { minLength: 1 }),
              processDefinitionId: id('A definition'),
              businessKey: text(200),
              description: text(512, {
                minLength: 1,
                description: 'Required, at most 512 characters (docs/product.md §5)',
              }),
              variables: VARIABLES,
              formData: FORM_DATA,
            },
            ['description'],
            { anyOf: [{ required: ['processDefinitionKey'] }, { required: ['processDefinitionId'] }] },
          ),
        },
        WITH_NEXT_TASKS,
      ),
    },
    async (request) => {
      const auth = requireAuth(request);
      return ok(
        await startInstance(
          ctx,
          { ...actorOf(request), userId: auth.userId },
          localizerFor(request),
          request.body as StartInput,
        ),
      );
    },
  );
  app.get(
    `${BASE}/processinstance/query`,
    schema(
      'Process instances of the tenant, paged',
      {
        querystring: object({ ...INSTANCE_FILTERS, startUserId: text(64) }),
      },
      PAGE,
    ),
    async (request) =>
      ok(await queryInstances(ctx.db, actorOf(request), filtersOf(request.query as FilterQuery))),
  );
  app.get(
    `${BASE}/processinstance/queryMyProcess`,
    {
      ...SELF,
      ...schema(
        'The instances the caller started, paged (personal office: 我的流程)',
        { querystring: object(INSTANCE_FILTERS) },
        PAGE,
      ),
    },
    async (request) => {
      const actor = actorOf(request);
      return ok(
        await queryInstances(ctx.db, actor, {
          ...filtersOf(request.query as FilterQuery),
          startUserId: actor.username,
        }),
      );
    },
  );
  app.get(
    `${BASE}/processinstance/detail`,
    {
      ...SELF,
      ...schema(
        'An instance with its activities, variables, open tasks and comments (its participants and administrators)',
        {
          querystring: BY_ID('The instance'),
        },
      ),
    },
    async (request) => {
      const actor = actorOf(request);
      const instanceId = (request.query as { id: number }).id;
      const detail = await instanceDetail(ctx.db, actor.tenantCode, instanceId);
      if (!(await oversees(request)) && !(await takesPart(ctx.db, instanceId, await candidate(request))))
        throw new AppError('forbidden');
      return ok(detail);
    },
  );
  for (const [action, suspended] of [
    ['suspend', true],
    ['activate', false],
  ] as const) {
    app.post(
      `${BASE}/processinstance/${action}`,
      schema(
        suspended ? 'Suspends an instance: its tasks refuse actions (409)' : 'Activates a suspended instance',
        {
          querystring: BY_ID('The instance'),
        },
      ),
      async (request) =>
        ok(
          await setInstanceSuspended(ctx, actorOf(request), (request.query as { id: number }).id, suspended),
        ),
    );
  }
  app.post(
    `${BASE}/processinstance/terminate`,
    schema('Ends a running instance as terminated; its open tasks are closed', {
      body: object({ id: id('The instance'), comment: COMMENT }, ['id', 'comment']),
    }),
    async (request) => {
      const body = request.body as { id: number; comment: string };
      return ok(await finishInstance(ctx, actorOf(request), { ...body, status: 'terminated' }));
    },
  );
  app.post(
    `${BASE}/processinstance/delete`,
    schema('Deletes an instance, running or ended, with its tasks, variables and history', {
      querystring: BY_ID('The instance'),
    }),
    async (request) =>
      ok(
        await deleteInstance(ctx, actorOf(request), (request.query as { id: number }).id, {
          endedOnly: false,
        }),
      ),
  );
}
