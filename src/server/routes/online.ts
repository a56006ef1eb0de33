import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { AuthContext } from '../services/sessions/session.js';
import { AppError } from '../lib/errors.js';
import { ok, queryOf, requireAuth } from '../lib/http.js';
import { localizerFor } from '../lib/i18n.js';
import { ADMIN_ROLE } from '../services/permissions/authority.js';

const MAX_PAGE_SIZE = 500;

function requireAdmin(request: FastifyRequest): AuthContext {
  const auth = requireAuth(request);
  if (!auth.roles.includes(ADMIN_ROLE)) throw new AppError('forbidden');
  return auth;
}

/** Whole numbers from a query parameter (repeated or comma-separated); 400 naming it otherwise. */
function idsOf(request: FastifyRequest, name: string): number[] {
  const raw = queryOf(request)[name];
  const texts = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
    .flatMap((value) => String(value).split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
  if (texts.some((value) => !/^\d{1,15}$/.test(value))) {
    throw new AppError('validation', {}, [
      { field: `/${name}`, message: localizerFor(request).t('validation.type', { type: 'integer' }) },
    ]);
  }
  return texts.map(Number);
}

function pageParam(request: FastifyRequest, name: string, fallback: number, max: number): number {
  const raw = queryOf(request)[name];
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text === '') return fallback;
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new AppError('validation', {}, [
      { field: `/${name}`, message: localizerFor(request).t('validation.maximum', { limit: max }) },
    ]);
  }
  return Number(text);
}

/** Online users of the tenant (live sessions), forced logout, session registration, user-name check. */
export async function onlineRoutes(app: FastifyInstance): Promise<void> {
  const db = app.ctx.db;
  const userTable = sql.table(app.ctx.registry.require('sysuser').table);

  /** The caller's session announces itself: last seen now, from this address and browser. */
  app.post('/api/admin/sysuser/registerNewSession', { config: { isSelfService: true } }, async (request) => {
    const auth = requireAuth(request);
    const result = await sql<{ id: number; last_seen_at: Date; expires_at: Date }>`update sys_session
      set last_seen_at = now(), ip = ${request.ip}, user_agent = ${request.headers['user-agent'] ?? null}
      where id = ${auth.sessionId} returning id, last_seen_at, expires_at`.execute(db);
    const row = result.rows[0];
    return ok({
      sessionId: auth.sessionId,
      lastSeenAt: row?.last_seen_at ?? null,
      expiresAt: row?.expires_at ?? null,
    });
  });

  /** Live sessions of the caller's tenant, most recently seen first (ROLE_ADMIN). */
  app.get('/api/admin/sysuser/queryOnlineSysUser', async (request) => {
    const auth = requireAdmin(request);
    const currentPage = pageParam(request, 'currentPage', 1, 1_000_000);
    const pageSize = pageParam(request, 'pageSize', 20, MAX_PAGE_SIZE);
    const username = queryOf(request).username;
    const nameFilter =
      typeof username === 'string' && username.trim() !== ''
        ? sql`and s.username ilike ${`%${username.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`
        : sql``;
    const live = sql`s.tenant_code = ${auth.tenantCode} and s.revoked_at is null and s.expires_at > now() ${nameFilter}`;
    const [count, page] = await Promise.all([
      sql<{ total: number }>`select count(*)::int as total from sys_session s where ${live}`.execute(db),
      sql<Record<string, unknown>>`select s.id, s.user_id as "userId", s.username, u.nickname,
          s.client_code as "clientCode", s.ip, s.user_agent as "userAgent", s.created_at as "loginAt",
          s.last_seen_at as "lastSeenAt", s.expires_at as "expiresAt", s.id = ${auth.sessionId} as "isCurrent"
        from sys_session s left join ${userTable} u on u.id = s.user_id
        where ${live} order by s.last_seen_at desc, s.id desc
        limit ${pageSize} offset ${(currentPage - 1) * pageSize}`.execute(db),
    ]);
    return ok({ records: page.rows, total: count.rows[0]?.total ?? 0, currentPage, pageSize });
  });

  /**
   * Forced logout (ROLE_ADMIN): ends sessions of the tenant by session id (`id`, repeatable) or
   * every session of users (`userId`, repeatable). Their tokens get 401 from the next call on.
   */
  app.post('/api/admin/sysuser/forceLogout', async (request) => {
    const auth = requireAdmin(request);
    const ids = idsOf(request, 'id');
    const userIds = idsOf(request, 'userId');
    if (ids.length === 0 && userIds.length === 0) {
      throw new AppError('validation', {}, [
        { field: '/id', message: localizerFor(request).t('validation.required') },
      ]);
    }
    const revoked = await db.transaction().execute(async (trx) => {
      const result = await sql`update sys_session set revoked_at = now()
        where tenant_code = ${auth.tenantCode} and revoked_at is null
          and (id in (${sql.join(ids.length > 0 ? ids : [0])}) or user_id in (${sql.join(userIds.length > 0 ? userIds : [0])}))
        returning id`.execute(trx);
      return result.rows.length;
    });
    return ok({ revoked });
  });

  /** Is a user name taken in the caller's tenant? (for the user form) */
  app.get('/api/admin/sysuser/queryUsername', async (request) => {
    const auth = requireAuth(request);
    const raw = queryOf(request).username;
    const username = typeof raw === 'string' ? raw.trim() : '';
    if (username === '') {
      throw new AppError('validation', {}, [
        { field: '/username', message: localizerFor(request).t('validation.required') },
      ]);
    }
    const found = await sql`select 1 from ${userTable}
      where tenant_code = ${auth.tenantCode} and username = ${username} limit 1`.execute(db);
    return ok({ username, isTaken: found.rows.length > 0 });
  });
}
