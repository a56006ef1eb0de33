import { sql } from 'kysely';
import { insertRecords } from '../../lib/sql/insert-records.js';
import type { Actor } from '../../lib/sql/toolkit.js';
import type { AppContext } from '../../lib/context.js';
import type { I18n } from '../../lib/i18n.js';
import { FORM_TABLE } from './tables.js';

/** The designed-forms list (/formgenerator/list) under the form generator group. */
const FORM_LIST = {
  code: 'formlist',
  parent: 'formgenerator',
  icon: 'unordered-list',
  path: '/formgenerator/list',
  component: 'devtool/formgenerator',
  sequence: 5,
  buttons: ['add', 'update', 'delete', 'design', 'deploy'],
};

/**
 * Every start: the designed-forms list gets its menu entry under the form generator group if it
 * is not there yet, so a database seeded before it existed gets it too (under the seed's lock);
 * the menus of forms published before menus named their tenant are given their form's tenant.
 */
export async function syncFormMenus(ctx: AppContext, i18n: I18n): Promise<void> {
  const menu = ctx.registry.require('sysmenu');
  const actor: Actor = { userId: null, username: 'system', tenantCode: ctx.config.defaultTenant };
  await ctx.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7243003)`.execute(trx);
    const rows = await sql<{
      id: number;
      code: string;
    }>`select id, menu_code as code from ${sql.table(menu.table)}
      where menu_code in (${FORM_LIST.code}, ${FORM_LIST.parent})`.execute(trx);
    // The menu of a form published before menus carried their tenant: its form's tenant's own.
    await sql`update ${sql.table(menu.table)} m set menu_meta = coalesce(m.menu_meta, '{}'::jsonb)
        || jsonb_build_object('tenant', f.tenant_code)
      from ${sql.table(FORM_TABLE)} f
      where f.menu_id = m.id and jsonb_typeof(m.menu_meta -> 'tenant') is distinct from 'string'`.execute(
      trx,
    );
    const parent = rows.rows.find((row) => row.code === FORM_LIST.parent);
    if (!parent || rows.rows.some((row) => row.code === FORM_LIST.code)) return;
    await insertRecords({
      trx,
      registry: ctx.registry,
      entity: menu,
      actor,
      records: [
        {
          menuCode: FORM_LIST.code,
          menuName: i18n.t('zh', `menus.${FORM_LIST.code}`),
          menuIcon: FORM_LIST.icon,
          menuPath: FORM_LIST.path,
          menuComponent: FORM_LIST.component,
          menuSequence: FORM_LIST.sequence,
          menuParent: Number(parent.id),
          menuStatus: '1',
          menuButton: FORM_LIST.buttons,
          menuMeta: {},
        },
      ],
    });
  });
}
