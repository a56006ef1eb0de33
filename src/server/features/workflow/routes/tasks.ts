import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { localizerFor } from '../../../lib/i18n.js';
import { ok } from '../../../lib/http.js';
import { flag, id, object, text } from '../../../lib/route-schema.js';
import { formInfo } from '../services/forms.js';
import {
  queryTasks,
  takesPart,
  taskById,
  taskCandidates,
  type TaskFilters,
  type TaskList,
} from '../services/queries.js';
import {
  claimTask,
  completeTask,
  delegateTask,
  endByTask,
  regressNodes,
  regressTask,
  resolveTask,
  unclaimTask,
} from '../services/tasks.js';
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

const TASK_FILTERS = { ...PAGING, processInstanceId: id('An instance'), name: text(100) };

const byId = (request: FastifyRequest): number => (request.query as { id: number }).id;

/** Tasks: the personal office's lists and actions, and the administrators' list. */
export async function workflowTaskRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const lists: [string, TaskList, string][] = [
    ['queryPersonalTask', 'personal', 'Open tasks assigned to the caller (待办任务)'],
    ['queryCandidateTask', 'candidate', 'Open unclaimed tasks the caller is a candidate of (待签任务)'],
    ['queryFinishedTask', 'finished', 'Tasks the caller has finished (已办任务)'],
  ];
  for (const [name, list, summary] of lists) {
    app.get(
      `${BASE}/task/${name}`,
      { ...SELF, ...schema(summary, { querystring: object(TASK_FILTERS) }, PAGE) },
      async (request) =>
        ok(
          await queryTasks(
            ctx.db,
            actorOf(request),
            // Only the candidate list looks at the caller's groups: the others need no query for them.
            list === 'candidate'
              ? await candidate(request)
              : { username: actorOf(request).username, groups: [] },
            list,
            request.query as TaskFilters,
          ),
        ),
    );
  }
  app.get(
    `${BASE}/task/query`,
    schema(
      'Every task of the tenant, paged (administrators)',
      {
        querystring: object({
          ...TASK_FILTERS,
          assignee: text(64),
          finished: flag('Finished (true) or open (false) only'),
        }),
      },
      PAGE,
    ),
    async (request) => {
      const query = request.query as Omit<TaskFilters, 'finished'> & { finished?: string };
      const finished = query.finished === 'true' ? true : query.finished === 'false' ? false : undefined;
      return ok(
        await queryTasks(
          ctx.db,
          actorOf(request),
          { username: actorOf(request).username, groups: [] },
          'all',
          {
            ...query,
            finished,
          },
        ),
      );
    },
  );
  app.get(
    `${BASE}/task/detail`,
    {
      ...SELF,
      ...schema('A task with its candidates and form (its participants and administrators)', {
        querystring: BY_ID('The task'),
      }),
    },
    async (request) => {
      const actor = actorOf(request);
      const task = await taskById(ctx.db, actor.tenantCode, byId(request));
      const instanceId = Number(task.processInstanceId);
      if (!(await oversees(request)) && !(await takesPart(ctx.db, instanceId, await candidate(request))))
        throw new AppError('forbidden');
      const formKey = typeof task.formKey === 'string' ? task.formKey : null;
      return ok({
        ...task,
        candidates: await taskCandidates(ctx.db, byId(request)),
        form: formInfo(ctx, formKey),
      });
    },
  );
  app.post(
    `${BASE}/task/claimTask`,
    {
      ...SELF,
      ...schema('Claims a task (its candidates only: 403; claimed already: 409)', {
        querystring: BY_ID('The task'),
      }),
    },
    async (request) => ok(await claimTask(ctx, actorOf(request), await candidate(request), byId(request))),
  );
  app.post(
    `${BASE}/task/unclaimTask`,
    {
      ...SELF,
      ...schema('Gives a claimed task back to its candidates (its assignee only)', {
        querystring: BY_ID('The task'),
      }),
    },
    async (request) => ok(await unclaimTask(ctx, actorOf(request), byId(request))),
  );
  app.post(
    `${BASE}/task/completeTask`,
    {
      ...SELF,
      ...schema(
        "Completes a task (its assignee only: 403; handled already: 409); the form data is checked by the formKey's entity",
        {
          body: object({ id: id('The task'), variables: VARIABLES, formData: FORM_DATA, comment: COMMENT }, [
            'id',
            'comment',
          ]),
        },
        WITH_NEXT_TASKS,
      ),
    },
    async (request) =>
      ok(
        await completeTask(
          ctx,
          actorOf(request),
          localizerFor(request),
          request.body as Parameters<typeof completeTask>[3],
        ),
      ),
  );
  app.post(
    `${BASE}/task/delegateTask`,
    {
      ...SELF,
      ...schema('Delegates a task to another user, who resolves it back to the owner', {
        body: object({ id: id('The task'), username: text(64, { minLength: 1 }), comment: COMMENT }, [
          'id',
          'username',
          'comment',
        ]),
      }),
    },
    async (request) =>
      ok(
        await delegateTask(
          ctx,
          actorOf(request),
          localizerFor(request),
          request.body as Parameters<typeof delegateTask>[3],
        ),
      ),
  );
  app.post(
    `${BASE}/task/resolveTask`,
    {
      ...SELF,
      ...schema('The delegate hands a delegated task back to its owner', {
        body: object({ id: id('The task'), variables: VARIABLES, comment: COMMENT }, ['id', 'comment']),
      }),
    },
    async (request) =>
      ok(await resolveTask(ctx, actorOf(request), request.body as Parameters<typeof resolveTask>[2])),
  );
  app.get(
    `${BASE}/task/queryRegressNodes`,
    {
      ...SELF,
      ...schema(
        'Earlier completed user tasks the task may be sent back to, with their last assignee',
        {
          querystring: BY_ID('The task'),
        },
        {
          type: 'array',
          items: object({
            activityId: { type: 'string' },
            name: { type: ['string', 'null'] },
            assignee: { type: ['string', 'null'] },
          }),
        },
      ),
    },
    async (request) => ok(await regressNodes(ctx, actorOf(request), byId(request))),
  );
  app.post(
    `${BASE}/task/regressTask`,
    {
      ...SELF,
      ...schema('Sends the instance back to an earlier completed user task, assigned to its last assignee', {
        body: object({ id: id('The task'), activityId: text(100, { minLength: 1 }), comment: COMMENT }, [
          'id',
          'activityId',
          'comment',
        ]),
      }),
    },
    async (request) =>
      ok(
        await regressTask(
          ctx,
          actorOf(request),
          localizerFor(request),
          request.body as Parameters<typeof regressTask>[3],
        ),
      ),
  );
  for (const [name, status, summary] of [
    ['rejectTask', 'rejected', 'Rejects: the instance ends with status rejected'],
    ['terminateTask', 'terminated', 'Terminates: the instance ends with status terminated'],
  ] as const) {
    app.post(
      `${BASE}/task/${name}`,
      {
        ...SELF,
        ...schema(summary, { body: object({ id: id('The task'), comment: COMMENT }, ['id', 'comment']) }),
      },
      async (request) => {
        const body = request.body as { id: number; comment: string };
        return ok(await endByTask(ctx, actorOf(request), { ...body, status }));
      },
    );
  }
}
