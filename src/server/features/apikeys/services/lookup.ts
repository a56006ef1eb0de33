import { sql } from 'kysely';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import { hashKey } from './key-format.js';

/** What a request made with a key needs beyond the session-like caller: the key's own rules. */
export interface KeyGrant {
  keyId: number;
  tenantCode: string;
  allowList: string[];
  ratePerMinute: number;
}

export type KeyLookup =
  | { state: 'live'; auth: AuthContext; grant: KeyGrant }
  | { state: 'revoked' | 'expired'; grant: KeyGrant }
  | undefined;

/** The key's grants beside the cached caller: keyed like the cache entry. */
const grants = new WeakMap<AppContext, Map<string, KeyGrant>>();

/**
 * The cache of checked sessions (SessionCache) holds checked keys too, under `k:<hash>` so that
 * no key hash can name a session. Its entries are dropped when the database announces a change
 * of the key's user: a key revoked or deleted announces one (services/triggers.ts), so a revoked
 * key is refused by every process from the moment the revoke is answered, as a logged-out token.
 */
const cacheKey = (hash: string): string => `k:${hash}`;

interface KeyRow {
  id: number;
  tenant_code: string;
  user_id: number;
  username: string | null;
  roles: string[];
  user_roles: string[] | null;
  allow_list: string[];
  rate_per_minute: number;
  expires_at: Date;
  is_revoked: boolean;
  is_expired: boolean;
}

export async function lookUpKey(ctx: AppContext, key: string): Promise<KeyLookup> {
  const hash = hashKey(key);
  const byHash = grants.get(ctx) ?? new Map<string, KeyGrant>();
  grants.set(ctx, byHash);
  const cached = ctx.sessionCache.get(cacheKey(hash));
  const cachedGrant = byHash.get(hash);
  if (cached && cachedGrant) return { state: 'live', auth: cached, grant: cachedGrant };
  const generation = ctx.sessionCache.generation;
  const user = ctx.registry.require('sysuser');
  const role = ctx.registry.require('sysrole');
  const usernameColumn = user.fieldsByName.get('username')?.column ?? 'username';
  // The key acts in its roles that its user still holds; a disabled, deleted or moved user's keys are refused.
  const result =
    await sql<KeyRow>`select k.id, k.tenant_code, k.user_id, u.${sql.ref(usernameColumn)} as username,
      k.roles, k.allow_list, k.rate_per_minute, k.expires_at,
      k.revoked_at is not null as is_revoked, k.expires_at <= now() as is_expired,
      (select coalesce(jsonb_agg(distinct r.role_code), '[]'::jsonb) from ${sql.table(role.table)} r
        where r.id in (select role_id from ${sql.table(user.table)} where id = u.id)
           or r.id in (select role_id from sys_role_user where user_id = u.id)) as user_roles
    from sys_api_key k
    left join ${sql.table(user.table)} u on u.id = k.user_id and u.status = '1' and u.tenant_code = k.tenant_code
    where k.key_hash = ${hash}`.execute(ctx.db);
  const row = result.rows[0];
  if (!row) return undefined;
  const grant: KeyGrant = {
    keyId: Number(row.id),
    tenantCode: row.tenant_code,
    allowList: row.allow_list,
    ratePerMinute: row.rate_per_minute,
  };
  if (row.is_revoked || row.username === null) return { state: 'revoked', grant };
  if (row.is_expired) return { state: 'expired', grant };
  const held = new Set(row.user_roles ?? []);
  const auth: AuthContext = {
    sessionId: 0,
    userId: Number(row.user_id),
    username: row.username,
    tenantCode: row.tenant_code,
    roles: row.roles.filter((code) => held.has(code)),
    clientCode: 'apikey',
  };
  if (byHash.size > 10_000) byHash.clear();
  byHash.set(hash, grant);
  ctx.sessionCache.set(cacheKey(hash), auth, row.expires_at, generation);
  return { state: 'live', auth, grant };
}
