import { sql } from 'kysely';
import type { Page } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Row } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import type { AuthContext } from './session.js';
import { tenantIds } from '../../../lib/sql/toolkit.js';

/** The caller's session announces itself: last seen now, from this address and browser. */
export async function touchSession({
  ctx,
  auth,
  ip,
  userAgent,
}: {
  ctx: AppContext;
  auth: AuthContext;
  ip: string;
  userAgent: string | null;
}): Promise<{ sessionId: number; lastSeenAt: Date | null; expiresAt: Date | null }> {
  const result = await sql<{ id: number; last_seen_at: Date; expires_at: Date }>`update sys_session
    set last_seen_at = now(), ip = ${ip}, user_agent = ${userAgent}
    where id = ${auth.sessionId} returning id, last_seen_at, expires_at`.execute(ctx.db);
  const row = result.rows[0];
  return {
    sessionId: auth.sessionId,
    lastSeenAt: row?.last_seen_at ?? null,
    expiresAt: row?.expires_at ?? null,
  };
}

/** Live sessions of the caller's tenant, most recently seen first; username filters by a part. */
export async function onlineSessions({
  ctx,
  auth,
  currentPage,
  pageSize,
  username,
}: {
  ctx: AppContext;
  auth: AuthContext;
  currentPage: number;
  pageSize: number;
  username: string;
}): Promise<Page<Row>> {
  const userTable = sql.table(ctx.registry.require('sysuser').table);
  const nameFilter =
    username !== ''
      ? sql`and s.username ilike ${`%${username.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`
      : sql``;
  const live = sql`s.tenant_code = ${auth.tenantCode} and s.revoked_at is null and s.expires_at > now() ${nameFilter}`;
  const [count, page] = await Promise.all([
    sql<{ total: number }>`select count(*)::int as total from sys_session s where ${live}`.execute(ctx.db),
    // Dates leave as Date and are written as ISO text: the OnlineSession of the API types.
    sql<Row>`select s.id, s.user_id as "userId", s.username, u.nickname,
        s.client_code as "clientCode", s.ip, s.user_agent as "userAgent", s.created_at as "loginAt",
        s.last_seen_at as "lastSeenAt", s.expires_at as "expiresAt", s.id = ${auth.sessionId} as "isCurrent"
      from sys_session s left join ${userTable} u on u.id = s.user_id
      where ${live} order by s.last_seen_at desc, s.id desc
      limit ${pageSize} offset ${(currentPage - 1) * pageSize}`.execute(ctx.db),
  ]);
  return { records: page.rows, total: count.rows[0]?.total ?? 0, currentPage, pageSize };
}

/** The ids among `ids` of sessions of the tenant (live or ended). */
export async function tenantSessionIds({
  ctx,
  tenantCode,
  ids,
}: {
  ctx: AppContext;
  tenantCode: string;
  ids: number[];
}): Promise<number[]> {
  return tenantIds({ db: ctx.db, tableName: 'sys_session', tenantCode, ids });
}

/**
 * Forced logout: ends sessions of the tenant by session id, or every session of the users named.
 * Their tokens get 401 from the next call on. Answers how many sessions ended.
 */
export async function forceLogout({
  ctx,
  tenantCode,
  sessionIds,
  userIds,
}: {
  ctx: AppContext;
  tenantCode: string;
  sessionIds: number[];
  userIds: number[];
}): Promise<number> {
  return inTransaction(ctx.db, async (trx) => {
    const result = await sql`update sys_session set revoked_at = now()
      where tenant_code = ${tenantCode} and revoked_at is null
        and (id in (${sql.join(sessionIds.length > 0 ? sessionIds : [0])})
          or user_id in (${sql.join(userIds.length > 0 ? userIds : [0])}))
      returning id`.execute(trx);
    return result.rows.length;
  });
}
