import { sql } from 'kysely';
import type { AppContext } from './context.js';
import type { ModuleMenu } from './modules/define.js';
import { insertRecords } from './sql/insert-records.js';
import type { Actor } from './sql/toolkit.js';

/**
 * Adds the menus in the default tenant that no menu has the code of yet, under their parent menu
 * (the top level when it is absent), with their per-action buttons, in one transaction under one
 * advisory lock (two processes starting at once add each menu once). A menu an administrator
 * moved, renamed or trimmed stays as they left it. The framework's own pages added after the seed
 * (API keys, webhooks, single sign-on) and the modules' declared menus both come this way.
 */
export async function ensureMenus(ctx: AppContext, menus: readonly ModuleMenu[]): Promise<void> {
  if (menus.length === 0) return;
  const menu = ctx.registry.require('sysmenu');
  const column = (field: string): string => menu.fieldsByName.get(field)?.column ?? field;
  const actor: Actor = { userId: null, username: 'system', tenantCode: ctx.config.defaultTenant };
  await ctx.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('ecobid_ensure_menus'))`.execute(trx);
    // only the menus named here and their parents are read
    const codes = [
      ...new Set(menus.flatMap((item) => (item.parent ? [item.code, item.parent] : [item.code]))),
    ];
    const rows = await sql<{ id: number; code: string }>`select id, ${sql.ref(column('menuCode'))} as code
      from ${sql.table(menu.table)} where ${sql.ref(column('menuCode'))} in (${sql.join(codes)})`.execute(
      trx,
    );
    const idByCode = new Map(rows.rows.map((row) => [row.code, Number(row.id)]));
    for (const item of menus) {
      if (idByCode.has(item.code)) continue;
      const [id] = await insertRecords({
        trx,
        registry: ctx.registry,
        entity: menu,
        actor,
        records: [
          {
            menuCode: item.code,
            menuName: item.name,
            ...(item.icon ? { menuIcon: item.icon } : {}),
            menuPath: item.path,
            menuComponent: item.component,
            menuSequence: item.sequence ?? 100,
            menuParent: (item.parent ? idByCode.get(item.parent) : undefined) ?? 0,
            menuStatus: '1',
            menuButton: [...item.buttons],
            menuMeta: item.meta ?? {},
          },
        ],
      });
      idByCode.set(item.code, Number(id));
    }
  });
}

/** A page of the framework under 系统管理 (menu code = its admin page admin/<code>), named in zh. */
export function systemPageMenu(
  code: string,
  name: string,
  details: { icon: string; sequence: number; buttons: readonly string[] },
): ModuleMenu {
  return {
    code,
    name,
    path: `/${code}`,
    component: `admin/${code}`,
    parent: 'admin',
    ...details,
  };
}
