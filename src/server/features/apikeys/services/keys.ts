import { sql } from 'kysely';
import { writeAudit } from '../../../lib/audit.js';
import type { RequestAuth } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import {
  API_KEY_DEFAULT_RATE_PER_MINUTE,
  type ApiKeyUse,
  type ApiKeyView,
} from '../../../../engine/api-types.js';
import { hashKey, newKey, parseAllowEntry } from './key-format.js';

/** The furthest expiry a key may have. */
const MAX_DAYS = 3 * 366;
/** The audit log's entity name for keys (the audit page lists it). */
const AUDIT_ENTITY = 'sysapikey';

export interface NewKeyInput {
  name: string;
  userId: number;
  roles: string[];
  expiresAt: string;
  allowList?: string[];
  ratePerMinute?: number;
}

const actorOf = (auth: RequestAuth): Actor => ({
  userId: auth.userId,
  username: auth.username,
  tenantCode: auth.tenantCode,
});

const invalid = (field: string, message: string): AppError =>
  new AppError('validation', {}, [{ field, message }]);

/** The roles a user of the tenant holds (main role and linked roles); undefined when no such user. */
export async function userRoles(
  ctx: AppContext,
  tenantCode: string,
  userId: number,
): Promise<{ code: string; name: string }[] | undefined> {
  const user = ctx.registry.require('sysuser');
  const role = ctx.registry.require('sysrole');
  const found =
    await sql`select 1 from ${sql.table(user.table)} where id = ${userId} and tenant_code = ${tenantCode}`.execute(
      ctx.db,
    );
  if (found.rows.length === 0) return undefined;
  const nameColumn = role.fieldsByName.get('roleName')?.column ?? 'role_name';
  const rows = await sql<{ code: string; name: string }>`select distinct r.role_code as code,
      r.${sql.ref(nameColumn)} as name from ${sql.table(role.table)} r
    where r.tenant_code = ${tenantCode}
      and (r.id in (select role_id from ${sql.table(user.table)} where id = ${userId})
        or r.id in (select role_id from sys_role_user where user_id = ${userId}))
    order by r.role_code`.execute(ctx.db);
  return rows.rows;
}

/**
 * Makes a key for a user of the caller's tenant, acting in some of that user's roles; answers
 * the key itself once (only its hash is kept). 400 naming the field for a user of no such
 * tenant, a role the user lacks, a past expiry or an address that is none.
 */
export async function createKey({
  ctx,
  auth,
  input,
  l10n,
}: {
  ctx: AppContext;
  auth: RequestAuth;
  input: NewKeyInput;
  l10n: Localizer;
}): Promise<{ key: string; record: ApiKeyView }> {
  const name = input.name.trim();
  if (name === '') throw invalid('/name', l10n.t('validation.required'));
  const held = await userRoles(ctx, auth.tenantCode, input.userId);
  if (!held) throw invalid('/userId', l10n.t('validation.refMissing'));
  const roles = [...new Set(input.roles)];
  if (roles.length === 0) throw invalid('/roles', l10n.t('validation.required'));
  const heldCodes = new Set(held.map((role) => role.code));
  const foreign = roles.find((code) => !heldCodes.has(code));
  if (foreign !== undefined) throw invalid('/roles', l10n.t('apiKeys.roleNotOfUser', { role: foreign }));
  const expiresAt = new Date(input.expiresAt);
  const now = Date.now();
  if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now)
    throw invalid('/expiresAt', l10n.t('apiKeys.expiryPast'));
  if (expiresAt.getTime() > now + MAX_DAYS * 86_400_000)
    throw invalid('/expiresAt', l10n.t('apiKeys.expiryFar', { days: MAX_DAYS }));
  const allowList = (input.allowList ?? []).map((entry) => entry.trim()).filter((entry) => entry !== '');
  allowList.forEach((entry, index) => {
    if (!parseAllowEntry(entry)) throw invalid(`/allowList/${index}`, l10n.t('apiKeys.addressInvalid'));
  });
  const ratePerMinute = input.ratePerMinute ?? API_KEY_DEFAULT_RATE_PER_MINUTE;
  const { key, prefix } = newKey();
  const id = await inTransaction(ctx.db, async (trx) => {
    const inserted = await sql<{ id: number }>`insert into sys_api_key (tenant_code, name, prefix, key_hash,
        user_id, roles, allow_list, rate_per_minute, expires_at, created_by)
      values (${auth.tenantCode}, ${name}, ${prefix}, ${hashKey(key)}, ${input.userId},
        ${JSON.stringify(roles)}::jsonb, ${JSON.stringify(allowList)}::jsonb, ${ratePerMinute},
        ${expiresAt.toISOString()}::timestamptz, ${auth.username})
      returning id`.execute(trx);
    const keyId = Number(inserted.rows[0]?.id);
    await writeAudit({
      trx,
      actor: actorOf(auth),
      entries: [
        {
          entity: AUDIT_ENTITY,
          recordKey: keyId,
          action: 'add',
          before: null,
          after: {
            name,
            prefix,
            userId: input.userId,
            roles,
            allowList,
            ratePerMinute,
            expiresAt: expiresAt.toISOString(),
          },
        },
      ],
    });
    return keyId;
  });
  const record = (await listKeys({ ctx, tenantCode: auth.tenantCode, ids: [id] })).records[0];
  if (!record) throw new Error(`api key ${id} vanished after its insert`);
  return { key, record };
}

interface KeyRow {
  id: number;
  name: string;
  prefix: string;
  user_id: number;
  username: string | null;
  roles: string[];
  allow_list: string[];
  rate_per_minute: number;
  expires_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  last_used_ip: string | null;
  created_by: string;
  created_at: Date;
  is_expired: boolean;
  total: number;
}

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());

/** The tenant's keys, newest first (never the key or its hash). */
export async function listKeys({
  ctx,
  tenantCode,
  ids,
  currentPage = 1,
  pageSize = 20,
}: {
  ctx: AppContext;
  tenantCode: string;
  ids?: number[];
  currentPage?: number;
  pageSize?: number;
}): Promise<{ records: ApiKeyView[]; total: number; currentPage: number; pageSize: number }> {
  const user = ctx.registry.require('sysuser');
  const usernameColumn = user.fieldsByName.get('username')?.column ?? 'username';
  const byId = ids ? sql`and k.id in (${sql.join(ids.length > 0 ? ids : [0])})` : sql``;
  const rows =
    await sql<KeyRow>`select k.id, k.name, k.prefix, k.user_id, u.${sql.ref(usernameColumn)} as username,
      k.roles, k.allow_list, k.rate_per_minute, k.expires_at, k.revoked_at, k.last_used_at, k.last_used_ip,
      k.created_by, k.created_at, k.expires_at <= now() as is_expired, count(*) over ()::int as total
    from sys_api_key k left join ${sql.table(user.table)} u on u.id = k.user_id
    where k.tenant_code = ${tenantCode} ${byId}
    order by k.id desc limit ${pageSize} offset ${(currentPage - 1) * pageSize}`.execute(ctx.db);
  let total = rows.rows[0]?.total ?? 0;
  if (rows.rows.length === 0 && currentPage > 1) {
    const counted = await sql<{ total: number }>`select count(*)::int as total from sys_api_key
      where tenant_code = ${tenantCode} ${ids ? sql`and id in (${sql.join(ids.length > 0 ? ids : [0])})` : sql``}`.execute(
      ctx.db,
    );
    total = counted.rows[0]?.total ?? 0;
  }
  return {
    records: rows.rows.map((row) => ({
      id: Number(row.id),
      name: row.name,
      prefix: row.prefix,
      userId: Number(row.user_id),
      username: row.username ?? '',
      roles: row.roles,
      allowList: row.allow_list,
      ratePerMinute: row.rate_per_minute,
      expiresAt: row.expires_at.toISOString(),
      revokedAt: iso(row.revoked_at),
      lastUsedAt: iso(row.last_used_at),
      lastUsedIp: row.last_used_ip,
      createdBy: row.created_by,
      createdAt: row.created_at.toISOString(),
      status: row.revoked_at !== null ? 'revoked' : row.is_expired ? 'expired' : 'active',
    })),
    total,
    currentPage,
    pageSize,
  };
}

/** The ids among `ids` that are keys of the tenant. */
export async function tenantKeyIds(ctx: AppContext, tenantCode: string, ids: number[]): Promise<Set<number>> {
  const rows = await sql<{ id: number }>`select id from sys_api_key
    where tenant_code = ${tenantCode} and id in (${sql.join(ids.length > 0 ? ids : [0])})`.execute(ctx.db);
  return new Set(rows.rows.map((row) => Number(row.id)));
}

/** Revokes keys of the caller's tenant (already revoked ones stay as they were); how many were revoked. */
export async function revokeKeys({
  ctx,
  auth,
  ids,
}: {
  ctx: AppContext;
  auth: RequestAuth;
  ids: number[];
}): Promise<number> {
  return inTransaction(ctx.db, async (trx) => {
    const revoked = await sql<{ id: number; revoked_at: Date }>`update sys_api_key
      set revoked_at = now(), revoked_by = ${auth.username}
      where tenant_code = ${auth.tenantCode} and id in (${sql.join(ids)}) and revoked_at is null
      returning id, revoked_at`.execute(trx);
    await writeAudit({
      trx,
      actor: actorOf(auth),
      entries: revoked.rows.map((row) => ({
        entity: AUDIT_ENTITY,
        recordKey: Number(row.id),
        action: 'update' as const,
        before: { revokedAt: null },
        after: { revokedAt: row.revoked_at.toISOString() },
      })),
    });
    return revoked.rows.length;
  });
}

/** The calls made with a key, newest first. */
export async function keyUses({
  ctx,
  keyId,
  currentPage,
  pageSize,
}: {
  ctx: AppContext;
  keyId: number;
  currentPage: number;
  pageSize: number;
}): Promise<{ records: ApiKeyUse[]; total: number; currentPage: number; pageSize: number }> {
  const [rows, counted] = await Promise.all([
    sql<{ id: number; method: string; path: string; status: number; ip: string | null; created_at: Date }>`
      select id, method, path, status, ip, created_at from sys_api_key_use where key_id = ${keyId}
      order by id desc limit ${pageSize} offset ${(currentPage - 1) * pageSize}`.execute(ctx.db),
    sql<{
      total: number;
    }>`select count(*)::int as total from sys_api_key_use where key_id = ${keyId}`.execute(ctx.db),
  ]);
  return {
    records: rows.rows.map((row) => ({
      id: Number(row.id),
      method: row.method,
      path: row.path,
      status: row.status,
      ip: row.ip,
      at: row.created_at.toISOString(),
    })),
    total: counted.rows[0]?.total ?? 0,
    currentPage,
    pageSize,
  };
}
