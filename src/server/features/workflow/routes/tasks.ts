import type { FastifyInstance } from 'fastify';
import { localizerFor } from '../../../lib/i18n.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { answer, arrayOf, flag, id, object, oneOf, text, typed } from '../../../lib/route-schema.js';
import { formInfo } from '../services/forms.js';
import { queryCopies, queryTasks, taskById, taskCandidates, type TaskList } from '../services/queries.js';
import {
  addSignTask,
  claimTask,
  completeTask,
  delegateTask,
  endByTask,
  regressNodes,
  regressTask,
  resolveTask,
  transferTask,
  unclaimTask,
} from '../services/tasks.js';
import { COMPLETED, COPY, pageOf, REGRESS_NODE, TASK, TASK_DETAIL } from './answers.js';
import {
  actorOf,
  assertTakesPart,
  BASE,
  byId,
  candidate,
  COMMENT,
  flagValue,
  oversees,
  FORM_DATA,
  PAGING,
  SELF,
  TAGS as tags,
  VARIABLES,
} from './shared.js';

/** A list of user names (抄送, 加签). */
const USERNAMES = (description: string, minItems = 0) =>
  arrayOf(text(64, { minLength: 1 }), { maxItems: 50, minItems, description });

const TASK_FILTERS = {
  ...PAGING,
  processInstanceId: id('An instance'),
  rootProcessInstanceId: id('An instance: its tasks and those of the instances its call activities started'),
  name: text(100),
};

/** Tasks: the personal office's lists and actions, and the administrators' list. */
export async function workflowTaskRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  const lists: [string, TaskList, string][] = [
    ['queryPersonalTask', 'personal', 'Open tasks assigned to the caller (待办任务)'],
    ['queryCandidateTask', 'candidate', 'Open unclaimed tasks the caller is a candidate of (待签任务)'],
    ['queryFinishedTask', 'finished', 'Tasks the caller has finished (已办任务)'],
  ];
  for (const [name, list, summary] of lists) {
    api.get(
      `${BASE}/task/${name}`,
      {
        config: SELF,
        schema: { tags, summary, querystring: object(TASK_FILTERS), response: answer(pageOf(TASK)) },
      },
      async (request) =>
        ok(
          await queryTasks({
            db: ctx.db,
            actor: actorOf(request),
            // Only the candidate list looks at the caller's groups: the others need no query for them.
            who:
              list === 'candidate'
                ? await candidate(request)
                : { username: actorOf(request).username, groups: [] },
            list,
            params: request.query,
          }),
        ),
    );
  }
  api.get(
    `${BASE}/task/queryCopyTask`,
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Instances copied to the caller (抄送我的): they may read them, not act on them',
        querystring: object({ ...PAGING, processInstanceId: id('An instance'), name: text(100) }),
        response: answer(pageOf(COPY)),
      },
    },
    async (request) => ok(await queryCopies({ db: ctx.db, actor: actorOf(request), params: request.query })),
  );
  api.get(
    `${BASE}/task/query`,
    {
      schema: {
        tags,
        summary: 'Every task of the tenant, paged (administrators)',
        querystring: object({
          ...TASK_FILTERS,
          assignee: text(64),
          finished: flag('Finished (true) or open (false) only'),
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
          who: { username: actorOf(request).username, groups: [] },
          list: 'all',
          params: { ...filters, finished: flagValue(finished) },
        }),
      );
    },
  );
  api.get(
    `${BASE}/task/detail`,
    {
      config: SELF,
      schema: {
        tags,
        summary: 'A task with its candidates and form (its participants and administrators)',
        querystring: byId('The task'),
        response: answer(TASK_DETAIL),
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const taskId = request.query.id;
      const task = await taskById({ db: ctx.db, tenantCode: actor.tenantCode, id: taskId });
      await assertTakesPart(request, task.processInstanceId);
      return ok({
        ...task,
        candidates: await taskCandidates(ctx, ctx.db, actor.tenantCode, taskId),
        form: formInfo(ctx, task.formKey),
      });
    },
  );
  api.post(
    `${BASE}/task/claimTask`,
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Claims a task (its candidates only: 403; claimed already: 409)',
        querystring: byId('The task'),
        response: answer(TASK),
      },
    },
    async (request) =>
      ok(
        await claimTask({
          ctx,
          actor: actorOf(request),
          who: await candidate(request),
          id: request.query.id,
        }),
      ),
  );
  api.post(
    `${BASE}/task/unclaimTask`,
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Gives a claimed task back to its candidates (its assignee only)',
        querystring: byId('The task'),
        response: answer(TASK),
      },
    },
    async (request) => ok(await unclaimTask({ ctx, actor: actorOf(request), id: request.query.id })),
  );
  api.post(
    `${BASE}/task/completeTask`,
    {
      config: SELF,
      schema: {
        tags,
        summary:
          "Completes a task (its assignee only: 403; handled already: 409); the form data is checked by the formKey's entity; copyUsers (抄送) read the instance from 抄送我的",
        body: object(
          {
            id: id('The task'),
            variables: VARIABLES,
            formData: FORM_DATA,
            comment: COMMENT,
            copyUsers: USERNAMES('抄送: users of the tenant the instance is copied to'),
          },
          ['id', 'comment'],
        ),
        response: answer(COMPLETED),
      },
    },
    async (request) =>
      ok(
        await completeTask({
          ctx,
          actor: actorOf(request),
          roles: requireAuth(request).roles,
          l10n: localizerFor(request),
          input: request.body,
        }),
      ),
  );
  api.post(
    `${BASE}/task/delegateTask`,
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Delegates a task to another user, who resolves it back to the owner',
        body: object({ id: id('The task'), username: text(64, { minLength: 1 }), comment: COMMENT }, [
          'id',
          'username',
          'comment',
        ]),
        response: answer(TASK),
      },
    },
    async (request) =>
      ok(
        await delegateTask({
          ctx,
          actor: actorOf(request),
          l10n: localizerFor(request),
          input: request.body,
        }),
      ),
  );
  api.post(
    `${BASE}/task/transferTask`,
    {
      config: SELF,
      schema: {
        tags,
        summary:
          'Transfers a task (转办) to another user of the tenant, its new assignee for good (its assignee, or those who oversee workflow: 403; delegated: 409)',
        body: object({ id: id('The task'), username: text(64, { minLength: 1 }), comment: COMMENT }, [
          'id',
          'username',
          'comment',
        ]),
        response: answer(TASK),
      },
    },
    async (request) =>
      ok(
        await transferTask({
          ctx,
          actor: actorOf(request),
          oversees: await oversees(request),
          l10n: localizerFor(request),
          input: request.body,
        }),
      ),
  );
  api.post(
    `${BASE}/task/addSignTask`,
    {
      config: SELF,
      schema: {
        tags,
        summary:
          "加签: adds signers to a task, before (they approve first, then the task is its assignee's again) or after (the assignee's part is done; when they have approved, the process goes on); its assignee, or those who oversee workflow: 403; done, suspended, delegated or waiting: 409",
        body: object(
          {
            id: id('The task'),
            usernames: USERNAMES('The signers: users of the tenant', 1),
            type: oneOf(['before', 'after'], { description: '向前加签 (before) or 向后加签 (after)' }),
            comment: COMMENT,
          },
          ['id', 'usernames', 'type', 'comment'],
        ),
        response: answer(TASK),
      },
    },
    async (request) =>
      ok(
        await addSignTask({
          ctx,
          actor: actorOf(request),
          oversees: await oversees(request),
          l10n: localizerFor(request),
          input: request.body,
        }),
      ),
  );
  api.post(
    `${BASE}/task/resolveTask`,
    {
      config: SELF,
      schema: {
        tags,
        summary: 'The delegate hands a delegated task back to its owner',
        body: object({ id: id('The task'), variables: VARIABLES, comment: COMMENT }, ['id', 'comment']),
        response: answer(TASK),
      },
    },
    async (request) => ok(await resolveTask({ ctx, actor: actorOf(request), input: request.body })),
  );
  api.get(
    `${BASE}/task/queryRegressNodes`,
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Earlier completed user tasks the task may be sent back to, with their last assignee',
        querystring: byId('The task'),
        response: answer(arrayOf(REGRESS_NODE)),
      },
    },
    async (request) => ok(await regressNodes({ ctx, actor: actorOf(request), id: request.query.id })),
  );
  api.post(
    `${BASE}/task/regressTask`,
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Sends the instance back to an earlier completed user task, assigned to its last assignee',
        body: object({ id: id('The task'), activityId: text(100, { minLength: 1 }), comment: COMMENT }, [
          'id',
          'activityId',
          'comment',
        ]),
        response: answer(TASK),
      },
    },
    async (request) =>
      ok(
        await regressTask({ ctx, actor: actorOf(request), l10n: localizerFor(request), input: request.body }),
      ),
  );
  for (const [name, status, summary] of [
    [
      'rejectTask',
      'rejected',
      'Rejects: back to the initiator to revise (their first completed task), or, with none, the instance ends with status rejected',
    ],
    ['terminateTask', 'terminated', 'Terminates: the instance ends with status terminated'],
  ] as const) {
    api.post(
      `${BASE}/task/${name}`,
      {
        config: SELF,
        schema: {
          tags,
          summary,
          body: object({ id: id('The task'), comment: COMMENT }, ['id', 'comment']),
          response: answer(TASK),
        },
      },
      async (request) =>
        ok(await endByTask({ ctx, actor: actorOf(request), input: { ...request.body, status } })),
    );
  }
}
