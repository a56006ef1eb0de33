/**
 * Designed forms (issue 14): stored with versions, checked, published as a live entity (table,
 * API, menu, grants) without a restart, republished with additive changes, refused with an
 * impact report when existing rows would break, unpublished with the data kept.
 */
import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyForm, loadPublishedForms } from '../../src/server/features/forms/services/forms.js';
import { BUDGETS } from '../../src/server/lib/budgets.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';
import { fileUpload } from '../support/multipart.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Json = Record<string, unknown>;
const body = (response: LightMyRequestResponse): Json => response.json() as Json;
const dataOf = <T = Json>(response: LightMyRequestResponse): T => body(response).data as T;

const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, token?: string) =>
  t.request({
    method,
    url,
    headers: token ? { authorization: `Bearer ${token}` } : t.auth,
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });
/** The same call by a caller whose browser speaks that language (Accept-Language). */
const callIn = (language: string, method: 'POST' | 'PUT', url: string, payload: unknown) =>
  t.request({ method, url, headers: { ...t.auth, 'accept-language': language }, payload: payload as Json });

const leaveForm = (extra: Json = {}, required: string[] = ['applicant']): Json => ({
  title: 'Leave request',
  type: 'object',
  required,
  properties: {
    applicant: { type: 'string', title: 'Applicant', maxLength: 40 },
    days: { type: 'integer', title: 'Days', minimum: 1 },
    reason: { type: 'string', title: 'Reason', maxLength: 200 },
    ...extra,
  },
});

describe('designed forms', () => {
  let formId = 0;
  let version = 0;

  it('stores a form with a first version and finds it by query', async () => {
    const added = await call('POST', '/api/generator/form/add', {
      formCode: 'leave',
      formName: 'Leave request',
      formDescription: 'Days off',
      formContent: leaveForm(),
    });
    expect(added.statusCode, added.body).toBe(200);
    const record = dataOf(added);
    expect(record).toMatchObject({ formCode: 'leave', status: 'draft', version: 1, createdBy: 'admin' });
    formId = record.id as number;
    version = record.version as number;
    const listed = await call('GET', '/api/generator/form/query?formCode=lea');
    expect(dataOf<{ records: Json[] }>(listed).records.map((row) => row.formCode)).toEqual(['leave']);
    const clash = await call('POST', '/api/generator/form/add', {
      formCode: 'sysuser',
      formName: 'x',
      formContent: leaveForm(),
    });
    expect(clash.statusCode).toBe(409);
    expect(body(clash).errors).toEqual([expect.objectContaining({ field: '/formCode' })]);
  });

  it('checks a content: meta-schema and name problems come back as field errors', async () => {
    const bad = await call('POST', '/api/generator/form/check', {
      id: formId,
      formContent: leaveForm({ 'Bad Name': { type: 'string' }, who: { type: 'integer', 'x-ref': 'nosuch' } }),
    });
    expect(bad.statusCode, bad.body).toBe(200);
    const answer = dataOf<{ isValid: boolean; errors: { field: string }[] }>(bad);
    expect(answer.isValid).toBe(false);
    expect(answer.errors.map((error) => error.field)).toContain('/formContent/properties/Bad Name');
    const unknownRef = await call('POST', '/api/generator/form/check', {
      id: formId,
      formContent: leaveForm({ who: { type: 'integer', 'x-ref': 'nosuch' } }),
    });
    expect(dataOf<{ errors: { field: string }[] }>(unknownRef).errors).toEqual([
      expect.objectContaining({ field: '/formContent/properties/who/x-ref' }),
    ]);
    const good = await call('POST', '/api/generator/form/check', { id: formId, formContent: leaveForm() });
    expect(dataOf(good)).toMatchObject({ isValid: true, errors: [] });
  });

  it('publishes: table, API, menu under the parent, grants; the API answers at once', async () => {
    const before = await call('GET', '/api/online/leave/query');
    expect(before.statusCode).toBe(404);
    const published = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
      icon: 'calendar',
      roles: ['ROLE_SYS_BUYER'],
    });
    expect(published.statusCode, published.body).toBe(200);
    expect(dataOf(published)).toEqual({ entity: 'leave', api: 'online/leave', menuPath: '/online/leave' });

    const added = await call('POST', '/api/online/leave/add', { applicant: 'Zhang San', days: 3 });
    expect(added.statusCode, added.body).toBe(200);
    expect(dataOf(added)).toMatchObject({ applicant: 'Zhang San', days: 3, version: 1 });
    const refused = await call('POST', '/api/online/leave/add', { days: 0 });
    expect(refused.statusCode).toBe(400);
    expect((body(refused).errors as { field: string }[]).map((error) => error.field).sort()).toEqual([
      '/applicant',
      '/days',
    ]);
    await call('POST', '/api/online/leave/add', { applicant: 'Li Si', days: 1, reason: 'x'.repeat(150) });
    const listed = await call('GET', '/api/online/leave/query?applicant=zhang');
    expect(listed.statusCode, listed.body).toBe(200);
    expect(dataOf<{ records: Json[] }>(listed).records.map((row) => row.applicant)).toEqual(['Zhang San']);
    const exported = await call('POST', '/api/online/leave/export', {});
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toContain('spreadsheetml');

    // the menu sits under the chosen parent, granted with its buttons to the chosen role
    const menus = await t.sql<{
      menu_status: string;
      parent: string;
      menu_icon: string;
      menu_component: string;
    }>(
      `select m.menu_status, p.menu_code as parent, m.menu_icon, m.menu_component from sys_menu m
       join sys_menu p on p.id = m.menu_parent where m.menu_code = 'online_leave'`,
    );
    expect(menus).toEqual([
      { menu_status: '1', parent: 'formgenerator', menu_icon: 'calendar', menu_component: 'entity/leave' },
    ]);
    const buttons = await t.sql<{ button: string }>(
      `select rb.button from sys_role_button rb join sys_role r on r.id = rb.role_id join sys_menu m on m.id = rb.menu_id
       where r.role_code = 'ROLE_SYS_BUYER' and m.menu_code = 'online_leave' order by rb.button`,
    );
    expect(buttons.map((row) => row.button)).toEqual(['add', 'delete', 'export', 'update']);
    const urls = await t.sql<{ url: string }>(
      `select u.url from sys_url u join sys_role_url ru on ru.url_id = u.id join sys_role r on r.id = ru.role_id
       where r.role_code = 'ROLE_SYS_BUYER' and u.url like '/api/online/%'`,
    );
    expect(urls).toEqual([{ url: '/api/online/leave/**' }]);

    // the schemas endpoint (to a caller of the form's tenant) and the API document know the new entity
    const schemas = await t.request({ method: 'GET', url: '/api/schemas', headers: t.auth });
    const names = (schemas.json() as { data: { entities: { name: string }[] } }).data.entities.map(
      (e) => e.name,
    );
    expect(names).toContain('leave');
    const document = await t.request({ method: 'GET', url: '/api/openapi.json' });
    const paths = Object.keys((document.json() as { paths: Json }).paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/generator/form/publish',
        '/api/online/{form}/query',
        '/api/online/{form}/add',
      ]),
    );
  });

  it('republishes an additive change live, keeping the rows', async () => {
    const saved = await call('PUT', '/api/generator/form/update', {
      id: formId,
      version,
      formContent: leaveForm({ startDate: { type: 'string', format: 'date', title: 'Start' } }),
    });
    expect(saved.statusCode, saved.body).toBe(200);
    version = dataOf(saved).version as number;
    const stale = await call('PUT', '/api/generator/form/update', { id: formId, version: 1, formName: 'x' });
    expect(stale.statusCode).toBe(409);
    // without roles: the grants of the first publication stay (roles: [] would take them away)
    const republished = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
    });
    expect(republished.statusCode, republished.body).toBe(200);
    const added = await call('POST', '/api/online/leave/add', {
      applicant: 'Wang Wu',
      startDate: '2026-12-01',
    });
    expect(added.statusCode, added.body).toBe(200);
    const listed = await call('GET', '/api/online/leave/query?sort=id');
    expect(dataOf<{ records: Json[] }>(listed).records.map((row) => row.applicant)).toEqual([
      'Zhang San',
      'Li Si',
      'Wang Wu',
    ]);
  });

  it('refuses an unsafe change with an impact report: rule, rows that break it, their first keys', async () => {
    const rows = await t.sql<{ id: number }>(`select id from online_leave where reason is not null`);
    const tighter = leaveForm(
      {
        reason: { type: 'string', title: 'Reason', maxLength: 100 },
        startDate: { type: 'string', format: 'date', title: 'Start' },
        approver: { type: 'string', title: 'Approver' },
      },
      ['applicant', 'approver'],
    );
    const checked = await call('POST', '/api/generator/form/check', { id: formId, formContent: tighter });
    const report = dataOf<{ isValid: boolean; impact: { isSafe: boolean; items: Json[] } }>(checked);
    expect(report.isValid).toBe(false);
    expect(report.impact.items).toEqual(
      expect.arrayContaining([
        { field: 'reason', rule: 'maxLength', rows: 1, keys: [Number(rows[0]?.id)], isSafe: false },
        expect.objectContaining({ field: 'approver', rule: 'required', rows: 3, isSafe: false }),
      ]),
    );
    // the same report in the caller's language: an English browser reads English
    const inEnglish = await callIn('en', 'POST', '/api/generator/form/check', {
      id: formId,
      formContent: tighter,
    });
    expect(dataOf<{ errors: Json[] }>(inEnglish).errors).toEqual(
      expect.arrayContaining([
        {
          field: '/formContent/properties/reason',
          message: `Reason: the new maximum length is broken by 1 existing rows (keys ${rows[0]?.id})`,
        },
      ]),
    );
    const dropped = leaveForm({}, ['applicant']);
    delete (dropped.properties as Json).days;
    const dropCheck = await call('POST', '/api/generator/form/check', { id: formId, formContent: dropped });
    expect(dataOf<{ impact: { items: Json[] } }>(dropCheck).impact.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'days', rule: 'dropped', rows: 2, isSafe: false }),
      ]),
    );
    // the designer's titles per language name the fields in the refusal (issue 40.11), not their codes
    const retyped = leaveForm({
      days: { type: 'string', title: 'Days', 'x-ui': { titles: { zh: '请假天数', tw: '請假天數' } } },
    });
    const saved = await call('PUT', '/api/generator/form/update', {
      id: formId,
      version,
      formContent: retyped,
    });
    version = dataOf(saved).version as number;
    const refused = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
      roles: [],
    });
    expect(refused.statusCode).toBe(409);
    // in the caller's language (Chinese by default): the field, the rule, how many rows, their keys
    const withDays = await t.sql<{ id: number }>(
      `select id from online_leave where days is not null order by id`,
    );
    const withStart = await t.sql<{ id: number }>(
      `select id from online_leave where start_date is not null order by id`,
    );
    expect(withDays).toHaveLength(2);
    expect(body(refused).message).toBe('这项修改不能安全地应用到已有数据，已拒绝发布');
    expect(body(refused).errors).toEqual([
      {
        field: '/formContent/properties/days',
        message: `请假天数：拒绝修改类型，已有 2 行有值（主键：${withDays.map((row) => row.id).join(', ')}）`,
      },
      {
        field: '/formContent/properties/startDate',
        message: `Start：拒绝删除字段，已有 1 行有值（主键：${withStart[0]?.id}）`,
      },
    ]);
    // Traditional Chinese for a Taiwanese browser
    const inTw = await callIn('zh-TW', 'POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
      roles: [],
    });
    expect((body(inTw).errors as Json[])[0]?.message).toBe(
      `請假天數：拒絕修改類型，已有 2 筆資料有值（主鍵：${withDays.map((row) => row.id).join(', ')}）`,
    );
    // a parent menu that does not exist is named in the caller's language too
    const noMenu = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'nosuchmenu',
      roles: [],
    });
    expect(noMenu.statusCode).toBe(400);
    expect(body(noMenu).errors).toEqual([{ field: '/menuParent', message: '没有菜单「nosuchmenu」' }]);
    // nothing changed: the column keeps its type and its values, the live entity its schema
    const columns = await t.sql<{ data_type: string }>(
      `select data_type from information_schema.columns where table_name = 'online_leave' and column_name = 'days'`,
    );
    expect(columns).toEqual([{ data_type: 'bigint' }]);
    const still = await call('POST', '/api/online/leave/add', { applicant: 'Zhao Liu', days: 2 });
    expect(still.statusCode, still.body).toBe(200);
  });

  it('keeps the version history with who and when', async () => {
    const history = await call('GET', `/api/generator/form/versions?id=${formId}`);
    expect(history.statusCode, history.body).toBe(200);
    const actions = dataOf<{ action: string; createdBy: string; createdAt: string }[]>(history);
    expect(actions.map((row) => row.action)).toEqual(['save', 'publish', 'save', 'publish', 'save']);
    expect(
      actions.every((row) => row.createdBy === 'admin' && !Number.isNaN(Date.parse(row.createdAt))),
    ).toBe(true);
  });

  it('unpublishes: menu and API hidden, table and rows kept; publishing again brings them back', async () => {
    const deleteLive = await call('POST', `/api/generator/form/delete?id=${formId}`);
    expect(deleteLive.statusCode).toBe(409);
    const unpublished = await call('POST', `/api/generator/form/unpublish?id=${formId}`);
    expect(unpublished.statusCode, unpublished.body).toBe(200);
    expect(dataOf(unpublished)).toMatchObject({ status: 'draft', api: null });
    expect((await call('GET', '/api/online/leave/query')).statusCode).toBe(404);
    const menu = await t.sql<{ menu_status: string }>(
      `select menu_status from sys_menu where menu_code = 'online_leave'`,
    );
    expect(menu).toEqual([{ menu_status: '0' }]);
    const kept = await t.sql<{ n: number }>(`select count(*)::int as n from online_leave`);
    expect(kept).toEqual([{ n: 4 }]);
    const schemas = await t.request({ method: 'GET', url: '/api/schemas', headers: t.auth });
    expect(JSON.stringify(schemas.json())).not.toContain('"leave"');

    // back to a content compatible with the table, then live again with the same rows
    await call('PUT', '/api/generator/form/update', {
      id: formId,
      version,
      formContent: leaveForm({ startDate: { type: 'string', format: 'date', title: 'Start' } }),
    });
    const again = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
    });
    expect(again.statusCode, again.body).toBe(200);
    const listed = await call('GET', '/api/online/leave/query');
    expect(dataOf<{ total: number }>(listed).total).toBe(4);
  });

  it('grants the API by URL: a role without the grant is refused, bad input is a 400 naming the field', async () => {
    const anonymous = await t.request({ method: 'GET', url: '/api/generator/form/query' });
    expect(anonymous.statusCode).toBe(401);
    // the buyer role was granted the form's API at the first publish; the supplier role was not
    const buyer = await createUserWithRole(t, 'formbuyer', 'ROLE_SYS_BUYER');
    const asBuyer = await call('POST', '/api/online/leave/add', { applicant: 'From a buyer' }, buyer.token);
    expect(asBuyer.statusCode, asBuyer.body).toBe(200);
    const buyerMenus = await call(
      'POST',
      '/api/account/sysuserdetail/queryCurrentAuthority',
      {},
      buyer.token,
    );
    expect(JSON.stringify(buyerMenus.json())).toContain('/online/leave');
    expect((await call('GET', '/api/generator/form/query', undefined, buyer.token)).statusCode).toBe(403);
    const supplier = await createUserWithRole(t, 'formsupplier', 'ROLE_SYS_SUPPLIER');
    expect((await call('GET', '/api/online/leave/query', undefined, supplier.token)).statusCode).toBe(403);
    const badPublish = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'nosuchmenu',
      roles: [],
    });
    expect(badPublish.statusCode).toBe(400);
    expect(body(badPublish).errors).toEqual([expect.objectContaining({ field: '/menuParent' })]);
    const badRole = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
      roles: ['ROLE_NOPE'],
    });
    expect(badRole.statusCode).toBe(400);
    expect(body(badRole).errors).toEqual([expect.objectContaining({ field: '/roles' })]);
    const badQuery = await call('GET', '/api/online/leave/query?currentPage=abc');
    expect(badQuery.statusCode).toBe(400);
    const missing = await call('POST', '/api/generator/form/add', {
      formCode: 'Bad',
      formName: 'x',
      formContent: {},
    });
    expect(missing.statusCode).toBe(400);
    expect(body(missing).errors).toEqual([expect.objectContaining({ field: '/formCode' })]);
  });
});

describe('a tree form', () => {
  it('publishes with its tree route, and refuses a new unique rule that existing rows break', async () => {
    const content = (unique: boolean): Json => ({
      title: 'Asset category',
      required: ['categoryName'],
      'x-entity': { tree: { parent: 'categoryParent', root: 0, sequence: 'categorySequence' } },
      properties: {
        categoryName: { type: 'string', maxLength: 40, ...(unique ? { 'x-unique': true } : {}) },
        categoryParent: { type: 'integer', 'x-ref': 'category', default: 0 },
        categorySequence: { type: 'integer', default: 0 },
      },
    });
    const added = await call('POST', '/api/generator/form/add', {
      formCode: 'category',
      formName: 'Asset category',
      formContent: content(false),
    });
    expect(added.statusCode, added.body).toBe(200);
    const { id, version } = dataOf<{ id: number; version: number }>(added);
    const published = await call('POST', '/api/generator/form/publish', {
      id,
      menuParent: 'formgenerator',
      roles: [],
    });
    expect(published.statusCode, published.body).toBe(200);
    const root = dataOf(await call('POST', '/api/online/category/add', { categoryName: 'Pumps' }));
    const child = await call('POST', '/api/online/category/add', {
      categoryName: 'Small pumps',
      categoryParent: root.id,
    });
    expect(child.statusCode, child.body).toBe(200);
    await call('POST', '/api/online/category/add', { categoryName: 'Pumps' });
    const tree = await call('GET', '/api/online/category/querySysCategoryTree');
    expect(tree.statusCode, tree.body).toBe(200);
    expect(JSON.stringify(dataOf(tree))).toContain('Small pumps');
    expect((await call('GET', '/api/online/category/queryOtherTree')).statusCode).toBe(404);

    await call('PUT', '/api/generator/form/update', { id, version, formContent: content(true) });
    const refused = await call('POST', '/api/generator/form/publish', {
      id,
      menuParent: 'formgenerator',
      roles: [],
    });
    expect(refused.statusCode).toBe(409);
    expect(body(refused).errors).toEqual([
      expect.objectContaining({
        field: '/formContent/properties/categoryName',
        message: expect.stringContaining('categoryName：新的唯一规则，已有 1 行的值重复'),
      }),
    ]);
  });
});

describe('a form with a sub-table (master-detail)', () => {
  const lines = (extra: Json = {}, required: string[] = ['item']): Json => ({
    type: 'array',
    title: 'Lines',
    'x-detail': {},
    items: {
      type: 'object',
      required,
      properties: {
        item: { type: 'string', title: 'Item', maxLength: 40 },
        qty: { type: 'integer', title: 'Quantity', minimum: 1 },
        ...extra,
      },
    },
  });
  const requisition = (detail: Json = lines(), extra: Json = {}): Json => ({
    title: 'Requisition',
    'x-ui': { titles: { zh: '请购单', tw: '請購單' } },
    required: ['subject'],
    properties: {
      subject: { type: 'string', title: 'Subject', maxLength: 60, 'x-ui': { titles: { zh: '主题' } } },
      lines: detail,
      ...extra,
    },
  });
  const publish = (id: number) =>
    call('POST', '/api/generator/form/publish', { id, menuParent: 'formgenerator', roles: [] });

  it('publishes the child table in the same transaction, saves and reads rows, reports their impact', async () => {
    // a child table name another entity owns is refused before anything is created
    const clash = await call('POST', '/api/generator/form/check', {
      formCode: 'requisition',
      formContent: requisition({ ...lines(), 'x-detail': { table: 'sys_user' } }),
    });
    expect(dataOf<{ errors: Json[] }>(clash).errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: '/formContent/properties/lines/x-detail' })]),
    );
    const added = await call('POST', '/api/generator/form/add', {
      formCode: 'requisition',
      formName: 'Requisition',
      formContent: requisition(),
    });
    expect(added.statusCode, added.body).toBe(200);
    const { id, version } = dataOf<{ id: number; version: number }>(added);
    const published = await publish(id);
    expect(published.statusCode, published.body).toBe(200);
    // its menu carries the form's titles per language (the sidebar shows them) and its tenant
    // (shown in that tenant's sidebar only)
    const menu = await t.sql<{ menu_meta: unknown }>(
      `select menu_meta from sys_menu where menu_code = 'online_requisition'`,
    );
    expect(menu).toEqual([{ menu_meta: { titles: { zh: '请购单', tw: '請購單' }, tenant: 'default' } }]);
    const columns = await t.sql<{ column_name: string }>(
      `select column_name from information_schema.columns where table_name = 'online_requisition_lines'
       order by ordinal_position`,
    );
    // in the designed order: jsonb alone would store the keys by length (qty before item)
    expect(columns.map((c) => c.column_name)).toEqual([
      'id',
      'parent_id',
      'seq',
      'tenant_code',
      'item',
      'qty',
    ]);

    const saved = await call('POST', '/api/online/requisition/add', {
      subject: 'Pumps for plant 2',
      lines: [
        { item: 'Pump', qty: 2 },
        { item: 'Valve', qty: 5 },
      ],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const record = dataOf<{ id: number; version: number }>(saved);
    const badRow = await call('POST', '/api/online/requisition/add', {
      subject: 'Bad',
      lines: [{ item: 'Pump', qty: 0 }],
    });
    expect(badRow.statusCode).toBe(400);
    expect(body(badRow).errors).toEqual([expect.objectContaining({ field: '/lines/0/qty' })]);
    const updated = await call('PUT', '/api/online/requisition/update', {
      id: record.id,
      version: record.version,
      lines: [{ item: 'Valve', qty: 6 }, { item: 'Pump', qty: 2 }, { item: 'Seal' }],
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const read = await call('GET', `/api/online/requisition/query?id=${record.id}`);
    expect(dataOf<{ records: Json[] }>(read).records[0]?.lines).toEqual([
      { item: 'Valve', qty: 6 },
      { item: 'Pump', qty: 2 },
      { item: 'Seal' },
    ]);
    await call('POST', '/api/online/requisition/add', { subject: 'No lines' });

    // a new optional row column applies live; tighter row rules are refused with their parents' keys
    const wider = requisition(lines({ note: { type: 'string', title: 'Note' } }));
    const resaved = await call('PUT', '/api/generator/form/update', { id, version, formContent: wider });
    expect(resaved.statusCode, resaved.body).toBe(200);
    const republished = await publish(id);
    expect(republished.statusCode, republished.body).toBe(200);
    expect(dataOf<{ impact: { items: Json[] } }>(republished).impact.items).toEqual([
      { field: 'lines.note', rule: 'added', rows: 0, keys: [], isSafe: true },
    ]);
    const tighter = requisition(
      { ...lines({ note: { type: 'string', title: 'Note' } }, ['item', 'qty']), minItems: 1 },
      {},
    );
    (((tighter.properties as Json).lines as Json).items as { properties: Json }).properties.qty = {
      type: 'integer',
      title: 'Quantity',
      minimum: 1,
      maximum: 5,
    };
    const checked = await call('POST', '/api/generator/form/check', { id, formContent: tighter });
    const report = dataOf<{ isValid: boolean; errors: Json[]; impact: { items: Json[] } }>(checked);
    expect(report.isValid).toBe(false);
    expect(report.impact.items).toEqual(
      expect.arrayContaining([
        { field: 'lines.qty', rule: 'required', rows: 1, keys: [record.id], isSafe: false },
        { field: 'lines.qty', rule: 'maximum', rows: 1, keys: [record.id], isSafe: false },
        expect.objectContaining({ field: 'lines', rule: 'minItems', rows: 1, isSafe: false }),
      ]),
    );
    expect(report.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: '/formContent/properties/lines/items/properties/qty' }),
      ]),
    );
    const dropped = requisition();
    delete (dropped.properties as Json).lines;
    const dropCheck = await call('POST', '/api/generator/form/check', { id, formContent: dropped });
    expect(dataOf<{ impact: { items: Json[] } }>(dropCheck).impact.items).toEqual([
      { field: 'lines', rule: 'dropped', rows: 3, keys: [record.id], isSafe: false },
    ]);

    // the export speaks the caller's language with the form's own titles (zh by default)
    const exported = await call('POST', '/api/online/requisition/export', {});
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
    expect((workbook.worksheets[0]?.getRow(1).values as unknown[]).slice(1)).toContain('主题');

    // unpublish hides the API; both tables keep their rows; publishing again brings them back
    await call('POST', `/api/generator/form/unpublish?id=${id}`);
    expect((await call('GET', `/api/online/requisition/query?id=${record.id}`)).statusCode).toBe(404);
    const kept = await t.sql<{ n: number }>(`select count(*)::int as n from online_requisition_lines`);
    expect(kept).toEqual([{ n: 3 }]);
    expect((await publish(id)).statusCode).toBe(200);
    const back = await call('GET', `/api/online/requisition/query?id=${record.id}`);
    expect((dataOf<{ records: Json[] }>(back).records[0]?.lines as Json[]).length).toBe(3);
  });

  it('imports records of a published form from a sheet (its own columns; detail rows are entered in the form)', async () => {
    const template = await call('GET', '/api/online/requisition/importTemplate');
    expect(template.statusCode, template.body).toBe(200);
    expect(template.headers['content-type']).toContain('spreadsheetml');
    const form = fileUpload('rows.csv', 'subject\nValves for plant 3\nSeals for plant 4\n', {
      type: 'text/csv',
    });
    const imported = await t.request({
      method: 'POST',
      url: '/api/online/requisition/import',
      headers: { ...t.auth, ...form.headers },
      payload: form.payload,
    });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(dataOf(imported)).toMatchObject({ dryRun: false, total: 2, imported: 2, problemCount: 0 });
    const listed = await call('GET', '/api/online/requisition/query?subject=plant');
    expect(
      dataOf<{ records: Json[] }>(listed)
        .records.map((row) => row.subject)
        .sort(),
    ).toEqual(['Pumps for plant 2', 'Seals for plant 4', 'Valves for plant 3']);
    const unknown = await call('GET', '/api/online/nosuchform/importTemplate');
    expect(unknown.statusCode).toBe(404);
  });
});

describe('budgets of a form (issue 31: findings 3 and 6)', () => {
  const timed = async (
    work: () => Promise<LightMyRequestResponse>,
  ): Promise<{ answer: LightMyRequestResponse; ms: number }> => {
    const started = performance.now();
    const answer = await work();
    return { answer, ms: performance.now() - started };
  };
  const errorsOf = (response: LightMyRequestResponse): { field: string; message: string }[] =>
    body(response).errors as { field: string; message: string }[];
  const bombForm = (pattern = '^(a+)+$'): Json =>
    leaveForm({ code: { type: 'string', title: 'Code', maxLength: 60, pattern } });

  it('refuses a pattern that backtracks exponentially at check: 400 naming its pointer', async () => {
    const { answer, ms } = await timed(() =>
      callIn('en', 'POST', '/api/generator/form/check', { formCode: 'redos', formContent: bombForm() }),
    );
    expect(answer.statusCode, answer.body).toBe(400);
    expect(body(answer).message).toBe('The schema goes past its budget: schemas.pattern');
    expect(errorsOf(answer)).toEqual([
      {
        field: '/formContent/properties/code/pattern',
        message: expect.stringContaining('(a+)+') as string,
      },
    ]);
    expect(ms).toBeLessThan(1_000);
    // A back-reference, an over-long pattern and a patternProperties key: each named.
    const others = await callIn('zh', 'POST', '/api/generator/form/check', {
      formCode: 'redos',
      formContent: leaveForm({
        a: { type: 'string', pattern: '^(x)\\1$' },
        b: { type: 'string', pattern: `^${'x'.repeat(BUDGETS.schemas.patternLength)}$` },
      }),
    });
    expect(others.statusCode).toBe(400);
    expect(body(others).message).toBe('表单结构超出限额：schemas.pattern, schemas.patternLength');
    expect(errorsOf(others).map((error) => error.field)).toEqual([
      '/formContent/properties/a/pattern',
      '/formContent/properties/b/pattern',
    ]);
    // The form designer's own validators are not compiled for it either.
    const validators = await call('POST', '/api/generator/form/validator', { formContent: bombForm() });
    expect(validators.statusCode).toBe(400);
    expect(errorsOf(validators).map((error) => error.field)).toEqual([
      '/formContent/properties/code/pattern',
    ]);
    // A safe pattern of the same shape as the project's passes.
    const good = await call('POST', '/api/generator/form/check', {
      formCode: 'redos',
      formContent: bombForm('^(/[a-z]+)*$'),
    });
    expect(dataOf(good)).toMatchObject({ isValid: true, errors: [] });
  });

  it('refuses an enum of 20,000 values quickly at check, and a schema past its size', async () => {
    const values = Array.from({ length: 20_000 }, (_unused, index) => `v${index}`);
    const { answer, ms } = await timed(() =>
      callIn('en', 'POST', '/api/generator/form/check', {
        formCode: 'bigenum',
        formContent: leaveForm({ kind: { type: 'string', enum: values } }),
      }),
    );
    expect(answer.statusCode, answer.body).toBe(400);
    expect(body(answer).message).toBe('The schema goes past its budget: schemas.enumValues');
    expect(errorsOf(answer)).toEqual([
      {
        field: '/formContent/properties/kind/enum',
        message: `This enum has 20000 values; at most ${BUDGETS.schemas.enumValues} are allowed`,
      },
    ]);
    expect(ms).toBeLessThan(1_000);
    const huge = await callIn('en', 'POST', '/api/generator/form/check', {
      formCode: 'bigenum',
      formContent: leaveForm({
        note: { type: 'string', description: 'x'.repeat(BUDGETS.schemas.schemaBytes) },
      }),
    });
    expect(huge.statusCode).toBe(400);
    expect(errorsOf(huge)).toEqual([expect.objectContaining({ field: '/formContent' })]);
  });

  it('refuses to publish a stored form past a budget; nothing is created', async () => {
    const added = await call('POST', '/api/generator/form/add', {
      formCode: 'redosform',
      formName: 'ReDoS',
      formContent: bombForm(),
    });
    expect(added.statusCode, added.body).toBe(200);
    const published = await call('POST', '/api/generator/form/publish', {
      id: dataOf(added).id,
      menuParent: 'formgenerator',
      roles: [],
    });
    expect(published.statusCode, published.body).toBe(400);
    expect(errorsOf(published).map((error) => error.field)).toEqual(['/formContent/properties/code/pattern']);
    expect(await t.sql("select to_regclass('online_redosform') as found")).toEqual([{ found: null }]);
    expect((await call('GET', '/api/online/redosform/query')).statusCode).toBe(404);
  });

  it('a form published before the check never brings its pattern to a request', async () => {
    const added = await call('POST', '/api/generator/form/add', {
      formCode: 'oldform',
      formName: 'Old form',
      formContent: bombForm('^[a-z]+$'),
    });
    const published = await call('POST', '/api/generator/form/publish', {
      id: dataOf(added).id,
      menuParent: 'formgenerator',
      roles: [],
    });
    expect(published.statusCode, published.body).toBe(200);
    // As if published before this release: the stored content carries the pattern.
    const [row] = await t.sql<{ content: string }>(
      "select published_content::text as content from sys_form where form_code = 'oldform'",
    );
    const stored = JSON.parse(row?.content ?? 'null') as unknown;
    const content = (typeof stored === 'string' ? JSON.parse(stored) : stored) as {
      properties: Record<string, Json>;
    };
    content.properties.code = { ...content.properties.code, pattern: '^(a+)+$' };
    await t.sql("update sys_form set published_content = $1 where form_code = 'oldform'", [
      JSON.stringify(content),
    ]);
    // Another process's notice: the content does not compile, the live entity is the safe one.
    await applyForm(t.app.ctx, 'oldform');
    const add = await timed(() =>
      call('POST', '/api/online/oldform/add', { applicant: 'x', code: `${'a'.repeat(40)}!` }),
    );
    expect(add.answer.statusCode, add.answer.body).toBe(400);
    expect(add.ms).toBeLessThan(1_000);
    // A start (or a lost listener): the form stays hidden, with a warning.
    t.app.ctx.registry.hide('oldform');
    const warnings: string[] = [];
    await loadPublishedForms(t.app.ctx, (message) => warnings.push(message));
    expect(warnings).toEqual(['published form oldform does not compile and stays hidden']);
    expect((await call('POST', '/api/online/oldform/add', { applicant: 'x' })).statusCode).toBe(404);
  });
});
