import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDef } from '../../src/engine/index.js';
import { Api, data, errorFields, type Page, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { Samples } from '../support/samples.js';
import { createUserWithRole } from '../support/users.js';

/**
 * The permission policy (features/rbac/permissions/policy.ts) on every way an item leaves or enters
 * the server: a data field hidden from a role is absent from the list, the tree, the export,
 * the add's and the update's answers, and cannot be filtered or sorted on, in each of them.
 */
const ROLE = 'ROLE_SYS_BUYER_SUB';
const HIDDEN = 'orgDescription';

let t: TestApp;
let org: EntityDef;
let headers: { authorization: string };

const as = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: Record<string, unknown>) =>
  t.request({ method, url, headers, ...(payload === undefined ? {} : { payload }) });

function expectHidden(row: Row | undefined, what: string): void {
  expect(row, what).toBeDefined();
  expect(row, what).toHaveProperty('id');
  expect(row, what).toHaveProperty('orgName');
  expect(row, what).not.toHaveProperty(HIDDEN);
}

function expectRefused(response: LightMyRequestResponse, field: string, what: string): void {
  expect(response.statusCode, `${what}: ${response.body}`).toBe(400);
  expect(errorFields(response), what).toContain(field);
}

beforeAll(async () => {
  t = await startTestApp();
  org = t.app.ctx.registry.require('sysorg');
  const { token } = await createUserWithRole(t, 'policyreader', ROLE);
  headers = { authorization: `Bearer ${token}` };
  const url = await t.request({
    method: 'POST',
    url: '/api/admin/sysurl/add',
    headers: t.auth,
    payload: { url: `/api/${org.api}/**` },
  });
  const [role] = await t.sql<{ id: number }>('select id from sys_role where role_code = $1', [ROLE]);
  const granted = await t.request({
    method: 'POST',
    url: '/api/admin/sysurl/authorizeRoleToUrl',
    headers: t.auth,
    payload: { urlId: data(url).id, roleIds: [role?.id] },
  });
  expect(granted.statusCode, granted.body).toBe(200);
  const hidden = await t.request({
    method: 'POST',
    url: '/api/admin/sysmenu/authorizeMenuDataToRole',
    headers: t.auth,
    payload: { menuCode: org.name, rows: [{ roleCode: ROLE, dataFields: [HIDDEN] }] },
  });
  expect(hidden.statusCode, hidden.body).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

describe('a hidden data field', () => {
  it('is absent from the answers of add, update, query, tree and export', async () => {
    const record = await new Samples(new Api(t)).record(org, { [HIDDEN]: 'secret description' });
    // a hidden field cannot be written either (rbac field-rights.ts): 403 naming it
    const smuggled = await as('POST', `/api/${org.api}/add`, record);
    expect(smuggled.statusCode, smuggled.body).toBe(403);
    expect(errorFields(smuggled)).toEqual([`/${HIDDEN}`]);
    const { [HIDDEN]: _hidden, ...visible } = record;
    const added = await as('POST', `/api/${org.api}/add`, visible);
    expect(added.statusCode, added.body).toBe(200);
    const row = data(added);
    expectHidden(row, 'add');
    await t.sql("update sys_org set org_description = 'secret description' where id = $1", [row.id]);
    const stored = await t.sql<{ org_description: string }>(
      'select org_description from sys_org where id = $1',
      [row.id],
    );
    expect(stored[0]?.org_description).toBe('secret description');

    const updated = await as('PUT', `/api/${org.api}/update`, { id: row.id, version: 1, orgName: 'renamed' });
    expect(updated.statusCode, updated.body).toBe(200);
    expectHidden(data(updated), 'update');

    const listed = await as('GET', `/api/${org.api}/query?id=${String(row.id)}`);
    expect(listed.statusCode, listed.body).toBe(200);
    expectHidden(data<Page>(listed).records[0], 'query');

    const tree = await as('GET', `/api/${org.api}/querySysOrgTree`);
    expect(tree.statusCode, tree.body).toBe(200);
    const nodes: Row[] = [];
    const walk = (items: Row[]): void => {
      for (const item of items) {
        nodes.push(item);
        if (Array.isArray(item.children)) walk(item.children as Row[]);
      }
    };
    walk(data<Row[]>(tree));
    expect(nodes.length).toBeGreaterThan(0);
    for (const node of nodes) expectHidden(node, 'tree');

    const exported = await t.request({
      method: 'POST',
      url: `/api/${org.api}/export`,
      headers: { ...headers, 'accept-language': 'en' },
      payload: {},
    });
    expect(exported.statusCode).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
    const titles = (workbook.worksheets[0]?.getRow(1).values as unknown[]).filter(Boolean);
    expect(titles.length).toBeGreaterThan(0);
    expect(JSON.stringify(workbook.worksheets[0]?.getSheetValues())).not.toContain('secret description');

    const adminListed = await t.request({
      method: 'GET',
      url: `/api/${org.api}/query?id=${String(row.id)}`,
      headers: t.auth,
    });
    expect(data<Page>(adminListed).records[0]).toHaveProperty(HIDDEN, 'secret description');
  });

  it('cannot be filtered or sorted on in the list, the tree or the export', async () => {
    expectRefused(await as('GET', `/api/${org.api}/query?${HIDDEN}=secret`), `/${HIDDEN}`, 'query filter');
    expectRefused(await as('GET', `/api/${org.api}/query?sort=-${HIDDEN}`), '/sort', 'query sort');
    expectRefused(
      await as('GET', `/api/${org.api}/querySysOrgTree?${HIDDEN}=secret`),
      `/${HIDDEN}`,
      'tree filter',
    );
    expectRefused(await as('GET', `/api/${org.api}/querySysOrgTree?sort=${HIDDEN}`), '/sort', 'tree sort');
    expectRefused(
      await as('POST', `/api/${org.api}/export`, { [HIDDEN]: 'secret' }),
      `/${HIDDEN}`,
      'export filter',
    );
    expectRefused(await as('POST', `/api/${org.api}/export`, { sort: HIDDEN }), '/sort', 'export sort');
  });
});
