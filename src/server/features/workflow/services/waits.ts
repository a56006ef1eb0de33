import { sql } from 'kysely';
import type { Db } from '../../../lib/db/database.js';
import type { EventWait } from './graph.js';
import { insertTimerJobs, type InstanceOf, type Timer } from './store.js';

/**
 * What an instance's tokens wait for besides their tasks: messages and signals by name (a
 * subscription each, wf_event_subscription) and timers (a job each, wf_job). The interpreter
 * decides what to wait for and when it is over; a store keeps it. The engine's store is in the
 * database (sqlWaits, in the caller's transaction); tests/support/memory-waits.ts keeps the same
 * in memory, held to the same answers by tests/integration/workflow-token-store.test.ts.
 */

/** Tells every process's job poller that a service call is due (sent as the transaction commits). */
export const SERVICE_CALL_CHANNEL = 'ecobid_wf_call';

/** A subscription as delivery reads it: who waits, where, for which catch. */
export interface Subscribed {
  executionId: number | null;
  waitsAt: string;
  catchId: string;
}

/** The jobs a token's own waits are kept as (a boundary or catch timer, a connector's call). */
export type TokenJobKind = 'boundaryTimer' | 'serviceCall';

export interface WaitStore {
  /**
   * The token (null: the instance itself) waiting at a node waits for these messages and signals;
   * a token's second subscription to the same catch is none.
   */
  subscribe(executionId: number | null, waitsAt: string, waits: EventWait[]): Promise<void>;
  /** The token left what it waited at: its subscriptions go. */
  unsubscribe(executionId: number): Promise<void>;
  /** The subscriptions of these catches, oldest first. */
  subscribedAt(catchIds: string[]): Promise<Subscribed[]>;
  /** Timers set, each a job. */
  addTimers(timers: Timer[]): Promise<void>;
  /** A token's jobs of these kinds go (it left its activity, or a boundary ended it). */
  dropJobs(executionId: number, kinds: TokenJobKind[]): Promise<void>;
  /** The subscriptions and timers of these catches on a token go (the other starts of a scope's event sub-processes). */
  dropWaitsAt(executionId: number, catchIds: string[]): Promise<void>;
  /** The token's connector or mail task is to be called now: its one call job (a worker takes it). */
  callService(executionId: number, activityId: string, at: Date): Promise<void>;
  /**
   * The token's external task is offered to the workers of its topic (wf_external_task): its one
   * offer, replacing an earlier one of the token.
   */
  offerWork(
    executionId: number,
    work: { processKey: string; activityId: string; topic: string },
  ): Promise<void>;
}

/** The waits of one instance in wf_event_subscription and wf_job, in the caller's transaction. */
export function sqlWaits(trx: Db, { tenantCode, instanceId }: InstanceOf): WaitStore {
  return {
    async subscribe(executionId, waitsAt, waits) {
      if (waits.length === 0) return;
      await sql`insert into wf_event_subscription (tenant_code, instance_id, execution_id, waits_at, activity_id, kind, name)
        values ${sql.join(
          waits.map(
            (wait) =>
              sql`(${tenantCode}, ${instanceId}, ${executionId}::bigint, ${waitsAt}, ${wait.catchId}, ${wait.kind}, ${wait.name})`,
          ),
        )}
        on conflict (execution_id, activity_id) do nothing`.execute(trx);
    },
    async unsubscribe(executionId) {
      await sql`delete from wf_event_subscription where execution_id = ${executionId}`.execute(trx);
    },
    async subscribedAt(catchIds) {
      if (catchIds.length === 0) return [];
      const rows = await sql<{
        execution_id: number | null;
        waits_at: string;
        activity_id: string;
      }>`select execution_id, waits_at, activity_id from wf_event_subscription
        where instance_id = ${instanceId} and activity_id in (${sql.join(catchIds)}) order by id`.execute(
        trx,
      );
      return rows.rows.map((row) => ({
        executionId: row.execution_id === null ? null : Number(row.execution_id),
        waitsAt: row.waits_at,
        catchId: row.activity_id,
      }));
    },
    async addTimers(timers) {
      await insertTimerJobs(
        trx,
        timers.map((timer) => ({ ...timer, tenantCode, instanceId })),
      );
    },
    async dropJobs(executionId, kinds) {
      if (kinds.length === 0) return;
      await sql`delete from wf_job where execution_id = ${executionId} and kind in (${sql.join(kinds)})`.execute(
        trx,
      );
    },
    async dropWaitsAt(executionId, catchIds) {
      if (catchIds.length === 0) return;
      await sql`with subscriptions as (delete from wf_event_subscription
          where execution_id = ${executionId} and activity_id in (${sql.join(catchIds)}))
        delete from wf_job where execution_id = ${executionId} and activity_id in (${sql.join(catchIds)})`.execute(
        trx,
      );
    },
    async callService(executionId, activityId, at) {
      await sql`with gone as (delete from wf_job where execution_id = ${executionId} and kind = 'serviceCall')
        insert into wf_job (tenant_code, instance_id, execution_id, activity_id, kind, due_at)
        values (${tenantCode}, ${instanceId}, ${executionId}, ${activityId}, 'serviceCall', ${at})`.execute(
        trx,
      );
      await sql`select pg_notify(${SERVICE_CALL_CHANNEL}, '')`.execute(trx);
    },
    async offerWork(executionId, { processKey, activityId, topic }) {
      await sql`with gone as (delete from wf_external_task where execution_id = ${executionId})
        insert into wf_external_task (tenant_code, instance_id, execution_id, process_key, activity_id, topic)
        values (${tenantCode}, ${instanceId}, ${executionId}, ${processKey}, ${activityId}, ${topic})`.execute(
        trx,
      );
    },
  };
}
