import { sql } from 'kysely';
import type { AppContext } from '../../lib/context.js';
import type { I18n } from '../../lib/i18n.js';
import { insertRecords } from '../../lib/sql/insert-records.js';
import type { Actor } from '../../lib/sql/toolkit.js';

/**
 * The personal office (发起流程, 我的流程, 待签收, 待办, 已办 and their detail pages) is for every
 * back-office user, like its API calls: its menus carry meta.everyone, which grants them with all
 * their buttons to every role that has some back-office menu (features/rbac/permissions/authority.ts;
 * portal-only roles stay without a back-office menu). Runs on every start, so an
 * existing database gets the flag too; a menu whose meta already says `everyone` (true, or false
 * as an administrator set it) is left alone.
 */
export const PERSONAL_OFFICE_MENUS = [
  'oa',
  'startprocess',
  'myprocess',
  'myprocessdetails',
  'candidatetask',
  'assigneetask',
  'finishedtask',
  'copytask',
  'mytaskdetails',
];

export async function syncWorkflowMenus(ctx: AppContext, i18n: I18n): Promise<void> {
  const menu = ctx.registry.require('sysmenu');
  const column = (field: string): string => menu.fieldsByName.get(field)?.column ?? field;
  const meta = sql.ref(column('menuMeta'));
  await addLaterMenus(ctx, i18n, column);
  await sql`update ${sql.table(menu.table)} set ${meta} = coalesce(${meta}, '{}'::jsonb) || '{"everyone": true}'::jsonb
    where ${sql.ref(column('menuCode'))} in (${sql.join(PERSONAL_OFFICE_MENUS)})
      and not (coalesce(${meta}, '{}'::jsonb) ? 'everyone')`.execute(ctx.db);
  // Buttons that came after the first seed (转办): a database seeded before gets them too.
  const buttons = sql.ref(column('menuButton'));
  for (const [code, button] of LATER_BUTTONS)
    await sql`update ${sql.table(menu.table)} set ${buttons} = coalesce(${buttons}, '[]'::jsonb) || ${JSON.stringify([button])}::jsonb
      where ${sql.ref(column('menuCode'))} = ${code} and not (coalesce(${buttons}, '[]'::jsonb) ? ${button})`.execute(
      ctx.db,
    );
}

/** Personal-office buttons added after the first seed (menus.json has them for new databases). */
const LATER_BUTTONS: [string, string][] = [
  ['assigneetask', 'transfer'],
  ['assigneetask', 'addSign'],
];

/**
 * Personal-office menus added after the first seed (menus.json has them for new databases): a
 * database seeded before gets them under 个人办公 (oa), named in Chinese like the seed's.
 */
const LATER_MENUS = [
  {
    code: 'copytask',
    icon: 'mail',
    path: '/copytask',
    component: 'oa/copytask',
    sequence: 65,
    buttons: ['view'],
  },
];

async function addLaterMenus(ctx: AppContext, i18n: I18n, column: (field: string) => string): Promise<void> {
  const menu = ctx.registry.require('sysmenu');
  const code = sql.ref(column('menuCode'));
  const actor: Actor = { userId: null, username: 'system', tenantCode: ctx.config.defaultTenant };
  await ctx.db.transaction().execute(async (trx) => {
    const rows = await sql<{
      id: number;
      code: string;
    }>`select id, ${code} as code from ${sql.table(menu.table)}
      where ${code} in (${sql.join(['oa', ...LATER_MENUS.map((item) => item.code)])})`.execute(trx);
    const parent = rows.rows.find((row) => row.code === 'oa');
    if (!parent) return;
    for (const item of LATER_MENUS) {
      if (rows.rows.some((row) => row.code === item.code)) continue;
      await insertRecords({
        trx,
        registry: ctx.registry,
        entity: menu,
        actor,
        records: [
          {
            menuCode: item.code,
            menuName: i18n.t('zh', `menus.${item.code}`),
            menuIcon: item.icon,
            menuPath: item.path,
            menuComponent: item.component,
            menuSequence: item.sequence,
            menuParent: Number(parent.id),
            menuStatus: '1',
            menuButton: item.buttons,
            menuMeta: { everyone: true },
          },
        ],
      });
    }
  });
}
