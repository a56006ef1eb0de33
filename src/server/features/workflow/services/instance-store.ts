import { eventInsert } from '../../../lib/events/index.js';
import { sql, type RawBuilder } from 'kysely';
import { PREPARED } from '../../../lib/db/prepared.js';
import type { Db } from '../../../lib/db/database.js';
import { hasCompensation, hasEventWaits, type ProcessGraph, type ProcessNode } from './graph.js';
import { passedRow } from './history.js';
import { notifyUsers, userIdsOf } from './people.js';
import { TASK_COLUMNS } from './queries.js';
import { variableParts, writeVariables } from './store.js';
import { canceledParts, eventPart, taskParts, type TaskContext, type TaskDraft } from './task-store.js';
import { anotherToken } from './tokens.js';

/**
 * What changes an instance as a whole, or several of its kinds of rows at once: its first token,
 * a task closed together with the token's next move, the end of a token or of the instance, an
 * incident, everything inside a scope canceled. The interpreter and the task actions say what
 * happens, in these terms; the store writes it. The engine's store (sqlInstance) writes each in
 * one statement, so that a start, or a completion that moves on to the next task or to the end,
 * is one round trip to the database.
 */

/** What stopped a token: the instance shows it until someone deals with it. */
export interface Incident {
  activityId: string;
  activityName?: string;
  flowId: string | null;
  message: string;
  /** The unset variable a condition named, when that stopped it. */
  variable?: string;
}

/** Variables set, and where (the history of each change names it). */
export interface VariablesSet {
  values: Record<string, unknown>;
  taskId?: number | null;
  activityId: string | null;
  username: string | null;
}

/** A user task done by a person (or by its last signer, 加签 after): what its closing writes. */
export interface TaskClosing {
  task: { id: number; activityId: string };
  /** Variables set with it. */
  variables?: VariablesSet;
  /** The comment of the person who completed it. */
  comment?: { username: string; message: string };
  /** The task waited for signers after it (加签): that ends with it. */
  endsSigning?: boolean;
  /** What the write answers: the task as the API shows it, or only its id. */
  answer: 'task' | 'id';
}

/**
 * Where the task's token goes in the same write: nowhere yet (the interpreter moves it on after),
 * straight to the next plain task, or to a plain end event of the process (the instance ending
 * with its last token).
 */
export type AfterTask =
  | { to: 'stay' }
  | { to: 'task'; executionId: number; draft: TaskDraft }
  | { to: 'end'; executionId: number; node: ProcessNode };

export interface TaskClosed {
  /** The closed task as asked (TaskClosing.answer). */
  answer: Record<string, unknown>;
  /** The task made next (to: 'task'). */
  nextTaskId?: number;
  /** Whether another token was left (to: 'end'): when none, the instance has ended. */
  tokensLeft?: boolean;
}

export interface InstanceStore {
  /**
   * The first token, passed through the start event, with the start's variables; with `task`,
   * the token goes straight on to that plain user task and its task is made. Answers the token.
   */
  begin(input: {
    start: ProcessNode;
    variables: VariablesSet;
    task?: TaskDraft | undefined;
  }): Promise<{ executionId: number; taskId?: number }>;
  /** A task is closed as completed, and its token moved as `then` says. */
  closeTask(closing: TaskClosing, then: AfterTask): Promise<TaskClosed>;
  /** A top-level token reached a plain end event: its history row, the token gone; answers whether another is left. */
  endToken(executionId: number, node: ProcessNode): Promise<boolean>;
  /** Variables set (insert or replace), each change kept in the variables' history. */
  setVariables(set: VariablesSet): Promise<void>;
  /** Steps the instance took, added to its count (BUDGETS.workflow.stepsPerInstance). */
  addSteps(steps: number): Promise<void>;
  /** An inbox notice to users named directly or through groups (a notice service task). */
  notify(
    to: { usernames: string[]; groups: string[] },
    notice: { title: string; content: string },
  ): Promise<void>;
  /** The instance shows the incident that stopped one of its tokens. */
  markIncident(incident: Incident): Promise<void>;
  /** A step budget stopped the run: these tokens stop where each was headed, and the instance shows the incident with its steps. */
  halt(stopped: { executionId: number; nodeId: string }[], incident: Incident, steps: number): Promise<void>;
  /** The instance ends: its tokens, timers and subscriptions go, its open tasks and history rows close with the reason. */
  end(status: string, reason: string): Promise<void>;
  /** Everything of the instance stops (an interrupting event sub-process of the process): as `end`, but the instance runs on. */
  clear(reason: string): Promise<void>;
  /**
   * Every token below a scope ends (recursively), with its open tasks (and their signers'),
   * history rows, timers, calls, subscriptions and external tasks offered; what completed inside
   * it can no longer be compensated.
   */
  clearScope(scopeId: number, reason: string): Promise<void>;
}

/** The instance, its graph and who acts on it. */
export interface InstanceContext extends TaskContext {
  graph: ProcessGraph;
}

/** The instance's rows in the database, in the caller's transaction: each change one statement. */
export function sqlInstance(trx: Db, context: InstanceContext): InstanceStore {
  const { tenantCode, instanceId, graph, actor } = context;
  const variablesOf = (set: VariablesSet): RawBuilder<unknown>[] =>
    variableParts({ tenantCode, instanceId, ...set }, set.values);

  /**
   * The parts of a statement that stop everything of the instance: its open tasks canceled and
   * open history rows closed with the reason, its jobs and subscriptions gone. `taskId` is a task
   * the same statement closes itself (one row is never written twice by one statement); `only`
   * is a condition the whole statement's writes hold to. Tokens are the caller's.
   */
  function stopParts(
    reason: string,
    { taskId, only = sql`` }: { taskId?: number; only?: RawBuilder<unknown> } = {},
  ): RawBuilder<unknown>[] {
    const notTask = taskId === undefined ? sql`` : sql` and id <> ${taskId}`;
    const notTaskHistory = taskId === undefined ? sql`` : sql` and task_id is distinct from ${taskId}`;
    return [
      sql`ended_tasks as (update wf_task set end_time = now(), status = 'canceled', end_reason = ${reason},
          row_version = row_version + 1
        where instance_id = ${instanceId} and end_time is null${notTask}${only})`,
      sql`ended_history as (update wf_hist_activity set end_time = now(), end_reason = ${reason}
        where instance_id = ${instanceId} and end_time is null${notTaskHistory}${only})`,
      sql`ended_jobs as (delete from wf_job where instance_id = ${instanceId}${only})`,
      ...(hasEventWaits(graph)
        ? [
            sql`ended_subscriptions as (delete from wf_event_subscription
              where instance_id = ${instanceId}${only})`,
          ]
        : []),
    ];
  }

  /**
   * The parts of a statement that end the instance: everything stopped (stopParts), the instance
   * row ended (`ended`) and its event. `unless` is a condition read in the statement that, when
   * it holds, leaves everything as it is.
   */
  function endParts(
    status: string,
    reason: string,
    options: { taskId?: number; unless?: RawBuilder<unknown> } = {},
  ): RawBuilder<unknown>[] {
    const only = options.unless ? sql` and not ${options.unless}` : sql``;
    return [
      sql`ended as (update wf_instance set status = ${status}, end_time = now(), row_version = row_version + 1
        where id = ${instanceId}${only})`,
      ...stopParts(reason, { ...(options.taskId === undefined ? {} : { taskId: options.taskId }), only }),
      sql`ended_event as (${eventInsert({
        actor,
        type: 'workflow.ended',
        entity: 'wfInstance',
        key: sql`id`,
        from: sql`wf_instance where id = ${instanceId} and end_time is null${only}`,
        detail: { status, reason },
      })})`,
    ];
  }

  /** The parts that end a token at an end event: it goes, and the end event's history row is written. */
  const tokenEndParts = (executionId: number, node: ProcessNode): RawBuilder<unknown>[] => [
    sql`gone as (delete from wf_execution where id = ${executionId})`,
    sql`passed as (${passedRow(context, executionId, node)})`,
  ];

  /** The parts that close a task as completed (the task `done`, its history, comment, event and variables). */
  function closingParts(closing: TaskClosing): RawBuilder<unknown>[] {
    const { task } = closing;
    return [
      ...(closing.variables ? variablesOf(closing.variables) : []),
      sql`done as (update wf_task set end_time = now(), status = 'completed',${closing.endsSigning ? sql` sign_type = null,` : sql``}
          end_reason = 'completed', row_version = row_version + 1
        where id = ${task.id} returning *)`,
      // By the instance's index (the task's row is one of the instance's few).
      sql`history as (update wf_hist_activity set end_time = now(), end_reason = 'completed'
        where instance_id = ${instanceId} and task_id = ${task.id} and end_time is null)`,
      ...(closing.comment
        ? [
            sql`comment as (insert into wf_comment (tenant_code, instance_id, task_id, username, action, message)
              values (${tenantCode}, ${instanceId}, ${task.id}, ${closing.comment.username}, 'complete', ${closing.comment.message}))`,
          ]
        : []),
      eventPart('done_event', 'done', {
        actor,
        type: 'workflow.taskCompleted',
        entity: 'wfTask',
        detail: { instanceId, activityId: task.activityId },
      }),
    ];
  }

  /** The closed task as answered, with the column `extra` adds (taken off again). */
  const answerOf = (closing: TaskClosing, extra?: RawBuilder<unknown>): RawBuilder<unknown> => {
    const more = extra ? sql`, ${extra}` : sql``;
    return closing.answer === 'task'
      ? sql`select ${TASK_COLUMNS}${more} from done t join wf_instance i on i.id = t.instance_id`
      : sql`select done.id${more} from done`;
  };

  return {
    async begin({ start, variables, task }) {
      const token = sql`(select id from token)`;
      const parts = [
        sql`token as (insert into wf_execution (tenant_code, instance_id, activity_id, state)
          values (${tenantCode}, ${instanceId}, ${task?.node.id ?? start.id}, 'active') returning id)`,
        sql`passed as (${passedRow(context, token, start)} returning id)`,
        ...variablesOf(variables),
        // The task's history row is written after the start event's (ids keep the order).
        ...(task ? taskParts(context, { executionId: token, draft: task, after: sql`passed` }) : []),
      ];
      const rows = await sql<{
        id: number;
        task_id: number | null;
      }>`${PREPARED}with ${sql.join(parts)} select (select id from token) as id, ${task ? sql`(select id from task)` : sql`null::bigint`} as task_id`.execute(
        trx,
      );
      const row = rows.rows[0];
      const executionId = Number(row?.id ?? 0);
      return task && row?.task_id != null ? { executionId, taskId: Number(row.task_id) } : { executionId };
    },

    async closeTask(closing, then) {
      const parts = closingParts(closing);
      if (then.to === 'task') {
        const rows = await sql<Record<string, unknown>>`${PREPARED}with ${sql.join([
          ...parts,
          ...taskParts(context, { executionId: then.executionId, draft: then.draft, moveToken: true }),
        ])}
          ${answerOf(closing, sql`(select id from task) as "nextTaskId"`)}`.execute(trx);
        const { nextTaskId, ...answer } = rows.rows[0] ?? {};
        return nextTaskId === undefined || nextTaskId === null
          ? { answer }
          : { answer, nextTaskId: Number(nextTaskId) };
      }
      if (then.to === 'end') {
        // The token ends. When it was the instance's last one, the instance ends in the same
        // statement: every part below reads "another token left?" from the statement's one
        // snapshot (which still sees this token), and leaves alone the task and history row the
        // closing writes.
        const tokensLeft = sql`(select is_left from tokens_left)`;
        const rows = await sql<Record<string, unknown>>`${PREPARED}with ${sql.join([
          ...parts,
          sql`tokens_left as (select ${anotherToken(instanceId, then.executionId)} as is_left)`,
          ...tokenEndParts(then.executionId, then.node),
          ...endParts('over', 'end', { taskId: closing.task.id, unless: tokensLeft }),
        ])}
          ${answerOf(closing, sql`${tokensLeft} as "tokensLeft"`)}`.execute(trx);
        const { tokensLeft: isLeft, ...answer } = rows.rows[0] ?? {};
        return { answer, tokensLeft: isLeft === true };
      }
      const rows = await sql<
        Record<string, unknown>
      >`${PREPARED}with ${sql.join(parts)} ${answerOf(closing)}`.execute(trx);
      return { answer: rows.rows[0] ?? {} };
    },

    async endToken(executionId, node) {
      const rows = await sql<{ left: boolean }>`with ${sql.join(tokenEndParts(executionId, node))}
        select ${anotherToken(instanceId, executionId)} as left`.execute(trx);
      return rows.rows[0]?.left === true;
    },

    async setVariables({ values, ...where }) {
      await writeVariables({ trx, change: { tenantCode, instanceId, ...where }, values });
    },

    async addSteps(steps) {
      await sql`update wf_instance set steps = steps + ${steps} where id = ${instanceId}`.execute(trx);
    },

    async notify({ usernames, groups }, notice) {
      const { ctx } = context;
      const userIds = await userIdsOf({ ctx, db: trx, tenantCode, usernames, groups });
      await notifyUsers({ ctx, db: trx, actor, userIds, notice });
    },

    async markIncident(incident) {
      await sql`update wf_instance set incident = ${JSON.stringify(incident)}::jsonb where id = ${instanceId}`.execute(
        trx,
      );
    },

    async halt(stopped, incident, steps) {
      await sql`with stopped as (update wf_execution e set activity_id = q.node, state = 'incident'
            from unnest(${stopped.map((token) => token.executionId)}::bigint[], ${stopped.map((token) => token.nodeId)}::text[]) as q(id, node)
            where e.id = q.id)
        update wf_instance set incident = ${JSON.stringify(incident)}::jsonb, steps = steps + ${steps}
        where id = ${instanceId}`.execute(trx);
    },

    async end(status, reason) {
      // One statement: the data-modifying parts touch different rows.
      await sql`with ${sql.join(endParts(status, reason))}
        delete from wf_execution where instance_id = ${instanceId}`.execute(trx);
    },

    async clear(reason) {
      await sql`with ${sql.join(stopParts(reason))} delete from wf_execution where instance_id = ${instanceId}`.execute(
        trx,
      );
    },

    async clearScope(scopeId, reason) {
      const compensations = hasCompensation(graph)
        ? sql`compensations as (delete from wf_compensation where instance_id = ${instanceId}
              and (scope_id = ${scopeId} or scope_id in (select id from inside))),`
        : sql``;
      const inside = sql`execution_id in (select id from inside)`;
      await sql`with recursive inside as (
            select id from wf_execution where parent_id = ${scopeId}
            union all select e.id from wf_execution e join inside on e.parent_id = inside.id),
          ${compensations}
          ${sql.join(canceledParts(instanceId, { tokens: inside, reason, alsoHistory: inside }))},
          jobs as (delete from wf_job where ${inside}),
          subscriptions as (delete from wf_event_subscription where ${inside}),
          offers as (delete from wf_external_task where ${inside}),
          -- The instance's incident goes with its token: no token stops in it outside the scope (the
          -- scope's own token goes on from here, an interrupted activity's through its boundary).
          incident as (update wf_instance set incident = null
            where id = ${instanceId} and incident is not null and not exists (select 1 from wf_execution
              where instance_id = ${instanceId} and state = 'incident' and id <> ${scopeId}
                and id not in (select id from inside)))
        delete from wf_execution where id in (select id from inside)`.execute(trx);
    },
  };
}
