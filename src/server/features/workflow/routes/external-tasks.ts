import type { FastifyInstance } from 'fastify';
import { ok } from '../../../lib/http.js';
import { answer, arrayOf, id, integer, object, text, typed } from '../../../lib/route-schema.js';
import {
  completeExternalTask,
  EXTERNAL_BUDGETS as BUDGET,
  extendExternalLock,
  failExternalTask,
  fetchAndLock,
  queryExternalTasks,
  reportExternalError,
  unlockExternalTask,
} from '../services/external-tasks.js';
import { EXTERNAL_TOPIC_MAX } from '../services/parse.js';
import { EXTERNAL_TASK, LOCKED_TASK, pageOf } from './answers.js';
import { actorOf, BASE, PAGING, TAGS as tags, VARIABLES } from './shared.js';

const WORKER_ID = text(64, { minLength: 1, description: 'The name the worker gives itself' });
const LOCK_MS = (description: string) => integer(1, BUDGET.lockMs, { description });

/**
 * The external-task API for workers (Camunda's fetchAndLock / complete / failure / bpmnError /
 * extendLock / unlock, under /api/activiti/externalTask). Granted by URL as every administrators' call (a
 * worker signs in with a user or an API key whose role is granted these URLs); every task is
 * looked up in the caller's tenant.
 */
export async function workflowExternalTaskRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  api.post(
    `${BASE}/externalTask/fetchAndLock`,
    {
      schema: {
        tags,
        summary: 'Locks open external tasks of the topics for the worker, with their variables',
        body: object(
          {
            workerId: WORKER_ID,
            maxTasks: integer(1, BUDGET.maxTasks, { description: 'Tasks to lock at most' }),
            topics: arrayOf(
              object(
                {
                  topicName: text(EXTERNAL_TOPIC_MAX, { minLength: 1 }),
                  lockDuration: LOCK_MS('How long the lock holds (ms)'),
                },
                ['topicName', 'lockDuration'],
              ),
              { minItems: 1, maxItems: BUDGET.topics },
            ),
          },
          ['workerId', 'maxTasks', 'topics'],
        ),
        response: answer(arrayOf(LOCKED_TASK)),
      },
    },
    async (request) => ok(await fetchAndLock({ ctx, actor: actorOf(request), input: request.body })),
  );
  api.post(
    `${BASE}/externalTask/complete`,
    {
      schema: {
        tags,
        summary: 'Completes a task the worker holds: its variables are set and the process goes on',
        body: object({ id: id('The external task'), workerId: WORKER_ID, variables: VARIABLES }, [
          'id',
          'workerId',
        ]),
        response: answer(object({ id: id() }, ['id'])),
      },
    },
    async (request) => {
      await completeExternalTask({ ctx, actor: actorOf(request), input: request.body });
      return ok({ id: request.body.id });
    },
  );
  api.post(
    `${BASE}/externalTask/failure`,
    {
      schema: {
        tags,
        summary:
          'Reports a failure of a task the worker holds: offered again after retryTimeout while retries are left; 0 retries: an incident',
        body: object(
          {
            id: id('The external task'),
            workerId: WORKER_ID,
            errorMessage: text(2000, { minLength: 1 }),
            errorDetails: text(20_000),
            retries: integer(0, BUDGET.retries, { description: 'Retries left' }),
            retryTimeout: integer(0, BUDGET.retryTimeoutMs, {
              description: 'Wait before it is offered again (ms)',
            }),
          },
          ['id', 'workerId', 'errorMessage', 'retries'],
        ),
        response: answer(EXTERNAL_TASK),
      },
    },
    async (request) => ok(await failExternalTask({ ctx, actor: actorOf(request), input: request.body })),
  );
  api.post(
    `${BASE}/externalTask/bpmnError`,
    {
      schema: {
        tags,
        summary:
          "Reports a business error at a task the worker holds: thrown there, the task's error boundary event (or its scopes' handlers) catches it; caught by none: an incident",
        body: object(
          {
            id: id('The external task'),
            workerId: WORKER_ID,
            errorCode: text(255, { minLength: 1, description: 'The error code boundary events catch' }),
            errorMessage: text(2000),
            variables: VARIABLES,
          },
          ['id', 'workerId', 'errorCode'],
        ),
        response: answer(object({ id: id() }, ['id'])),
      },
    },
    async (request) => {
      await reportExternalError({ ctx, actor: actorOf(request), input: request.body });
      return ok({ id: request.body.id });
    },
  );
  api.post(
    `${BASE}/externalTask/extendLock`,
    {
      schema: {
        tags,
        summary: 'Extends the lock of a task the worker holds to newDuration from now',
        body: object(
          {
            id: id('The external task'),
            workerId: WORKER_ID,
            newDuration: LOCK_MS('The new lock (ms from now)'),
          },
          ['id', 'workerId', 'newDuration'],
        ),
        response: answer(EXTERNAL_TASK),
      },
    },
    async (request) => ok(await extendExternalLock({ ctx, actor: actorOf(request), input: request.body })),
  );
  api.post(
    `${BASE}/externalTask/unlock`,
    {
      schema: {
        tags,
        summary: 'Gives a locked task back: any worker of its topic may fetch it at once',
        body: object({ id: id('The external task') }, ['id']),
        response: answer(EXTERNAL_TASK),
      },
    },
    async (request) => ok(await unlockExternalTask({ ctx, actor: actorOf(request), id: request.body.id })),
  );
  api.get(
    `${BASE}/externalTask/query`,
    {
      schema: {
        tags,
        summary: 'The open external tasks of the tenant, oldest first, paged',
        querystring: object({
          ...PAGING,
          topicName: text(EXTERNAL_TOPIC_MAX),
          processInstanceId: id('An instance'),
          workerId: text(64),
        }),
        response: answer(pageOf(EXTERNAL_TASK)),
      },
    },
    async (request) =>
      ok(await queryExternalTasks({ db: ctx.db, actor: actorOf(request), params: request.query })),
  );
}
