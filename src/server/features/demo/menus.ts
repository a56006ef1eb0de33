import { sql } from 'kysely';
import exampleMenus from './seed-data/demo-menus-examples.json' with { type: 'json' };
import { insertRecords } from '../../lib/sql/insert-records.js';
import type { Actor } from '../../lib/sql/toolkit.js';
import type { AppContext } from '../../lib/context.js';
import type { I18n } from '../../lib/i18n.js';

/**
 * The template's demo pages in the menu tree (docs/product.md §2.3), all under 组件示例: charts,
 * big screens and the report designer; examples, tables, nested menus, excel, zip, pdf and tab
 * (data/demo-menus-examples.json); component demos, error pages, error log, icons, guide, theme,
 * clipboard and i18n. Every start adds the menus whose code is missing, under their parent, and
 * grants each new one to every tenant's demo editor (docs/product.md §6: every route but /permission); a
 * menu already there is left as an administrator set it.
 */

interface DemoMenu {
  code: string;
  icon?: string;
  path: string;
  component: string;
  sequence: number;
  meta?: Record<string, unknown>;
  children?: DemoMenu[];
}

const SEED_LANGUAGE = 'zh';

const group = (
  code: string,
  path: string,
  icon: string,
  sequence: number,
  children: DemoMenu[],
): DemoMenu => ({
  code,
  icon,
  path,
  component: 'layout',
  sequence,
  meta: { alwaysShow: true },
  children,
});

/** Chart, big-screen and report pages: their screen is named after the path. */
const chartPage = (code: string, path: string, icon: string, sequence: number): DemoMenu => ({
  code,
  icon,
  path,
  component: `demo${path}`,
  sequence,
});

/** Component demo pages (src/admin/features/demo/components/pages.ts). */
const componentPage = (code: string, path: string, icon: string, sequence: number): DemoMenu => ({
  code,
  icon,
  path,
  component: `democ/${code}`,
  sequence,
});

const CHART_MENUS: DemoMenu[] = [
  group('charts', '/charts', 'area-chart', 10, [
    chartPage('chartline', '/charts/line', 'line-chart', 10),
    chartPage('chartbar', '/charts/bar', 'bar-chart', 20),
    chartPage('chartpie', '/charts/pie', 'pie-chart', 30),
    chartPage('chartmix', '/charts/mix', 'dot-chart', 40),
  ]),
  group('bigscreen', '/bigscreen', 'fund', 20, [
    chartPage('construction', '/bigscreen/construction', 'build', 10),
    chartPage('electronic', '/bigscreen/electronic', 'thunderbolt', 20),
    chartPage('maintenance', '/bigscreen/maintenance', 'tool', 30),
    chartPage('dataanalysis', '/bigscreen/dataanalysis', 'fund-projection-screen', 40),
  ]),
  group('reports', '/report', 'table', 30, [
    chartPage('reportdesigner', '/report/reportdesigner', 'bar-chart', 10),
  ]),
];

const COMPONENT_MENUS: DemoMenu[] = [
  group('democomponents', '/components', 'build', 40, [
    componentPage('demoupload', '/components/upload', 'cloud-upload', 10),
    componentPage('demorichtext', '/components/richtext', 'edit', 20),
    componentPage('demodragdialog', '/components/drag-dialog', 'form', 30),
    componentPage('democountto', '/components/count-to', 'dashboard', 40),
    componentPage('demoavatarupload', '/components/avatar-upload', 'user', 50),
    componentPage('demobacktotop', '/components/back-to-top', 'export', 60),
    componentPage('demosticky', '/components/sticky', 'link', 70),
  ]),
  group('demoerrorpages', '/error', 'file-search', 110, [
    componentPage('demo401', '/error/401', 'lock', 10),
    componentPage('demo404', '/error/404', 'search', 20),
  ]),
  componentPage('demoerrorlog', '/error-log', 'thunderbolt', 120),
  componentPage('demoicons', '/icon', 'picture', 130),
  componentPage('demoguide', '/guide', 'play-circle', 140),
  componentPage('demotheme', '/theme', 'setting', 150),
  componentPage('democlipboard', '/clipboard', 'file-text', 160),
  componentPage('demoi18n', '/i18n', 'global', 170),
];

/** The demo group of the JSON file, with the other demo pages beside its own. */
function demoTree(): DemoMenu[] {
  const [root] = exampleMenus as DemoMenu[];
  if (!root) return [];
  return [{ ...root, children: [...CHART_MENUS, ...(root.children ?? []), ...COMPONENT_MENUS] }];
}

export const DEMO_MENUS: DemoMenu[] = demoTree();

/** Every code of the demo menu tree, parents first. */
export function demoMenuCodes(nodes: readonly DemoMenu[] = DEMO_MENUS): string[] {
  return nodes.flatMap((node) => [node.code, ...demoMenuCodes(node.children ?? [])]);
}

/** Adds the missing demo menus below `parent`; answers the ids of those it added. */
async function addMissing(
  ctx: AppContext,
  trx: AppContext['db'],
  actor: Actor,
  i18n: I18n,
  nodes: readonly DemoMenu[],
  parent: number,
  idByCode: Map<string, number>,
): Promise<number[]> {
  const menu = ctx.registry.require('sysmenu');
  const added: number[] = [];
  for (const node of nodes) {
    let id = idByCode.get(node.code);
    if (id === undefined) {
      const [inserted] = await insertRecords({
        trx,
        registry: ctx.registry,
        entity: menu,
        actor,
        records: [
          {
            menuCode: node.code,
            menuName: i18n.t(SEED_LANGUAGE, `menus.${node.code}`),
            menuIcon: node.icon,
            menuPath: node.path,
            menuComponent: node.component,
            menuSequence: node.sequence,
            menuParent: parent,
            menuStatus: '1',
            menuButton: [],
            menuMeta: node.meta ?? {},
          },
        ],
      });
      id = Number(inserted);
      idByCode.set(node.code, id);
      added.push(id);
    }
    added.push(...(await addMissing(ctx, trx, actor, i18n, node.children ?? [], id, idByCode)));
  }
  return added;
}

/** In the demo seed's transaction, before the roles (a new editor gets every menu there). */
export async function syncDemoMenus({
  ctx,
  trx,
  actor,
  i18n,
  editorRole,
}: {
  ctx: AppContext;
  /** The demo seed's transaction. */
  trx: AppContext['db'];
  actor: Actor;
  i18n: I18n;
  /** The code of the demo editor role, granted every menu added. */
  editorRole: string;
}): Promise<void> {
  const menu = ctx.registry.require('sysmenu');
  const role = ctx.registry.require('sysrole');
  const rows = await sql<{
    id: number;
    code: string;
  }>`select id, menu_code as code from ${sql.table(menu.table)}
    where menu_code in (${sql.join(demoMenuCodes())})`.execute(trx);
  const idByCode = new Map(rows.rows.map((row) => [row.code, Number(row.id)]));
  const added = await addMissing(ctx, trx, actor, i18n, DEMO_MENUS, 0, idByCode);
  if (added.length === 0) return;
  await sql`insert into sys_role_menu (tenant_code, role_id, menu_id)
    select r.tenant_code, r.id, m.id from ${sql.table(role.table)} r
    cross join (values ${sql.join(added.map((id) => sql`(${id}::bigint)`))}) as m(id)
    where r.role_code = ${editorRole}
    on conflict do nothing`.execute(trx);
}
