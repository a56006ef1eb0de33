import { sql } from 'kysely';
import type { Db } from '../../../lib/db/database.js';

/**
 * A key revoked or deleted is announced like an ended session (features/sessions/services/watch.ts:
 * channel ecobid_session, "u:<user id>:<backend pid>"), so every process drops the key's user's
 * cached sessions and keys, and the request that revoked waits until every process has.
 */
export async function installKeyTriggers(db: Db): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('ecobid_api_key_triggers'))`.execute(trx);
    await sql`create or replace function ecobid_api_key_changed() returns trigger language plpgsql as $$
      begin
        perform pg_notify('ecobid_session', 'u:' || old.user_id || ':' || pg_backend_pid());
        return null;
      end $$`.execute(trx);
    const found = await sql`select 1 from pg_trigger
      where tgname = 'sys_api_key_ended_notify' and tgrelid = to_regclass('sys_api_key')`.execute(trx);
    if (found.rows.length === 0)
      await sql`create trigger sys_api_key_ended_notify after update of revoked_at, roles or delete on sys_api_key
        for each row when (old.revoked_at is null) execute function ecobid_api_key_changed()`.execute(trx);
  });
}
