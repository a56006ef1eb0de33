import { sql } from 'kysely';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { column, table } from '../../../lib/sql/toolkit.js';

/** The tenant param that requires two-factor of every user of the tenant (README "Two-factor"). */
export const TENANT_PARAM = 'twoFactorRequired';
/** The role flag (sysrole field) that requires two-factor of the role's users. */
export const ROLE_FIELD = 'requireTwoFactor';

const isOn = (value: string | null | undefined): boolean =>
  ['1', 'true', 'yes', 'on'].includes((value ?? '').trim().toLowerCase());

/** Whether the tenant (its param) or one of the roles held requires two-factor. */
export async function isTwoFactorRequired({
  db,
  ctx,
  tenantCode,
  roles,
}: {
  db: Db;
  ctx: AppContext;
  tenantCode: string;
  roles: readonly string[];
}): Promise<boolean> {
  const role = ctx.registry.require('sysrole');
  const flag = role.fieldsByName.get(ROLE_FIELD);
  const code = role.fieldsByName.get('roleCode');
  if (flag && code && roles.length > 0) {
    const tenant = role.isTenantScoped ? sql`tenant_code = ${tenantCode} and` : sql``;
    const found = await sql<{ id: number }>`select 1 as id from ${table(role)}
      where ${tenant} ${column(code)} in (${sql.join([...roles])}) and ${column(flag)} is true limit 1`.execute(
      db,
    );
    if (found.rows.length > 0) return true;
  }
  const param = ctx.registry.require('sysparam');
  const key = param.fieldsByName.get('paramKey');
  const value = param.fieldsByName.get('paramValue');
  if (!key || !value) return false;
  const tenant = param.isTenantScoped ? sql`tenant_code = ${tenantCode} and` : sql``;
  const found = await sql<{ value: string | null }>`select ${column(value)} as value from ${table(param)}
    where ${tenant} ${column(key)} = ${TENANT_PARAM} limit 1`.execute(db);
  return isOn(found.rows[0]?.value);
}
