import { sql } from 'kysely';
import { EntityInputError } from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import type { Row } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import type { Localizer } from '../../../lib/i18n.js';
import { selectList, table, type Actor } from '../../../lib/sql/toolkit.js';
import { buildTree, type TreeNode } from '../../../lib/entity-tree.js';
import type { AuthContext } from '../../../lib/auth.js';
import { isTenantsMenu } from '../permissions/tenant-menus.js';
import { isPlatformAdmin } from '../permissions/policy.js';

/**
 * Every menu the caller's tenant has, with its buttons (menuButton), in menu order: as the sidebar
 * shows them, a menu of another tenant's own (a published form's) and, to a tenant's
 * administrator, the platform's pages are left out.
 */
async function menuRows({ ctx, auth }: { ctx: AppContext; auth: AuthContext }): Promise<Row[]> {
  const menu = ctx.registry.require('sysmenu');
  const rows = (
    await sql<Row>`select ${selectList(menu)} from ${table(menu)} order by menu_sequence, id`.execute(ctx.db)
  ).rows;
  const isPlatform = isPlatformAdmin(ctx, auth);
  return rows.filter((row) =>
    isTenantsMenu({ menuMeta: row.menuMeta, tenantCode: auth.tenantCode, isPlatform }),
  );
}

/** The menu tree a role's buttons are ticked on. */
export async function menuButtonTree({
  ctx,
  auth,
}: {
  ctx: AppContext;
  auth: AuthContext;
}): Promise<TreeNode[]> {
  return buildTree(ctx.registry.require('sysmenu'), await menuRows({ ctx, auth }));
}

/** The buttons a menu has. */
export async function menuButtons({
  ctx,
  auth,
  menuCode,
}: {
  ctx: AppContext;
  auth: AuthContext;
  menuCode: string;
}): Promise<unknown> {
  return (await menuRows({ ctx, auth })).find((row) => row.menuCode === menuCode)?.menuButton ?? [];
}

/** The buttons granted to a role of the tenant, as menuCode:button. */
export async function roleButtons({
  ctx,
  actor,
  roleCode,
}: {
  ctx: AppContext;
  actor: Actor;
  roleCode: string;
}): Promise<string[]> {
  const role = ctx.registry.require('sysrole');
  const menu = ctx.registry.require('sysmenu');
  const rows = await sql<{ menuCode: string; button: string }>`
    select m.menu_code as "menuCode", rb.button from sys_role_button rb
    join ${table(role)} r on r.id = rb.role_id join ${table(menu)} m on m.id = rb.menu_id
    where r.role_code = ${roleCode} and r.tenant_code = ${actor.tenantCode} order by 1, 2`.execute(ctx.db);
  return rows.rows.map((row) => `${row.menuCode}:${row.button}`);
}

/**
 * Replaces the buttons granted to a role: each menuCode:button must be a button its menu has
 * (400 naming buttons otherwise); the change and its audit row are one transaction.
 */
export async function grantButtons({
  ctx,
  auth,
  actor,
  l10n,
  roleCode,
  buttons,
}: {
  ctx: AppContext;
  /** The caller: the buttons of menus its tenant does not see are refused like unknown ones. */
  auth: AuthContext;
  actor: Actor;
  l10n: Localizer;
  roleCode: string;
  buttons: string[];
}): Promise<{ linked: number }> {
  const role = ctx.registry.require('sysrole');
  const menus = new Map((await menuRows({ ctx, auth })).map((row) => [String(row.menuCode), row]));
  const grants: { menuId: unknown; button: string }[] = [];
  for (const item of buttons) {
    const [menuCode = '', button = ''] = item.split(':');
    const owner = menus.get(menuCode);
    if (!owner || !(Array.isArray(owner.menuButton) && owner.menuButton.includes(button))) {
      throw new EntityInputError([
        { field: '/buttons', message: l10n.t('errors.refMissing', { entity: 'menuButton', key: item }) },
      ]);
    }
    grants.push({ menuId: owner.id, button });
  }
  return inTransaction(ctx.db, async (trx) => {
    const found = await sql<{ id: number }>`select id from ${table(role)}
      where role_code = ${roleCode} and tenant_code = ${actor.tenantCode}`.execute(trx);
    const roleId = found.rows[0]?.id;
    if (roleId === undefined)
      throw new EntityInputError([
        { field: '/roleCode', message: l10n.t('errors.refMissing', { entity: role.name, key: roleCode }) },
      ]);
    await sql`delete from sys_role_button where role_id = ${roleId}`.execute(trx);
    if (grants.length > 0) {
      await sql`insert into sys_role_button (tenant_code, role_id, menu_id, button)
        values ${sql.join(grants.map((grant) => sql`(${actor.tenantCode}, ${roleId}, ${grant.menuId}, ${grant.button})`))}`.execute(
        trx,
      );
    }
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sys_role_button',
          recordKey: `role_id=${roleId}`,
          action: 'update',
          before: null,
          after: { buttons },
        },
      ],
    });
    return { linked: grants.length };
  });
}
