import { sql } from 'kysely';
import type { Db, Row } from '../../../lib/db/database.js';
import type { EntityRegistry } from '../../../lib/registry.js';

/** The tables that name a role by its code (no foreign key reaches them): data scopes and field rights. */
const BY_ROLE_CODE = ['sys_data_scope', 'sys_data_permission'] as const;

/**
 * The data permissions of a role written through the generated CRUD, in its transaction: a
 * deleted role's row scopes (sys_data_scope) and hidden / read-only fields (sys_data_permission)
 * go with it, and a renamed role code takes them along. Otherwise a role created later with the
 * old code would inherit them. Other entities have no such rows.
 */
export async function applyRoleRowEffects({
  trx,
  registry,
  entity,
  before,
  after,
}: {
  trx: Db;
  registry: EntityRegistry;
  entity: unknown;
  before: Row;
  after: Row | null;
}): Promise<void> {
  if (entity !== registry.require('sysrole')) return;
  const code = before.roleCode;
  const tenantCode = before.tenantCode;
  if (typeof code !== 'string' || typeof tenantCode !== 'string') return;
  if (after && after.roleCode === code) return;
  for (const name of BY_ROLE_CODE) {
    const rows = sql.table(name);
    if (after && typeof after.roleCode === 'string') {
      // rows of an older role of the new code would clash with the ones taken along
      await sql`delete from ${rows} where tenant_code = ${tenantCode} and role_code = ${after.roleCode}`.execute(
        trx,
      );
      await sql`update ${rows} set role_code = ${after.roleCode}
        where tenant_code = ${tenantCode} and role_code = ${code}`.execute(trx);
    } else {
      await sql`delete from ${rows} where tenant_code = ${tenantCode} and role_code = ${code}`.execute(trx);
    }
  }
}
