import { sql } from 'kysely';
import {
  OIDC_DEFAULT_CLAIMS,
  OIDC_DEFAULT_SCOPES,
  type OidcClaimMap,
  type OidcProviderView,
} from '../../../../engine/api-types.js';
import { writeAudit } from '../../../lib/audit.js';
import type { RequestAuth } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { assertPlatformAdmin, isPlatformAdmin } from '../../rbac/index.js';
import { isNonPublicAddress } from '../../../lib/address-guard.js';
import { isIP } from 'node:net';

/** The audit log's entity name for providers. */
const AUDIT_ENTITY = 'sysoidc';

export interface ProviderInput {
  name: string;
  issuer: string;
  clientId: string;
  /** Absent: kept as it is (an update); empty: none (a public client). Never answered. */
  clientSecret?: string;
  scopes?: string;
  claims?: Partial<OidcClaimMap>;
  newUserRoles?: string[];
  newUserOrgId?: number | null;
  createUsers?: boolean;
  allowPrivateNetwork?: boolean;
  enabled?: boolean;
  sequence?: number;
}

/** A provider as the sign-in flow needs it (the secret included). */
export interface ProviderRow {
  id: number;
  tenant_code: string;
  name: string;
  issuer: string;
  client_id: string;
  client_secret: string | null;
  scopes: string;
  claims: Partial<OidcClaimMap>;
  new_user_roles: string[];
  new_user_org_id: number | null;
  create_users: boolean;
  allow_private_network: boolean;
  enabled: boolean;
  sequence: number;
  created_by: string;
  created_at: Date;
}

const actorOf = (auth: RequestAuth): Actor => ({
  userId: auth.userId,
  username: auth.username,
  tenantCode: auth.tenantCode,
});

const invalid = (field: string, message: string): AppError =>
  new AppError('validation', {}, [{ field, message }]);

export function viewOf(row: ProviderRow): OidcProviderView {
  return {
    id: Number(row.id),
    name: row.name,
    issuer: row.issuer,
    clientId: row.client_id,
    hasSecret: row.client_secret !== null && row.client_secret !== '',
    scopes: row.scopes,
    claims: { ...OIDC_DEFAULT_CLAIMS, ...row.claims },
    newUserRoles: row.new_user_roles,
    newUserOrgId: row.new_user_org_id === null ? null : Number(row.new_user_org_id),
    createUsers: row.create_users,
    allowPrivateNetwork: row.allow_private_network,
    enabled: row.enabled,
    sequence: row.sequence,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
  };
}

/** A provider of the tenant, or undefined. */
export async function findProvider(db: Db, tenantCode: string, id: number): Promise<ProviderRow | undefined> {
  const rows = await sql<ProviderRow>`select * from sys_oidc_provider
    where id = ${id} and tenant_code = ${tenantCode}`.execute(db);
  return rows.rows[0];
}

/** The tenant's providers, in their order. */
export async function listProviders(
  db: Db,
  tenantCode: string,
  options: { isEnabledOnly?: boolean } = {},
): Promise<ProviderRow[]> {
  const enabled = options.isEnabledOnly ? sql`and enabled` : sql``;
  const rows = await sql<ProviderRow>`select * from sys_oidc_provider
    where tenant_code = ${tenantCode} ${enabled} order by sequence, id`.execute(db);
  return rows.rows;
}

/** The ids among `ids` that are providers of the tenant. */
export async function tenantProviderIds(db: Db, tenantCode: string, ids: number[]): Promise<Set<number>> {
  const rows = await sql<{ id: number }>`select id from sys_oidc_provider
    where tenant_code = ${tenantCode} and id in (${sql.join(ids.length > 0 ? ids : [0])})`.execute(db);
  return new Set(rows.rows.map((row) => Number(row.id)));
}

/** The input checked and brought to its stored form; 400 naming the field otherwise. */
async function checked(
  ctx: AppContext,
  auth: RequestAuth,
  input: ProviderInput,
  before: ProviderRow | undefined,
  l10n: Localizer,
) {
  const name = input.name.trim();
  if (name === '') throw invalid('/name', l10n.t('validation.required'));
  const clientId = input.clientId.trim();
  if (clientId === '') throw invalid('/clientId', l10n.t('validation.required'));
  const allowPrivateNetwork = input.allowPrivateNetwork ?? before?.allow_private_network ?? false;
  let issuer: URL;
  try {
    issuer = new URL(input.issuer.trim());
  } catch {
    throw invalid('/issuer', l10n.t('oidc.issuerInvalid'));
  }
  if (issuer.search !== '' || issuer.hash !== '' || issuer.username !== '' || issuer.password !== '')
    throw invalid('/issuer', l10n.t('oidc.issuerInvalid'));
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && allowPrivateNetwork))
    throw invalid('/issuer', l10n.t('oidc.issuerHttps'));
  const host = issuer.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivateNetwork && (host === 'localhost' || (isIP(host) !== 0 && isNonPublicAddress(host))))
    throw invalid('/issuer', l10n.t('oidc.issuerPrivate'));
  const issuerText = issuer.href.replace(/\/$/, '');
  // Reaching the server's own network is the platform's decision: only its administrator turns it
  // on, or points a provider that has it at another address.
  if (
    allowPrivateNetwork &&
    (!before?.allow_private_network || before.issuer !== issuerText) &&
    !isPlatformAdmin(ctx, auth)
  )
    assertPlatformAdmin(ctx, auth, [
      { field: '/allowPrivateNetwork', message: l10n.t('oidc.privateNetworkPlatformOnly') },
    ]);
  const scopes = [...new Set((input.scopes ?? before?.scopes ?? OIDC_DEFAULT_SCOPES).split(/\s+/))]
    .filter((scope) => scope !== '')
    .join(' ');
  if (!scopes.split(' ').includes('openid')) throw invalid('/scopes', l10n.t('oidc.scopesOpenid'));
  const claims: Partial<OidcClaimMap> = {};
  for (const [key, value] of Object.entries(input.claims ?? before?.claims ?? {}) as [
    keyof OidcClaimMap,
    string | undefined,
  ][])
    if (value !== undefined && value.trim() !== '') claims[key] = value.trim();
  const newUserRoles = [...new Set(input.newUserRoles ?? before?.new_user_roles ?? [])];
  if (newUserRoles.length > 0) {
    const found = await sql<{ code: string }>`select role_code as code from ${sql.table(
      ctx.registry.require('sysrole').table,
    )} where tenant_code = ${auth.tenantCode} and role_code in (${sql.join(newUserRoles)})`.execute(ctx.db);
    const known = new Set(found.rows.map((row) => row.code));
    const index = newUserRoles.findIndex((code) => !known.has(code));
    if (index >= 0) throw invalid(`/newUserRoles/${index}`, l10n.t('validation.refMissing'));
  }
  const createUsers = input.createUsers ?? before?.create_users ?? false;
  if (createUsers && newUserRoles.length === 0)
    throw invalid('/newUserRoles', l10n.t('oidc.rolesForNewUsers'));
  const newUserOrgId =
    input.newUserOrgId === undefined ? (before?.new_user_org_id ?? null) : input.newUserOrgId;
  if (newUserOrgId !== null) {
    const org = await sql`select 1 from ${sql.table(ctx.registry.require('sysorg').table)}
      where id = ${newUserOrgId} and tenant_code = ${auth.tenantCode}`.execute(ctx.db);
    if (org.rows.length === 0) throw invalid('/newUserOrgId', l10n.t('validation.refMissing'));
  }
  const clientSecret =
    input.clientSecret === undefined ? (before?.client_secret ?? null) : input.clientSecret.trim() || null;
  return {
    name,
    issuer: issuerText,
    clientId,
    clientSecret,
    scopes,
    claims,
    newUserRoles,
    newUserOrgId,
    createUsers,
    allowPrivateNetwork,
    enabled: input.enabled ?? before?.enabled ?? true,
    sequence: input.sequence ?? before?.sequence ?? 0,
  };
}

type Stored = Awaited<ReturnType<typeof checked>>;

/** What the audit keeps of a provider: everything but the secret (only whether there is one). */
const audited = (value: Stored) => ({ ...value, clientSecret: value.clientSecret ? '******' : null });

/** Adds a provider to the caller's tenant. */
export async function addProvider({
  ctx,
  auth,
  input,
  l10n,
}: {
  ctx: AppContext;
  auth: RequestAuth;
  input: ProviderInput;
  l10n: Localizer;
}): Promise<OidcProviderView> {
  const value = await checked(ctx, auth, input, undefined, l10n);
  const row = await inTransaction(ctx.db, async (trx) => {
    const inserted =
      await sql<ProviderRow>`insert into sys_oidc_provider (tenant_code, name, issuer, client_id,
        client_secret, scopes, claims, new_user_roles, new_user_org_id, create_users, allow_private_network,
        enabled, sequence, created_by)
      values (${auth.tenantCode}, ${value.name}, ${value.issuer}, ${value.clientId}, ${value.clientSecret},
        ${value.scopes}, ${JSON.stringify(value.claims)}::jsonb, ${JSON.stringify(value.newUserRoles)}::jsonb,
        ${value.newUserOrgId}, ${value.createUsers}, ${value.allowPrivateNetwork}, ${value.enabled},
        ${value.sequence}, ${auth.username})
      returning *`.execute(trx);
    const added = inserted.rows[0];
    if (!added) throw new Error('the provider insert returned no row');
    await writeAudit({
      trx,
      actor: actorOf(auth),
      entries: [
        {
          entity: AUDIT_ENTITY,
          recordKey: Number(added.id),
          action: 'add',
          before: null,
          after: audited(value),
        },
      ],
    });
    return added;
  });
  return viewOf(row);
}

/** Changes a provider of the caller's tenant (404 for another tenant's). */
export async function updateProvider({
  ctx,
  auth,
  id,
  input,
  l10n,
}: {
  ctx: AppContext;
  auth: RequestAuth;
  id: number;
  input: ProviderInput;
  l10n: Localizer;
}): Promise<OidcProviderView> {
  const before = await findProvider(ctx.db, auth.tenantCode, id);
  if (!before) throw new AppError('notFound');
  const value = await checked(ctx, auth, input, before, l10n);
  const row = await inTransaction(ctx.db, async (trx) => {
    const updated = await sql<ProviderRow>`update sys_oidc_provider set name = ${value.name},
        issuer = ${value.issuer}, client_id = ${value.clientId}, client_secret = ${value.clientSecret},
        scopes = ${value.scopes}, claims = ${JSON.stringify(value.claims)}::jsonb,
        new_user_roles = ${JSON.stringify(value.newUserRoles)}::jsonb, new_user_org_id = ${value.newUserOrgId},
        create_users = ${value.createUsers}, allow_private_network = ${value.allowPrivateNetwork},
        enabled = ${value.enabled}, sequence = ${value.sequence}, updated_at = now()
      where id = ${id} and tenant_code = ${auth.tenantCode} returning *`.execute(trx);
    const after = updated.rows[0];
    if (!after) throw new AppError('notFound');
    await writeAudit({
      trx,
      actor: actorOf(auth),
      entries: [
        {
          entity: AUDIT_ENTITY,
          recordKey: id,
          action: 'update',
          before: { ...viewOf(before), hasSecret: undefined },
          after: audited(value),
        },
      ],
    });
    return after;
  });
  return viewOf(row);
}

/** Deletes providers of the caller's tenant (their links and flows with them); how many. */
export async function deleteProviders({
  ctx,
  auth,
  ids,
}: {
  ctx: AppContext;
  auth: RequestAuth;
  ids: number[];
}): Promise<number> {
  return inTransaction(ctx.db, async (trx) => {
    const deleted = await sql<ProviderRow>`delete from sys_oidc_provider
      where tenant_code = ${auth.tenantCode} and id in (${sql.join(ids)}) returning *`.execute(trx);
    await writeAudit({
      trx,
      actor: actorOf(auth),
      entries: deleted.rows.map((row) => ({
        entity: AUDIT_ENTITY,
        recordKey: Number(row.id),
        action: 'delete' as const,
        before: { ...viewOf(row), hasSecret: undefined },
        after: null,
      })),
    });
    return deleted.rows.length;
  });
}
