import { recordEvents } from '../../../lib/events/index.js';
import { sql } from 'kysely';
import type { WfCompleted, WfRegressNode, WfTask } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { checkedFormData } from './forms.js';
import { userTasksBefore } from './graph.js';
import { nextTasksOf, openRun, setVariables, type Run } from './activity.js';
import { taskNotice } from './task-store.js';
import { endInstance, enterNode, taskDone } from './interpreter.js';
import type { TaskClosing } from './instance-store.js';
import { notifyUsers, userExists, userIdsOf, type Candidate } from './people.js';
import { taskById } from './queries.js';
import {
  addComment,
  assertRunning,
  definitionGraph,
  lockTask,
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
  options: { withVariables?: boolean; waiting?: 'allow' } = {},
): Promise<{ task: TaskRow; instance: InstanceRow; variables?: Record<string, unknown> }> {
  const locked = await lockTask({
    trx,
    tenantCode: actor.tenantCode,
    id,
    withVariables: options.withVariables,
  });
  if (locked.task.end_time) throw new AppError('wfTaskDone', { id });
  assertRunning(locked.instance);
  // A task waiting for its signers (加签) takes no action until they are done.
  if (locked.task.status === 'waiting' && options.waiting !== 'allow')
    throw new AppError('wfTaskWaiting', { id });
  return locked;
}

/** Users of the tenant named in a list: 400 naming the first one not found (or repeated, or refused). */
async function checkUsers({
  ctx,
  trx,
  actor,
  l10n,
  field,
  usernames,
  refused = [],
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  l10n: Localizer;
  field: string;
  usernames: readonly string[];
  /** Names that may not be in the list (the task's own assignee). */
  refused?: readonly (string | null)[];
}): Promise<string[]> {
  const seen = new Set<string>();
  for (const [index, raw] of usernames.entries()) {
    const username = raw.trim();
    if (
      seen.has(username) ||
      refused.includes(username) ||
      !(await userExists({ ctx, db: trx, tenantCode: actor.tenantCode, username }))
    )
      throw new AppError('validation', {}, [
        { field: `${field}/${index}`, message: l10n.t('workflow.problems.noSuchUser', { username }) },
      ]);
    seen.add(username);
  }
  return [...seen];
}

/** An inbox notice to users of the tenant, by name. */
async function noticeUsers({
  ctx,
  trx,
  actor,
  usernames,
  notice,
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  usernames: string[];
  notice: { title: string; content: string };
}): Promise<void> {
  const recipients = await userIdsOf({ ctx, db: trx, tenantCode: actor.tenantCode, usernames, groups: [] });
  await notifyUsers({ ctx, db: trx, actor, userIds: recipients, notice });
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
    await taskAssigned(trx, actor, id, actor.username);
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
  /** 抄送: users of the tenant the instance is copied to. */
  copyUsers?: string[] | undefined;
}

export async function completeTask({
  ctx,
  actor,
  roles,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  /** The caller's roles: their field rights hold on the task form's entity. */
  roles: readonly string[];
  l10n: Localizer;
  input: CompleteInput;
}): Promise<WfCompleted> {
  return inTransaction(ctx.db, async (trx) => {
    const { task, instance, variables } = await openTask(trx, actor, input.id, { withVariables: true });
    assertAssignee(task, actor);
    if (task.delegation === 'pending') throw new AppError('wfTaskDelegated', { id: input.id });
    const formValues = await checkedFormData({
      ctx,
      l10n,
      formKey: task.form_key,
      formData: input.formData,
      tenantCode: actor.tenantCode,
      roles,
      db: trx,
    });
    if (input.copyUsers && input.copyUsers.length > 0)
      await copyInstance({
        ctx,
        trx,
        actor,
        l10n,
        task,
        instance,
        usernames: await checkUsers({
          ctx,
          trx,
          actor,
          l10n,
          field: '/copyUsers',
          usernames: input.copyUsers,
        }),
        comment: input.comment,
      });
    const graph = await definitionGraph({ ctx, trx, definitionId: instance.definition_id });
    const run = await openRun({ ctx, trx, instance, graph, actor, variables });
    run.refusesConditionErrors = true;
    const values = { ...(input.variables ?? {}), ...formValues };
    Object.assign(run.variables, values);
    if (Object.keys(values).length > 0) run.variablesChanged = true;
    // The variables, the task, its history row and the comment are one write with the answer (the
    // task as it now is: nothing later in the run changes a completed task) and, when the token
    // just goes on to a plain task or end, with that move too.
    const closing: TaskClosing = {
      task: { id: task.id, activityId: task.activity_id },
      variables: { values, taskId: task.id, activityId: task.activity_id, username: actor.username },
      comment: { username: actor.username, message: input.comment },
      answer: 'task',
    };
    const row =
      task.execution_id !== null
        ? await taskDone({ run, executionId: task.execution_id, nodeId: task.activity_id, closing })
        : (await run.instance.closeTask(closing, { to: 'stay' })).answer;
    if (task.parent_task_id !== null)
      await signerDone({ ctx, trx, run, actor, parentId: task.parent_task_id });
    return { ...(row as WfTask), nextTasks: nextTasksOf(run) };
  });
}

/**
 * 抄送: the instance is copied to users of the tenant, who read it (not act on it) from 抄送我的
 * and get an inbox notice; the history says who copied it to whom.
 */
async function copyInstance({
  ctx,
  trx,
  actor,
  l10n,
  task,
  instance,
  usernames,
  comment,
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  l10n: Localizer;
  task: TaskRow;
  instance: InstanceRow;
  usernames: string[];
  comment: string;
}): Promise<void> {
  const rows = usernames.map(
    (username) =>
      sql`(${actor.tenantCode}, ${instance.id}, ${task.id}, ${username}, ${actor.username}, ${comment})`,
  );
  // The copies' notices tell their inboxes (features/events), as a transfer's does.
  await sql`insert into wf_copy (tenant_code, instance_id, task_id, username, copied_by, message)
    values ${sql.join(rows)}`.execute(trx);
  await addComment(trx, {
    tenantCode: actor.tenantCode,
    instanceId: instance.id,
    taskId: task.id,
    username: actor.username,
    action: 'copy',
    message: comment,
    target: usernames.join(', '),
  });
  await noticeUsers({
    ctx,
    trx,
    actor,
    usernames,
    notice: taskNotice(
      instance.name,
      instance.id,
      task.name ?? task.activity_id,
      l10n.t('workflow.notice.copied', { name: instance.name ?? instance.process_key }),
    ),
  });
}

/**
 * A signer's task (加签) is done: when it was the last open one of its task, that task goes on:
 * back to its assignee (signers before), or done, its token moving on (signers after).
 */
async function signerDone({
  ctx,
  trx,
  run,
  actor,
  parentId,
}: {
  ctx: AppContext;
  trx: Db;
  run: Run;
  actor: Actor;
  parentId: number;
}): Promise<void> {
  const left =
    await sql`select 1 from wf_task where parent_task_id = ${parentId} and end_time is null limit 1`.execute(
      trx,
    );
  if (left.rows.length > 0) return;
  const parents =
    await sql<TaskRow>`select id, tenant_code, instance_id, execution_id, definition_id, activity_id,
      name, assignee, owner, delegation, form_key, status, end_time, parent_task_id, sign_type
    from wf_task where id = ${parentId} and end_time is null and status = 'waiting' for update`.execute(trx);
  const parent = parents.rows[0];
  if (!parent) return;
  if (parent.sign_type === 'after' && parent.execution_id !== null) {
    await taskDone({
      run,
      executionId: parent.execution_id,
      nodeId: parent.activity_id,
      closing: { task: { id: parent.id, activityId: parent.activity_id }, endsSigning: true, answer: 'id' },
    });
    return;
  }
  // Signers before: the task is its assignee's again.
  await sql`update wf_task set status = 'assigned', sign_type = null, row_version = row_version + 1
    where id = ${parent.id}`.execute(trx);
  if (parent.assignee) {
    await taskAssigned(trx, actor, parent.id, parent.assignee);
    await noticeUsers({
      ctx,
      trx,
      actor,
      usernames: [parent.assignee],
      notice: taskNotice(run.instanceName, parent.instance_id, parent.name ?? parent.activity_id),
    });
  }
}

/**
 * 加签: the task's assignee (or one who oversees workflow) adds signers, each with a task of their
 * own beside it; meanwhile the task waits. Signers before: when they have all approved, the task
 * is its assignee's again. Signers after: the assignee's part is done now (their comment is the
 * approval); when the signers have all approved, the task is done and the process goes on. The
 * history says who added whom; the signers get an inbox notice.
 */
export async function addSignTask({
  ctx,
  actor,
  oversees,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  oversees: boolean;
  l10n: Localizer;
  input: { id: number; usernames: string[]; type: 'before' | 'after'; comment: string };
}): Promise<WfTask> {
  await inTransaction(ctx.db, async (trx) => {
    const { task, instance } = await openTask(trx, actor, input.id);
    if (!oversees) assertAssignee(task, actor);
    if (task.delegation === 'pending') throw new AppError('wfTaskDelegated', { id: input.id });
    if (task.parent_task_id !== null || task.execution_id === null)
      throw new AppError('wfTaskIsSign', { id: input.id });
    const usernames = await checkUsers({
      ctx,
      trx,
      actor,
      l10n,
      field: '/usernames',
      usernames: input.usernames,
      refused: [task.assignee, actor.username],
    });
    await sql`update wf_task set status = 'waiting', sign_type = ${input.type}, row_version = row_version + 1
      where id = ${task.id}`.execute(trx);
    const signers = await sql<{ id: number; assignee: string }>`insert into wf_task (tenant_code, instance_id,
        execution_id, definition_id, activity_id, name, description, assignee, form_key, status, start_time,
        claim_time, parent_task_id)
      select t.tenant_code, t.instance_id, null, t.definition_id, t.activity_id, t.name, t.description, u.name,
        t.form_key, 'assigned', now(), now(), t.id
      from wf_task t, unnest(${sql.val(usernames)}::text[]) with ordinality as u(name, n)
      where t.id = ${task.id} order by u.n returning id, assignee`.execute(trx);
    await recordEvents({
      trx,
      actor,
      events: signers.rows.map((row) => ({
        type: 'workflow.taskCreated',
        entity: 'wfTask',
        key: row.id,
        detail: { instanceId: instance.id, activityId: task.activity_id, assignee: row.assignee },
      })),
    });
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: instance.id,
      taskId: task.id,
      username: actor.username,
      action: input.type === 'before' ? 'addSignBefore' : 'addSignAfter',
      message: input.comment,
      target: usernames.join(', '),
    });
    await noticeUsers({
      ctx,
      trx,
      actor,
      usernames,
      notice: taskNotice(instance.name, instance.id, task.name ?? task.activity_id),
    });
  });
  return taskById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
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
    await taskAssigned(trx, actor, task.id, input.username);
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: instance.id,
      taskId: task.id,
      username: actor.username,
      action: 'delegate',
      message: input.comment,
    });
    await noticeTaskTo({ ctx, trx, actor, task, instance, username: input.username });
  });
  return taskById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}

/** The inbox notice of a task given to someone (delegated, transferred). */
async function noticeTaskTo({
  ctx,
  trx,
  actor,
  task,
  instance,
  username,
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  task: TaskRow;
  instance: InstanceRow;
  username: string;
}): Promise<void> {
  const recipients = await userIdsOf({
    ctx,
    db: trx,
    tenantCode: actor.tenantCode,
    usernames: [username],
    groups: [],
  });
  await notifyUsers({
    ctx,
    db: trx,
    actor,
    userIds: recipients,
    notice: taskNotice(instance.name, instance.id, task.name ?? task.activity_id),
  });
}

/**
 * 转办: the task's assignee (or one who oversees workflow) hands it to another user of the tenant,
 * who becomes its assignee for good (unlike a delegation, nothing comes back). The comment
 * records who transferred to whom; the new assignee gets a notice.
 */
export async function transferTask({
  ctx,
  actor,
  oversees,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  /** The caller oversees workflow: they may transfer any open task of the tenant. */
  oversees: boolean;
  l10n: Localizer;
  input: { id: number; username: string; comment: string };
}): Promise<WfTask> {
  await inTransaction(ctx.db, async (trx) => {
    const { task, instance } = await openTask(trx, actor, input.id);
    if (!oversees) assertAssignee(task, actor);
    if (task.delegation === 'pending') throw new AppError('wfTaskDelegated', { id: input.id });
    if (
      input.username === task.assignee ||
      !(await userExists({ ctx, db: trx, tenantCode: actor.tenantCode, username: input.username }))
    )
      throw new AppError('validation', {}, [
        { field: '/username', message: l10n.t('workflow.problems.noSuchUser', { username: input.username }) },
      ]);
    await sql`update wf_task set assignee = ${input.username}, claim_time = coalesce(claim_time, now()),
        status = 'assigned', owner = null, delegation = null, row_version = row_version + 1
      where id = ${task.id}`.execute(trx);
    await setAssignee(trx, instance.id, task.id, input.username);
    await taskAssigned(trx, actor, task.id, input.username);
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: instance.id,
      taskId: task.id,
      username: actor.username,
      action: 'transfer',
      message: input.comment,
      target: input.username,
    });
    await noticeTaskTo({ ctx, trx, actor, task, instance, username: input.username });
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
    const { task, instance } = await openTask(trx, actor, id, { waiting: 'allow' });
    assertAssignee(task, actor);
    // A signer's task (加签) or one waiting for its signers is not sent back.
    if (task.parent_task_id !== null || task.status === 'waiting') return [];
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
    await sendBack({ ctx, trx, actor, task, instance, target, comment: input.comment, action: 'regress' });
  });
  return taskById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}

/**
 * Sends the instance back to an earlier completed user task (regress, or reject back to the
 * initiator): the open tasks end (the task with the action's status, the others canceled), the
 * other branches' tokens are removed, and the earlier task comes again to its last assignee.
 */
async function sendBack({
  ctx,
  trx,
  actor,
  task,
  instance,
  target,
  comment,
  action,
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  task: TaskRow;
  instance: InstanceRow;
  target: WfRegressNode;
  comment: string;
  action: 'regress' | 'reject';
}): Promise<void> {
  const executionId = task.execution_id;
  if (executionId === null) throw new AppError('wfTaskDone', { id: task.id });
  const status = action === 'regress' ? 'regressed' : 'rejected';
  const open = await sql<{ id: number }>`update wf_task set end_time = now(),
        status = case when id = ${task.id} then ${status} else 'canceled' end, end_reason = ${status},
        row_version = row_version + 1
      where instance_id = ${instance.id} and end_time is null returning id`.execute(trx);
  const graph = await definitionGraph({ ctx, trx, definitionId: instance.definition_id });
  const run = await openRun({ ctx, trx, instance, graph, actor });
  await run.history.endTasks(
    open.rows.map((row) => row.id),
    status,
  );
  // The sub-processes the task is in stay (with their tokens); every other token goes.
  const scopes: string[] = [];
  for (let scope = graph.nodes[task.activity_id]?.scope; scope; scope = graph.nodes[scope]?.scope)
    scopes.push(scope);
  const kept = scopes.length > 0 ? scopes : [''];
  await sql`delete from wf_execution where instance_id = ${instance.id} and id <> ${executionId}
      and not (state = 'scope' and activity_id in (${sql.join(kept)}))`.execute(trx);
  await sql`update wf_hist_activity set end_time = now(), end_reason = 'regressed'
      where instance_id = ${instance.id} and end_time is null and activity_type = 'subProcess'
        and activity_id not in (${sql.join(kept)})`.execute(trx);
  // The timers and calls of the tokens that went, and of the one that moves; the instance's own
  // event sub-process timers and those of the sub-processes that stay are kept.
  await sql`delete from wf_job where instance_id = ${instance.id} and kind in ('boundaryTimer', 'serviceCall')
    and (execution_id = ${executionId}
      or (execution_id is not null and not exists (select 1 from wf_execution e where e.id = wf_job.execution_id)))`.execute(
    trx,
  );
  // The tokens that went may have waited at a connector or mail task: their history rows end too.
  await sql`update wf_hist_activity set end_time = now(), end_reason = 'regressed'
      where instance_id = ${instance.id} and end_time is null and task_id is null
        and activity_type <> 'subProcess' and execution_id <> ${executionId}`.execute(trx);
  const parents = await sql<{ id: number | null }>`update wf_execution set loop_state = null,
        parent_id = (select id from wf_execution where instance_id = ${instance.id} and state = 'scope'
          and activity_id = ${scopes[0] ?? ''})
      where id = ${executionId} returning parent_id as id`.execute(trx);
  const parentId = parents.rows[0]?.id ?? null;
  await sql`update wf_instance set incident = null where id = ${instance.id}`.execute(trx);
  await addComment(trx, {
    tenantCode: actor.tenantCode,
    instanceId: instance.id,
    taskId: task.id,
    username: actor.username,
    action,
    message: comment,
  });
  await enterNode({ run, executionId: executionId, nodeId: target.activityId, parentId });
  if (target.assignee) {
    const again = await sql<{
      id: number;
    }>`update wf_task set assignee = ${target.assignee}, status = 'assigned'
        where instance_id = ${instance.id} and activity_id = ${target.activityId} and end_time is null returning id`.execute(
      trx,
    );
    for (const row of again.rows) await setAssignee(trx, instance.id, row.id, target.assignee);
  }
}

/**
 * Rejects or terminates (the assignee only). A rejection goes back to the initiator to revise
 * when an earlier completed user task was theirs (the first of them: the one that filled the
 * request), as Chinese BPM's 驳回 does; with none (the initiator's own task, or nobody filled
 * anything) the instance ends as rejected, as a termination ends it as terminated.
 */
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
    const opened = await openTask(trx, actor, input.id);
    const { instance } = opened;
    assertAssignee(opened.task, actor);
    // A signer (加签) rejects or terminates the task they were added to.
    const task =
      opened.task.parent_task_id === null
        ? opened.task
        : (await lockTask({ trx, tenantCode: actor.tenantCode, id: opened.task.parent_task_id })).task;
    if (input.status === 'rejected') {
      const initiators = (await regressNodesOf(ctx, trx, task, instance)).filter(
        (node) => node.assignee !== null && node.assignee === instance.start_username,
      );
      const first = initiators.at(-1);
      if (first && first.activityId !== task.activity_id) {
        await sendBack({
          ctx,
          trx,
          actor,
          task,
          instance,
          target: first,
          comment: input.comment,
          action: 'reject',
        });
        if (opened.task.id !== task.id)
          await sql`update wf_task set status = 'rejected' where id = ${opened.task.id}`.execute(trx);
        return;
      }
    }
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
    await sql`update wf_task set status = ${input.status} where id in (${task.id}, ${opened.task.id})`.execute(
      trx,
    );
  });
  return taskById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}

/** The outbox event of a task given to someone (claimed, delegated, transferred, assigned). */
export async function taskAssigned(trx: Db, actor: Actor, taskId: number, assignee: string): Promise<void> {
  await recordEvents({
    trx,
    actor,
    events: [{ type: 'workflow.taskAssigned', entity: 'wfTask', key: taskId, detail: { assignee } }],
  });
}
