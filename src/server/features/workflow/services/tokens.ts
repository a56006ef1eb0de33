import { sql } from 'kysely';
import type { Db } from '../../../lib/db/database.js';

/**
 * The tokens of one instance as the element behaviours see them (elements/): where each stands
 * and whether it waits at a join. The behaviours decide; a store keeps. The interpreter hands
 * them the instance's store in the database (sqlTokens, in the caller's transaction); their unit
 * tests hand them one in memory.
 */
export interface TokenStore {
  /** The scope token a token runs in (null at the top of the process). */
  parentOf(executionId: number): Promise<number | null>;
  /** The token waits at the join it stands at. */
  markJoining(executionId: number): Promise<void>;
  /** The tokens waiting at a join, oldest first. */
  joiningAt(nodeId: string): Promise<number[]>;
  /** Where every other token of the instance stands: all but those waiting at this join. */
  standingExceptJoiningAt(nodeId: string): Promise<string[]>;
  /** The first token waiting at each join that has any, with its parent scope. */
  firstJoiningPerJoin(): Promise<{ id: number; activityId: string; parentId: number | null }[]>;
  /** Tokens merged into another are gone. */
  remove(executionIds: number[]): Promise<void>;
  /** The token that carries merged branches on is active again. */
  activate(executionId: number): Promise<void>;
}

/** An instance's tokens in wf_execution, read and written in the caller's transaction. */
export function sqlTokens(trx: Db, instanceId: number): TokenStore {
  return {
    async parentOf(executionId) {
      const rows = await sql<{
        parent_id: number | null;
      }>`select parent_id from wf_execution where id = ${executionId}`.execute(trx);
      return rows.rows[0]?.parent_id ?? null;
    },
    async markJoining(executionId) {
      await sql`update wf_execution set state = 'joining' where id = ${executionId}`.execute(trx);
    },
    async joiningAt(nodeId) {
      const rows = await sql<{ id: number }>`select id from wf_execution
        where instance_id = ${instanceId} and activity_id = ${nodeId} and state = 'joining' order by id`.execute(
        trx,
      );
      return rows.rows.map((row) => row.id);
    },
    async standingExceptJoiningAt(nodeId) {
      const rows = await sql<{ activity_id: string }>`select activity_id from wf_execution
        where instance_id = ${instanceId} and not (activity_id = ${nodeId} and state = 'joining')`.execute(
        trx,
      );
      return rows.rows.map((row) => row.activity_id);
    },
    async firstJoiningPerJoin() {
      const rows = await sql<{
        id: number;
        activity_id: string;
        parent_id: number | null;
      }>`select min(id) as id, activity_id, min(parent_id) as parent_id from wf_execution
        where instance_id = ${instanceId} and state = 'joining' group by activity_id`.execute(trx);
      return rows.rows.map((row) => ({ id: row.id, activityId: row.activity_id, parentId: row.parent_id }));
    },
    async remove(executionIds) {
      if (executionIds.length === 0) return;
      await sql`delete from wf_execution where id in (${sql.join(executionIds)})`.execute(trx);
    },
    async activate(executionId) {
      await sql`update wf_execution set state = 'active' where id = ${executionId}`.execute(trx);
    },
  };
}
