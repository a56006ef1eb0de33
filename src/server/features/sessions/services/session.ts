import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { AuthContext } from '../../../lib/auth.js';
import type { Db } from '../../../lib/db/database.js';
import type { SessionCache } from '../../../lib/store/session-cache.js';

export type { AuthContext } from '../../../lib/auth.js';
export { SessionCache } from '../../../lib/store/session-cache.js';

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

/** Tokens are opaque random strings; only their SHA-256 is stored, so a database leak reveals no token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export interface NewSession {
  tenantCode: string;
  userId: number;
  username: string;
  roles: string[];
  clientCode: string;
  scope: string | null;
  tokenSeconds: number;
  refreshSeconds: number;
  ip: string | null;
  userAgent: string | null;
  /** The sign-in a rotated or renewed session continues (its first session's id). */
  originId?: number | null;
}

export async function createSession(db: Db, session: NewSession): Promise<IssuedTokens> {
  const accessToken = newToken();
  const refreshToken = newToken();
  await sql`insert into sys_session (tenant_code, token_hash, refresh_hash, user_id, username, roles, client_code, scope,
      expires_at, refresh_expires_at, ip, user_agent, origin_id)
    values (${session.tenantCode}, ${hashToken(accessToken)}, ${hashToken(refreshToken)}, ${session.userId}, ${session.username},
      ${JSON.stringify(session.roles)}::jsonb, ${session.clientCode}, ${session.scope},
      now() + make_interval(secs => ${session.tokenSeconds}), now() + make_interval(secs => ${session.refreshSeconds}),
      ${session.ip}, ${session.userAgent}, ${session.originId ?? null})`.execute(db);
  return { accessToken, refreshToken, expiresIn: session.tokenSeconds };
}

interface SessionRow {
  id: number;
  user_id: number;
  username: string;
  tenant_code: string;
  roles: string[];
  client_code: string;
  expires_at: Date;
  is_stale: boolean;
}

/**
 * The live session of an access token, or undefined when the token is unknown, expired or
 * revoked, or its user is disabled, gone or in another tenant now.
 */
export async function findSession({
  db,
  userTable,
  accessToken,
  cache,
}: {
  db: Db;
  /** The user entity's table: a disabled or deleted user's sessions are over. */
  userTable: string;
  accessToken: string;
  cache?: SessionCache;
}): Promise<AuthContext | undefined> {
  const tokenHash = hashToken(accessToken);
  const cached = cache?.get(tokenHash);
  if (cached) return cached;
  return lookUpSession({ db, userTable, tokenHash, cache });
}

/**
 * The live session of an access token when this process checked it lately (SessionCache),
 * without a database round trip or a promise: the auth hook's path for most requests. Undefined
 * when it must be looked up (findSession).
 */
export function cachedSession(cache: SessionCache, accessToken: string): AuthContext | undefined {
  return cache.get(hashToken(accessToken));
}

async function lookUpSession({
  db,
  userTable,
  tokenHash,
  cache,
}: {
  db: Db;
  userTable: string;
  tokenHash: string;
  cache?: SessionCache;
}): Promise<AuthContext | undefined> {
  const generation = cache?.generation ?? 0;
  const result =
    await sql<SessionRow>`select s.id, s.user_id, s.username, s.tenant_code, s.roles, s.client_code, s.expires_at,
      s.last_seen_at < now() - interval '60 seconds' as is_stale
    from sys_session s join ${sql.table(userTable)} u
      on u.id = s.user_id and u.status = '1' and u.tenant_code = s.tenant_code
    where s.token_hash = ${tokenHash} and s.revoked_at is null and s.expires_at > now()`.execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  // last_seen_at feeds the online-user list; a minute of precision spares a write per request.
  if (row.is_stale) await sql`update sys_session set last_seen_at = now() where id = ${row.id}`.execute(db);
  const auth: AuthContext = {
    sessionId: row.id,
    userId: row.user_id,
    username: row.username,
    tenantCode: row.tenant_code,
    roles: row.roles,
    clientCode: row.client_code,
  };
  cache?.set(tokenHash, auth, row.expires_at, generation);
  return auth;
}

export async function revokeSession(db: Db, sessionId: number): Promise<void> {
  await sql`update sys_session set revoked_at = now() where id = ${sessionId} and revoked_at is null`.execute(
    db,
  );
}
