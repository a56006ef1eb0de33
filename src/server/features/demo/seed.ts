import { sql } from 'kysely';
import { insertRecords } from '../../lib/sql/insert-records.js';
import type { Actor } from '../../lib/sql/toolkit.js';
import type { AppContext } from '../../lib/context.js';
import type { I18n } from '../../lib/i18n.js';
import { syncDemoMenus } from './menus.js';

/**
 * The template's demo data (docs/product.md §3 and §6), added on every start to a database that
 * lacks it, so an existing installation gets it too: the article dictionaries, demo articles,
 * and the demo roles ROLE_EDITOR (every menu except 权限管理) and ROLE_VISITOR (the workbench
 * only). What is there already is left as it is: an administrator's later changes stay.
 */

const SEED_LANGUAGE = 'zh';

const DICTS: { type: string; values: string[] }[] = [
  { type: 'article_type', values: ['CN', 'US', 'JP', 'EU'] },
  { type: 'article_status', values: ['published', 'draft'] },
  { type: 'article_platform', values: ['a-platform', 'b-platform', 'c-platform'] },
];

/** The permission menu the editor does not see (docs/product.md §6 "/permission"). */
const PERMISSION_MENU = 'authority';
const HOME_MENU = 'workbench';
/** The API the demo roles may call: the article entity, its development calls and the demo pages'. */
const DEMO_URLS = ['/api/demo/**', '/api/article/**', '/api/vue-element-admin/**'];

export const DEMO_ROLES = { editor: 'ROLE_EDITOR', visitor: 'ROLE_VISITOR' } as const;
export const DEMO_ARTICLE_COUNT = 30;

const AUTHORS = ['张伟', '王芳', '李娜', '刘洋', '陈静'];
const TITLES = [
  '季度环保采购综述',
  '污水处理设备选型指南',
  '大气治理项目复盘',
  '固废处置招标要点',
  '监测仪器验收清单',
];

function demoArticles(): Record<string, unknown>[] {
  const types = ['CN', 'US', 'JP', 'EU'];
  const platforms = ['a-platform', 'b-platform', 'c-platform'];
  const start = Date.UTC(2026, 0, 5, 2, 0, 0);
  return Array.from({ length: DEMO_ARTICLE_COUNT }, (_, index) => ({
    title: `${TITLES[index % TITLES.length]} ${index + 1}`,
    author: AUTHORS[index % AUTHORS.length],
    reviewer: AUTHORS[(index + 2) % AUTHORS.length],
    importance: (index % 3) + 1,
    type: types[index % types.length],
    status: index % 4 === 3 ? 'draft' : 'published',
    displayTime: new Date(start + index * 3 * 86_400_000).toISOString(),
    forecast: Math.round(((index * 37) % 100) * 10) / 10,
    pageviews: 300 + ((index * 733) % 4700),
    commentDisabled: index % 5 === 0,
    platforms: platforms.slice(0, (index % 3) + 1),
    contentShort: `${TITLES[index % TITLES.length]}：演示文章摘要。`,
    content: `<p>${TITLES[index % TITLES.length]}（演示文章）。</p>`,
  }));
}

async function seedDicts(ctx: AppContext, trx: AppContext['db'], actor: Actor, i18n: I18n): Promise<boolean> {
  const dict = ctx.registry.require('sysdict');
  let isNew = false;
  for (const [index, { type, values }] of DICTS.entries()) {
    const found = await sql`select 1 from ${sql.table(dict.table)}
      where dict_type = ${type} and tenant_code = ${actor.tenantCode} limit 1`.execute(trx);
    if (found.rows.length > 0) continue;
    isNew = true;
    const [groupId] = await insertRecords({
      trx,
      registry: ctx.registry,
      entity: dict,
      actor,
      records: [
        {
          dictType: type,
          dictName: i18n.t(SEED_LANGUAGE, `dicts.${type}._`),
          dictSequence: 900 + index * 10,
          dictParent: 0,
        },
      ],
    });
    await insertRecords({
      trx,
      registry: ctx.registry,
      entity: dict,
      actor,
      records: values.map((value, position) => ({
        dictType: type,
        dictName: i18n.t(SEED_LANGUAGE, `dicts.${type}.${value}`),
        dictValue: value,
        dictSequence: (position + 1) * 10,
        dictParent: groupId,
      })),
    });
  }
  return isNew;
}

/** Menu ids of the tenant's menu tree below (and including) the given codes. */
async function menuTree(
  trx: AppContext['db'],
  menuTable: string,
): Promise<{ id: number; code: string; parent: number; buttons: string[] }[]> {
  const rows = await sql<{
    id: number;
    code: string;
    parent: number;
    buttons: unknown;
  }>`select id, menu_code as code,
    menu_parent as parent, menu_button as buttons from ${sql.table(menuTable)}`.execute(trx);
  return rows.rows.map((row) => ({
    id: Number(row.id),
    code: row.code,
    parent: Number(row.parent),
    buttons: Array.isArray(row.buttons) ? row.buttons.map(String) : [],
  }));
}

/** Menus of the editor: all but the permission menu and what lies below it. */
export function editorMenus<T extends { id: number; code: string; parent: number }>(menus: T[]): T[] {
  const excluded = new Set(menus.filter((menu) => menu.code === PERMISSION_MENU).map((menu) => menu.id));
  let grew = true;
  while (grew) {
    grew = false;
    for (const menu of menus) {
      if (!excluded.has(menu.id) && excluded.has(menu.parent)) {
        excluded.add(menu.id);
        grew = true;
      }
    }
  }
  return menus.filter((menu) => !excluded.has(menu.id));
}

async function seedRoles(ctx: AppContext, trx: AppContext['db'], actor: Actor, i18n: I18n): Promise<void> {
  const role = ctx.registry.require('sysrole');
  const menu = ctx.registry.require('sysmenu');
  const url = ctx.registry.require('sysurl');
  const menus = await menuTree(trx, menu.table);
  for (const code of [DEMO_ROLES.editor, DEMO_ROLES.visitor]) {
    const found = await sql`select 1 from ${sql.table(role.table)}
      where role_code = ${code} and tenant_code = ${actor.tenantCode}`.execute(trx);
    if (found.rows.length > 0) continue;
    const [roleId] = await insertRecords({
      trx,
      registry: ctx.registry,
      entity: role,
      actor,
      records: [
        {
          roleCode: code,
          roleName: i18n.t(SEED_LANGUAGE, `roles.${code}.name`),
          roleDescription: i18n.t(SEED_LANGUAGE, `roles.${code}.description`),
        },
      ],
    });
    const granted =
      code === DEMO_ROLES.editor ? editorMenus(menus) : menus.filter((item) => item.code === HOME_MENU);
    if (granted.length > 0) {
      await sql`insert into sys_role_menu (tenant_code, role_id, menu_id)
        values ${sql.join(granted.map((item) => sql`(${actor.tenantCode}, ${roleId}, ${item.id})`))}`.execute(
        trx,
      );
      const buttons = granted.flatMap((item) => item.buttons.map((button) => ({ menuId: item.id, button })));
      if (buttons.length > 0)
        await sql`insert into sys_role_button (tenant_code, role_id, menu_id, button)
          values ${sql.join(buttons.map((item) => sql`(${actor.tenantCode}, ${roleId}, ${item.menuId}, ${item.button})`))}`.execute(
          trx,
        );
    }
    if (code !== DEMO_ROLES.editor) continue;
    for (const pattern of DEMO_URLS) {
      const existing = await sql<{
        id: number;
      }>`select id from ${sql.table(url.table)} where url = ${pattern}`.execute(trx);
      const urlId =
        existing.rows[0]?.id ??
        (
          await insertRecords({
            trx,
            registry: ctx.registry,
            entity: url,
            actor,
            records: [{ url: pattern, description: 'demo' }],
          })
        )[0];
      await sql`insert into sys_role_url (tenant_code, role_id, url_id) values (${actor.tenantCode}, ${roleId}, ${urlId})`.execute(
        trx,
      );
    }
  }
}

/** Adds what of the demo data is missing (see the module comment). */
export async function seedDemo(ctx: AppContext, i18n: I18n): Promise<void> {
  const actor: Actor = { userId: null, username: 'system', tenantCode: ctx.config.defaultTenant };
  await ctx.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7243018)`.execute(trx);
    const isFirst = await seedDicts(ctx, trx, actor, i18n);
    const article = ctx.registry.get('article');
    if (isFirst && article) {
      const existing = await sql`select 1 from ${sql.table(article.table)} limit 1`.execute(trx);
      if (existing.rows.length === 0)
        await insertRecords({ trx, registry: ctx.registry, entity: article, actor, records: demoArticles() });
    }
    // before the roles: a new editor role is granted the demo menus with every other menu
    await syncDemoMenus({ ctx, trx, actor, i18n, editorRole: DEMO_ROLES.editor });
    await seedRoles(ctx, trx, actor, i18n);
  });
}
