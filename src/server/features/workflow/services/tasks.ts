import { sql } from 'kysely';
import type { WfCompleted, WfRegressNode, WfTask } from '../../../../engine/api-types.js';
import { PREPARED } from '../../../lib/db/prepared.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { checkedFormData } from './forms.js';
import { userTasksBefore } from './graph.js';
import { historyEndTask, nextTasksOf, openRun, setVariables } from './activity.js';
import { endInstance, enterNode, taskDone, type TaskEnd } from './interpreter.js';
import { notifyUsers, userExists, userIdsOf, type Candidate } from './people.js';
import { TASK_COLUMNS, taskById } from './queries.js';
import {
  addComment,
  assertRunning,
  definitionGraph,
  lockTask,
  variableParts,
  type InstanceRow,
  type TaskRow,
} from './store.js';

/**
 * Task actions. Each is one transaction that locks the instance, then the task: of two people
 * acting on one task at once, the second waits, then finds it changed and gets 409.
 */

/** The task, open, of a running instance (409 otherwise), locked. */
async function openTask(
  trx: Db,
  actor: Actor,
  id: number,
  options: { withVariables?: boolean } = {},
): Promise<{ task: TaskRow; instance: InstanceRow; variables?: Record<string, unknown> }> {
  const locked = await lockTask({
    trx,
    tenantCode: actor.tenantCode,
    id,
    withVariables: options.withVariables,
  });
  if (locked.task.end_time) throw new AppError('wfTaskDone', { id });
  assertRunning(locked.instance);
  return locked;
}

function assertAssignee(task: TaskRow, actor: Actor): void {
  if (task.assignee !== actor.username) throw new AppError('wfNotAssignee', { id: task.id });
}

async function isCandidate(trx: Db, taskId: number, who: Candidate): Promise<boolean> {
  const groups = who.groups.length > 0 ? who.groups : [''];
  const rows = await sql`select 1 from wf_identity_link where task_id = ${taskId}
    and (user_name = ${who.username} or group_key in (${sql.join(groups)})) limit 1`.execute(trx);
  return rows.rows.length > 0;
}

/** The open history row of a task takes its new assignee (found through the instance's index). */
async function setAssignee(
  trx: Db,
  instanceId: number,
  taskId: number,
  assignee: string | null,
): Promise<void> {
  await sql`update wf_hist_activity set assignee = ${assignee}
    where instance_id = ${instanceId} and task_id = ${taskId} and end_time is null`.execute(trx);
}

export async function claimTask({
  ctx,
  actor,
  who,
  id,
}: {
  ctx: AppContext;
  actor: Actor;
  who: Candidate;
  id: number;
}): Promise<WfTask> {
  await inTransaction(ctx.db, async (trx) => {
    const { task, instance } = await openTask(trx, actor, id);
    if (task.assignee) throw new AppError('wfTaskClaimed', { id });
    if (!(await isCandidate(trx, id, who))) throw new AppError('wfNotCandidate', { id });
    await sql`update wf_task set assignee = ${actor.username}, claim_time = now(), status = 'assigned',
        row_version = row_version + 1 where id = ${id}`.execute(trx);
    await setAssignee(trx, instance.id, id, actor.username);
  });
  return taskById({ db: ctx.db, tenantCode: actor.tenantCode, id });
}

export async function unclaimTask({
  ctx,
  actor,
  id,
}: {
  ctx: AppContext;
  actor: Actor;
  id: number;
}): Promise<WfTask> {
  await inTransaction(ctx.db, async (trx) => {
    const { task, instance } = await openTask(trx, actor, id);
    assertAssignee(task, actor);
    if (task.delegation === 'pending') throw new AppError('wfTaskDelegated', { id });
    await sql`update wf_task set assignee = null, claim_time = null, status = 'created', row_version = row_version + 1
      where id = ${id}`.execute(trx);
    await setAssignee(trx, instance.id, id, null);
  });
  return taskById({ db: ctx.db, tenantCode: actor.tenantCode, id });
}

export interface CompleteInput {
  id: number;
  comment: string;
  variables?: Record<string, unknown> | undefined;
  formData?: Record<string, unknown> | undefined;
}

export async function completeTask({
  ctx,
  actor,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  input: CompleteInput;
}): Promise<WfCompleted> {
  return inTransaction(ctx.db, async (trx) => {
    const { task, instance, variables } = await openTask(trx, actor, input.id, { withVariables: true });
    assertAssignee(task, actor);
    if (task.delegation === 'pending') throw new AppError('wfTaskDelegated', { id: input.id });
    const formValues = checkedFormData({ ctx, l10n, formKey: task.form_key, formData: input.formData });
    const graph = await definitionGraph({ ctx, trx, definitionId: instance.definition_id });
    const run = await openRun({ ctx, trx, instance, graph, actor, variables });
    const values = { ...(input.variables ?? {}), ...formValues };
    Object.assign(run.variables, values);
    // The variables, the task, its history row and the comment are written by the statement that
    // also answers the task as it now is (nothing later in the run changes a completed task) and,
    // when the token just goes on to a plain task or end, moves it there too.
    const end: TaskEnd = {
      taskId: task.id,
      parts: [
        ...variableParts(
          {
            tenantCode: actor.tenantCode,
            instanceId: instance.id,
            taskId: task.id,
            activityId: task.activity_id,
            username: actor.username,
          },
          values,
        ),
        sql`done as (update wf_task set end_time = now(), status = 'completed',
          end_reason = 'completed', row_version = row_version + 1
        where id = ${task.id} returning *)`,
        // By the instance's index (the task's row is one of the instance's few).
        sql`history as (update wf_hist_activity set end_time = now(), end_reason = 'completed'
        where instance_id = ${instance.id} and task_id = ${task.id} and end_time is null)`,
        sql`comment as (insert into wf_comment (tenant_code, instance_id, task_id, username, action, message)
        values (${actor.tenantCode}, ${instance.id}, ${task.id}, ${actor.username}, 'complete', ${input.comment}))`,
      ],
      select: (extra) =>
        sql`select ${TASK_COLUMNS}, ${extra} from done t join wf_instance i on i.id = t.instance_id`,
    };
    const row =
      task.execution_id !== null
        ? await taskDone({ run, executionId: task.execution_id, nodeId: task.activity_id, end })
        : ((
            await sql<
              Record<string, unknown>
            >`${PREPARED}with ${sql.join(end.parts)} ${end.select(sql`null as "nothing"`)}`.execute(trx)
          ).rows[0] ?? {});
    // The task's columns (end.select), without the column the plain statement adds.
    const { nothing: _nothing, ...answer } = row;
    return { ...(answer as WfTask), nextTasks: nextTasksOf(run) };
  });
}

export async function delegateTask({
  ctx,
  actor,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  input: { id: number; username: string; comment: string };
}): Promise<WfTask> {
  await inTransaction(ctx.db, async (trx) => {
    const { task, instance } = await openTask(trx, actor, input.id);
    assertAssignee(task, actor);
    if (task.delegation === 'pending') throw new AppError('wfTaskDelegated', { id: input.id });
    if (
      input.username === actor.username ||
      !(await userExists({ ctx, db: trx, tenantCode: actor.tenantCode, username: input.username }))
    )
      throw new AppError('validation', {}, [
        { field: '/username', message: l10n.t('workflow.problems.noSuchUser', { username: input.username }) },
      ]);
    await sql`update wf_task set owner = ${task.owner ?? actor.username}, assignee = ${input.username},
        delegation = 'pending', status = 'delegated', row_version = row_version + 1 where id = ${task.id}`.execute(
      trx,
    );
    await setAssignee(trx, instance.id, task.id, input.username);
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: instance.id,
      taskId: task.id,
      username: actor.username,
      action: 'delegate',
      message: input.comment,
    });
    const recipients = await userIdsOf({
      ctx,
      db: trx,
      tenantCode: actor.tenantCode,
      usernames: [input.username],
      groups: [],
    });
    await notifyUsers({
      ctx,
      db: trx,
      actor,
      userIds: recipients,
      notice: {
        title: task.name ?? task.activity_id,
        content: `${instance.name ?? ''} #${instance.id}: ${task.name ?? task.activity_id}`,
      },
    });
  });
  return taskById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}

export async function resolveTask({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: { id: number; comment: string; variables?: Record<string, unknown> | undefined };
}): Promise<WfTask> {
  await inTransaction(ctx.db, async (trx) => {
    const { task, instance } = await openTask(trx, actor, input.id);
    assertAssignee(task, actor);
    if (task.delegation !== 'pending') throw new AppError('wfTaskNotDelegated', { id: input.id });
    const run = await openRun({
      ctx,
      trx,
      instance,
      graph: await definitionGraph({ ctx, trx, definitionId: instance.definition_id }),
      actor,
    });
    await setVariables({
      run,
      values: input.variables ?? {},
      taskId: task.id,
      activityId: task.activity_id,
    });
    await sql`update wf_task set assignee = owner, delegation = 'resolved', status = 'assigned',
        row_version = row_version + 1 where id = ${task.id}`.execute(trx);
    await setAssignee(trx, instance.id, task.id, task.owner);
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: instance.id,
      taskId: task.id,
      username: actor.username,
      action: 'resolve',
      message: input.comment,
    });
  });
  return taskById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}

async function regressNodesOf(
  ctx: AppContext,
  trx: Db,
  task: TaskRow,
  instance: InstanceRow,
): Promise<WfRegressNode[]> {
  const graph = await definitionGraph({ ctx, trx, definitionId: instance.definition_id });
  const before = userTasksBefore(graph, task.activity_id);
  if (before.length === 0) return [];
  const rows = await sql<
    WfRegressNode & { end_time: Date }
  >`select distinct on (activity_id) activity_id as "activityId",
      activity_name as name, assignee, end_time
    from wf_hist_activity where instance_id = ${instance.id} and activity_type = 'userTask' and end_time is not null
      and end_reason = 'completed' and activity_id in (${sql.join(before)})
    order by activity_id, end_time desc`.execute(trx);
  return rows.rows
    .sort((a, b) => new Date(b.end_time).getTime() - new Date(a.end_time).getTime())
    .map(({ activityId, name, assignee }) => ({ activityId, name, assignee }));
}

/** Earlier user tasks of the instance the task may be sent back to, with their last assignee. */
export async function regressNodes({
  ctx,
  actor,
  id,
}: {
  ctx: AppContext;
  actor: Actor;
  id: number;
}): Promise<WfRegressNode[]> {
  return inTransaction(ctx.db, async (trx) => {
    const { task, instance } = await openTask(trx, actor, id);
    assertAssignee(task, actor);
    return regressNodesOf(ctx, trx, task, instance);
  });
}

/**
 * Sends the instance back to an earlier completed user task: the open tasks end as regressed,
 * the other branches' tokens are removed, and the earlier task comes again to its last assignee.
 */
export async function regressTask({
  ctx,
  actor,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  input: { id: number; activityId: string; comment: string };
}): Promise<WfTask> {
  await inTransaction(ctx.db, async (trx) => {
    const { task, instance } = await openTask(trx, actor, input.id);
    assertAssignee(task, actor);
    const target = (await regressNodesOf(ctx, trx, task, instance)).find(
      (node) => node.activityId === input.activityId,
    );
    if (!target || task.execution_id === null)
      throw new AppError('validation', {}, [
        {
          field: '/activityId',
          message: l10n.t('workflow.problems.noRegressTarget', { activityId: input.activityId }),
        },
      ]);
    const open = await sql<{ id: number }>`update wf_task set end_time = now(),
        status = case when id = ${task.id} then 'regressed' else 'canceled' end, end_reason = 'regressed',
        row_version = row_version + 1
      where instance_id = ${instance.id} and end_time is null returning id`.execute(trx);
    const graph = await definitionGraph({ ctx, trx, definitionId: instance.definition_id });
    const run = await openRun({ ctx, trx, instance, graph, actor });
    for (const row of open.rows) await historyEndTask({ run, taskId: row.id, reason: 'regressed' });
    // The sub-processes the task is in stay (with their tokens); every other token goes.
    const scopes: string[] = [];
    for (let scope = graph.nodes[task.activity_id]?.scope; scope; scope = graph.nodes[scope]?.scope)
      scopes.push(scope);
    const kept = scopes.length > 0 ? scopes : [''];
    await sql`delete from wf_execution where instance_id = ${instance.id} and id <> ${task.execution_id}
      and not (state = 'scope' and activity_id in (${sql.join(kept)}))`.execute(trx);
    await sql`update wf_hist_activity set end_time = now(), end_reason = 'regressed'
      where instance_id = ${instance.id} and end_time is null and activity_type = 'subProcess'
        and activity_id not in (${sql.join(kept)})`.execute(trx);
    await sql`delete from wf_job where instance_id = ${instance.id} and kind = 'boundaryTimer'`.execute(trx);
    const parents = await sql<{ id: number | null }>`update wf_execution set loop_state = null,
        parent_id = (select id from wf_execution where instance_id = ${instance.id} and state = 'scope'
          and activity_id = ${scopes[0] ?? ''})
      where id = ${task.execution_id} returning parent_id as id`.execute(trx);
    const parentId = parents.rows[0]?.id ?? null;
    await sql`update wf_instance set incident = null where id = ${instance.id}`.execute(trx);
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: instance.id,
      taskId: task.id,
      username: actor.username,
      action: 'regress',
      message: input.comment,
    });
    await enterNode({ run, executionId: task.execution_id, nodeId: input.activityId, parentId });
    if (target.assignee) {
      const again = await sql<{
        id: number;
      }>`update wf_task set assignee = ${target.assignee}, status = 'assigned'
        where instance_id = ${instance.id} and activity_id = ${input.activityId} and end_time is null returning id`.execute(
        trx,
      );
      for (const row of again.rows) await setAssignee(trx, instance.id, row.id, target.assignee);
    }
  });
  return taskById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}

/** Ends the task's instance as rejected or terminated (the assignee only). */
export async function endByTask({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: { id: number; comment: string; status: 'rejected' | 'terminated' };
}): Promise<WfTask> {
  await inTransaction(ctx.db, async (trx) => {
    const { task, instance } = await openTask(trx, actor, input.id);
    assertAssignee(task, actor);
    const run = await openRun({
      ctx,
      trx,
      instance,
      graph: await definitionGraph({ ctx, trx, definitionId: instance.definition_id }),
      actor,
    });
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: instance.id,
      taskId: task.id,
      username: actor.username,
      action: input.status === 'rejected' ? 'reject' : 'terminate',
      message: input.comment,
    });
    await endInstance({ run, status: input.status, reason: input.status });
    await sql`update wf_task set status = ${input.status} where id = ${task.id}`.execute(trx);
  });
  return taskById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}
