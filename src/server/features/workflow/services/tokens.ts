import { BUDGETS } from '../../../lib/budgets.js';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../../lib/db/database.js';
import { loopCounts, type LoopCounts, type LoopState } from './elements/multi-instance.js';
import type { InstanceOf } from './store.js';

/**
 * The states of a token (wf_execution.state): in an activity, waiting at it, holding a
 * sub-process's scope, running a loop, waiting at a join, stopped at an incident, or waiting for
 * the compensation handlers it started.
 */
export type TokenState = 'active' | 'waiting' | 'scope' | 'loop' | 'joining' | 'incident' | 'compensating';

/** Where a token stands, and the scope token it runs in (null at the top of the process). */
export interface TokenAt {
  activityId: string;
  parentId: number | null;
}

/** A token standing in an activity: active, waiting, a sub-process's scope, or a loop's. */
export interface LiveToken extends TokenAt {
  id: number;
  state: Extract<TokenState, 'active' | 'waiting' | 'scope' | 'loop'>;
}

/**
 * The tokens of one instance as the element behaviours and the interpreter see them (elements/,
 * interpreter.ts): where each stands and in which state. The behaviours decide; a store keeps.
 * The interpreter hands them the instance's store in the database (sqlTokens, in the caller's
 * transaction); their unit tests hand them one in memory. A token's move written with the rows
 * that go with it (its history row, its task, the instance's end) is the other stores' one write
 * (history.ts, task-store.ts, instance-store.ts).
 */
export interface TokenStore {
  /** The scope token a token runs in (null at the top of the process). */
  parentOf(executionId: number): Promise<number | null>;
  /**
   * The loop variables of the token and the scopes it runs in (a multi-instance sub-process's
   * item and loopCounter, kept on its child's scope token), the nearest winning; the counts
   * (nrOfInstances, nrOfActiveInstances, nrOfCompletedInstances) are the nearest loop's as they
   * are now, not as they were when the child started.
   */
  localsAbove(executionId: number): Promise<Record<string, unknown>>;
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
  /** The token is active again (it carries merged branches on, or leaves what it waited at). */
  activate(executionId: number): Promise<void>;
  /** The token waits at the node it stands at (a task, a catch event, a call, a scope's children). */
  wait(executionId: number): Promise<void>;
  /** The token is active again and its multi-instance loop, if any, forgotten (a boundary ended it). */
  activateOutOfLoop(executionId: number): Promise<void>;
  /**
   * The token moves to a node: into the state given (it enters an activity, or a sub-process's
   * scope), or its state unchanged (a boundary event that ended its activity).
   */
  moveTo(executionId: number, nodeId: string, state?: MovedState): Promise<void>;
  /** The token stops at a node with an incident. */
  stopAt(executionId: number, nodeId: string): Promise<void>;
  /** Whether the token is still there (a behaviour run before may have ended it). */
  exists(executionId: number): Promise<boolean>;
  /** Where the token stands; none when it is gone. */
  at(executionId: number): Promise<TokenAt | undefined>;
  /** Where the token stands when it is waiting; none otherwise. */
  waitingAt(executionId: number): Promise<TokenAt | undefined>;
  /** Whether any token runs in the scope token (a sub-process with a child left). */
  hasChildren(scopeId: number): Promise<boolean>;
  /**
   * A new token at a node, in a scope (or at the top): active, or the scope of a sub-process (a
   * loop's child, with its loop variables); its id.
   */
  add(
    nodeId: string,
    parentId: number | null,
    child?: { isScope: boolean; locals: Record<string, unknown> },
  ): Promise<number>;
  /** The token runs a multi-instance loop (state loop), whose counts are kept with it. */
  openLoop(executionId: number, state: LoopState): Promise<void>;
  /** A loop's counts after a child. */
  saveLoop(executionId: number, state: LoopState): Promise<void>;
  /** The loop a token runs; none when it runs none. */
  loopOf(executionId: number): Promise<LoopState | undefined>;
  /** Every token in the scope token goes (a loop's children, once it is over). */
  removeChildren(scopeId: number): Promise<void>;
  /** The tokens standing in activities at these nodes (not joining, not stopped), oldest first. */
  liveAt(nodeIds: string[]): Promise<LiveToken[]>;
  /** The token when it stands in an activity at this node; none otherwise. */
  liveToken(executionId: number, nodeId: string): Promise<LiveToken | undefined>;
  /** The tokens waiting at these nodes are active again (a signal caught them); those woken, oldest first. */
  wakeWaitingAt(nodeIds: string[]): Promise<(TokenAt & { id: number })[]>;
  /** The token ends; answers whether another token of the instance is left. */
  removeAndAnyLeft(executionId: number): Promise<boolean>;
  /** New tokens at these nodes, in this order, in the scope token `parentId` (compensation handlers); their ids in the same order. */
  addAll(nodeIds: string[], parentId: number): Promise<number[]>;
  /**
   * The token, which runs in a scope, ends; answers that scope's token (where it stands, its
   * state) and whether another token is left in it. None when it ran at the top or is gone.
   */
  removeFromScope(
    executionId: number,
  ): Promise<{ scope: TokenAt & { id: number; state: TokenState }; othersLeft: boolean } | undefined>;
}

/**
 * The state a token is moved into: it enters an activity, holds a sub-process's scope, or waits
 * while the compensation handlers it started run (compensation.ts).
 */
export type MovedState = Extract<TokenState, 'active' | 'scope' | 'compensating'>;

/**
 * Whether a token of the instance other than this one stands: read in the statement that removes
 * this one, which still sees it.
 */
export const anotherToken = (instanceId: number, executionId: number): RawBuilder<boolean> =>
  sql<boolean>`exists (select 1 from wf_execution where instance_id = ${instanceId} and id <> ${executionId})`;

/**
 * The locals of a token's chain of scopes, outermost first: the nearest value of each wins, and
 * the counts are the nearest loop's now (loopCounts).
 */
export function mergedLocals(
  chain: readonly { locals: Record<string, unknown> | null; counts: LoopCounts | null }[],
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  let nearest: LoopCounts | null = null;
  for (const { locals, counts } of chain) {
    Object.assign(merged, locals ?? {});
    if (counts) nearest = counts;
  }
  return nearest ? { ...merged, ...loopCounts(nearest) } : merged;
}

/** An instance's tokens in wf_execution, read and written in the caller's transaction. */
export function sqlTokens(trx: Db, { tenantCode, instanceId }: InstanceOf): TokenStore {
  // A token's and its scopes' locals are written with them and never change, and a loop's state
  // changes only through this store (opened, saved, forgotten): read once per token until it does.
  // (退回 in tasks.ts rewrites a token's loop and parent itself, before any run reads them.)
  const localsRead = new Map<number, Record<string, unknown>>();
  return {
    async parentOf(executionId) {
      const rows = await sql<{
        parent_id: number | null;
      }>`select parent_id from wf_execution where id = ${executionId}`.execute(trx);
      return rows.rows[0]?.parent_id ?? null;
    },
    async localsAbove(executionId) {
      const known = localsRead.get(executionId);
      if (known) return known;
      // Scopes nest no deeper than the BPMN budget's depth (budgets.ts): the walk is bounded.
      // The loop's counts alone, not its items (a collection may be long).
      const rows = await sql<{
        locals: Record<string, unknown> | null;
        counts: LoopCounts | null;
      }>`with recursive up (id, parent_id, local_vars, loop_state, depth) as (
          select id, parent_id, local_vars, loop_state, 0 from wf_execution where id = ${executionId}
          union all
          select e.id, e.parent_id, e.local_vars, e.loop_state, up.depth + 1 from wf_execution e join up on e.id = up.parent_id
           where up.depth < ${BUDGETS.workflow.bpmnDepth + 1})
        select local_vars as locals, case when loop_state is null then null else jsonb_build_object(
            'total', loop_state->'total', 'active', loop_state->'active', 'completed', loop_state->'completed') end as counts
          from up where local_vars is not null or loop_state is not null order by depth desc`.execute(trx);
      const locals = mergedLocals(rows.rows);
      localsRead.set(executionId, locals);
      return locals;
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
    async wait(executionId) {
      await sql`update wf_execution set state = 'waiting' where id = ${executionId}`.execute(trx);
    },
    async activateOutOfLoop(executionId) {
      localsRead.clear();
      await sql`update wf_execution set loop_state = null, state = 'active' where id = ${executionId}`.execute(
        trx,
      );
    },
    async moveTo(executionId, nodeId, state) {
      await sql`update wf_execution set activity_id = ${nodeId}${state === undefined ? sql`` : sql`, state = ${state}`}
        where id = ${executionId}`.execute(trx);
    },
    async stopAt(executionId, nodeId) {
      await sql`update wf_execution set state = 'incident', activity_id = ${nodeId} where id = ${executionId}`.execute(
        trx,
      );
    },
    async exists(executionId) {
      const rows = await sql`select 1 from wf_execution where id = ${executionId}`.execute(trx);
      return rows.rows.length > 0;
    },
    async at(executionId) {
      return tokenAt(
        await sql<RowAt>`select activity_id, parent_id from wf_execution where id = ${executionId}`.execute(
          trx,
        ),
      );
    },
    async waitingAt(executionId) {
      return tokenAt(
        await sql<RowAt>`select activity_id, parent_id from wf_execution
          where id = ${executionId} and state = 'waiting'`.execute(trx),
      );
    },
    async hasChildren(scopeId) {
      const rows = await sql`select 1 from wf_execution where parent_id = ${scopeId} limit 1`.execute(trx);
      return rows.rows.length > 0;
    },
    async add(nodeId, parentId, child) {
      const state = child?.isScope === true ? 'scope' : 'active';
      const locals = child ? JSON.stringify(child.locals) : null;
      const rows = await sql<{
        id: number;
      }>`insert into wf_execution (tenant_code, instance_id, activity_id, state, parent_id, local_vars)
        values (${tenantCode}, ${instanceId}, ${nodeId}, ${state}, ${parentId}, ${locals}::jsonb) returning id`.execute(
        trx,
      );
      return Number(rows.rows[0]?.id ?? 0);
    },
    async openLoop(executionId, state) {
      localsRead.clear();
      await sql`update wf_execution set state = 'loop', loop_state = ${JSON.stringify(state)}::jsonb
        where id = ${executionId}`.execute(trx);
    },
    async saveLoop(executionId, state) {
      localsRead.clear();
      await sql`update wf_execution set loop_state = ${JSON.stringify(state)}::jsonb where id = ${executionId}`.execute(
        trx,
      );
    },
    async loopOf(executionId) {
      const rows = await sql<{ loop_state: LoopState | null }>`select loop_state from wf_execution
        where id = ${executionId}`.execute(trx);
      return rows.rows[0]?.loop_state ?? undefined;
    },
    async removeChildren(scopeId) {
      await sql`delete from wf_execution where parent_id = ${scopeId}`.execute(trx);
    },
    async liveAt(nodeIds) {
      if (nodeIds.length === 0) return [];
      const rows = await sql<
        RowAt & { id: number; state: LiveToken['state'] }
      >`select id, activity_id, parent_id, state
        from wf_execution where instance_id = ${instanceId} and activity_id in (${sql.join(nodeIds)})
          and state in ('active', 'waiting', 'scope', 'loop') order by id`.execute(trx);
      return rows.rows.map((row) => ({
        id: row.id,
        activityId: row.activity_id,
        parentId: row.parent_id,
        state: row.state,
      }));
    },
    async liveToken(executionId, nodeId) {
      const rows = await sql<
        RowAt & { id: number; state: LiveToken['state'] }
      >`select id, activity_id, parent_id, state from wf_execution
        where id = ${executionId} and activity_id = ${nodeId} and state in ('active', 'waiting', 'scope', 'loop')`.execute(
        trx,
      );
      const row = rows.rows[0];
      return row && { id: row.id, activityId: row.activity_id, parentId: row.parent_id, state: row.state };
    },
    async wakeWaitingAt(nodeIds) {
      if (nodeIds.length === 0) return [];
      const rows = await sql<RowAt & { id: number }>`update wf_execution set state = 'active'
        where instance_id = ${instanceId} and state = 'waiting' and activity_id in (${sql.join(nodeIds)})
        returning id, activity_id, parent_id`.execute(trx);
      return rows.rows
        .map((row) => ({ id: row.id, activityId: row.activity_id, parentId: row.parent_id }))
        .sort((a, b) => a.id - b.id);
    },
    async removeAndAnyLeft(executionId) {
      // Read in the statement that removes it, which still sees it.
      const rows = await sql<{
        left: boolean;
      }>`with gone as (delete from wf_execution where id = ${executionId})
        select ${anotherToken(instanceId, executionId)} as left`.execute(trx);
      return rows.rows[0]?.left === true;
    },
    async addAll(nodeIds, parentId) {
      if (nodeIds.length === 0) return [];
      const rows = await sql<{
        id: number;
      }>`insert into wf_execution (tenant_code, instance_id, activity_id, state, parent_id)
        select ${tenantCode}, ${instanceId}, node, 'active', ${parentId}
        from unnest(${nodeIds}::text[]) with ordinality as n(node, position) order by position
        returning id`.execute(trx);
      // Ids are given in the order of the insert.
      return rows.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
    },
    async removeFromScope(executionId) {
      // The scope is read in the statement that removes the token, which still sees it.
      const rows = await sql<{
        id: number;
        activity_id: string;
        parent_id: number | null;
        state: TokenState;
        others: boolean;
      }>`with gone as (delete from wf_execution where id = ${executionId} returning parent_id)
        select e.id, e.activity_id, e.parent_id, e.state,
          exists (select 1 from wf_execution o where o.parent_id = e.id and o.id <> ${executionId}) as others
        from wf_execution e where e.id = (select parent_id from gone)`.execute(trx);
      const row = rows.rows[0];
      if (!row) return undefined;
      return {
        scope: {
          id: Number(row.id),
          activityId: row.activity_id,
          parentId: row.parent_id === null ? null : Number(row.parent_id),
          state: row.state,
        },
        othersLeft: row.others,
      };
    },
  };
}

type RowAt = { activity_id: string; parent_id: number | null };

const tokenAt = ({ rows }: { rows: RowAt[] }): TokenAt | undefined => {
  const row = rows[0];
  return row ? { activityId: row.activity_id, parentId: row.parent_id } : undefined;
};
