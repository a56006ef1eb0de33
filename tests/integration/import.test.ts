import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDef } from '../../src/engine/index.js';
import { IMPORT_CHUNK_ROWS } from '../../src/server/features/crud/import/import.js';
import { Api, body, data, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { throughExcelJs, throughStream } from '../support/xlsx-rows.js';
import { fileUpload } from '../support/multipart.js';

/** POST …/import and GET …/importTemplate of the generated API (issue 18). */
interface Problem {
  row: number;
  field: string;
  message: string;
}
interface ImportAnswer {
  dryRun: boolean;
  total: number;
  imported: number;
  problems: Problem[];
  problemCount: number;
  columns: { header: string; field: string; title: string }[];
  ignored: string[];
  preview?: { row: number; values: Record<string, string> }[];
}

let t: TestApp;
let api: Api;
let post: EntityDef;
let user: EntityDef;
let purchase: EntityDef;
beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t);
  post = t.app.ctx.registry.require('syspost');
  user = t.app.ctx.registry.require('sysuser');
  purchase = t.app.ctx.registry.require('purchase');
});
afterAll(async () => {
  await t?.close();
});

function upload(
  entity: EntityDef,
  fileName: string,
  bytes: Buffer,
  dryRun: boolean,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const form = fileUpload(fileName, bytes);
  return api.call({
    method: 'POST',
    url: `/api/${entity.api}/import${dryRun ? '?dryRun=true' : ''}`,
    payload: form.payload,
    headers: { ...form.headers, ...headers },
  });
}

const csv = (rows: (string | number)[][]): Buffer =>
  Buffer.from(
    rows.map((row) => row.map((cell) => `"${String(cell).replace(/"/g, '""')}"`).join(',')).join('\n'),
  );

async function xlsx(rows: (string | number)[][]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('data');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

async function count(entity: EntityDef): Promise<number> {
  const rows = await t.sql<{ n: number }>(`select count(*)::int as n from "${entity.table}"`);
  return rows[0]?.n ?? 0;
}
async function auditCount(): Promise<number> {
  const rows = await t.sql<{ n: number }>('select count(*)::int as n from sys_audit_log');
  return rows[0]?.n ?? 0;
}

describe('import', () => {
  it('a dry run checks every row, names each problem by row and field, and writes nothing', async () => {
    const before = await count(post);
    const audits = await auditCount();
    const file = csv([
      ['postCode', 'postName', 'postParent'],
      ['IMP-DRY-1', 'Dry one', '0'],
      ['', 'No code', '0'],
      ['IMP-DRY-3', 'Parent unknown', 'No such post'],
      ['IMP-DRY-1', 'Same code again', '0'],
    ]);
    const response = await upload(post, 'posts.csv', file, true);
    expect(response.statusCode, response.body).toBe(200);
    const answer = data<ImportAnswer>(response);
    expect(answer.dryRun).toBe(true);
    expect(answer.total).toBe(4);
    expect(answer.imported).toBe(0);
    expect(answer.problems.map((problem) => [problem.row, problem.field])).toEqual([
      [3, 'postCode'],
      [4, 'postParent'],
      [5, 'postCode'],
    ]);
    expect(answer.problems[1]?.message).toContain('No such post');
    expect(answer.preview?.[0]).toEqual({
      row: 2,
      values: { postCode: 'IMP-DRY-1', postName: 'Dry one', postParent: '0' },
    });
    expect(await count(post)).toBe(before);
    expect(await auditCount()).toBe(audits);
  });

  it('one bad row aborts the whole import: 400 naming it, nothing written', async () => {
    const before = await count(post);
    const file = csv([
      ['postCode', 'postName'],
      ['IMP-BAD-1', 'Good'],
      ['IMP-BAD-2', ''],
      ['IMP-BAD-3', 'Good too'],
    ]);
    const response = await upload(post, 'posts.csv', file, false);
    expect(response.statusCode, response.body).toBe(400);
    const answer = body<{ errors: { field: string; message: string }[] }>(response);
    expect(answer.errors.map((error) => error.field)).toEqual(['/3/postName']);
    expect(await count(post)).toBe(before);
    const found = await t.sql(`select 1 from "${post.table}" where post_code like 'IMP-BAD-%'`);
    expect(found).toEqual([]);
  });

  it('a bad row after the first chunks were inserted rolls them back too', async () => {
    const before = await count(post);
    const audits = await auditCount();
    const rows: string[][] = [['postCode', 'postName']];
    // More rows than a chunk: the first chunks are inserted before the bad row is read.
    for (let index = 0; index < IMPORT_CHUNK_ROWS * 2 + 500; index += 1)
      rows.push([`IMP-BIG-${index}`, `Big ${index}`]);
    const bad = IMPORT_CHUNK_ROWS * 2 + 400;
    // the code of the tenth data row (spreadsheet row 11) again
    rows[bad + 1] = ['IMP-BIG-9', 'Twice'];
    const response = await upload(post, 'posts.csv', csv(rows), false);
    expect(response.statusCode, response.body.slice(0, 300)).toBe(400);
    const answer = body<{ errors: { field: string; message: string }[] }>(response);
    expect(answer.errors.map((error) => error.field)).toEqual([`/${bad + 2}/postCode`]);
    expect(answer.errors[0]?.message).toContain('11');
    expect(await count(post)).toBe(before);
    expect(await auditCount()).toBe(audits);
  }, 120_000);

  it('a clash with an existing record is reported on its row', async () => {
    const added = await api.add(post, { postCode: 'IMP-TAKEN', postName: 'Taken' });
    expect(added.statusCode, added.body).toBe(200);
    const file = csv([
      ['postCode', 'postName'],
      ['IMP-FREE', 'Free'],
      ['IMP-TAKEN', 'Clash'],
    ]);
    const dry = data<ImportAnswer>(await upload(post, 'posts.csv', file, true));
    expect(dry.problems.map((problem) => [problem.row, problem.field])).toEqual([[3, 'postCode']]);
    const response = await upload(post, 'posts.csv', file, false);
    expect(response.statusCode).toBe(400);
    expect(await t.sql(`select 1 from "${post.table}" where post_code = 'IMP-FREE'`)).toEqual([]);
  });

  it('translated headers, dictionary labels and reference labels are taken (xlsx); audit and tenant as for add', async () => {
    const roles = await api.records(t.app.ctx.registry.require('sysrole'));
    const admin = roles.find((role) => role.roleCode === 'ROLE_ADMIN') as Row;
    const orgs = await api.records(t.app.ctx.registry.require('sysorg'));
    const org = orgs[0] as Row;
    const file = await xlsx([
      [
        '用户名',
        '昵称',
        '密码',
        '邮箱',
        '国家区号',
        '手机号',
        '电话',
        '状态',
        '用户类型',
        '角色',
        '所属组织',
      ],
      [
        'importer1',
        'Importer',
        'imp-pass-123',
        'importer1@example.com',
        '+86',
        '13900000001',
        '010-1234567',
        '正常',
        '采购商',
        String(admin.roleName),
        String(org.orgName),
      ],
    ]);
    const headers = { 'accept-language': 'zh-CN' };
    const dry = await upload(user, 'users.xlsx', file, true, headers);
    expect(dry.statusCode, dry.body).toBe(200);
    const checked = data<ImportAnswer>(dry);
    expect(checked.problems, JSON.stringify(checked.problems)).toEqual([]);
    expect(checked.columns.map((item) => item.field)).toEqual([
      'username',
      'nickname',
      'password',
      'email',
      'countryCode',
      'mobile',
      'phone',
      'status',
      'userType',
      'roleId',
      'orgId',
    ]);
    const response = await upload(user, 'users.xlsx', file, false, headers);
    expect(response.statusCode, response.body).toBe(200);
    expect(data<ImportAnswer>(response).imported).toBe(1);
    const [stored] = await api.records(user, { username: 'importer1' });
    expect(stored).toMatchObject({ status: '1', userType: 1, roleId: admin.id, orgId: org.id });
    const [row] = await t.sql<{ tenant_code: string; created_by: string; password: string }>(
      `select tenant_code, created_by, password from "${user.table}" where username = 'importer1'`,
    );
    expect(row?.tenant_code).toBe('default');
    expect(row?.created_by).toBe('admin');
    expect(row?.password).not.toBe('imp-pass-123');
    const audit = await t.sql<{ username: string; user_id: number | null; after: Record<string, unknown> }>(
      `select username, user_id, after from sys_audit_log where entity = 'sysuser' and action = 'add' and record_key = $1`,
      [String(stored?.id)],
    );
    expect(audit).toHaveLength(1);
    // the row as added, under its field names, without the password (as an add writes it)
    expect(audit[0]?.username).toBe('admin');
    expect(audit[0]?.user_id).not.toBeNull();
    expect(audit[0]?.after).toMatchObject({
      id: stored?.id,
      username: 'importer1',
      roleId: admin.id,
      orgId: org.id,
    });
    expect(audit[0]?.after).not.toHaveProperty('password');
    const signIn = await t.signIn('importer1', 'imp-pass-123');
    expect(signIn.statusCode, signIn.body).toBe(200);
  });

  it('an unknown label is named on its cell, not taken', async () => {
    const file = csv([
      [
        'username',
        'nickname',
        'password',
        'email',
        'countryCode',
        'mobile',
        'phone',
        'status',
        'roleId',
        'orgId',
      ],
      [
        'importer2',
        'I2',
        'pass-12345',
        'i2@example.com',
        '+86',
        '13900000002',
        '010-1',
        'Sleeping',
        '1',
        '1',
      ],
    ]);
    const answer = data<ImportAnswer>(await upload(user, 'users.csv', file, true));
    expect(answer.problems.map((problem) => [problem.row, problem.field])).toEqual([[2, 'status']]);
  });

  it('imports a 10 000-row file in one go', async () => {
    const rows: (string | number)[][] = [['title', 'buyerName', 'budget', 'published']];
    for (let index = 0; index < 10_000; index += 1)
      rows.push([
        `Imported purchase ${index}`,
        `Buyer ${index % 50}`,
        index * 10,
        index % 2 === 0 ? 'true' : '否',
      ]);
    const before = await count(purchase);
    const response = await upload(purchase, 'purchases.xlsx', await xlsx(rows), false);
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    expect(data<ImportAnswer>(response).imported).toBe(10_000);
    expect(await count(purchase)).toBe(before + 10_000);
    const [last] = await api.records(purchase, { title: 'Imported purchase 9999' });
    expect(last).toMatchObject({ buyerName: 'Buyer 49', budget: '99990.00', published: false });
    // Its record history shows the import as an add with the values imported (issue 17).
    const history = await api.call({
      method: 'GET',
      url: `/api/monitor/audit/query?entity=purchase&recordKey=${String(last?.id)}`,
    });
    expect(history.statusCode, history.body).toBe(200);
    const [entry, ...more] = data<{
      records: {
        action: string;
        username: string;
        changes: { field: string; before: unknown; after: unknown }[];
      }[];
    }>(history).records;
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ action: 'add', username: 'admin' });
    const changed = Object.fromEntries((entry?.changes ?? []).map((change) => [change.field, change.after]));
    expect(changed).toMatchObject({
      title: 'Imported purchase 9999',
      buyerName: 'Buyer 49',
      budget: '99990.00',
      published: false,
    });
    expect(entry?.changes.every((change) => change.before === null && change.after !== null)).toBe(true);
  }, 120_000);

  it('each imported row has one record.added event naming the fields its audit row holds, and its version', async () => {
    const file = csv([
      ['title', 'buyerName', 'region', 'budget', 'published'],
      ['Evented purchase A', 'Buyer A', 'North', '12.5', 'true'],
      ['Evented purchase B', 'Buyer B', '', '', ''],
    ]);
    const response = await upload(purchase, 'evented.csv', file, false);
    expect(response.statusCode, response.body).toBe(200);
    expect(data<ImportAnswer>(response).imported).toBe(2);
    const stored = await t.sql<{ id: string; title: string }>(
      `select id::text as id, title from "${purchase.table}" where title like 'Evented purchase %' order by title`,
    );
    const keys = stored.map((row) => row.id);
    const events = await t.sql<{ record_key: string; changed: string[]; version: number | null }>(
      `select record_key, changed, version from sys_event
        where entity = 'purchase' and type = 'record.added' and record_key = any($1::text[])`,
      [keys],
    );
    const audits = await t.sql<{ record_key: string; after: Record<string, unknown> }>(
      `select record_key, after from sys_audit_log
        where entity = 'purchase' and action = 'add' and record_key = any($1::text[])`,
      [keys],
    );
    const rows = stored.map((row) => {
      const own = events.filter((event) => event.record_key === row.id);
      return {
        title: row.title,
        events: own.length,
        changed: own[0]?.changed,
        version: own[0]?.version,
        after: audits.find((audit) => audit.record_key === row.id)?.after ?? {},
      };
    });
    expect(rows.map((row) => row.title)).toEqual(['Evented purchase A', 'Evented purchase B']);
    const bookkeeping = ['tenantCode', 'createdAt', 'createdBy', 'updatedAt', 'updatedBy', 'version'];
    for (const row of rows) {
      expect(row.events).toBe(1);
      expect(row.version).toBe(1);
      // the fields the row holds a value of, by name: the keys of its audit row less the bookkeeping
      expect(row.changed).toEqual(
        Object.keys(row.after)
          .filter((name) => !bookkeeping.includes(name))
          .sort(),
      );
    }
    expect(rows[0]?.changed).toEqual([
      'approvalStatus',
      'budget',
      'buyerName',
      'id',
      'published',
      'region',
      'title',
    ]);
    // an empty published takes its default (false); the empty region and budget are left out
    expect(rows[1]?.changed).toEqual(['approvalStatus', 'buyerName', 'id', 'published', 'title']);
  }, 120_000);

  it('lets the server do other work while a large file is imported', async () => {
    // PGlite answers without leaving the microtask queue: an import that never yields would hold
    // every timer, socket and other request of the server until its last row.
    const rows: (string | number)[][] = [['title', 'buyerName']];
    for (let index = 0; index < 4 * IMPORT_CHUNK_ROWS; index += 1)
      rows.push([`Meanwhile purchase ${index}`, `Buyer ${index % 7}`]);
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 5);
    try {
      const response = await upload(purchase, 'meanwhile.csv', csv(rows), false);
      expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
      expect(data<ImportAnswer>(response).imported).toBe(4 * IMPORT_CHUNK_ROWS);
    } finally {
      clearInterval(timer);
    }
    // At least once between each two chunks.
    expect(ticks).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('unknown columns and empty files are refused by name', async () => {
    const unknown = data<ImportAnswer>(
      await upload(
        purchase,
        'p.csv',
        csv([
          ['title', 'buyerName', 'colour'],
          ['T', 'B', 'red'],
        ]),
        true,
      ),
    );
    expect(unknown.problems).toEqual([
      { row: 1, field: 'colour', message: expect.stringContaining('colour') },
    ]);
    const empty = await upload(purchase, 'p.csv', Buffer.alloc(0), true);
    expect(empty.statusCode).toBe(400);
    const noFile = await api.call({
      method: 'POST',
      url: `/api/${purchase.api}/import?dryRun=true`,
      payload: {},
    });
    expect(noFile.statusCode).toBe(415);
  });

  it('the template has translated headers, an example row and dictionary dropdowns', async () => {
    const response = await api.call({
      method: 'GET',
      url: `/api/${user.api}/importTemplate`,
      headers: { 'accept-language': 'en' },
    });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(response.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
    const headers = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(headers).toContain('User name');
    expect(headers).not.toContain('ID');
    const statusColumn = headers.indexOf('Status') + 1;
    expect(statusColumn).toBeGreaterThan(0);
    const letter = sheet.getColumn(statusColumn).letter;
    // exceljs keeps the validations in `dataValidations`, which its typings leave out.
    const validations = (
      sheet as unknown as { dataValidations: { model: Record<string, ExcelJS.DataValidation> } }
    ).dataValidations.model;
    const validation = validations[`${letter}2`];
    expect(validation?.type).toBe('list');
    const listRange = String(validation?.formulae[0]);
    const lists = workbook.getWorksheet('lists') as ExcelJS.Worksheet;
    const labels = lists.getColumn(listRange.match(/\$([A-Z]+)\$1/)?.[1] ?? 'A').values.slice(1);
    expect(labels).toEqual(['Active', 'Disabled']);
    expect(sheet.getRow(2).getCell(statusColumn).value).toBe('Active');
  });

  it("a template's example row passes a dry run as it is", async () => {
    const response = await api.call({ method: 'GET', url: `/api/${purchase.api}/importTemplate` });
    expect(response.statusCode).toBe(200);
    const answer = data<ImportAnswer>(await upload(purchase, 'template.xlsx', response.rawPayload, true));
    expect(answer.total).toBe(1);
    expect(answer.problems).toEqual([]);
    expect(answer.columns.map((item) => item.field)).toContain('buyerName');
  });

  it('a template reads the same through the import as through exceljs (every entity tried)', async () => {
    for (const entity of [user, purchase, post]) {
      const response = await api.call({ method: 'GET', url: `/api/${entity.api}/importTemplate` });
      expect(response.statusCode).toBe(200);
      const bytes = response.rawPayload;
      const stream = await throughStream(bytes);
      expect(stream[0]?.length, entity.name).toBe(2);
      expect(stream).toEqual(await throughExcelJs(bytes));
    }
  });

  it('date cells of an .xlsx (a date number format) are taken as those dates', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('data');
    sheet.addRow(['title', 'buyerName', 'deadline']);
    // Excel keeps the wall clock: exceljs writes a Date's UTC fields as that wall clock.
    sheet.addRow(['Dated purchase', 'Buyer', new Date(Date.UTC(2031, 4, 6, 14, 30))]);
    sheet.getColumn(3).numFmt = 'yyyy-mm-dd hh:mm';
    const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
    const dry = data<ImportAnswer>(await upload(purchase, 'dated.xlsx', bytes, true));
    expect(dry.problems).toEqual([]);
    expect(dry.preview?.[0]?.values.deadline).toBe('2031-05-06 14:30:00');
    const response = await upload(purchase, 'dated.xlsx', bytes, false);
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    const [record] = await api.records(purchase, { title: 'Dated purchase' });
    expect(new Date(String(record?.deadline)).getTime()).toBe(new Date(2031, 4, 6, 14, 30).getTime());
  });

  it('a field hidden from the caller by data-field permissions cannot be imported or seen in the template', async () => {
    const [role] = await t.sql<{ id: number }>(
      "select id from sys_role where role_code = 'ROLE_EDITOR' and tenant_code = 'default'",
    );
    await t.sql(
      "insert into sys_url (tenant_code, url, created_by, updated_by) values ('default', '/api/notification/purchase/**', 'test', 'test')",
    );
    await t.sql(
      "insert into sys_role_url (tenant_code, role_id, url_id) select 'default', $1, id from sys_url where url = '/api/notification/purchase/**'",
      [role?.id],
    );
    await t.sql(
      "insert into sys_data_permission (tenant_code, role_code, menu_code, data_fields) values ('default', 'ROLE_EDITOR', 'purchase', '[\"budget\"]'::jsonb)",
    );
    const roles = await api.records(t.app.ctx.registry.require('sysrole'));
    const orgs = await api.records(t.app.ctx.registry.require('sysorg'));
    const added = await api.add(user, {
      username: 'importeditor',
      nickname: 'Editor',
      password: 'edit-pass-123',
      email: 'importeditor@example.com',
      countryCode: '+86',
      mobile: '13900000021',
      phone: '010-2',
      status: '1',
      roleId: roles.find((item) => item.roleCode === 'ROLE_EDITOR')?.id,
      orgId: orgs[0]?.id,
    });
    expect(added.statusCode, added.body).toBe(200);
    const signed = await t.signIn('importeditor', 'edit-pass-123');
    const token = (signed.json() as { access_token: string }).access_token;
    const headers = { authorization: `Bearer ${token}` };
    const file = csv([
      ['title', 'buyerName', 'budget'],
      ['Hidden budget', 'Buyer', '5'],
    ]);
    // a column of a hidden field is refused as an add sending it would be (rbac field-rights.ts)
    const refused = await upload(purchase, 'p.csv', file, true, headers);
    expect(refused.statusCode, refused.body).toBe(403);
    expect(body<{ errors: { field: string }[] }>(refused).errors.map((error) => error.field)).toEqual([
      '/budget',
    ]);
    const allowed = data<ImportAnswer>(
      await upload(
        purchase,
        'p.csv',
        csv([
          ['title', 'buyerName'],
          ['Visible only', 'Buyer'],
        ]),
        false,
        headers,
      ),
    );
    expect(allowed.imported).toBe(1);
    const template = await api.call({ method: 'GET', url: `/api/${purchase.api}/importTemplate`, headers });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(template.rawPayload as unknown as ArrayBuffer);
    const titles = ((workbook.worksheets[0] as ExcelJS.Worksheet).getRow(1).values as unknown[]).slice(1);
    expect(titles).toContain('项目名称');
    expect(titles).not.toContain('预算金额');
  });
});
