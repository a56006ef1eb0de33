import { sql } from 'kysely';
import type { Run } from './activity.js';
import { hasCompensation } from './graph.js';

/**
 * Every token below a scope ends (recursively), with its open tasks, history rows, timers and
 * event subscriptions; `reason` is written on the tasks and history rows it ends. What completed
 * inside it can no longer be compensated (its wf_compensation rows go).
 */
export async function cancelInside(run: Run, scopeId: number, reason: string): Promise<void> {
  const compensations = hasCompensation(run.graph)
    ? sql`compensations as (delete from wf_compensation where instance_id = ${run.instanceId}
          and (scope_id = ${scopeId} or scope_id in (select id from inside))),`
    : sql``;
  await sql`with recursive inside as (
        select id from wf_execution where parent_id = ${scopeId}
        union all select e.id from wf_execution e join inside on e.parent_id = inside.id),
      ${compensations}
      tasks as (update wf_task set end_time = now(), status = 'canceled', end_reason = ${reason},
          row_version = row_version + 1
        where end_time is null and execution_id in (select id from inside) returning id),
      signers as (update wf_task set end_time = now(), status = 'canceled', end_reason = ${reason},
          row_version = row_version + 1
        where end_time is null and parent_task_id in (select id from tasks)),
      history as (update wf_hist_activity set end_time = now(), end_reason = ${reason}
        where end_time is null and instance_id = ${run.instanceId}
          and (task_id in (select id from tasks) or execution_id in (select id from inside))),
      jobs as (delete from wf_job where execution_id in (select id from inside)),
      subscriptions as (delete from wf_event_subscription where execution_id in (select id from inside))
    delete from wf_execution where id in (select id from inside)`.execute(run.trx);
}

/**
 * The signers' tasks (加签: execution-less, `parent_task_id` naming the waiting task) of tasks just
 * ended by a boundary event or a loop's completion condition end with them (cancelInside ends
 * those of the tasks it ends in its own statement; ending the instance, 退回 and 驳回 end every
 * open task already).
 */
export async function endSignersOf(run: Run, taskIds: number[], reason: string): Promise<void> {
  if (taskIds.length === 0) return;
  await sql`update wf_task set end_time = now(), status = 'canceled', end_reason = ${reason},
      row_version = row_version + 1
    where end_time is null and parent_task_id in (${sql.join(taskIds)})`.execute(run.trx);
}
