import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../lib/db/database.js';

/** Who is calling: read from the session that the bearer token names. */
export interface AuthContext {
  sessionId: number;
  userId: number;
  username: string;
  tenantCode: string;
  roles: string[];
  clientCode: string;
}

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
}

export async function createSession(db: Db, session: NewSession): Promise<IssuedTokens> {
  const accessToken = newToken();
  const refreshToken = newToken();
  await sql`insert into sys_session (tenant_code, token_hash, refresh_hash, user_id, username, roles, client_code, scope,
      expires_at, refresh_expires_at, ip, user_agent)
    values (${session.tenantCode}, ${hashToken(accessToken)}, ${hashToken(refreshToken)}, ${session.userId}, ${session.username},
      ${JSON.stringify(session.roles)}::jsonb, ${session.clientCode}, ${session.scope},
      now() + make_interval(secs => ${session.tokenSeconds}), now() + make_interval(secs => ${session.refreshSeconds}),
      ${session.ip}, ${session.userAgent})`.execute(db);
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
 * Recently checked sessions, kept in process memory so that a request needs no database round
 * trip for its token. Exact, not merely fresh: database triggers announce every change that can
 * end a session (revocation, deletion, the user disabled or deleted), and every process drops
 * the user's cached sessions when it hears one (services/sessions/watch.ts). While a
 * process cannot hear other processes, it serves nothing from the cache. Entries also expire
 * after maxAgeMs and with their token.
 */
export class SessionCache {
  private readonly entries = new Map<string, { auth: AuthContext; validUntil: number }>();
  /** Bumped by every change: a lookup that started before a change must not cache what it read. */
  generation = 0;
  /** Session changes committed by this process (a request that made one waits for settle). */
  changesHere = 0;
  private hearing = false;
  /** Resolves once every server process has heard every session change committed so far. */
  settle: () => Promise<void> = async () => undefined;

  constructor(private readonly maxAgeMs = 30_000) {}

  get(tokenHash: string): AuthContext | undefined {
    if (!this.hearing) return undefined;
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.validUntil > Date.now()) return entry.auth;
    this.entries.delete(tokenHash);
    return undefined;
  }

  set(tokenHash: string, auth: AuthContext, expiresAt: Date, generation: number): void {
    if (!this.hearing || generation !== this.generation) return;
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(tokenHash, {
      auth,
      validUntil: Math.min(Date.now() + this.maxAgeMs, expiresAt.getTime()),
    });
  }

  /** A session of the user ended or the user changed: forget the user's cached sessions. */
  forgetUser(userId: number): void {
    this.generation += 1;
    for (const [tokenHash, entry] of this.entries) {
      if (entry.auth.userId === userId) this.entries.delete(tokenHash);
    }
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** Whether changes are heard now; the cache is used only while they are. */
  setHearing(hearing: boolean): void {
    this.clear();
    this.hearing = hearing;
  }
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
