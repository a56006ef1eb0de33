import { sql } from 'kysely';
import { EntityInputError, type DataFieldPermission } from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import type { Localizer } from '../../../lib/i18n.js';
import { table, type Actor } from '../../../lib/sql/toolkit.js';
import { entityTitle } from '../../../lib/titles.js';
import { assertAllFound } from '../permissions/policy.js';

export interface HiddenFieldsRow {
  roleCode: string;
  /** Hidden from the role. */
  dataFields: string[];
  /** Shown to the role, not changed by it (absent: none; a field also hidden stays hidden only). */
  readOnlyFields?: string[] | undefined;
}

/**
 * Per menu of the tenant, one row per role code listing the fields hidden from that role and
 * those it may only read (permissions/field-rights.ts).
 */
export async function hiddenFieldRows({
  ctx,
  actor,
  menuCode,
}: {
  ctx: AppContext;
  actor: Actor;
  menuCode: string;
}): Promise<DataFieldPermission[]> {
  const rows =
    await sql<DataFieldPermission>`select id, role_code as "roleCode", menu_code as "menuCode", data_fields as "dataFields",
    read_only_fields as "readOnlyFields"
    from sys_data_permission where menu_code = ${menuCode} and tenant_code = ${actor.tenantCode}
    order by role_code`.execute(ctx.db);
  return rows.rows;
}

/** A row's read-only fields: those it does not also hide (hidden is the stronger right). */
const readOnlyOf = (row: HiddenFieldsRow): string[] =>
  (row.readOnlyFields ?? []).filter((field) => !row.dataFields.includes(field));

/** Replaces the hidden and read-only fields of a menu, one row per role code (a role named twice is a 409). */
export async function saveHiddenFields({
  ctx,
  actor,
  l10n,
  menuCode,
  rows,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  menuCode: string;
  rows: HiddenFieldsRow[];
}): Promise<{ saved: number }> {
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    if (seen.has(row.roleCode)) {
      throw new EntityInputError([
        { field: `/rows/${index}/roleCode`, message: l10n.t('errors.uniqueClash', { value: row.roleCode }) },
      ]);
    }
    seen.add(row.roleCode);
  });
  return inTransaction(ctx.db, async (trx) => {
    // each row names a role of the tenant (another tenant's role code is one it does not have)
    const role = ctx.registry.require('sysrole');
    const codes = rows.map((row) => row.roleCode);
    const found = await sql<{ roleCode: string }>`select role_code as "roleCode" from ${table(role)}
      where tenant_code = ${actor.tenantCode} and role_code in (${sql.join(codes.length > 0 ? codes : [''])})`.execute(
      trx,
    );
    const known = new Set(found.rows.map((row) => row.roleCode));
    const unknown = rows.findIndex((row) => !known.has(row.roleCode));
    if (unknown >= 0) {
      assertAllFound({
        ids: [rows[unknown]?.roleCode ?? ''],
        found: known,
        subject: entityTitle(l10n, role),
      });
    }
    await sql`delete from sys_data_permission where menu_code = ${menuCode} and tenant_code = ${actor.tenantCode}`.execute(
      trx,
    );
    if (rows.length > 0) {
      await sql`insert into sys_data_permission (tenant_code, role_code, menu_code, data_fields, read_only_fields)
        values ${sql.join(
          rows.map(
            (row) =>
              sql`(${actor.tenantCode}, ${row.roleCode}, ${menuCode}, ${JSON.stringify(row.dataFields)}::jsonb,
                ${JSON.stringify(readOnlyOf(row))}::jsonb)`,
          ),
        )}`.execute(trx);
    }
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sys_data_permission',
          recordKey: menuCode,
          action: 'update',
          before: null,
          after: { rows: rows.map((row) => ({ ...row, readOnlyFields: readOnlyOf(row) })) },
        },
      ],
    });
    return { saved: rows.length };
  });
}

/** Deletes one row of hidden fields of the tenant (404 when the tenant has no such row). */
export async function deleteHiddenFields({
  ctx,
  actor,
  l10n,
  id,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  id: number;
}): Promise<{ deleted: number }> {
  const result = await sql<{ id: number }>`delete from sys_data_permission
    where id = ${id} and tenant_code = ${actor.tenantCode} returning id`.execute(ctx.db);
  assertAllFound({
    ids: [id],
    found: result.rows.map((row) => row.id),
    subject: l10n.t('menus.datapermission'),
  });
  return { deleted: result.rows.length };
}
