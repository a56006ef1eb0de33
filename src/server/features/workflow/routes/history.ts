import type { FastifyInstance } from 'fastify';
import { ok } from '../../../lib/http.js';
import { flag, id, object, text } from '../../../lib/route-schema.js';
import {
  historyActivities,
  historyDetails,
  historyVariables,
  queryInstances,
  queryTasks,
  type InstanceFilters,
  type TaskFilters,
} from '../services/queries.js';
import { deleteHistoricTask, deleteInstance } from '../services/removal.js';
import { actorOf, BASE, BY_ID, candidate, PAGE, PAGING, RECORD, schema } from './shared.js';

const BY_INSTANCE = object({ processInstanceId: id('The instance') }, ['processInstanceId']);
const LIST = { type: 'array', items: RECORD };

/** The five history views (docs/product.md §2.3: historic instances, activities, details, variables, tasks). */
export async function workflowHistoryRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const H = `${BASE}/history`;
  app.get(
    `${H}/processinstance/query`,
    schema(
      'Historic process instances (running and ended), paged',
      {
        querystring: object({
          ...PAGING,
          processInstanceId: id('An instance'),
          processDefinitionKey: text(100),
          startUserId: text(64),
          finished: flag('Ended (true) or running (false) only'),
        }),
      },
      PAGE,
    ),
    async (request) => {
      const query = request.query as InstanceFilters & { finished?: string };
      const ended = query.finished === 'true' ? true : query.finished === 'false' ? false : undefined;
      return ok(await queryInstances(ctx.db, actorOf(request), { ...query, ended }));
    },
  );
  app.get(
    `${H}/activityinstance/query`,
    schema('The activities an instance passed, in order', { querystring: BY_INSTANCE }, LIST),
    async (request) =>
      ok(
        await historyActivities(
          ctx.db,
          actorOf(request).tenantCode,
          (request.query as { processInstanceId: number }).processInstanceId,
        ),
      ),
  );
  app.get(
    `${H}/taskinstance/query`,
    schema(
      'Tasks of an instance, open and finished, paged',
      {
        querystring: object({
          ...PAGING,
          processInstanceId: id('An instance'),
          assignee: text(64),
          finished: flag(),
        }),
      },
      PAGE,
    ),
    async (request) => {
      const query = request.query as Omit<TaskFilters, 'finished'> & { finished?: string };
      const finished = query.finished === 'true' ? true : query.finished === 'false' ? false : undefined;
      return ok(
        await queryTasks(ctx.db, actorOf(request), await candidate(request), 'all', { ...query, finished }),
      );
    },
  );
  app.get(
    `${H}/variableinstance/query`,
    schema('The variables of an instance (their last values)', { querystring: BY_INSTANCE }, LIST),
    async (request) =>
      ok(
        await historyVariables(
          ctx.db,
          actorOf(request).tenantCode,
          (request.query as { processInstanceId: number }).processInstanceId,
        ),
      ),
  );
  app.get(
    `${H}/detail/query`,
    schema('Every change of the variables of an instance, in order', { querystring: BY_INSTANCE }, LIST),
    async (request) =>
      ok(
        await historyDetails(
          ctx.db,
          actorOf(request).tenantCode,
          (request.query as { processInstanceId: number }).processInstanceId,
        ),
      ),
  );
  app.post(
    `${H}/processinstance/delete`,
    schema("Deletes an ended instance's history (409 while it runs)", { querystring: BY_ID('The instance') }),
    async (request) =>
      ok(
        await deleteInstance(ctx, actorOf(request), (request.query as { id: number }).id, {
          endedOnly: true,
        }),
      ),
  );
  app.post(
    `${H}/taskinstance/delete`,
    schema("Deletes a finished task's history (409 while it is open)", { querystring: BY_ID('The task') }),
    async (request) =>
      ok(await deleteHistoricTask(ctx, actorOf(request), (request.query as { id: number }).id)),
  );
}
