import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, data, errorFields, type Row } from '../support/api.js';
import { BUDGETS } from '../../src/server/lib/budgets.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { measureStall, PING_BUDGET_MS, stallReport } from '../support/stall.js';
import { createUserWithRole } from '../support/users.js';

/**
 * The figures behind the demo charts and big screens, and the report designer (issue 18): real
 * data of the caller's tenant, the caller's URL grants and data-field permissions, saved reports
 * as menu pages of their tenant only.
 */

interface Dashboard {
  totals: Record<string, number | string>;
  signIns: { day: string; signIns: number; users: number }[];
  notices: { day: string; count: number }[];
  purchasesByMonth: { month: string; count: number; budget: string }[];
  purchasesByCategory: { name: string; count: number; budget: string }[];
  usersByOrg: { name: string; count: number }[];
  purchasesByProvince: { name: string; count: number }[];
  recentPurchases: Row[];
}
interface ReportResult {
  columns: { key: string; title: string; kind: string }[];
  rows: Record<string, string | number | null>[];
  isTruncated: boolean;
}
interface ReportEntity {
  name: string;
  fields: { name: string; isDimension: boolean; isMeasure: boolean }[];
}

let t: TestApp;
let api: Api;
let editor: { token: string };
let visitor: { token: string };
beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t);
  editor = await createUserWithRole(t, 'charteditor', 'ROLE_EDITOR');
  visitor = await createUserWithRole(t, 'chartvisitor', 'ROLE_VISITOR');
});
afterAll(async () => {
  await t?.close();
});

const as = (token: string) => new Api(t, { authorization: `Bearer ${token}` });

async function menuCodes(token: string): Promise<string[]> {
  const authority = await t.request({
    method: 'POST',
    url: '/api/account/sysuserdetail/queryCurrentAuthority',
    headers: { authorization: `Bearer ${token}` },
  });
  expect(authority.statusCode, authority.body).toBe(200);
  const found: string[] = [];
  JSON.stringify(authority.json(), (key, value: unknown) => {
    if (key === 'menuCode' && typeof value === 'string') found.push(value);
    return value;
  });
  return found;
}

const DEMO_PAGES = [
  'chartline',
  'chartbar',
  'chartpie',
  'chartmix',
  'construction',
  'electronic',
  'maintenance',
  'dataanalysis',
  'reportdesigner',
];

describe('demo menus', () => {
  it('the charts, big screens and report designer are in the menu of the administrator and the editor, not of the visitor', async () => {
    const admin = (await t.signIn('admin', 'admin-pass-1')).json().access_token as string;
    expect(await menuCodes(admin)).toEqual(expect.arrayContaining(['demo', ...DEMO_PAGES]));
    expect(await menuCodes(editor.token)).toEqual(expect.arrayContaining(DEMO_PAGES));
    expect(await menuCodes(visitor.token)).toEqual(['workbench']);
  });
});

describe('dashboard figures', () => {
  it('sums budgets exactly: 0.1 + 0.2 is "0.30", sent as digits, never a float', async () => {
    for (const budget of ['0.10', '0.20'])
      expect(
        (
          await api.post('/api/notification/purchase/add', {
            title: `exact-sum ${budget}`,
            buyerName: 'exact',
            category: 'exact-sum-category',
            budget,
          })
        ).statusCode,
      ).toBe(200);
    const response = await api.get('/api/demo/dashboard', { days: '7', utcOffset: '0' });
    expect(response.statusCode, response.body).toBe(200);
    const dashboard = data<Dashboard>(response);
    expect(dashboard.purchasesByCategory.find((row) => row.name === 'exact-sum-category')?.budget).toBe(
      '0.30',
    );
    expect(typeof dashboard.totals.budget).toBe('string');
    expect(String(dashboard.totals.budget)).toMatch(/^\d+\.\d{2}$/);
    // the report's xlsx writes the exact sum as a number cell at its scale, not as text
    const xlsx = await api.post('/api/demo/reportdesigner/xlsx', {
      entity: 'purchase',
      dimensions: ['category'],
      measures: ['sum:budget'],
      chartType: 'table',
      filters: { title: 'exact-sum' },
      title: 'exact sums',
    });
    expect(xlsx.statusCode, xlsx.body).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const cell = workbook.worksheets[0]?.getRow(3).getCell(2);
    expect(cell?.value).toBe(0.3);
    expect(cell?.numFmt).toBe('#,##0.00');
    // the other checks here count the seeded purchases
    await t.sql("delete from portal_purchase where title like 'exact-sum %'");
  });

  it('answers the tenant’s real counts, series and lists', async () => {
    const response = await api.get('/api/demo/dashboard', { days: '14', utcOffset: '480' });
    expect(response.statusCode, response.body).toBe(200);
    const dashboard = data<Dashboard>(response);
    const [counts] = await t.sql<{ users: number; purchases: number; notices: number; budget: string }>(
      `select (select count(*)::int from sys_user where tenant_code = 'default') as users,
        (select count(*)::int from portal_purchase where tenant_code = 'default') as purchases,
        (select count(*)::int from portal_notice where tenant_code = 'default') as notices,
        (select coalesce(sum(budget), 0)::text from portal_purchase where tenant_code = 'default') as budget`,
    );
    expect(dashboard.totals).toMatchObject({
      users: counts?.users,
      purchases: counts?.purchases,
      notices: counts?.notices,
      budget: counts?.budget,
    });
    expect(dashboard.totals.purchases).toBeGreaterThan(0);
    expect(dashboard.signIns).toHaveLength(14);
    expect(dashboard.notices.map((day) => day.day)).toEqual(dashboard.signIns.map((day) => day.day));
    // the notices published on those days, in the caller's time zone (UTC+8)
    const [recent] = await t.sql<{ n: number }>(
      `select count(*)::int as n from portal_notice where tenant_code = 'default'
        and to_char((publish_time at time zone 'UTC') + interval '480 minutes', 'YYYY-MM-DD') between $1 and $2`,
      [dashboard.signIns[0]?.day, dashboard.signIns.at(-1)?.day],
    );
    expect(recent?.n).toBeGreaterThan(0);
    expect(dashboard.notices.reduce((sum, day) => sum + day.count, 0)).toBe(recent?.n);
    expect(dashboard.purchasesByMonth).toHaveLength(12);
    expect(dashboard.purchasesByMonth.reduce((sum, month) => sum + month.count, 0)).toBe(counts?.purchases);
    expect(dashboard.purchasesByCategory.reduce((sum, item) => sum + item.count, 0)).toBe(counts?.purchases);
    expect(dashboard.usersByOrg.reduce((sum, item) => sum + item.count, 0)).toBe(counts?.users);
    expect(dashboard.totals.online).toBeGreaterThan(0);
    expect(dashboard.recentPurchases.length).toBeGreaterThan(0);
    // a sign-in today (the two demo users) is counted on today's bar
    expect(dashboard.signIns.at(-1)?.signIns).toBeGreaterThanOrEqual(2);
    // the map: every purchase whose region starts with a province's name, counted under that name
    const byProvince = await t.sql<{ name: string; n: number }>(
      `select p.name, count(*)::int as n from portal_purchase r
        join unnest($1::text[]) as p(name) on btrim(r.region) like p.name || '%'
        where r.tenant_code = 'default' group by p.name order by 2 desc, 1`,
      [['北京', '上海', '江苏', '浙江', '广东', '山东', '河北', '安徽', '湖南', '四川', '湖北', '河南']],
    );
    expect(byProvince.length).toBeGreaterThan(3);
    for (const row of byProvince)
      expect(dashboard.purchasesByProvince.find((entry) => entry.name === row.name)?.count).toBe(row.n);
    const counted = dashboard.purchasesByProvince.reduce((sum, entry) => sum + entry.count, 0);
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThanOrEqual(counts?.purchases ?? 0);
  });

  it('is granted by URL (the editor yes, the visitor no) and refuses bad parameters naming them', async () => {
    expect((await as(editor.token).get('/api/demo/dashboard')).statusCode).toBe(200);
    expect((await as(visitor.token).get('/api/demo/dashboard')).statusCode).toBe(403);
    const bad = await api.get('/api/demo/dashboard', { days: '1000' });
    expect(bad.statusCode).toBe(400);
    expect(errorFields(bad)).toEqual(['/days']);
  });
});

describe('report designer', () => {
  const run = (definition: Record<string, unknown>, caller: Api = api) =>
    caller.post('/api/demo/reportdesigner/run', definition);

  it('offers the entities and fields the caller may read: no secrets, numbers as measures', async () => {
    const entities = data<ReportEntity[]>(await api.get('/api/demo/reportdesigner/entities'));
    const purchase = entities.find((entity) => entity.name === 'purchase');
    expect(purchase?.fields.find((field) => field.name === 'budget')).toMatchObject({ isMeasure: true });
    expect(purchase?.fields.find((field) => field.name === 'category')).toMatchObject({
      isDimension: true,
      isMeasure: false,
    });
    const user = entities.find((entity) => entity.name === 'sysuser');
    expect(user?.fields.map((field) => field.name)).not.toContain('password');
    // The editor reaches the article by its URL grant (/api/demo/**) and the purchases by its
    // 采购公告 menu (a menu grants the calls of its screens); not the URL permissions (权限管理 is not its).
    const editors = data<ReportEntity[]>(await as(editor.token).get('/api/demo/reportdesigner/entities'));
    expect(editors.map((entity) => entity.name)).toContain('article');
    expect(editors.map((entity) => entity.name)).toContain('purchase');
    expect(editors.map((entity) => entity.name)).not.toContain('sysurl');
  });

  it('groups, counts, sums and averages as SQL does, with filters, labels and months', async () => {
    const response = await run({
      entity: 'purchase',
      dimensions: ['category'],
      measures: ['count:*', 'sum:budget', 'avg:budget'],
      chartType: 'bar',
    });
    expect(response.statusCode, response.body).toBe(200);
    const result = data<ReportResult>(response);
    expect(result.columns.map((col) => col.kind)).toEqual(['dimension', 'measure', 'measure', 'measure']);
    // Budgets are exact decimals: summed and averaged on numeric, answered as text at the scale.
    const expected = await t.sql<{ category: string; n: number; total: string; average: string }>(
      `select category, count(*)::int as n, sum(budget)::text as total, round(avg(budget), 2)::text as average
       from portal_purchase where tenant_code = 'default' group by category order by category`,
    );
    expect(result.rows).toEqual(
      expected.map((row) => ({ d0: row.category, m0: row.n, m1: row.total, m2: row.average })),
    );

    const category = expected[0]?.category ?? '';
    const filtered = data<ReportResult>(
      await run({ entity: 'purchase', measures: ['count:*'], filters: { category } }),
    );
    expect(filtered.rows).toEqual([{ m0: expected[0]?.n }]);

    const months = data<ReportResult>(
      await run({ entity: 'purchase', dimensions: ['publishTime'], measures: ['count:*'], utcOffset: 480 }),
    );
    expect(months.rows.every((row) => /^\d{4}-\d{2}$/.test(String(row.d0)))).toBe(true);

    // Dictionary values show their labels, references their target's label.
    const users = data<ReportResult>(
      await run(
        { entity: 'sysuser', dimensions: ['status', 'orgId'], measures: ['count:*'] },
        new Api(t, { 'accept-language': 'zh' }),
      ),
    );
    const [org] = await t.sql<{ name: string }>(`select org_name as name from sys_org where id = 1`);
    expect(users.rows).toContainEqual(expect.objectContaining({ d0: '正常', d1: org?.name }));
  });

  it('refuses what is not a dimension, a measure or a filter of the entity, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ entity: 'nosuch', measures: ['count:*'] }, '/entity'],
      [{ entity: 'purchase', measures: ['sum:title'] }, '/measures/0'],
      [{ entity: 'sysuser', dimensions: ['password'], measures: ['count:*'] }, '/dimensions/0'],
      [{ entity: 'purchase', measures: ['count:*'], filters: { nosuch: 'x' } }, '/nosuch'],
      [
        { entity: 'purchase', dimensions: ['category; drop table x'], measures: ['count:*'] },
        '/dimensions/0',
      ],
      [{ entity: 'purchase', measures: ['max:budget'] }, '/measures/0'],
      [{ entity: 'purchase', measures: [] }, '/measures'],
    ];
    for (const [definition, field] of cases) {
      const response = await run(definition);
      expect(response.statusCode, JSON.stringify(definition)).toBe(400);
      expect(errorFields(response), JSON.stringify(definition)).toContain(field);
    }
  });

  it('follows the caller’s URL grants and hidden data fields', async () => {
    const asEditor = as(editor.token);
    // URL permissions are not the editor's to read (权限管理); the visitor has no grant at all
    expect((await run({ entity: 'sysurl', measures: ['count:*'] }, asEditor)).statusCode).toBe(403);
    expect((await run({ entity: 'purchase', measures: ['count:*'] }, as(visitor.token))).statusCode).toBe(
      403,
    );
    expect(
      (await run({ entity: 'article', dimensions: ['type'], measures: ['sum:pageviews'] }, asEditor))
        .statusCode,
    ).toBe(200);
    await t.sql(
      `insert into sys_data_permission (tenant_code, role_code, menu_code, data_fields)
       values ('default', 'ROLE_EDITOR', 'article', '["pageviews"]'::jsonb)`,
    );
    try {
      const hidden = await run({ entity: 'article', measures: ['sum:pageviews'] }, asEditor);
      expect(hidden.statusCode).toBe(400);
      expect(errorFields(hidden)).toEqual(['/measures/0']);
      const filter = await run(
        { entity: 'article', measures: ['count:*'], filters: { pageviews: '5' } },
        asEditor,
      );
      expect(filter.statusCode).toBe(400);
    } finally {
      await t.sql(
        `delete from sys_data_permission where role_code = 'ROLE_EDITOR' and menu_code = 'article'`,
      );
    }
  });

  it('saves a report as a menu page of its tenant, shows it, renames, exports and deletes it', async () => {
    const definition = {
      entity: 'article',
      dimensions: ['type'],
      measures: ['count:*', 'sum:pageviews'],
      chartType: 'pie',
    };
    const asEditor = as(editor.token);
    const saved = await asEditor.post('/api/demo/reportdesigner/save', {
      ...definition,
      reportName: '文章类型报表',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const report = data<Row>(saved);
    const id = Number(report.id);
    const [menu] = await t.sql<{ path: string; meta: { tenant: string } }>(
      `select menu_path as path, menu_meta as meta from sys_menu where menu_code = $1`,
      [`report_${id}`],
    );
    expect(menu).toEqual({
      path: `/report/view/${id}`,
      meta: expect.objectContaining({ tenant: 'default' }),
    });
    const [parent] = await t.sql<{ code: string }>(
      `select p.menu_code as code from sys_menu m join sys_menu p on p.id = m.menu_parent where m.menu_code = $1`,
      [`report_${id}`],
    );
    expect(parent?.code).toBe('reports');
    expect(await menuCodes(editor.token)).toContain(`report_${id}`);

    const view = data<{ report: Row; result: ReportResult }>(
      await asEditor.get('/api/demo/reportdesigner/view', { id: String(id) }),
    );
    expect(view.report.reportName).toBe('文章类型报表');
    const [articles] = await t.sql<{ n: number }>(
      `select count(*)::int as n from demo_article where tenant_code = 'default'`,
    );
    expect(view.result.rows.reduce((sum, row) => sum + Number(row.m0), 0)).toBe(articles?.n);

    const clash = await asEditor.post('/api/demo/reportdesigner/save', {
      ...definition,
      reportName: '文章类型报表',
    });
    expect(clash.statusCode).toBe(409);
    const renamed = await asEditor.post('/api/demo/reportdesigner/save', {
      ...definition,
      id,
      version: report.version,
      reportName: '文章类型统计',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const [named] = await t.sql<{ name: string }>(
      `select menu_name as name from sys_menu where menu_code = $1`,
      [`report_${id}`],
    );
    expect(named?.name).toBe('文章类型统计');

    const xlsx = await asEditor.post('/api/demo/reportdesigner/xlsx', {
      ...definition,
      title: '文章类型统计',
    });
    expect(xlsx.statusCode).toBe(200);
    expect(xlsx.headers['content-type']).toContain('spreadsheetml');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    expect(sheet?.getRow(1).getCell(1).value).toBe('文章类型统计');
    expect(sheet?.rowCount).toBe(2 + view.result.rows.length);

    // Another tenant sees neither the page nor the report.
    const tenant = await api.post('/api/admin/systenant/add', {
      tenantCode: 'reportb',
      tenantName: 'Report B',
    });
    expect(tenant.statusCode, tenant.body).toBe(200);
    const admin = tenant.json().data.admin as { username: string; initialPassword: string };
    const other = (await t.signIn(admin.username, admin.initialPassword, 'reportb')).json()
      .access_token as string;
    expect(await menuCodes(other)).not.toContain(`report_${id}`);
    // Nor in the menu management list, its tree or its export; the platform administrator sees it.
    const listed = async (who: Api): Promise<string[]> => {
      const page = await who.get('/api/admin/sysmenu/query', {
        menuComponent: 'report/view',
        pageSize: '100',
      });
      expect(page.statusCode, page.body).toBe(200);
      return data<{ records: { menuCode: string }[] }>(page).records.map((row) => row.menuCode);
    };
    const inTree = async (who: Api, query: Record<string, string> = {}): Promise<string[]> => {
      const tree = await who.get('/api/admin/sysmenu/querySysMenuTree', query);
      expect(tree.statusCode, tree.body).toBe(200);
      const codes: string[] = [];
      const walk = (nodes: { menuCode?: string; children?: unknown[] }[]): void => {
        for (const node of nodes) {
          if (node.menuCode) codes.push(node.menuCode);
          walk((node.children ?? []) as { menuCode?: string; children?: unknown[] }[]);
        }
      };
      walk(data<{ menuCode?: string; children?: unknown[] }[]>(tree));
      return codes;
    };
    expect(await listed(as(other))).not.toContain(`report_${id}`);
    expect(await inTree(as(other))).not.toContain(`report_${id}`);
    expect(await inTree(as(other))).toContain('reports');
    expect(await listed(api)).toContain(`report_${id}`);
    expect(await inTree(api)).toContain(`report_${id}`);
    // One level at a time (a lazy tree): the reports group's children.
    const [group] = await t.sql<{ id: number }>(`select id from sys_menu where menu_code = 'reports'`);
    const level = { parentId: String(group?.id) };
    expect(await inTree(as(other), level)).not.toContain(`report_${id}`);
    expect(await inTree(api, level)).toContain(`report_${id}`);
    const exported = await as(other).post('/api/admin/sysmenu/export', { menuComponent: 'report/view' });
    expect(exported.statusCode).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
    const cells: string[] = [];
    book.worksheets[0]?.eachRow((row) => row.eachCell((cell) => cells.push(String(cell.value))));
    expect(cells.some((cell) => cell.includes(`report_${id}`))).toBe(false);
    expect(cells.some((cell) => cell.includes('文章类型统计'))).toBe(false);
    expect((await as(other).get('/api/demo/reportdesigner/view', { id: String(id) })).statusCode).toBe(404);
    expect(
      (await as(other).post('/api/demo/reportdesigner/remove', undefined, { id: String(id) })).statusCode,
    ).toBe(404);
    const otherFigures = data<Dashboard>(await as(other).get('/api/demo/dashboard'));
    expect(otherFigures.totals.purchases).toBe(0);
    expect(otherFigures.totals.users).toBe(1);

    const removed = await asEditor.post('/api/demo/reportdesigner/remove', undefined, { id: String(id) });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await t.sql(`select 1 from sys_menu where menu_code = $1`, [`report_${id}`])).toEqual([]);
    expect(await t.sql(`select 1 from demo_report where id = $1`, [id])).toEqual([]);
  });
  it('a report deleted or renamed by any path takes its menu page and grants along, in the same statement', async () => {
    const asEditor = as(editor.token);
    const save = async (reportName: string): Promise<{ id: number; version: number }> => {
      const saved = await asEditor.post('/api/demo/reportdesigner/save', {
        entity: 'article',
        dimensions: ['type'],
        measures: ['count:*'],
        chartType: 'bar',
        reportName,
      });
      expect(saved.statusCode, saved.body).toBe(200);
      const row = data<Row>(saved);
      return { id: Number(row.id), version: Number(row.version) };
    };
    const pageOf = async (id: number) =>
      (
        await t.sql<{ id: number; name: string }>(
          `select id, menu_name as name from sys_menu where menu_code = $1`,
          [`report_${id}`],
        )
      )[0];
    const grantsOf = async (menuId: number): Promise<number> =>
      (
        await t.sql<{ n: number }>(`select count(*)::int as n from sys_role_menu where menu_id = $1`, [
          menuId,
        ])
      )[0]?.n ?? -1;

    // The generic entity update renames the page too.
    const first = await save('通用删除报表');
    const page = await pageOf(first.id);
    expect(page).toBeDefined();
    expect(await grantsOf(Number(page?.id))).toBeGreaterThan(0);
    const renamed = await api.put('/api/demo/report/update', {
      id: first.id,
      version: first.version,
      reportName: '通用改名报表',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect((await pageOf(first.id))?.name).toBe('通用改名报表');
    expect(await menuCodes(editor.token)).toContain(`report_${first.id}`);

    // The generic entity delete takes the page and its grants.
    const removed = await api.post('/api/demo/report/delete', undefined, { id: String(first.id) });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await pageOf(first.id)).toBeUndefined();
    expect(await grantsOf(Number(page?.id))).toBe(0);
    expect(await menuCodes(editor.token)).not.toContain(`report_${first.id}`);

    // So does a delete in plain SQL; a delete rolled back leaves the page where it was.
    const second = await save('SQL删除报表');
    const secondPage = await pageOf(second.id);
    await t.sql(`do $$ begin
      delete from demo_report where id = ${second.id};
      raise exception 'rolled back by the test';
    exception when raise_exception then null; end $$`);
    expect(await pageOf(second.id)).toEqual(secondPage);
    await t.sql(`delete from demo_report where id = $1`, [second.id]);
    expect(await pageOf(second.id)).toBeUndefined();
    expect(await grantsOf(Number(secondPage?.id))).toBe(0);
  });
});

describe('report designer query budget (issue 31)', () => {
  const isPostgres = Boolean(process.env.TEST_DATABASE_URL);
  const definition = {
    entity: 'purchase',
    dimensions: ['category'],
    measures: ['count:*'],
    chartType: 'bar',
  };
  /** The budgets of this test, the declared ones back afterwards. */
  const reports: { queryMs: number; rows: number } = BUDGETS.reports;
  const declared = { ...reports };
  afterAll(async () => {
    Object.assign(reports, declared);
    await t.sql("delete from portal_purchase where title like 'budget-%'");
  });

  it('a report past its budget is a 422 naming it, and the next one runs', async () => {
    await t.sql(`insert into portal_purchase (tenant_code, title, buyer_name, category, budget)
      select 'default', 'budget-' || g, 'buyer', 'goods', g from generate_series(1, ${isPostgres ? 30_000 : 12_000}) as g`);
    if (isPostgres) reports.queryMs = 1;
    else reports.rows = 10_000;
    const refused = await t.request({
      method: 'POST',
      url: '/api/demo/reportdesigner/run',
      headers: { ...t.auth, 'accept-language': 'en' },
      payload: definition,
    });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json<{ message: string }>().message).toBe(
      isPostgres
        ? 'The report query went past its budget reports.queryMs (1 ms)'
        : 'The report query went past its budget reports.rows (10000)',
    );
    Object.assign(reports, declared);
    const measure = await measureStall(t, () =>
      t.request({
        method: 'POST',
        url: '/api/demo/reportdesigner/run',
        headers: t.auth,
        payload: definition,
      }),
    );
    console.log(
      stallReport(
        `report of ${isPostgres ? 30_000 : 12_000} rows`,
        isPostgres ? `reports.queryMs ${reports.queryMs} ms` : `reports.rows ${reports.rows}`,
        measure,
      ),
    );
    expect(measure.hostile.status, measure.hostile.body).toBe(200);
    expect(measure.worstPingMs).toBeLessThan(PING_BUDGET_MS);
  });
});
