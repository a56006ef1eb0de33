import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { writeAudit } from '../../../lib/audit.js';
import { insertRecords } from '../../../lib/sql/insert-records.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import type { Db, Row } from '../../../lib/db/database.js';
import roles from '../seed-data/roles.json' with { type: 'json' };
import { AppError } from '../../../lib/errors.js';
import { DEFAULT_LANGUAGE, type I18n, type Language } from '../../../lib/i18n.js';
import { defineModule, type ModuleDefinition } from '../../../lib/modules/index.js';
import type { EntityRegistry } from '../../../lib/registry.js';
import { object, text } from '../../../lib/route-schema.js';
import { addTenantParams } from '../seed.js';

/** The user name of every tenant's first administrator. */
export const TENANT_ADMIN_USERNAME = 'admin';

/** What the platform administrator is told once about a new tenant: how its administrator signs in. */
export interface TenantAdmin {
  tenantCode: string;
  username: string;
  /**
   * Generated here and shown only in this answer; only its hash is stored. Not named "password":
   * no answer ever carries a field named like a secret field, and this one is meant to be seen once.
   */
  initialPassword: string;
}

/**
 * Gives a tenant just created (in the same transaction) what it needs to be used at once: the
 * roles of the product (ROLE_ADMIN and the portal roles, named like the seed's), a root
 * organisation named after the tenant, and an administrator "admin" with ROLE_ADMIN and a
 * generated password. A tenant code that still has users (left from an earlier tenant of that
 * code) is refused with 409 rather than handing its accounts over.
 */
export async function provisionTenant({
  trx,
  tenant,
  registry,
  i18n,
  language,
  caller,
}: {
  /** The transaction of the tenant's add. */
  trx: Db;
  tenant: Row;
  registry: EntityRegistry;
  i18n: I18n;
  /** The platform administrator's language (a refusal's text). */
  language: Language;
  /** The platform administrator. */
  caller: Actor;
}): Promise<TenantAdmin> {
  const tenantCode = String(tenant.tenantCode);
  const zh = (key: string): string => i18n.t(DEFAULT_LANGUAGE, key);
  const actor: Actor = { userId: caller.userId, username: caller.username, tenantCode };
  const user = registry.require('sysuser');
  const role = registry.require('sysrole');
  const org = registry.require('sysorg');

  const users =
    await sql`select 1 from ${sql.table(user.table)} where tenant_code = ${tenantCode} limit 1`.execute(trx);
  if (users.rows.length > 0) {
    throw new AppError('uniqueClash', { value: tenantCode }, [
      { field: '/tenantCode', message: i18n.t(language, 'errors.tenantHasUsers', { tenantCode }) },
    ]);
  }

  const existing = await sql<{
    id: number;
    role_code: string;
  }>`select id, role_code from ${sql.table(role.table)}
    where tenant_code = ${tenantCode}`.execute(trx);
  const roleIds = new Map(existing.rows.map((row) => [row.role_code, row.id]));
  const missing = roles.map((item) => item.code).filter((code) => !roleIds.has(code));
  const added = await insertRecords({
    trx,
    registry,
    entity: role,
    actor,
    // The tenant's ROLE_ADMIN administers the tenant, not the platform: named so.
    records: missing.map((code) => ({
      roleCode: code,
      roleName: code === 'ROLE_ADMIN' ? zh('seed.tenantAdminRoleName') : zh(`roles.${code}.name`),
      roleDescription:
        code === 'ROLE_ADMIN' ? zh('seed.tenantAdminRoleDescription') : zh(`roles.${code}.description`),
    })),
  });
  missing.forEach((code, index) => roleIds.set(code, Number(added[index])));

  await addTenantParams({ trx, registry, actor, zh });

  const [orgId] = await insertRecords({
    trx,
    registry,
    entity: org,
    actor,
    records: [
      {
        orgName: String(tenant.tenantName),
        orgType: 'company',
        orgDescription: zh('seed.tenantOrgDescription'),
        orgSequence: 10,
        orgParent: 0,
      },
    ],
  });

  const password = randomBytes(12).toString('base64url');
  const tel = typeof tenant.tenantTel === 'string' ? tenant.tenantTel : undefined;
  const email = typeof tenant.tenantEmail === 'string' ? tenant.tenantEmail : undefined;
  const [userId] = await insertRecords({
    trx,
    registry,
    entity: user,
    actor,
    records: [
      {
        username: TENANT_ADMIN_USERNAME,
        nickname: zh('seed.tenantAdminNickname'),
        password,
        email: email ?? 'admin@ecobid.example',
        countryCode: '+86',
        // A placeholder the administrator replaces with their own number (unique within the tenant only).
        mobile: '13800000000',
        phone: tel ?? '400-000-0000',
        status: '1',
        userType: 0,
        roleId: roleIds.get('ROLE_ADMIN'),
        orgId,
      },
    ],
  });
  await writeAudit({
    trx,
    actor,
    entries: [
      {
        entity: user.name,
        recordKey: userId,
        action: 'add',
        before: null,
        after: { username: TENANT_ADMIN_USERNAME, roleCode: 'ROLE_ADMIN', orgId, provisioned: true },
      },
    ],
  });
  return { tenantCode, username: TENANT_ADMIN_USERNAME, initialPassword: password };
}

/**
 * Tenants on the module API (lib/modules): systenant's add (platform administrator only, by the
 * API or an import) provisions the tenant in the add's transaction, and the add answers the
 * tenant record plus `admin`, the new administrator's sign-in ({tenantCode, username,
 * initialPassword}), shown this once.
 */
export function tenantsModule({
  registry,
  i18n,
}: {
  registry: EntityRegistry;
  i18n: I18n;
}): ModuleDefinition {
  return defineModule({
    name: 'tenants',
    entities: {
      systenant: {
        hooks: {
          afterChange: async ({ operation, data, trx, actor, language }) => {
            if (operation !== 'add') return;
            const admin = await provisionTenant({
              trx,
              tenant: data,
              registry,
              i18n,
              language,
              caller: actor,
            });
            return { admin };
          },
        },
        answerProperties: {
          admin: object(
            {
              tenantCode: text(64),
              username: text(64),
              initialPassword: text(64, { description: 'generated; shown in this answer only' }),
            },
            ['tenantCode', 'username', 'initialPassword'],
            { description: "How the new tenant's administrator signs in" },
          ),
        },
      },
    },
  });
}
