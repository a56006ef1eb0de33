import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { OIDC_DEFAULT_CLAIMS, type OidcClaimMap } from '../../../../engine/api-types.js';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { insertRecords } from '../../../lib/sql/insert-records.js';
import type { ProviderRow } from './providers.js';

/** The claims of a signed-in subject: the ID token's over the user info's. */
export type Claims = Record<string, unknown>;

const USERNAME_CHARS = /[^A-Za-z0-9_.@-]/g;

const claimText = (claims: Claims, name: string): string | undefined => {
  const value = claims[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

/** The user linked to the provider's subject, if any. */
export async function linkedUser(db: Db, providerId: number, subject: string): Promise<number | undefined> {
  const rows = await sql<{ user_id: number }>`select user_id from sys_oidc_link
    where provider_id = ${providerId} and subject = ${subject}`.execute(db);
  const row = rows.rows[0];
  return row ? Number(row.user_id) : undefined;
}

/** Links a user to a provider's subject (one subject per user and provider). */
export async function insertLink(
  trx: Db,
  link: { tenantCode: string; providerId: number; userId: number; subject: string },
): Promise<void> {
  await sql`insert into sys_oidc_link (tenant_code, provider_id, user_id, subject)
    values (${link.tenantCode}, ${link.providerId}, ${link.userId}, ${link.subject})`.execute(trx);
}

async function freeUsername(trx: Db, table: string, tenantCode: string, wanted: string): Promise<string> {
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const candidate = attempt === 0 ? wanted : `${wanted.slice(0, 55)}_${randomBytes(3).toString('hex')}`;
    const taken = await sql`select 1 from ${sql.table(table)}
      where tenant_code = ${tenantCode} and username = ${candidate}`.execute(trx);
    if (taken.rows.length === 0) return candidate;
  }
  return `oidc_${randomBytes(8).toString('hex')}`;
}

/**
 * A new user of the provider's tenant made from the subject's claims (the provider's claim map),
 * in the provider's roles (the first its main role) and organisation (else the tenant's first
 * top organisation), linked to the subject. A taken user name gets a suffix: an existing account
 * is never taken over by a name; its owner links it from 个人中心. Fields the provider does not
 * give are placeholders the user completes in 个人中心 (the mobile is a 15-digit number starting
 * with 0, which no SMS reaches).
 */
export async function createUserFor({
  trx,
  ctx,
  provider,
  subject,
  claims,
}: {
  trx: Db;
  ctx: AppContext;
  provider: ProviderRow;
  subject: string;
  claims: Claims;
}): Promise<number> {
  const map: OidcClaimMap = { ...OIDC_DEFAULT_CLAIMS, ...provider.claims };
  const user = ctx.registry.require('sysuser');
  const tenantCode = provider.tenant_code;
  const roles = await sql<{ id: number; code: string }>`select id, role_code as code from ${sql.table(
    ctx.registry.require('sysrole').table,
  )} where tenant_code = ${tenantCode} and role_code in (${sql.join(
    provider.new_user_roles.length > 0 ? provider.new_user_roles : [''],
  )})`.execute(trx);
  const roleIds = provider.new_user_roles
    .map((code) => roles.rows.find((role) => role.code === code)?.id)
    .filter((id): id is number => id !== undefined)
    .map(Number);
  const [mainRole, ...otherRoles] = roleIds;
  if (mainRole === undefined) throw new Error(`provider ${provider.id}: none of its new-user roles exists`);
  const orgEntity = ctx.registry.require('sysorg');
  const orgTable = sql.table(orgEntity.table);
  const parentColumn = sql.ref(orgEntity.fieldsByName.get('orgParent')?.column ?? 'org_parent');
  const org =
    provider.new_user_org_id ??
    (
      await sql<{ id: number }>`select id from ${orgTable} where tenant_code = ${tenantCode}
        order by (${parentColumn} = 0) desc, id limit 1`.execute(trx)
    ).rows[0]?.id;
  const fromClaim = (claimText(claims, map.username) ?? '').replace(USERNAME_CHARS, '_').slice(0, 64);
  const wanted =
    fromClaim.length >= 3 ? fromClaim : `oidc_${Buffer.from(subject).toString('hex').slice(0, 16)}`;
  const username = await freeUsername(trx, user.table, tenantCode, wanted);
  const email = claimText(claims, map.email);
  const mobile = claimText(claims, map.mobile)?.replace(/[^0-9]/g, '');
  const [id] = await insertRecords({
    trx,
    registry: ctx.registry,
    entity: user,
    actor: { userId: null, username: 'oidc', tenantCode },
    records: [
      {
        username,
        nickname: (claimText(claims, map.nickname) ?? username).slice(0, 64),
        // nobody knows it: the user signs in through the provider (or sets one by recovery)
        password: randomBytes(18).toString('base64url').slice(0, 24),
        email:
          email && /^[^\s@]+@[^\s@]+$/.test(email) && email.length <= 128
            ? email
            : `${username}@oidc.invalid`,
        countryCode: '+86',
        mobile:
          mobile && /^[0-9]{5,15}$/.test(mobile)
            ? mobile
            : `0${BigInt(`0x${randomBytes(8).toString('hex')}`)
                .toString()
                .padStart(14, '0')
                .slice(0, 14)}`,
        phone: '000',
        status: '1',
        userType: 0,
        roleId: mainRole,
        orgId: org === undefined ? null : Number(org),
      },
    ],
  });
  const userId = Number(id);
  for (const roleId of otherRoles)
    await sql`insert into sys_role_user (tenant_code, role_id, user_id)
      values (${tenantCode}, ${roleId}, ${userId})`.execute(trx);
  await insertLink(trx, { tenantCode, providerId: Number(provider.id), userId, subject });
  await writeAudit({
    trx,
    actor: { userId, username, tenantCode },
    entries: [
      {
        entity: user.name,
        recordKey: userId,
        action: 'add',
        before: null,
        after: {
          username,
          roles: provider.new_user_roles,
          orgId: org ?? null,
          oidcProvider: Number(provider.id),
        },
      },
    ],
  });
  return userId;
}
