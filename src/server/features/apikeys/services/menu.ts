import { sql } from 'kysely';
import type { AppContext } from '../../../lib/context.js';
import type { I18n } from '../../../lib/i18n.js';
import { insertRecords } from '../../../lib/sql/insert-records.js';
import type { Actor } from '../../../lib/sql/toolkit.js';

export const API_KEY_MENU = 'sysapikey';
const PARENT_MENU = 'admin';

/**
 * The API keys page under 系统管理, added on start when missing (a database seeded before keys
 * existed gets it too); a menu an administrator moved or renamed is left as it is.
 */
export async function syncApiKeyMenu(ctx: AppContext, i18n: I18n): Promise<void> {
  const menu = ctx.registry.require('sysmenu');
  const column = (field: string): string => menu.fieldsByName.get(field)?.column ?? field;
  const actor: Actor = { userId: null, username: 'system', tenantCode: ctx.config.defaultTenant };
  await ctx.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('ecobid_api_key_menu'))`.execute(trx);
    const rows = await sql<{ id: number; code: string }>`select id, ${sql.ref(column('menuCode'))} as code
      from ${sql.table(menu.table)} where ${sql.ref(column('menuCode'))} in (${API_KEY_MENU}, ${PARENT_MENU})`.execute(
      trx,
    );
    if (rows.rows.some((row) => row.code === API_KEY_MENU)) return;
    const parent = rows.rows.find((row) => row.code === PARENT_MENU);
    await insertRecords({
      trx,
      registry: ctx.registry,
      entity: menu,
      actor,
      records: [
        {
          menuCode: API_KEY_MENU,
          menuName: i18n.t('zh', `menus.${API_KEY_MENU}`),
          menuIcon: 'key',
          menuPath: `/${API_KEY_MENU}`,
          menuComponent: `admin/${API_KEY_MENU}`,
          menuSequence: 110,
          menuParent: parent ? Number(parent.id) : 0,
          menuStatus: '1',
          menuButton: ['view', 'add', 'revoke'],
          menuMeta: {},
        },
      ],
    });
  });
}
