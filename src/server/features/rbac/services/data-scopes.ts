import { sql } from 'kysely';
import {
  EntityInputError,
  parseScopeCondition,
  type DataScope,
  type DataScopeSetting,
  type FieldError,
} from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import type { Localizer } from '../../../lib/i18n.js';
import { table, type Actor } from '../../../lib/sql/toolkit.js';
import { entityTitle } from '../../../lib/titles.js';
import { assertAllFound, ownKeys } from '../permissions/policy.js';

/** The role code of one role of the tenant (404 when the tenant has no such role). */
async function roleCodeOf(ctx: AppContext, actor: Actor, l10n: Localizer, roleId: number): Promise<string> {
  const role = ctx.registry.require('sysrole');
  const found = await sql<{ role_code: string }>`select role_code from ${table(role)}
    where id = ${roleId} and tenant_code = ${actor.tenantCode}`.execute(ctx.db);
  const code = found.rows[0]?.role_code;
  assertAllFound({
    ids: [roleId],
    found: code === undefined ? [] : [roleId],
    subject: entityTitle(l10n, role),
  });
  return code ?? '';
}

/** The row data scopes of one role, one per entity set to anything but "all". */
export async function roleDataScopes({
  ctx,
  actor,
  l10n,
  roleId,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  roleId: number;
}): Promise<DataScopeSetting[]> {
  const roleCode = await roleCodeOf(ctx, actor, l10n, roleId);
  const rows =
    await sql<DataScopeSetting>`select menu_code as "menuCode", scope, org_ids as "orgIds", condition
    from sys_data_scope where tenant_code = ${actor.tenantCode} and role_code = ${roleCode}
    order by menu_code`.execute(ctx.db);
  return rows.rows;
}

export interface DataScopeInput {
  menuCode: string;
  scope: DataScope;
  orgIds?: number[];
  condition?: string;
}

/**
 * Replaces the row data scopes of one role. Each row names a tenant-scoped entity; "orgs" needs
 * organisations of the tenant, "condition" a condition the entity reads (engine/row-scope.ts);
 * 400 naming /rows/<i>/<field> otherwise. "all" is stored as no row.
 */
export async function saveRoleDataScopes({
  ctx,
  actor,
  l10n,
  roleId,
  rows,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  roleId: number;
  rows: DataScopeInput[];
}): Promise<{ saved: number }> {
  const roleCode = await roleCodeOf(ctx, actor, l10n, roleId);
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const org = ctx.registry.require('sysorg');
  const kept: { menuCode: string; scope: DataScope; orgIds: number[]; condition: string | null }[] = [];
  for (const [index, row] of rows.entries()) {
    const at = `/rows/${index}`;
    const entity = ctx.registry.get(row.menuCode);
    if (!entity || !entity.isTenantScoped) {
      errors.push({
        field: `${at}/menuCode`,
        message: l10n.t('report.unknownEntity', { name: row.menuCode }),
      });
      continue;
    }
    if (seen.has(row.menuCode)) {
      errors.push({
        field: `${at}/menuCode`,
        message: l10n.t('errors.uniqueClash', { value: row.menuCode }),
      });
      continue;
    }
    seen.add(row.menuCode);
    // Organisations sent are checked whatever the scope: another tenant's is refused like none.
    const sent = [...new Set(row.orgIds ?? [])];
    if (row.scope === 'orgs' && sent.length === 0)
      errors.push({ field: `${at}/orgIds`, message: l10n.t('validation.required') });
    const own = await ownKeys({ db: ctx.db, entity: org, tenantCode: actor.tenantCode, keys: sent });
    const missing = sent.filter((id) => !own.has(String(id)));
    if (missing.length > 0)
      errors.push({
        field: `${at}/orgIds`,
        message: l10n.t('errors.refMissing', { entity: entityTitle(l10n, org), key: missing.join(', ') }),
      });
    const orgIds = row.scope === 'orgs' ? sent : [];
    let condition: string | null = null;
    if (row.scope === 'condition') {
      condition = (row.condition ?? '').trim();
      if (condition === '') errors.push({ field: `${at}/condition`, message: l10n.t('validation.required') });
      else {
        const parsed = parseScopeCondition(entity, condition, l10n.t, `${at}/condition`);
        if ('error' in parsed) errors.push(parsed.error);
      }
    }
    if (row.scope !== 'all') kept.push({ menuCode: row.menuCode, scope: row.scope, orgIds, condition });
  }
  if (errors.length > 0) throw new EntityInputError(errors);
  return inTransaction(ctx.db, async (trx) => {
    await sql`delete from sys_data_scope where tenant_code = ${actor.tenantCode} and role_code = ${roleCode}`.execute(
      trx,
    );
    if (kept.length > 0) {
      await sql`insert into sys_data_scope (tenant_code, role_code, menu_code, scope, org_ids, condition) values ${sql.join(
        kept.map(
          (row) =>
            sql`(${actor.tenantCode}, ${roleCode}, ${row.menuCode}, ${row.scope}, ${JSON.stringify(row.orgIds)}::jsonb, ${row.condition})`,
        ),
      )}`.execute(trx);
    }
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sys_data_scope',
          recordKey: roleCode,
          action: 'update',
          before: null,
          after: { rows: kept },
        },
      ],
    });
    return { saved: kept.length };
  });
}
