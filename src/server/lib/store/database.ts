import { sql } from 'kysely';
import { codeMatches, hashCode } from './codes.js';
import type { Db } from '../db/database.js';
import {
  MAX_CODE_ATTEMPTS,
  type CodeId,
  type CodeTarget,
  type CounterHit,
  type IssueCode,
  type IssueResult,
  type SharedStore,
} from './types.js';

/**
 * The shared store in the database (the default): counters in sys_counter, one row per key
 * with hits in a window that ends at window_ends_at and a lock until locked_until; codes in
 * sys_verification_code as salted hashes.
 */
export function databaseStore(db: Db): SharedStore {
  const store: SharedStore = {
    kind: 'database',

    async hit(key, windowMs) {
      const seconds = windowMs / 1000;
      const result = await sql<{ hits: number; ttl_ms: number }>`
        insert into sys_counter (counter_key, hits, window_ends_at)
        values (${key}, 1, now() + make_interval(secs => ${seconds}))
        on conflict (counter_key) do update set
          hits = case when sys_counter.window_ends_at <= now() then 1 else sys_counter.hits + 1 end,
          window_ends_at = case when sys_counter.window_ends_at <= now()
            then now() + make_interval(secs => ${seconds}) else sys_counter.window_ends_at end
        returning hits, greatest(0, floor(extract(epoch from (window_ends_at - now())) * 1000))::float8 as ttl_ms`.execute(
        db,
      );
      const row = result.rows[0];
      // Now and then, forget counters whose window ended a day ago.
      if (Math.random() < 0.01) {
        await sql`delete from sys_counter where window_ends_at < now() - interval '1 day'
          and (locked_until is null or locked_until < now())`.execute(db);
      }
      return { hits: row?.hits ?? 1, ttlMs: Number(row?.ttl_ms ?? windowMs) } satisfies CounterHit;
    },

    async lock(key, ms) {
      await sql`insert into sys_counter (counter_key, hits, window_ends_at, locked_until)
        values (${key}, 0, now(), now() + make_interval(secs => ${ms / 1000}))
        on conflict (counter_key) do update set hits = 0, window_ends_at = now(),
          locked_until = excluded.locked_until`.execute(db);
    },

    async lockedMs(key) {
      const result = await sql<{ ms: number }>`
        select ceil(extract(epoch from (locked_until - now())) * 1000)::float8 as ms
        from sys_counter where counter_key = ${key} and locked_until > now()`.execute(db);
      return Math.max(0, Number(result.rows[0]?.ms ?? 0));
    },

    async forget(key, trx) {
      await sql`delete from sys_counter where counter_key = ${key}`.execute(trx ?? db);
    },

    async counters(prefix, limit) {
      const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const result = await sql<{ key: string; hits: number; ttl_ms: number; locked_ms: number }>`
        select substr(counter_key, ${prefix.length + 1}) as key,
          case when window_ends_at > now() then hits else 0 end as hits,
          greatest(0, ceil(extract(epoch from (window_ends_at - now())) * 1000))::float8 as ttl_ms,
          greatest(0, coalesce(ceil(extract(epoch from (locked_until - now())) * 1000), 0))::float8 as locked_ms
        from sys_counter
        where counter_key like ${pattern} and (window_ends_at > now() or locked_until > now())
        order by locked_until > now() desc nulls last, hits desc, counter_key
        limit ${limit}`.execute(db);
      return result.rows.map((row) => ({
        key: row.key,
        hits: Number(row.hits),
        ttlMs: Number(row.ttl_ms),
        lockedMs: Number(row.locked_ms),
      }));
    },

    async sentCodes(purpose, tenantCode, limit) {
      const tenant = tenantCode === undefined ? sql`` : sql`and tenant_code = ${tenantCode}`;
      const result = await sql<{ tenant_code: string; target: string; sent: number; last_at: Date | string }>`
        select tenant_code, target, count(*)::int as sent, max(created_at) as last_at
        from sys_verification_code
        where purpose = ${purpose} and created_at > now() - interval '1 day' ${tenant}
        group by tenant_code, target
        order by sent desc, last_at desc
        limit ${limit}`.execute(db);
      return result.rows.map((row) => ({
        tenantCode: row.tenant_code,
        target: row.target,
        sent: Number(row.sent),
        lastAt: new Date(row.last_at),
      }));
    },

    async issueCode(issue, options = {}) {
      const { quota, deliver } = options;
      if (!quota) {
        await insertCode(options.trx ?? db, issue);
        await deliver?.();
        return { issued: true };
      }
      // Checked under a per-target lock, so that parallel calls (on any server process) cannot
      // slip past the quota; delivered inside the transaction, so that a failed delivery leaves
      // no code behind and counts for nothing.
      return db.transaction().execute(async (trx): Promise<IssueResult> => {
        await sql`select pg_advisory_xact_lock(hashtext(${`${issue.purpose}:${issue.tenantCode}:${issue.target}`}))`.execute(
          trx,
        );
        const recent = await sql<{ sent: number; wait_seconds: number | null }>`
          select count(*)::int as sent,
            ceil(${quota.intervalSeconds} - extract(epoch from (now() - max(created_at))))::int as wait_seconds
          from sys_verification_code
          where purpose = ${issue.purpose} and target = ${issue.target} and tenant_code = ${issue.tenantCode}
            and created_at > now() - interval '1 day'`.execute(trx);
        const { sent = 0, wait_seconds: wait = null } = recent.rows[0] ?? {};
        if (wait !== null && wait > 0) return { issued: false, reason: 'tooSoon', seconds: wait };
        if (sent >= quota.dailyLimit) return { issued: false, reason: 'dailyLimit' };
        await insertCode(trx, issue);
        await deliver?.();
        return { issued: true };
      });
    },

    async checkCode(check) {
      if (check.code === '' || check.target === '') return undefined;
      const found = await sql<{ id: number; code_hash: string }>`
        select id, code_hash from sys_verification_code
        where purpose = ${check.purpose} and target = ${check.target} and tenant_code = ${check.tenantCode}
          and used_at is null and expires_at > now() and attempts < ${MAX_CODE_ATTEMPTS}
        order by id desc limit 1`.execute(db);
      const row = found.rows[0];
      if (!row) return undefined;
      if (!codeMatches(check.code, row.code_hash)) {
        await sql`update sys_verification_code set attempts = attempts + 1 where id = ${row.id}`.execute(db);
        return undefined;
      }
      return codeId(check, row.id);
    },

    async consumeCode(id, trx) {
      const result = await sql`update sys_verification_code set used_at = now()
        where id = ${Number(id.serial)} and used_at is null and expires_at > now() returning id`.execute(
        trx ?? db,
      );
      return result.rows.length > 0;
    },

    async markVerified(id) {
      const result = await sql`update sys_verification_code set verified_at = now()
        where id = ${Number(id.serial)} and verified_at is null and used_at is null returning id`.execute(db);
      return result.rows.length > 0;
    },

    async burnCode(target) {
      await sql`update sys_verification_code set used_at = now()
        where purpose = ${target.purpose} and target = ${target.target} and tenant_code = ${target.tenantCode}
          and used_at is null`.execute(db);
    },

    close: async () => undefined,
  };
  const codeId = (target: CodeTarget, id: number): CodeId => ({
    tenantCode: target.tenantCode,
    purpose: target.purpose,
    target: target.target,
    serial: String(id),
    store,
  });
  return store;
}

/** A new code row; the target's earlier unused codes stop working. */
async function insertCode(db: Db, issue: IssueCode): Promise<void> {
  await sql`update sys_verification_code set used_at = now()
    where purpose = ${issue.purpose} and target = ${issue.target} and tenant_code = ${issue.tenantCode}
      and used_at is null`.execute(db);
  await sql`insert into sys_verification_code (tenant_code, purpose, target, code_hash, expires_at, ip)
    values (${issue.tenantCode}, ${issue.purpose}, ${issue.target}, ${hashCode(issue.code)},
      now() + make_interval(secs => ${issue.seconds}), ${issue.ip})`.execute(db);
  if (Math.random() < 0.01) {
    await sql`delete from sys_verification_code where created_at < now() - interval '2 days'`.execute(db);
  }
}
