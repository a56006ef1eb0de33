import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { localizerFor } from '../../../lib/i18n.js';
import { ok } from '../../../lib/http.js';
import { id, object, text } from '../../../lib/route-schema.js';
import {
  assignTask,
  countOpenTasks,
  instanceDiagram,
  instanceExecutions,
  withdrawInstance,
} from '../services/office.js';
import { orgUserTree } from '../../rbac/index.js';
import { takesPart } from '../services/queries.js';
import { actorOf, BASE, BY_ID, candidate, oversees, RECORD, schema, SELF } from './shared.js';

const NAMES = { type: 'array', items: { type: 'string' } };

/** Calls of the workflow screens: badges, withdraw, the progress diagram, assign, executions. */
export async function workflowOfficeRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  app.get(
    `${BASE}/task/countOpen`,
    {
      ...SELF,
      ...schema(
        "The caller's open tasks: assigned (待办) and claimable (待签收), for the badges",
        {},
        object({ personal: { type: 'integer' }, candidate: { type: 'integer' } }, ['personal', 'candidate']),
      ),
    },
    async (request) =>
      ok(await countOpenTasks(ctx.db, actorOf(request).tenantCode, await candidate(request))),
  );
  app.post(
    `${BASE}/processinstance/withdraw`,
    {
      ...SELF,
      ...schema(
        'The starter withdraws their instance while no task has been acted on (403 for others, 409 once acted on)',
        { body: object({ id: id('The instance'), comment: text(2000) }, ['id']) },
      ),
    },
    async (request) =>
      ok(await withdrawInstance(ctx, actorOf(request), request.body as { id: number; comment?: string })),
  );
  app.get(
    `${BASE}/processinstance/diagram`,
    {
      ...SELF,
      ...schema(
        "An instance's BPMN file with the activities completed, the ones waiting and the flows taken (its participants and administrators)",
        { querystring: BY_ID('The instance') },
        object(
          {
            processInstanceId: { type: 'integer' },
            processDefinitionId: { type: 'integer' },
            resourceName: { type: 'string' },
            xml: { type: 'string' },
            completed: NAMES,
            active: NAMES,
            flows: NAMES,
          },
          ['xml', 'completed', 'active', 'flows'],
        ),
      ),
    },
    async (request) => {
      const instanceId = (request.query as { id: number }).id;
      const diagram = await instanceDiagram(ctx.db, actorOf(request).tenantCode, instanceId);
      if (!(await oversees(request)) && !(await takesPart(ctx.db, instanceId, await candidate(request))))
        throw new AppError('forbidden');
      return ok(diagram);
    },
  );
  app.get(
    `${BASE}/people/tree`,
    {
      ...SELF,
      ...schema(
        'The organisations of the tenant with their users, to pick a candidate, a delegate or an assignee (every signed-in user)',
        {},
        { type: 'array', items: RECORD },
      ),
    },
    async (request) =>
      ok(
        await orgUserTree({
          ctx,
          tenantCode: actorOf(request).tenantCode,
          assigned: () => ({ checked: false, isMainRole: false }),
          isAssignedOnly: false,
        }),
      ),
  );
  app.post(
    `${BASE}/task/assignTask`,
    schema('Assigns an open task to a user (administrators)', {
      body: object({ id: id('The task'), username: text(64, { minLength: 1 }), comment: text(2000) }, [
        'id',
        'username',
      ]),
    }),
    async (request) =>
      ok(
        await assignTask(
          ctx,
          actorOf(request),
          localizerFor(request),
          request.body as { id: number; username: string; comment?: string },
        ),
      ),
  );
  app.get(
    `${BASE}/processinstance/executions`,
    schema(
      'Where the tokens of an instance stand (administrators)',
      { querystring: BY_ID('The instance') },
      { type: 'array', items: RECORD },
    ),
    async (request) =>
      ok(await instanceExecutions(ctx.db, actorOf(request).tenantCode, (request.query as { id: number }).id)),
  );
}
