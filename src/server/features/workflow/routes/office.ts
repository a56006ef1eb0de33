import type { FastifyInstance } from 'fastify';
import { localizerFor } from '../../../lib/i18n.js';
import { ok } from '../../../lib/http.js';
import { answer, arrayOf, id, object, text, typed } from '../../../lib/route-schema.js';
import { orgUserTree } from '../../rbac/index.js';
import {
  assignTask,
  countOpenTasks,
  instanceDiagram,
  instanceExecutions,
  withdrawInstance,
} from '../services/office.js';
import { DIAGRAM, EXECUTION, INSTANCE, OPEN_COUNTS, ORG_USER_TREE, TASK } from './answers.js';
import { actorOf, assertTakesPart, BASE, byId, candidate, SELF, TAGS as tags } from './shared.js';

/** Calls of the workflow screens: badges, withdraw, the progress diagram, assign, executions. */
export async function workflowOfficeRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  api.get(
    `${BASE}/task/countOpen`,
    {
      config: SELF,
      schema: {
        tags,
        summary: "The caller's open tasks: assigned (待办) and claimable (待签收), for the badges",
        response: answer(OPEN_COUNTS),
      },
    },
    async (request) =>
      ok(
        await countOpenTasks({
          db: ctx.db,
          tenantCode: actorOf(request).tenantCode,
          who: await candidate(request),
        }),
      ),
  );
  api.post(
    `${BASE}/processinstance/withdraw`,
    {
      config: SELF,
      schema: {
        tags,
        summary:
          'The starter withdraws their instance while no task has been acted on (403 for others, 409 once acted on)',
        body: object({ id: id('The instance'), comment: text(2000) }, ['id']),
        response: answer(INSTANCE),
      },
    },
    async (request) => ok(await withdrawInstance({ ctx, actor: actorOf(request), input: request.body })),
  );
  api.get(
    `${BASE}/processinstance/diagram`,
    {
      config: SELF,
      schema: {
        tags,
        summary:
          "An instance's BPMN file with the activities completed, the ones waiting and the flows taken (its participants and administrators)",
        querystring: byId('The instance'),
        response: answer(DIAGRAM),
      },
    },
    async (request) => {
      const instanceId = request.query.id;
      const diagram = await instanceDiagram({
        db: ctx.db,
        tenantCode: actorOf(request).tenantCode,
        id: instanceId,
      });
      await assertTakesPart(request, instanceId);
      return ok(diagram);
    },
  );
  api.get(
    `${BASE}/people/tree`,
    {
      config: SELF,
      schema: {
        tags,
        summary:
          'The organisations of the tenant with their users, to pick a candidate, a delegate or an assignee (every signed-in user)',
        response: answer(ORG_USER_TREE),
      },
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
  api.post(
    `${BASE}/task/assignTask`,
    {
      schema: {
        tags,
        summary: 'Assigns an open task to a user (administrators)',
        body: object({ id: id('The task'), username: text(64, { minLength: 1 }), comment: text(2000) }, [
          'id',
          'username',
        ]),
        response: answer(TASK),
      },
    },
    async (request) =>
      ok(
        await assignTask({ ctx, actor: actorOf(request), l10n: localizerFor(request), input: request.body }),
      ),
  );
  api.get(
    `${BASE}/processinstance/executions`,
    {
      schema: {
        tags,
        summary: 'Where the tokens of an instance stand (administrators)',
        querystring: byId('The instance'),
        response: answer(arrayOf(EXECUTION)),
      },
    },
    async (request) =>
      ok(
        await instanceExecutions({
          db: ctx.db,
          tenantCode: actorOf(request).tenantCode,
          id: request.query.id,
        }),
      ),
  );
}
