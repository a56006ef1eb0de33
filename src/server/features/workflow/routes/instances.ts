import type { FastifyInstance } from 'fastify';
import { localizerFor } from '../../../lib/i18n.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { answer, bool, flag, id, object, oneOf, text, typed } from '../../../lib/route-schema.js';
import {
  finishInstance,
  retryIncident,
  setInstanceSuspended,
  setInstanceVariables,
  startInstance,
} from '../services/instances.js';
import { correlateMessage, throwSignalFromOutside } from '../services/events.js';
import { instanceDetail, queryInstances } from '../services/queries.js';
import { deleteInstance } from '../services/removal.js';
import { CORRELATED, DELETED, INSTANCE, INSTANCE_DETAIL, pageOf, STARTED } from './answers.js';
import {
  actorOf,
  BASE,
  byId,
  candidateLater,
  COMMENT,
  flagValue,
  FORM_DATA,
  assertTakesPart,
  PAGING,
  SELF,
  TAGS as tags,
  VARIABLES,
} from './shared.js';

/** At least one variable: a change of nothing is a mistake of the caller's. */
const SOME_VARIABLES = { ...VARIABLES, minProperties: 1 };

const INSTANCE_FILTERS = {
  ...PAGING,
  processInstanceId: id('An instance'),
  processDefinitionKey: text(100),
  name: text(100),
  businessKey: text(200),
  status: oneOf(['running', 'over', 'rejected', 'terminated', 'withdrawn', '']),
  ended: flag('Ended (true) or running (false) instances only'),
};

/** Process instances: start (personal office), the administrators' list and actions. */
export async function workflowInstanceRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  api.post(
    `${BASE}/processinstance/start`,
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Starts the latest version of a process (or the definition named); 409 when it is suspended',
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
        response: answer(STARTED),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return ok(
        await startInstance({
          ctx,
          actor: { ...actorOf(request), userId: auth.userId },
          roles: auth.roles,
          l10n: localizerFor(request),
          input: request.body,
          who: candidateLater(request),
        }),
      );
    },
  );
  api.get(
    `${BASE}/processinstance/query`,
    {
      schema: {
        tags,
        summary: 'Process instances of the tenant, paged',
        querystring: object({ ...INSTANCE_FILTERS, startUserId: text(64) }),
        response: answer(pageOf(INSTANCE)),
      },
    },
    async (request) => {
      const { ended, ...filters } = request.query;
      return ok(
        await queryInstances({
          db: ctx.db,
          actor: actorOf(request),
          params: { ...filters, ended: flagValue(ended) },
        }),
      );
    },
  );
  api.get(
    `${BASE}/processinstance/queryMyProcess`,
    {
      config: SELF,
      schema: {
        tags,
        summary: 'The instances the caller started, paged (personal office: 我的流程)',
        querystring: object(INSTANCE_FILTERS),
        response: answer(pageOf(INSTANCE)),
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { ended, ...filters } = request.query;
      return ok(
        await queryInstances({
          db: ctx.db,
          actor,
          params: { ...filters, ended: flagValue(ended), startUserId: actor.username },
        }),
      );
    },
  );
  api.get(
    `${BASE}/processinstance/detail`,
    {
      config: SELF,
      schema: {
        tags,
        summary:
          'An instance with its activities, variables, open tasks and comments (its participants and administrators)',
        querystring: byId('The instance'),
        response: answer(INSTANCE_DETAIL),
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const instanceId = request.query.id;
      const detail = await instanceDetail({ db: ctx.db, tenantCode: actor.tenantCode, id: instanceId });
      await assertTakesPart(request, instanceId);
      return ok(detail);
    },
  );
  for (const [action, suspended] of [
    ['suspend', true],
    ['activate', false],
  ] as const) {
    api.post(
      `${BASE}/processinstance/${action}`,
      {
        schema: {
          tags,
          summary: suspended
            ? 'Suspends an instance: its tasks refuse actions (409)'
            : 'Activates a suspended instance',
          querystring: byId('The instance'),
          response: answer(INSTANCE),
        },
      },
      async (request) =>
        ok(await setInstanceSuspended({ ctx, actor: actorOf(request), id: request.query.id, suspended })),
    );
  }
  api.post(
    `${BASE}/processinstance/terminate`,
    {
      schema: {
        tags,
        summary: 'Ends a running instance as terminated; its open tasks are closed',
        body: object({ id: id('The instance'), comment: COMMENT }, ['id', 'comment']),
        response: answer(INSTANCE),
      },
    },
    async (request) =>
      ok(
        await finishInstance({
          ctx,
          actor: actorOf(request),
          input: { ...request.body, status: 'terminated' },
        }),
      ),
  );
  api.post(
    `${BASE}/processinstance/retry`,
    {
      schema: {
        tags,
        summary:
          'Runs an instance stopped in an incident again from where it stopped, after setting the variables given; 400 when it stops again (nothing written)',
        body: object({ id: id('The instance'), variables: VARIABLES }, ['id']),
        response: answer(INSTANCE),
      },
    },
    async (request) => ok(await retryIncident({ ctx, actor: actorOf(request), input: request.body })),
  );
  api.post(
    `${BASE}/processinstance/variables`,
    {
      schema: {
        tags,
        summary:
          'Sets variables of a running instance: the conditional events whose condition now holds go on in the same transaction; 409 when it is suspended',
        body: object({ id: id('The instance'), variables: SOME_VARIABLES }, ['id', 'variables']),
        response: answer(INSTANCE),
      },
    },
    async (request) => ok(await setInstanceVariables({ ctx, actor: actorOf(request), input: request.body })),
  );
  api.post(
    `${BASE}/processinstance/message`,
    {
      schema: {
        tags,
        summary:
          'Correlates a message by name (and business key or instance): the one token waiting for it goes on, or the one process with a message start event of its name starts; 404 when none waits, 409 when several do (unless all)',
        body: object(
          {
            messageName: text(200, { minLength: 1 }),
            businessKey: text(200),
            processInstanceId: id('Only a token of this instance (no message start)'),
            variables: VARIABLES,
            all: bool({ description: 'Reach every waiting token and message start that matches' }),
          },
          ['messageName'],
        ),
        response: answer(CORRELATED),
      },
    },
    async (request) => ok(await correlateMessage({ ctx, actor: actorOf(request), input: request.body })),
  );
  api.post(
    `${BASE}/processinstance/signal`,
    {
      schema: {
        tags,
        summary:
          'Throws a signal in the tenant: every token waiting for it goes on and every process with a signal start event of its name starts (nobody waiting is no error)',
        body: object({ signalName: text(200, { minLength: 1 }), variables: VARIABLES }, ['signalName']),
        response: answer(CORRELATED),
      },
    },
    async (request) =>
      ok(await throwSignalFromOutside({ ctx, actor: actorOf(request), input: request.body })),
  );
  api.post(
    `${BASE}/processinstance/delete`,
    {
      schema: {
        tags,
        summary: 'Deletes an instance, running or ended, with its tasks, variables and history',
        querystring: byId('The instance'),
        response: answer(DELETED),
      },
    },
    async (request) =>
      ok(await deleteInstance({ ctx, actor: actorOf(request), id: request.query.id, endedOnly: false })),
  );
}
