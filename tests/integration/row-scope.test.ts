import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data, errorFields, type Page, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { freshMobile } from '../support/identity.js';
import { USER_PASSWORD } from '../support/users.js';

/**
 * Row data scopes per role and entity (issue 32 point 2, rbac/permissions/row-scope.ts): a role
 * with each of RuoYi's scopes, or a condition, sees exactly its rows of purchase in the list,
 * the detail read, the export and the report designer; a record outside is answered as missing
 * (404 on update and delete); a write that would land outside is refused (403 outsideScope, an
 * import's row 400 naming it); a user with two roles sees the union; ROLE_ADMIN sees all.
 *
 * The organisations: A with A1 below it, and B. Purchases are created by four users: the viewer
 * (in A), a colleague in A, one in A1 and one in B. Purchase declares no organisation field, so a
 * purchase's organisation is its creator's.
 */
let t: TestApp;
const org: Record<'A' | 'A1' | 'B', number> = { A: 0, A1: 0, B: 0 };
const titles = { viewer: 'rs-viewer', colleague: 'rs-colleague', below: 'rs-below', other: 'rs-other' };
const ROLE = 'ROLE_RS_ONE';
const ROLE2 = 'ROLE_RS_TWO';
let roleId = 0;
let role2Id = 0;
let viewer: { authorization: string };
let purchases: Record<keyof typeof titles, number>;

const admin = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  t.request({
    method,
    url,
    headers: t.auth,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
const asViewer = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  t.request({
    method,
    url,
    headers: { ...viewer, 'accept-language': 'en' },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

async function addOrg(name: string, parent: number): Promise<number> {
  const added = await admin('POST', '/api/admin/sysorg/add', {
    orgName: name,
    orgType: 'group',
    orgParent: parent,
  });
  expect(added.statusCode, added.body).toBe(200);
  return Number(data(added).id);
}

async function addRole(code: string): Promise<number> {
  const added = await admin('POST', '/api/admin/sysrole/add', { roleCode: code, roleName: code });
  expect(added.statusCode, added.body).toBe(200);
  return Number(data(added).id);
}

async function addUser(username: string, orgId: number, mainRole: number): Promise<void> {
  const added = await admin('POST', '/api/admin/sysuser/add', {
    username,
    nickname: username,
    password: USER_PASSWORD,
    email: `${username}@example.com`,
    mobile: freshMobile(),
    phone: '010-1234',
    roleId: mainRole,
    orgId,
  });
  expect(added.statusCode, added.body).toBe(200);
}

async function addPurchase(title: string, createdBy: string): Promise<number> {
  const added = await admin('POST', '/api/notification/purchase/add', { title, buyerName: 'buyer' });
  expect(added.statusCode, added.body).toBe(200);
  const id = Number(data(added).id);
  await t.sql('update portal_purchase set created_by = $1 where id = $2', [createdBy, id]);
  return id;
}

async function setScopes(id: number, rows: Record<string, unknown>[]): Promise<LightMyRequestResponse> {
  return admin('POST', '/api/admin/sysrole/authorizeDataScopeToRole', { roleId: id, rows });
}

async function setScope(rows: Record<string, unknown>[], id = roleId): Promise<void> {
  const saved = await setScopes(id, rows);
  expect(saved.statusCode, saved.body).toBe(200);
}

/** The titles of our purchases the viewer's list shows. */
async function listed(): Promise<string[]> {
  const page = await asViewer('GET', '/api/notification/purchase/query?pageSize=100&title=rs-');
  expect(page.statusCode, page.body).toBe(200);
  return data<Page>(page)
    .records.map((row) => String(row.title))
    .sort();
}

async function exported(): Promise<string[]> {
  const answer = await asViewer('POST', '/api/notification/purchase/export', { title: 'rs-' });
  expect(answer.statusCode, answer.body).toBe(200);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(answer.rawPayload as unknown as ArrayBuffer);
  const sheet = workbook.worksheets[0];
  const header = (sheet?.getRow(1).values as unknown[]) ?? [];
  const column = header.findIndex((cell) => cell === 'Project');
  expect(column).toBeGreaterThan(0);
  const out: string[] = [];
  sheet?.eachRow((row, number) => {
    if (number > 1) out.push(String(row.getCell(column).value));
  });
  return out.sort();
}

/** How many of our purchases the report designer counts for the viewer. */
async function reported(): Promise<number> {
  const answer = await asViewer('POST', '/api/demo/reportdesigner/run', {
    entity: 'purchase',
    dimensions: ['buyerName'],
    measures: ['count:*'],
    chartType: 'bar',
    filters: { title: 'rs-' },
  });
  expect(answer.statusCode, answer.body).toBe(200);
  const rows = data<{ rows: Row[] }>(answer).rows;
  return rows.reduce((sum, row) => sum + Number(row.m0 ?? 0), 0);
}

/** Whether the detail read (query by key) finds the purchase. */
async function found(id: number): Promise<boolean> {
  const page = await asViewer('GET', `/api/notification/purchase/query?id=${id}`);
  expect(page.statusCode, page.body).toBe(200);
  return data<Page>(page).records.length === 1;
}

/** Checks list, export, report and detail reads against the expected creators. */
async function expectSees(who: (keyof typeof titles)[]): Promise<void> {
  const expected = who.map((name) => titles[name]).sort();
  expect(await listed()).toEqual(expected);
  expect(await exported()).toEqual(expected);
  expect(await reported()).toBe(expected.length);
  for (const name of Object.keys(titles) as (keyof typeof titles)[])
    expect(await found(purchases[name]), name).toBe(who.includes(name));
}

/** LIST_SCOPED_COUNT_LIMIT here: a scoped list counts at most this many rows unasked. */
const SCOPED_COUNT_LIMIT = 3;

beforeAll(async () => {
  t = await startTestApp({ env: { LIST_SCOPED_COUNT_LIMIT: String(SCOPED_COUNT_LIMIT) } });
  org.A = await addOrg('rs-A', 0);
  org.A1 = await addOrg('rs-A1', org.A);
  org.B = await addOrg('rs-B', 0);
  roleId = await addRole(ROLE);
  role2Id = await addRole(ROLE2);
  const url = await admin('POST', '/api/admin/sysurl/add', { url: '/api/**' });
  expect(url.statusCode, url.body).toBe(200);
  const granted = await admin('POST', '/api/admin/sysurl/authorizeRoleToUrl', {
    urlId: data(url).id,
    roleIds: [roleId, role2Id],
  });
  expect(granted.statusCode, granted.body).toBe(200);
  await addUser('rsviewer', org.A, roleId);
  await addUser('rscolleague', org.A, roleId);
  await addUser('rsbelow', org.A1, roleId);
  await addUser('rsother', org.B, roleId);
  purchases = {
    viewer: await addPurchase(titles.viewer, 'rsviewer'),
    colleague: await addPurchase(titles.colleague, 'rscolleague'),
    below: await addPurchase(titles.below, 'rsbelow'),
    other: await addPurchase(titles.other, 'rsother'),
  };
  const signedIn = await t.signIn('rsviewer', USER_PASSWORD);
  expect(signedIn.statusCode, signedIn.body).toBe(200);
  viewer = { authorization: `Bearer ${signedIn.json().access_token as string}` };
});
afterAll(async () => {
  await t?.close();
});

describe('row data scopes', () => {
  it('a role without a scope row sees every row (nothing changes for existing installs)', async () => {
    await setScope([]);
    await expectSees(['viewer', 'colleague', 'below', 'other']);
  });

  it('own records: only what the user created', async () => {
    await setScope([{ menuCode: 'purchase', scope: 'self' }]);
    await expectSees(['viewer']);
  });

  it('own organisation: records of the users of the organisation', async () => {
    await setScope([{ menuCode: 'purchase', scope: 'org' }]);
    await expectSees(['viewer', 'colleague']);
  });

  it('own organisation and below', async () => {
    await setScope([{ menuCode: 'purchase', scope: 'orgBelow' }]);
    await expectSees(['viewer', 'colleague', 'below']);
  });

  it('chosen organisations', async () => {
    await setScope([{ menuCode: 'purchase', scope: 'orgs', orgIds: [org.B, org.A1] }]);
    await expectSees(['below', 'other']);
    const read = await admin('GET', `/api/admin/sysrole/queryDataScopeByRoleId?roleId=${roleId}`);
    expect(data<Row[]>(read)).toEqual([
      { menuCode: 'purchase', scope: 'orgs', orgIds: [org.B, org.A1], condition: null },
    ]);
  });

  it('a condition in the filter vocabulary, with $user variables', async () => {
    await t.sql("update portal_purchase set buyer_name = 'special' where id = $1", [purchases.other]);
    await setScope([
      {
        menuCode: 'purchase',
        scope: 'condition',
        condition: "buyerName = 'special' or createdBy = $user.username",
      },
    ]);
    await expectSees(['viewer', 'other']);
    await t.sql("update portal_purchase set buyer_name = 'buyer' where id = $1", [purchases.other]);
  });

  it('a user with two roles sees the union of their scopes', async () => {
    await setScope([{ menuCode: 'purchase', scope: 'self' }]);
    await setScope([{ menuCode: 'purchase', scope: 'orgs', orgIds: [org.B] }], role2Id);
    const [user] = await t.sql<{ id: number }>("select id from sys_user where username = 'rsviewer'");
    await t.sql("insert into sys_role_user (tenant_code, role_id, user_id) values ('default', $1, $2)", [
      role2Id,
      user?.id,
    ]);
    const signedIn = await t.signIn('rsviewer', USER_PASSWORD);
    const before = viewer;
    viewer = { authorization: `Bearer ${signedIn.json().access_token as string}` };
    try {
      await expectSees(['viewer', 'other']);
    } finally {
      viewer = before;
      await t.sql('delete from sys_role_user where role_id = $1', [role2Id]);
      await setScope([], role2Id);
    }
  });

  it.each([
    ['self', 'rsviewer'],
    ['org', 'rscolleague'],
    ['orgBelow', 'rsbelow'],
  ] as const)(
    'a count under scope %s stops at LIST_SCOPED_COUNT_LIMIT and says totalExact: false; asked for, it is exact',
    async (scope, creator) => {
      await setScope([{ menuCode: 'purchase', scope }]);
      const ids: number[] = [];
      for (const n of [1, 2, 3, 4]) ids.push(await addPurchase(`cap-count-${n}`, creator));
      // one row the scope leaves out: counted by the administrator only
      await addPurchase('cap-count-outside', 'rsother');
      const page = async (query: string, as = asViewer): Promise<Page & { totalExact: boolean }> => {
        const answer = await as(
          'GET',
          `/api/notification/purchase/query?title=cap-count-&pageSize=2${query}`,
        );
        expect(answer.statusCode, answer.body).toBe(200);
        return data<Page & { totalExact: boolean }>(answer);
      };
      try {
        // four matches, one more than the limit: two rows, and a total that is not exact
        const capped = await page('');
        expect(capped.records).toHaveLength(2);
        expect(capped.totalExact).toBe(false);
        expect(capped.total).toBeGreaterThanOrEqual(SCOPED_COUNT_LIMIT + 1);
        // the next page after the cursor is counted the same way
        expect((await page('&currentPage=2')).totalExact).toBe(false);
        // an exact count asked for is not capped
        expect(await page('&totalExact=true')).toMatchObject({ total: 4, totalExact: true });
        // without a scope (the administrator) the same list is counted exactly
        expect(await page('', admin)).toMatchObject({ total: 5, totalExact: true });
        // at the limit the count is exact
        await t.sql('delete from portal_purchase where id = $1', [ids.pop()]);
        expect(await page('')).toMatchObject({ total: SCOPED_COUNT_LIMIT, totalExact: true });
      } finally {
        await t.sql("delete from portal_purchase where title like 'cap-count-%'");
      }
    },
  );

  it('a list under an own-organisation scope sends no more statements than unscoped (the creators read with the scope rows)', async () => {
    // Every statement the app sends goes through a Kysely executor (transactions' too).
    const executor = t.app.ctx.db.getExecutor();
    type Execute = (this: unknown, query: { sql: string }, ...rest: unknown[]) => unknown;
    const prototype = Object.getPrototypeOf(executor) as { executeQuery: Execute };
    const original = prototype.executeQuery;
    const sent: string[] = [];
    prototype.executeQuery = function (this: unknown, query: { sql: string }, ...rest: unknown[]) {
      sent.push(query.sql);
      return original.call(this, query, ...rest);
    };
    const statements = async (): Promise<number> => {
      const counts: number[] = [];
      for (let turn = 0; turn < 3; turn += 1) {
        sent.length = 0;
        expect(await listed()).not.toEqual([]);
        counts.push(sent.length);
      }
      return Math.min(...counts);
    };
    try {
      await setScope([]);
      const unscoped = await statements();
      expect(unscoped).toBeGreaterThan(0);
      for (const scope of ['org', 'orgBelow', 'self']) {
        await setScope([{ menuCode: 'purchase', scope }]);
        expect(await statements(), scope).toBe(unscoped);
      }
    } finally {
      prototype.executeQuery = original;
      await setScope([]);
    }
  });

  it('ROLE_ADMIN sees every row whatever the scopes', async () => {
    await setScope([{ menuCode: 'purchase', scope: 'self' }]);
    const page = await admin('GET', '/api/notification/purchase/query?pageSize=100&title=rs-');
    expect(data<Page>(page).records).toHaveLength(4);
  });
});

describe('writes outside the scope', () => {
  it('update and delete of a record outside the scope answer 404 and change nothing', async () => {
    await setScope([{ menuCode: 'purchase', scope: 'self' }]);
    const updated = await asViewer('PUT', '/api/notification/purchase/update', {
      id: purchases.other,
      version: 1,
      title: 'changed',
    });
    expect(updated.statusCode, updated.body).toBe(404);
    const deleted = await asViewer('POST', `/api/notification/purchase/delete?id=${purchases.other}`);
    expect(deleted.statusCode, deleted.body).toBe(404);
    const [row] = await t.sql<{ title: string }>('select title from portal_purchase where id = $1', [
      purchases.other,
    ]);
    expect(row?.title).toBe(titles.other);
  });

  it('an add or update that would land outside the scope is refused (403) and undone', async () => {
    await setScope([{ menuCode: 'purchase', scope: 'condition', condition: "buyerName = 'mine'" }]);
    const added = await asViewer('POST', '/api/notification/purchase/add', {
      title: 'rs-x-add',
      buyerName: 'theirs',
    });
    expect(added.statusCode, added.body).toBe(403);
    expect(added.json<{ message: string }>().message).toContain('outside your data scope');
    expect(await t.sql("select 1 from portal_purchase where title = 'rs-x-add'")).toHaveLength(0);

    const inside = await asViewer('POST', '/api/notification/purchase/add', {
      title: 'rs-x-mine',
      buyerName: 'mine',
    });
    expect(inside.statusCode, inside.body).toBe(200);
    const moved = await asViewer('PUT', '/api/notification/purchase/update', {
      id: data(inside).id,
      version: 1,
      buyerName: 'theirs',
    });
    expect(moved.statusCode, moved.body).toBe(403);
    const [row] = await t.sql<{ buyer_name: string }>(
      'select buyer_name from portal_purchase where id = $1',
      [data(inside).id],
    );
    expect(row?.buyer_name).toBe('mine');
    await t.sql("delete from portal_purchase where title = 'rs-x-mine'");
  });

  it('an import row that would land outside the scope is refused, naming its row', async () => {
    await setScope([{ menuCode: 'purchase', scope: 'condition', condition: "buyerName = 'mine'" }]);
    const rows = [
      ['Title', 'Buyer'],
      ['rs-imp-1', 'mine'],
      ['rs-imp-2', 'theirs'],
    ];
    const bytes = Buffer.from(rows.map((row) => row.map((cell) => `"${cell}"`).join(',')).join('\n'));
    const boundary = '----rowscope';
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\nContent-Type: text/csv\r\n\r\n`,
      ),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const answer = await t.request({
      method: 'POST',
      url: '/api/notification/purchase/import',
      headers: {
        ...viewer,
        'accept-language': 'en',
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      payload,
    });
    expect(answer.statusCode, answer.body).toBe(400);
    expect(errorFields(answer)).toEqual(['/3/']);
    expect(await t.sql("select 1 from portal_purchase where title like 'rs-imp-%'")).toHaveLength(0);
  });

  it('a declared organisation field (sysuser.orgId): users of other organisations are hidden and cannot be added', async () => {
    await setScope([{ menuCode: 'sysuser', scope: 'orgBelow' }]);
    const page = await asViewer('GET', '/api/admin/sysuser/query?pageSize=100&username=rs');
    expect(
      data<Page>(page)
        .records.map((row) => String(row.username))
        .sort(),
    ).toEqual(['rsbelow', 'rscolleague', 'rsviewer']);
    const added = await asViewer('POST', '/api/admin/sysuser/add', {
      username: 'rsoutside',
      nickname: 'rsoutside',
      password: USER_PASSWORD,
      email: 'rsoutside@example.com',
      mobile: freshMobile(),
      phone: '010-1234',
      roleId,
      orgId: org.B,
    });
    expect(added.statusCode, added.body).toBe(403);
    await setScope([]);
  });
});

describe('the tree', () => {
  it('shows the organisations of the scope only (sysorg, organisation = its own id)', async () => {
    await setScope([{ menuCode: 'sysorg', scope: 'orgBelow' }]);
    const tree = await asViewer('GET', '/api/admin/sysorg/querySysOrgTree');
    expect(tree.statusCode, tree.body).toBe(200);
    const names: string[] = [];
    const walk = (nodes: Row[]): void => {
      for (const node of nodes) {
        names.push(String(node.orgName));
        if (Array.isArray(node.children)) walk(node.children as Row[]);
      }
    };
    walk(data<Row[]>(tree));
    expect(names.sort()).toEqual(['rs-A', 'rs-A1']);
    await setScope([]);
  });
});

describe('saving scopes', () => {
  it('a condition that does not parse, or names an unknown field, is a 400 naming it', async () => {
    const bad = await setScopes(roleId, [
      { menuCode: 'purchase', scope: 'condition', condition: 'buyerName = ' },
      { menuCode: 'sysorg', scope: 'condition', condition: 'nosuch = 1' },
      { menuCode: 'sysuser', scope: 'orgs', orgIds: [999_999] },
      { menuCode: 'nosuchentity', scope: 'self' },
    ]);
    expect(bad.statusCode, bad.body).toBe(400);
    expect(errorFields(bad).sort()).toEqual(
      ['/rows/0/condition', '/rows/1/condition', '/rows/2/orgIds', '/rows/3/menuCode'].sort(),
    );
    const typed = await setScopes(roleId, [
      { menuCode: 'purchase', scope: 'condition', condition: "budget = 'x'" },
    ]);
    expect(errorFields(typed)).toEqual(['/rows/0/condition']);
  });

  it("another tenant's organisation is refused like a missing one, whatever the scope", async () => {
    const [other] = await t.sql<{ id: number }>(
      "insert into sys_org (tenant_code, org_name, org_type, org_parent) values ('othertenant', 'rs-foreign', 'group', 0) returning id",
    );
    for (const scope of ['orgs', 'all']) {
      const refused = await setScopes(roleId, [{ menuCode: 'purchase', scope, orgIds: [other?.id] }]);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(errorFields(refused)).toEqual(['/rows/0/orgIds']);
    }
  });

  it("a role's data scopes and field rights follow a renamed code and go with the deleted role", async () => {
    const added = await admin('POST', '/api/admin/sysrole/add', {
      roleCode: 'ROLE_RS_GONE',
      roleName: 'gone',
    });
    expect(added.statusCode, added.body).toBe(200);
    const id = Number(data(added).id);
    await setScope([{ menuCode: 'purchase', scope: 'self' }], id);
    const rights = await admin('POST', '/api/admin/sysmenu/authorizeMenuDataToRole', {
      menuCode: 'purchase',
      rows: [{ roleCode: 'ROLE_RS_GONE', dataFields: ['contactPhone'], readOnlyFields: ['budget'] }],
    });
    expect(rights.statusCode, rights.body).toBe(200);
    const stored = async (code: string): Promise<number[]> => [
      (await t.sql('select 1 from sys_data_scope where role_code = $1', [code])).length,
      (await t.sql('select 1 from sys_data_permission where role_code = $1', [code])).length,
    ];
    expect(await stored('ROLE_RS_GONE')).toEqual([1, 1]);

    const renamed = await admin('PUT', '/api/admin/sysrole/update', {
      id,
      version: data(added).version,
      roleCode: 'ROLE_RS_RENAMED',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(await stored('ROLE_RS_GONE')).toEqual([0, 0]);
    expect(await stored('ROLE_RS_RENAMED')).toEqual([1, 1]);
    const read = await admin('GET', `/api/admin/sysrole/queryDataScopeByRoleId?roleId=${id}`);
    expect(data<{ scope: string }[]>(read).map((row) => row.scope)).toEqual(['self']);

    const deleted = await admin('POST', `/api/admin/sysrole/delete?id=${id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await stored('ROLE_RS_RENAMED')).toEqual([0, 0]);
    // a new role of the old code starts without them
    const again = await admin('POST', '/api/admin/sysrole/add', {
      roleCode: 'ROLE_RS_RENAMED',
      roleName: 'new',
    });
    expect(again.statusCode, again.body).toBe(200);
    const fresh = await admin('GET', `/api/admin/sysrole/queryDataScopeByRoleId?roleId=${data(again).id}`);
    expect(data(fresh)).toEqual([]);
  });

  it("another tenant's role is not found", async () => {
    const missing = await setScopes(999_999, []);
    expect(missing.statusCode, missing.body).toBe(404);
  });
});
