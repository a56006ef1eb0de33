import { sql } from 'kysely';
import type { Db } from '../../../lib/db/database.js';
import type { InstanceOf } from './store.js';

/**
 * What an instance can still undo (wf_compensation): a row per completed activity with a
 * compensation handler, in the scope it completed in (the token of its sub-process, or null for
 * the process), and a row per completed sub-process with such rows inside, which move under it.
 * compensation.ts decides when rows are made, undone and used; a store keeps them. The engine's
 * store is in the database (sqlCompensations, in the caller's transaction).
 */

/** A completed activity that can be undone: its row, and the activity. */
export interface Compensable {
  id: number;
  activityId: string;
}

/** Where rows are: at the top of a live scope (its token, null for the process), or under a completed sub-process's row. */
export type CompensableIn = { scopeId: number | null } | { parentId: number };

export interface CompensationStore {
  /** An activity with a compensation handler completed in a scope. */
  note(scopeId: number | null, activityId: string): Promise<void>;
  /** A compensation handler's or event sub-process's scope completed: what completed in it can no longer be undone. */
  forgetIn(scopeId: number): Promise<void>;
  /**
   * A sub-process (its token `innerId`) completed in the scope `scopeId`: when it has a handler
   * of its own, or rows inside, it gets a row, and its rows move under that one.
   */
  gather(innerId: number, scopeId: number | null, activityId: string, hasHandler: boolean): Promise<void>;
  /** The rows in a place (with activityRef: of that activity only), newest first. */
  rowsIn(place: CompensableIn, activityRef?: string): Promise<Compensable[]>;
  /** The rows of a scope (with activityRef: of that activity) and every row under them are used: they go. */
  use(scopeId: number | null, activityRef?: string): Promise<void>;
}

/** The compensation rows of one instance in wf_compensation, in the caller's transaction. */
export function sqlCompensations(trx: Db, { tenantCode, instanceId }: InstanceOf): CompensationStore {
  const ofActivity = (activityRef: string | undefined) =>
    activityRef === undefined ? sql`` : sql` and activity_id = ${activityRef}`;
  return {
    async note(scopeId, activityId) {
      await sql`insert into wf_compensation (tenant_code, instance_id, scope_id, activity_id)
        values (${tenantCode}, ${instanceId}, ${scopeId}, ${activityId})`.execute(trx);
    },
    async forgetIn(scopeId) {
      await sql`delete from wf_compensation where instance_id = ${instanceId} and scope_id = ${scopeId}
        and parent_id is null`.execute(trx);
    },
    async gather(innerId, scopeId, activityId, hasHandler) {
      await sql`with inner_rows as (select id from wf_compensation
            where instance_id = ${instanceId} and scope_id = ${innerId} and parent_id is null),
          made as (insert into wf_compensation (tenant_code, instance_id, scope_id, activity_id)
            select ${tenantCode}, ${instanceId}, ${scopeId}, ${activityId}
            where ${hasHandler} or exists (select 1 from inner_rows)
            returning id)
        update wf_compensation set parent_id = (select id from made) where id in (select id from inner_rows)`.execute(
        trx,
      );
    },
    async rowsIn(place, activityRef) {
      const where =
        'parentId' in place
          ? sql`parent_id = ${place.parentId}`
          : sql`parent_id is null and scope_id is not distinct from ${place.scopeId}::bigint`;
      const rows = await sql<{ id: number; activity_id: string }>`select id, activity_id from wf_compensation
        where instance_id = ${instanceId} and ${where}${ofActivity(activityRef)} order by id desc`.execute(
        trx,
      );
      return rows.rows.map((row) => ({ id: Number(row.id), activityId: row.activity_id }));
    },
    async use(scopeId, activityRef) {
      await sql`with recursive used as (
            select id from wf_compensation where instance_id = ${instanceId} and parent_id is null
              and scope_id is not distinct from ${scopeId}::bigint${ofActivity(activityRef)}
            union all select c.id from wf_compensation c join used on c.parent_id = used.id)
        delete from wf_compensation where id in (select id from used)`.execute(trx);
    },
  };
}
