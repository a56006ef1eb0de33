import type { FastifyInstance } from 'fastify';
import { ok } from '../../../lib/http.js';
import { answer, arrayOf, flag, id, object, text, typed } from '../../../lib/route-schema.js';
import {
  historyActivities,
  historyDetails,
  historyVariables,
  queryInstances,
  queryTasks,
} from '../services/queries.js';
import { deleteHistoricTask, deleteInstance } from '../services/removal.js';
import { ACTIVITY, DELETED, INSTANCE, pageOf, TASK, VARIABLE, VARIABLE_CHANGE } from './answers.js';
import { actorOf, BASE, byId, candidate, flagValue, PAGING, TAGS as tags } from './shared.js';

const BY_INSTANCE = object({ processInstanceId: id('The instance') }, ['processInstanceId']);

/** The five history views (docs/product.md §2.3: historic instances, activities, details, variables, tasks). */
export async function workflowHistoryRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  const H = `${BASE}/history`;
  api.get(
    `${H}/processinstance/query`,
    {
      schema: {
        tags,
        summary: 'Historic process instances (running and ended), paged',
        querystring: object({
          ...PAGING,
          processInstanceId: id('An instance'),
          processDefinitionKey: text(100),
          startUserId: text(64),
          finished: flag('Ended (true) or running (false) only'),
        }),
        response: answer(pageOf(INSTANCE)),
      },
    },
    async (request) => {
      const { finished, ...filters } = request.query;
      return ok(
        await queryInstances({
          db: ctx.db,
          actor: actorOf(request),
          params: { ...filters, ended: flagValue(finished) },
        }),
      );
    },
  );
  api.get(
    `${H}/activityinstance/query`,
    {
      schema: {
        tags,
        summary: 'The activities an instance passed, in order',
        querystring: BY_INSTANCE,
        response: answer(arrayOf(ACTIVITY)),
      },
    },
    async (request) =>
      ok(
        await historyActivities({
          db: ctx.db,
          tenantCode: actorOf(request).tenantCode,
          instanceId: request.query.processInstanceId,
        }),
      ),
  );
  api.get(
    `${H}/taskinstance/query`,
    {
      schema: {
        tags,
        summary: 'Tasks of an instance, open and finished, paged',
        querystring: object({
          ...PAGING,
          processInstanceId: id('An instance'),
          assignee: text(64),
          finished: flag(),
        }),
        response: answer(pageOf(TASK)),
      },
    },
    async (request) => {
      const { finished, ...filters } = request.query;
      return ok(
        await queryTasks({
          db: ctx.db,
          actor: actorOf(request),
          who: await candidate(request),
          list: 'all',
          params: { ...filters, finished: flagValue(finished) },
        }),
      );
    },
  );
  api.get(
    `${H}/variableinstance/query`,
    {
      schema: {
        tags,
        summary: 'The variables of an instance (their last values)',
        querystring: BY_INSTANCE,
        response: answer(arrayOf(VARIABLE)),
      },
    },
    async (request) =>
      ok(
        await historyVariables({
          db: ctx.db,
          tenantCode: actorOf(request).tenantCode,
          instanceId: request.query.processInstanceId,
        }),
      ),
  );
  api.get(
    `${H}/detail/query`,
    {
      schema: {
        tags,
        summary: 'Every change of the variables of an instance, in order',
        querystring: BY_INSTANCE,
        response: answer(arrayOf(VARIABLE_CHANGE)),
      },
    },
    async (request) =>
      ok(
        await historyDetails({
          db: ctx.db,
          tenantCode: actorOf(request).tenantCode,
          instanceId: request.query.processInstanceId,
        }),
      ),
  );
  api.post(
    `${H}/processinstance/delete`,
    {
      schema: {
        tags,
        summary: "Deletes an ended instance's history (409 while it runs)",
        querystring: byId('The instance'),
        response: answer(DELETED),
      },
    },
    async (request) =>
      ok(await deleteInstance({ ctx, actor: actorOf(request), id: request.query.id, endedOnly: true })),
  );
  api.post(
    `${H}/taskinstance/delete`,
    {
      schema: {
        tags,
        summary: "Deletes a finished task's history (409 while it is open)",
        querystring: byId('The task'),
        response: answer(DELETED),
      },
    },
    async (request) => ok(await deleteHistoricTask({ ctx, actor: actorOf(request), id: request.query.id })),
  );
}
