import { eventInsert, type EventInput, type EventType } from '../../../lib/events/index.js';
import { sql, type RawBuilder } from 'kysely';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import type { ProcessNode } from './graph.js';
import type { TokenRef } from './history.js';
import type { InstanceOf } from './store.js';
import { noticeInsert } from './people.js';
import { taskRecipients, type TaskPeople } from './elements/user-task.js';

/**
 * The tasks of an instance (wf_task, with their candidates, history rows and notices) as the
 * interpreter makes and cancels them. Who a task is for is decided before (elements/user-task.ts
 * userTaskOf, into a TaskDraft); a store writes it. The engine's store is in the database
 * (sqlTasks, in the caller's transaction).
 */

/** A task about to be made at a user task: the node, and its name and people as the variables made them. */
export interface TaskDraft {
  node: ProcessNode;
  people: TaskPeople;
}

export interface TaskStore {
  /**
   * The task of a user task, with its candidates, its history row and a notice to the people it
   * is for; `moveToken`: the token moves to the task in the same write. Answers the task's id.
   */
  make(executionId: number, draft: TaskDraft, options?: { moveToken?: boolean }): Promise<number>;
  /**
   * A token's open tasks are canceled with the reason, with the tasks of their signers (加签),
   * their history rows and the token's own.
   */
  cancelAt(executionId: number, reason: string): Promise<void>;
  /**
   * The open tasks of a multi-instance loop's children (the tokens under the loop's token) are
   * canceled with the reason, with their signers' tasks and their history rows.
   */
  cancelInLoop(loopId: number, reason: string): Promise<void>;
}

/** What a task is made of: where (the instance and its definition), by whom, with what notice title. */
export interface TaskContext extends InstanceOf {
  ctx: AppContext;
  actor: Actor;
  definitionId: number;
  instanceName: string | null;
}

/**
 * The inbox notice about a task: titled by the task, saying which instance it is of
 * ("<instance name> #<id>: <task>"); `title` replaces the task's name as the title.
 */
export function taskNotice(
  instanceName: string | null | undefined,
  instanceId: number,
  task: string,
  title: string = task,
): { title: string; content: string } {
  return { title, content: `${instanceName ?? ''} #${instanceId}: ${task}` };
}

/**
 * The part (CTE) `name` of a statement that records an event of each row another part (`of`)
 * wrote, keyed by its id: what features/events tells the open inboxes and screens.
 */
export const eventPart = (
  name: string,
  of: string,
  event: { actor: Actor; type: EventType; entity: string; detail?: EventInput['detail'] },
): RawBuilder<unknown> =>
  sql`${sql.id(name)} as (${eventInsert({ ...event, key: sql.ref(`${of}.id`), from: sql.id(of) })})`;

/**
 * The parts (CTEs of one statement) that make a task with its candidates and history row and
 * tell the people concerned; with moveToken, the token moves to the task too. The task's id
 * comes out of the part named `task`. For statements that write more (instance-store.ts).
 */
export function taskParts(
  context: TaskContext,
  {
    executionId,
    draft,
    moveToken = false,
    after,
  }: {
    executionId: TokenRef;
    draft: TaskDraft;
    moveToken?: boolean;
    /** A CTE of the same statement whose history row must come first (read before this one is written). */
    after?: RawBuilder<unknown> | undefined;
  },
): RawBuilder<unknown>[] {
  const { ctx, actor, tenantCode, instanceId, definitionId, instanceName } = context;
  const { node, people } = draft;
  const { name, assignee, candidateUsers: users, candidateGroups: groups } = people;
  const links = [
    ...users.map((user) => sql`(${user}::text, null::text)`),
    ...groups.map((group) => sql`(null::text, ${group}::text)`),
  ];
  const { usernames: named, groups: byGroup } = taskRecipients(people);
  // The one to tell is the caller (a task of the starter, say): their id is known.
  const isCaller =
    byGroup.length === 0 && named.length === 1 && named[0] === actor.username && actor.userId !== null;
  const notice = noticeInsert({
    ctx,
    actor,
    to: {
      usernames: named,
      groups: byGroup,
      ...(isCaller && actor.userId !== null ? { userIds: [actor.userId] } : {}),
    },
    notice: taskNotice(instanceName, instanceId, name ?? node.id),
  });
  const parts = [
    sql`task as (insert into wf_task (tenant_code, instance_id, execution_id, definition_id,
        activity_id, name, description, assignee, form_key, status, start_time, claim_time)
      values (${tenantCode}, ${instanceId}, ${executionId}, ${definitionId}, ${node.id},
        ${name ?? node.id}, ${node.documentation ?? null}, ${assignee}, ${node.formKey ?? null},
        ${assignee ? 'assigned' : 'created'}, now(), null)
      returning id)`,
    sql`task_history as (insert into wf_hist_activity (tenant_code, instance_id, execution_id, activity_id, activity_name,
        activity_type, assignee, task_id, start_time)
      select ${tenantCode}, ${instanceId}, ${executionId}, ${node.id}, ${name ?? null}, ${node.type},
        ${assignee}, task.id, now() from task${after ? sql`, ${after}` : sql``})`,
    sql`notice as (${notice})`,
    // The recipients' open inboxes hear of it (features/events).
    eventPart('notice_event', 'notice', { actor, type: 'record.added', entity: 'notification' }),
    eventPart('task_event', 'task', {
      actor,
      type: 'workflow.taskCreated',
      entity: 'wfTask',
      detail: { instanceId, activityId: node.id, assignee },
    }),
  ];
  if (links.length > 0)
    parts.push(sql`links as (insert into wf_identity_link (tenant_code, task_id, instance_id, user_name, group_key)
      select ${tenantCode}, task.id, ${instanceId}, link.user_name, link.group_key
      from task, (values ${sql.join(links)}) as link (user_name, group_key))`);
  if (moveToken)
    parts.push(sql`moved as (update wf_execution set activity_id = ${node.id}, state = 'active'
      where id = ${executionId})`);
  return parts;
}

/**
 * The parts (CTEs `tasks`, `signers`, `history`) of a statement that cancel the open tasks of the
 * tokens `tokens` names, with their signers' tasks (加签) and the tasks' history rows, and the
 * other open history rows `alsoHistory` names.
 */
export function canceledParts(
  instanceId: number,
  {
    tokens,
    reason,
    alsoHistory,
  }: { tokens: RawBuilder<unknown>; reason: string; alsoHistory?: RawBuilder<unknown> },
): RawBuilder<unknown>[] {
  return [
    sql`tasks as (update wf_task set end_time = now(), status = 'canceled', end_reason = ${reason},
        row_version = row_version + 1
      where end_time is null and instance_id = ${instanceId} and ${tokens} returning id)`,
    sql`signers as (update wf_task set end_time = now(), status = 'canceled', end_reason = ${reason},
        row_version = row_version + 1
      where end_time is null and parent_task_id in (select id from tasks))`,
    sql`history as (update wf_hist_activity set end_time = now(), end_reason = ${reason}
      where instance_id = ${instanceId} and end_time is null
        and (task_id in (select id from tasks)${alsoHistory ? sql` or ${alsoHistory}` : sql``}))`,
  ];
}

/** The tasks of one instance in wf_task and the rows that go with them, in the caller's transaction. */
export function sqlTasks(trx: Db, context: TaskContext): TaskStore {
  const { instanceId } = context;
  return {
    async make(executionId, draft, { moveToken = false } = {}) {
      const parts = taskParts(context, { executionId, draft, moveToken });
      const rows = await sql<{ id: number }>`with ${sql.join(parts)} select id from task`.execute(trx);
      return Number(rows.rows[0]?.id ?? 0);
    },
    async cancelAt(executionId, reason) {
      const parts = canceledParts(instanceId, {
        tokens: sql`execution_id = ${executionId}`,
        reason,
        alsoHistory: sql`execution_id = ${executionId}`,
      });
      await sql`with ${sql.join(parts)} select 1`.execute(trx);
    },
    async cancelInLoop(loopId, reason) {
      const parts = canceledParts(instanceId, {
        tokens: sql`execution_id in (select id from wf_execution where parent_id = ${loopId})`,
        reason,
      });
      await sql`with ${sql.join(parts)} select 1`.execute(trx);
    },
  };
}
