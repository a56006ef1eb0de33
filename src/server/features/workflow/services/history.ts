import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../../lib/db/database.js';
import type { ProcessNode } from './graph.js';
import type { InstanceOf } from './store.js';
import type { MovedState } from './tokens.js';

/**
 * The history of an instance's activities (wf_hist_activity) as the interpreter writes it: a row
 * per activity a token passed or stood at, open while it stands there. The interpreter decides
 * when an activity starts and ends; a store keeps it. The engine's store is in the database
 * (sqlHistory, in the caller's transaction).
 */

export interface HistoryStore {
  /**
   * A token passed an activity at once (an event, a gateway, a service task): its row, started
   * and ended now. `moveTo`: the token moves to the node in the same write.
   */
  pass(executionId: number, node: ProcessNode, moveTo?: MovedState): Promise<void>;
  /** A token now stands at an activity (a sub-process, a call, a catch, a task that waits): its open row. */
  start(executionId: number, node: ProcessNode): Promise<void>;
  /** The open row of a token at an activity ends (it left a sub-process, a call, a catch, an event-based gateway). */
  endAt(executionId: number, activityId: string): Promise<void>;
  /** Every open row of a token ends, with the reason (a transaction left through its cancel boundary). */
  endAllAt(executionId: number, reason: string): Promise<void>;
  /** The open rows of these tasks end, with the reason. */
  endTasks(taskIds: number[], reason: string | null): Promise<void>;
  /** How many times a token reached any of these activities in the instance's life. */
  countOf(activityIds: string[]): Promise<number>;
}

/** Where a token is: its id, or (in a statement that also makes it) a subquery naming it. */
export type TokenRef = number | RawBuilder<unknown>;

/** The insert of an activity's passed row, to run or to put into a statement that writes more. */
export const passedRow = (
  { tenantCode, instanceId }: InstanceOf,
  executionId: TokenRef,
  node: ProcessNode,
): RawBuilder<unknown> =>
  sql`insert into wf_hist_activity
      (tenant_code, instance_id, execution_id, activity_id, activity_name, activity_type, start_time, end_time)
    values (${tenantCode}, ${instanceId}, ${executionId}, ${node.id}, ${node.name ?? null}, ${node.type},
      now(), now())`;

/** The move of a token to a node (the part of a statement that also writes the node's history). */
const tokenMove = (executionId: number, nodeId: string, state: MovedState): RawBuilder<unknown> =>
  sql`update wf_execution set activity_id = ${nodeId}, state = ${state} where id = ${executionId}`;

/** The history of one instance in wf_hist_activity, in the caller's transaction. */
export function sqlHistory(trx: Db, instance: InstanceOf): HistoryStore {
  const { tenantCode, instanceId } = instance;
  return {
    async pass(executionId, node, moveTo) {
      const passed = passedRow(instance, executionId, node);
      await (
        moveTo === undefined
          ? passed
          : sql`with moved as (${tokenMove(executionId, node.id, moveTo)}) ${passed}`
      ).execute(trx);
    },
    async start(executionId, node) {
      await sql`insert into wf_hist_activity
          (tenant_code, instance_id, execution_id, activity_id, activity_name, activity_type, start_time)
        values (${tenantCode}, ${instanceId}, ${executionId}, ${node.id}, ${node.name ?? null}, ${node.type}, now())`.execute(
        trx,
      );
    },
    async endAt(executionId, activityId) {
      await sql`update wf_hist_activity set end_time = now()
        where instance_id = ${instanceId} and execution_id = ${executionId} and activity_id = ${activityId}
          and end_time is null`.execute(trx);
    },
    async endAllAt(executionId, reason) {
      await sql`update wf_hist_activity set end_time = now(), end_reason = ${reason}
        where instance_id = ${instanceId} and execution_id = ${executionId} and end_time is null`.execute(
        trx,
      );
    },
    async endTasks(taskIds, reason) {
      if (taskIds.length === 0) return;
      // By the instance's index (a task's rows are a few of the instance's).
      await sql`update wf_hist_activity set end_time = now(), end_reason = ${reason}
        where instance_id = ${instanceId} and task_id in (${sql.join(taskIds)}) and end_time is null`.execute(
        trx,
      );
    },
    async countOf(activityIds) {
      if (activityIds.length === 0) return 0;
      const rows = await sql<{ count: number }>`select count(*)::int as count from wf_hist_activity
        where instance_id = ${instanceId} and activity_id in (${sql.join(activityIds)})`.execute(trx);
      return rows.rows[0]?.count ?? 0;
    },
  };
}
