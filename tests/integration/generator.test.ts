import { inflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAjv } from '../../src/engine/ajv.js';
import { checkEntitySchema, type EntitySchema } from '../../src/engine/index.js';
import { BUDGETS } from '../../src/server/lib/budgets.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { data, errorFields, type ErrorBody } from '../support/api.js';
import { createUserWithRole } from '../support/users.js';
import { fileUpload } from '../support/multipart.js';

interface File {
  path: string;
  content: string;
}
interface Template {
  id: number | null;
  templateType: string;
  templateItem: string;
  content: string;
  version: number;
  isBuiltIn: boolean;
}

/** The entries of a zip archive (local headers walked in order; sizes are in the headers). */
function unzip(buffer: Buffer): File[] {
  const files: File[] = [];
  let at = 0;
  while (buffer.readUInt32LE(at) === 0x04034b50) {
    const size = buffer.readUInt32LE(at + 18);
    const nameLength = buffer.readUInt16LE(at + 26);
    const extra = buffer.readUInt16LE(at + 28);
    const path = buffer.subarray(at + 30, at + 30 + nameLength).toString('utf8');
    const start = at + 30 + nameLength + extra;
    files.push({ path, content: inflateRawSync(buffer.subarray(start, start + size)).toString('utf8') });
    at = start + size;
  }
  expect(buffer.readUInt32LE(buffer.length - 22)).toBe(0x06054b50);
  return files;
}

async function sheetsOf(bytes: Buffer): Promise<{ name: string; rows: unknown[][] }[]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook.worksheets.map((sheet) => {
    const rows: unknown[][] = [];
    sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
    return { name: sheet.name, rows };
  });
}

const BASE = '/api/generator';
const FORWARD = { entities: ['sysregion', 'purchase'], serviceName: 'shop', packageName: 'shop' };

describe('code generator API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  /** A multipart upload of one file (the import's part "file"). */
  const upload = (url: string, bytes: Buffer): Promise<LightMyRequestResponse> => {
    const form = fileUpload('rows.xlsx', bytes, {
      type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    });
    return t.request({ method: 'POST', url, headers: { ...t.auth, ...form.headers }, payload: form.payload });
  };

  it('previews a module and downloads the same files as a zip', async () => {
    const preview = await t.request({
      method: 'POST',
      url: `${BASE}/forward/preview`,
      headers: t.auth,
      payload: FORWARD,
    });
    expect(preview.statusCode, preview.body).toBe(200);
    const files = data<{ files: File[] }>(preview).files;
    expect(files.map((file) => file.path)).toContain('shop/sysregion/service.ts');
    expect(files.map((file) => file.path)).toContain('shop/purchase/PurchaseList.tsx');
    // Two entities, eleven files each (their module's server.ts and admin.tsx among them).
    expect(files).toHaveLength(22);

    const download = await t.request({
      method: 'POST',
      url: `${BASE}/forward/download`,
      headers: t.auth,
      payload: FORWARD,
    });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/zip');
    expect(download.headers['content-disposition']).toContain('shop.zip');
    expect(unzip(download.rawPayload)).toEqual(files);

    const sqlOnly = await t.request({
      method: 'POST',
      url: `${BASE}/forward/preview`,
      headers: t.auth,
      payload: { ...FORWARD, templateType: 'sql' },
    });
    expect(data<{ files: File[] }>(sqlOnly).files.every((file) => file.path.endsWith('.sql'))).toBe(true);
  });

  it('previews a master-detail entity in the layout asked for (detailLayout)', async () => {
    const post = (url: string, payload: object) =>
      t.request({ method: 'POST', url, headers: t.auth, payload });
    const added = await post(`${BASE}/form/add`, {
      formCode: 'layoutform',
      formName: 'Layout form',
      formContent: {
        title: 'Layout form',
        required: ['subject'],
        properties: {
          subject: { type: 'string', title: 'Subject', maxLength: 60 },
          lines: {
            type: 'array',
            title: 'Lines',
            'x-detail': {},
            items: {
              type: 'object',
              required: ['item'],
              properties: { item: { type: 'string', title: 'Item', maxLength: 40 } },
            },
          },
        },
      },
    });
    expect(added.statusCode, added.body).toBe(200);
    const published = await post(`${BASE}/form/publish`, {
      id: data<{ id: number }>(added).id,
      menuParent: 'formgenerator',
      roles: [],
    });
    expect(published.statusCode, published.body).toBe(200);
    const listOf = async (detailLayout?: string): Promise<string> => {
      const answer = await post(`${BASE}/forward/preview`, {
        entities: ['layoutform'],
        serviceName: 'shop',
        packageName: 'shop',
        templateType: 'frontend',
        ...(detailLayout ? { detailLayout } : {}),
      });
      expect(answer.statusCode, answer.body).toBe(200);
      return (
        data<{ files: File[] }>(answer).files.find(
          (file) => file.path === 'shop/layoutform/LayoutformList.tsx',
        )?.content ?? ''
      );
    };
    const inForm = await listOf();
    expect(inForm).toContain('const ENTITY');
    expect(inForm).not.toContain('DetailRows');
    expect(await listOf('form')).toBe(inForm);
    const inTabs = await listOf('tab');
    expect(inTabs).toContain('data-testid="entity-detail-tabs"');
    expect(inTabs).toContain('DetailRows');
    const inner = await listOf('inner');
    expect(inner).toContain('expandable');
    expect(inner).not.toContain('entity-detail-tabs');
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const unknown = await t.request({
      method: 'POST',
      url: `${BASE}/forward/preview`,
      headers: t.auth,
      payload: { ...FORWARD, entities: ['sysregion', 'nosuchentity'] },
    });
    expect(unknown.statusCode).toBe(400);
    expect(errorFields(unknown)).toEqual(['/entities/1']);
    const badName = await t.request({
      method: 'POST',
      url: `${BASE}/forward/preview`,
      headers: t.auth,
      payload: { ...FORWARD, serviceName: '../etc' },
    });
    expect(badName.statusCode).toBe(400);
    expect(errorFields(badName)).toContain('/serviceName');
    const badLayout = await t.request({
      method: 'POST',
      url: `${BASE}/forward/preview`,
      headers: t.auth,
      payload: { ...FORWARD, detailLayout: 'sideways' },
    });
    expect(badLayout.statusCode).toBe(400);
    expect(errorFields(badLayout)).toContain('/detailLayout');
    const badTable = await t.request({
      method: 'POST',
      url: `${BASE}/reverse/schema?tableName=x;drop`,
      headers: t.auth,
    });
    expect(badTable.statusCode).toBe(400);
    const entityTable = await t.request({
      method: 'POST',
      url: `${BASE}/reverse/schema?tableName=sys_region`,
      headers: t.auth,
    });
    expect(entityTable.statusCode).toBe(400);
    expect(errorFields(entityTable)).toEqual(['/tableName']);
    const missing = await t.request({
      method: 'POST',
      url: `${BASE}/reverse/schema?tableName=no_such_table`,
      headers: t.auth,
    });
    expect(missing.statusCode).toBe(404);
  });

  it('keeps templates per tenant with versions, checked on save, used by the generator', async () => {
    const listed = await t.request({ method: 'GET', url: `${BASE}/template/query`, headers: t.auth });
    expect(listed.statusCode, listed.body).toBe(200);
    const templates = data<Template[]>(listed);
    expect(templates.map((template) => template.templateItem)).toEqual([
      'entity',
      'service',
      'controller',
      'api',
      'test',
      'list-view',
      'form-view',
      'ddl',
      'menu',
      'module-server',
      'module-admin',
    ]);
    expect(templates.every((template) => template.isBuiltIn && template.version === 0)).toBe(true);

    const broken = await t.request({
      method: 'POST',
      url: `${BASE}/template/add`,
      headers: t.auth,
      payload: {
        templateType: 'sql',
        templateItem: 'ddl',
        content: '-- ok\n{{#each fields}}\n  {{column}\n{{/each}}',
      },
    });
    expect(broken.statusCode).toBe(400);
    const error = broken.json<ErrorBody>();
    expect(error.errors?.[0]?.field).toBe('/content');
    expect(error.errors?.[0]?.message).toMatch(/^3:\d+ /);

    const wrongType = await t.request({
      method: 'POST',
      url: `${BASE}/template/add`,
      headers: t.auth,
      payload: { templateType: 'frontend', templateItem: 'ddl', content: 'x' },
    });
    expect(errorFields(wrongType)).toEqual(['/templateType']);

    const content = '-- custom DDL of {{table}}\n{{ddl}}\n';
    const added = await t.request({
      method: 'POST',
      url: `${BASE}/template/add`,
      headers: t.auth,
      payload: { templateType: 'sql', templateItem: 'ddl', content },
    });
    expect(added.statusCode, added.body).toBe(200);
    const saved = data<Template>(added);
    expect(saved).toMatchObject({ version: 1, isBuiltIn: false, content });

    const updated = await t.request({
      method: 'PUT',
      url: `${BASE}/template/update`,
      headers: t.auth,
      payload: {
        id: saved.id,
        version: 1,
        templateType: 'sql',
        templateItem: 'ddl',
        content: `${content}-- v2\n`,
      },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(data<Template>(updated).version).toBe(2);
    const stale = await t.request({
      method: 'PUT',
      url: `${BASE}/template/update`,
      headers: t.auth,
      payload: { id: saved.id, version: 1, templateType: 'sql', templateItem: 'ddl', content },
    });
    expect(stale.statusCode).toBe(409);
    const versions = await t.request({
      method: 'GET',
      url: `${BASE}/template/versions?id=${saved.id}`,
      headers: t.auth,
    });
    expect(data<{ version: number }[]>(versions).map((version) => version.version)).toEqual([2, 1]);

    const preview = await t.request({
      method: 'POST',
      url: `${BASE}/forward/preview`,
      headers: t.auth,
      payload: { ...FORWARD, entities: ['sysregion'], templateType: 'sql' },
    });
    const ddl = data<{ files: File[] }>(preview).files.find((file) => file.path.endsWith('schema.sql'));
    expect(ddl?.content).toContain('-- custom DDL of sys_region');
    expect(ddl?.content).toContain('-- v2');

    const audit = await t.sql<{ action: string }>(
      "select action from sys_audit_log where entity = 'generatortemplate' order by id",
    );
    expect(audit.map((row) => row.action)).toEqual(['add', 'update']);

    const deleted = await t.request({
      method: 'POST',
      url: `${BASE}/template/delete?id=${saved.id}`,
      headers: t.auth,
    });
    expect(deleted.statusCode).toBe(200);
    const after = await t.request({
      method: 'GET',
      url: `${BASE}/template/query?templateItem=ddl`,
      headers: t.auth,
    });
    expect(data<Template[]>(after)[0]).toMatchObject({ isBuiltIn: true, version: 0 });
  });

  it('checks a template: compile errors with line and column, a dry run against a sample entity', async () => {
    const bad = await t.request({
      method: 'POST',
      url: `${BASE}/template/check`,
      headers: t.auth,
      payload: { content: 'line 1\nline 2 {{#if isTree}}\n{{/each}}' },
    });
    expect(bad.statusCode).toBe(200);
    expect(data(bad)).toMatchObject({ isValid: false, problems: [{ line: 2 }] });
    const unknownHelper = await t.request({
      method: 'POST',
      url: `${BASE}/template/check`,
      headers: t.auth,
      payload: { content: '\n\n  {{exec "id"}}' },
    });
    expect(data(unknownHelper)).toMatchObject({ isValid: false, problems: [{ line: 3, column: 3 }] });
    const good = await t.request({
      method: 'POST',
      url: `${BASE}/template/check`,
      headers: t.auth,
      payload: {
        content: '{{pascal}} {{table}}{{#each fields}} {{column}}{{/each}}',
        sampleEntity: 'sysregion',
      },
    });
    expect(data(good)).toMatchObject({ isValid: true, problems: [] });
    expect(data<{ output: string }>(good).output).toMatch(/^Sysregion sys_region region_code region_name/);
  });

  it('renders templates within their budgets: time and output size are a 422 naming the budget', async () => {
    // Finding 2 of issue 31: six nested loops over every field ran 67 s and wrote 113 MB.
    const nested = `${'{{#each @root.fields}}'.repeat(6)}{{name}}${'{{/each}}'.repeat(6)}`;
    const started = performance.now();
    const bomb = await t.request({
      method: 'POST',
      url: `${BASE}/template/check`,
      headers: { ...t.auth, 'accept-language': 'en' },
      payload: { content: nested, sampleEntity: 'sysuser' },
    });
    const ms = performance.now() - started;
    expect(bomb.statusCode, bomb.body).toBe(422);
    // Which budget the bomb reaches first depends on the machine: time on a slow one, memory on a fast one.
    expect([
      `Rendering the template went past its budget templates.renderMs (${BUDGETS.templates.renderMs} ms)`,
      `Rendering the template went past its budget templates.heapMb (${BUDGETS.templates.heapMb} MB)`,
    ]).toContain(bomb.json<ErrorBody>().message);
    // The budget, plus the start of a new worker from the TypeScript sources.
    expect(ms).toBeLessThan(BUDGETS.templates.renderMs + 4_000);

    // Quick, but too much text: stopped at the output budget.
    const wide = `${'{{#each @root.fields}}'.repeat(3)}${'x'.repeat(2_000)}${'{{/each}}'.repeat(3)}`;
    const large = await t.request({
      method: 'POST',
      url: `${BASE}/template/check`,
      headers: { ...t.auth, 'accept-language': 'en' },
      payload: { content: wide, sampleEntity: 'sysuser' },
    });
    expect(large.statusCode, large.body).toBe(422);
    expect(large.json<ErrorBody>().message).toBe(
      'Rendering the template went past its budget templates.outputBytes (2 MB)',
    );

    // A saved template renders in the same worker for the preview and the download.
    const added = await t.request({
      method: 'POST',
      url: `${BASE}/template/add`,
      headers: t.auth,
      payload: { templateType: 'backend', templateItem: 'entity', content: nested },
    });
    expect(added.statusCode, added.body).toBe(200);
    for (const url of [`${BASE}/forward/preview`, `${BASE}/forward/download`]) {
      const answer = await t.request({
        method: 'POST',
        url,
        headers: { ...t.auth, 'accept-language': 'en' },
        payload: { ...FORWARD, entities: ['sysuser'], templateType: 'backend' },
      });
      expect(answer.statusCode, `${url}: ${answer.body}`).toBe(422);
      expect(answer.json<ErrorBody>().message).toMatch(/templates\.(renderMs|heapMb)/);
    }
    const removed = await t.request({
      method: 'POST',
      url: `${BASE}/template/delete?id=${data<Template>(added).id}`,
      headers: t.auth,
    });
    expect(removed.statusCode).toBe(200);

    // The worker still renders a good template afterwards.
    const good = await t.request({
      method: 'POST',
      url: `${BASE}/template/check`,
      headers: t.auth,
      payload: { content: '{{pascal}}', sampleEntity: 'sysregion' },
    });
    expect(data(good)).toMatchObject({ isValid: true, output: 'Sysregion' });
  }, 60_000);

  it('reverse-generates an entity schema from a table with every mapped type, keys, checks and comments', async () => {
    await t.sql(`create table shop_maker (id serial primary key, maker_name text not null)`);
    await t.sql(`create table shop_item (
      id bigint generated by default as identity primary key,
      item_code varchar(20) not null,
      item_name character varying(100) not null default 'unnamed',
      grade char(2),
      note text,
      qty smallint not null default 0,
      stock integer,
      big_count bigint,
      price numeric(10,2) not null,
      ratio real,
      weight double precision,
      is_active boolean not null default true,
      made_on date,
      checked_at timestamp with time zone default now(),
      local_time timestamp without time zone,
      opens_at time,
      closes_at time with time zone,
      amount numeric,
      memo varchar,
      uid uuid,
      attrs jsonb default '{}'::jsonb,
      raw json,
      labels text[],
      scores integer[],
      flags boolean[],
      uids uuid[],
      dates date[],
      rates numeric(5,2)[],
      status varchar(10) not null default 'draft' check (status in ('draft', 'published', 'it''s')),
      level integer check (level in (1, 2, 3)),
      region_code text references sys_region (region_code),
      maker_id integer references shop_maker (id),
      tenant_code text not null default 'default',
      constraint shop_item_code_uq unique (tenant_code, item_code)
    )`);
    await t.sql(`create unique index shop_item_uid_uq on shop_item (uid)`);
    await t.sql(`comment on table shop_item is '商品'`);
    await t.sql(`comment on column shop_item.item_name is '商品名称'`);
    await t.sql(`comment on column shop_item.price is 'Unit price'`);

    const tables = await t.request({ method: 'GET', url: `${BASE}/reverse/tables`, headers: t.auth });
    expect(tables.statusCode, tables.body).toBe(200);
    const listed =
      data<{ tableName: string; tableComment: string | null; columns: { columnName: string }[] }[]>(tables);
    expect(listed.map((table) => table.tableName)).toEqual(['shop_item', 'shop_maker']);
    expect(listed[0]?.tableComment).toBe('商品');
    expect(listed[0]?.columns.map((column) => column.columnName)).toContain('region_code');

    const answer = await t.request({
      method: 'POST',
      url: `${BASE}/reverse/schema?tableName=shop_item`,
      headers: t.auth,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const schema = data<EntitySchema>(answer);
    expect(checkEntitySchema('shop_item', 'shopitem', schema)).toEqual([]);
    expect(schema.title).toBe('商品');
    expect(schema['x-entity']).toMatchObject({
      table: 'shop_item',
      key: 'id',
      tenant: true,
      label: 'itemCode',
    });
    const p = schema.properties;
    expect(p.id).toMatchObject({ type: 'integer', readOnly: true });
    expect(p.itemCode).toMatchObject({ type: 'string', maxLength: 20, 'x-unique': true });
    expect(p.itemName).toMatchObject({
      type: 'string',
      maxLength: 100,
      default: 'unnamed',
      title: '商品名称',
    });
    expect(p.grade).toMatchObject({ type: 'string', maxLength: 2 });
    expect(p.note).toEqual({ type: 'string', title: 'Note' });
    expect(p.qty).toMatchObject({ type: 'integer', minimum: -32768, maximum: 32767, default: 0 });
    expect(p.stock).toMatchObject({ type: 'integer', minimum: -2147483648, maximum: 2147483647 });
    // A bigint keeps values beyond 2^53: a string of digits; numeric is an exact decimal string.
    expect(p.bigCount).toMatchObject({ type: 'string', format: 'int64' });
    expect(p.price).toMatchObject({
      type: 'string',
      format: 'decimal',
      'x-decimal': { precision: 10, scale: 2 },
      title: 'Unit price',
    });
    expect(p.ratio).toMatchObject({ type: 'number' });
    expect(p.weight).toMatchObject({ type: 'number' });
    expect(p.isActive).toMatchObject({ type: 'boolean', default: true });
    expect(p.madeOn).toMatchObject({ type: 'string', format: 'date' });
    expect(p.checkedAt).toMatchObject({ type: 'string', format: 'date-time' });
    expect(p.checkedAt?.default).toBeUndefined();
    // A timestamp without time zone holds a zone's wall clock (x-column timestamp).
    expect(p.localTime).toMatchObject({
      type: 'string',
      format: 'date-time',
      'x-column': { type: 'timestamp' },
    });
    // a time without time zone has no offset, which format "time" demands: a pattern instead
    expect(p.opensAt).toMatchObject({
      type: 'string',
      pattern: expect.any(String),
      'x-column': { type: 'time' },
    });
    expect(p.opensAt?.format).toBeUndefined();
    expect(p.uid).toMatchObject({ type: 'string', format: 'uuid', 'x-unique': true });
    expect(p.attrs).toMatchObject({ type: 'object', default: {} });
    expect(p.raw).toMatchObject({ type: 'object' });
    expect(p.labels).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(p.scores).toMatchObject({ type: 'array', items: { type: 'integer' } });
    expect(p.closesAt).toMatchObject({ type: 'string', format: 'time' });
    // numeric without a precision: a decimal of 38 digits, 10 after the point; varchar without a length: no maxLength
    expect(p.amount).toMatchObject({
      type: 'string',
      format: 'decimal',
      'x-decimal': { precision: 38, scale: 10 },
      title: 'Amount',
    });
    expect(p.memo).toEqual({ type: 'string', title: 'Memo' });
    // PostgreSQL arrays are kept as they are (x-column array): read and written as JSON arrays.
    const kept = { 'x-column': { type: 'array' } };
    expect(p.flags).toEqual({ type: 'array', title: 'Flags', items: { type: 'boolean' }, ...kept });
    expect(p.uids).toEqual({
      type: 'array',
      title: 'Uids',
      items: { type: 'string', format: 'uuid' },
      ...kept,
    });
    expect(p.dates).toEqual({
      type: 'array',
      title: 'Dates',
      items: { type: 'string', format: 'date' },
      ...kept,
    });
    expect(p.rates).toEqual({
      type: 'array',
      title: 'Rates',
      items: { type: 'number', minimum: -999.99, maximum: 999.99 },
      ...kept,
    });
    // The fields take the values the database gives back for these columns, and refuse what it
    // would refuse.
    await t.sql(`insert into shop_item (item_code, price, opens_at, closes_at, rates)
      values ('T-1', 1, '09:30', '09:30:15+08', '{1.5,-999.99}')`);
    const [stored] = await t.sql<{ opens_at: string; closes_at: string }>(
      `select opens_at::text, closes_at::text from shop_item where item_code = 'T-1'`,
    );
    expect(stored).toEqual({ opens_at: '09:30:00', closes_at: '09:30:15+08' });
    const ajv = createAjv();
    const accepts = (field: unknown, value: unknown): boolean => ajv.validate(field as object, value);
    expect(accepts(p.opensAt, stored?.opens_at)).toBe(true);
    expect(accepts(p.opensAt, '9:30 am')).toBe(false);
    expect(accepts(p.closesAt, stored?.closes_at)).toBe(true);
    expect(accepts(p.rates, [1.5, -999.99])).toBe(true);
    expect(accepts(p.rates, [1000])).toBe(false);
    expect(accepts(p.uids, ['0b6a8f5e-9a4c-4c1e-8f3a-2d5b7c9e1f00'])).toBe(true);
    expect(accepts(p.uids, ['not-a-uuid'])).toBe(false);
    expect(accepts(p.dates, ['2026-11-25'])).toBe(true);
    expect(accepts(p.amount, '12345.6789')).toBe(true);
    expect(accepts(p.amount, 12345.6789)).toBe(false);
    expect(p.status).toMatchObject({ enum: ['draft', 'published', "it's"], default: 'draft' });
    expect(p.level).toMatchObject({ type: 'integer', enum: [1, 2, 3] });
    expect(p.regionCode).toMatchObject({ type: 'string', 'x-ref': 'sysregion' });
    expect(p.makerId).toMatchObject({ $comment: 'references shop_maker(id)' });
    expect(p.tenantCode).toBeUndefined();
    // NOT NULL without a default is required; with a default (or generated) it is not.
    expect(schema.required).toEqual(['itemCode', 'price']);
  });

  it('adopts an existing table: adds the bookkeeping columns and indexes only when opted in, then publishes it without touching its types', async () => {
    await t.sql(`create table legacy_goods (
      id serial primary key,
      goods_name varchar(40) not null,
      old_code char(4),
      price numeric(10,2),
      qty integer not null default 0,
      kept_blob bytea
    )`);
    await t.sql(`comment on table legacy_goods is '旧商品表（迁移前的商品）'`);
    await t.sql(`comment on column legacy_goods.goods_name is '商品名称'`);
    await t.sql(
      `insert into legacy_goods (goods_name, old_code, price, qty) values ('旧货', 'A001', 12.50, 3)`,
    );
    const columnsNow = async (): Promise<Record<string, string>> =>
      Object.fromEntries(
        (
          await t.sql<{ column_name: string; data_type: string }>(
            `select column_name, data_type from information_schema.columns
             where table_schema = current_schema() and table_name = 'legacy_goods'`,
          )
        ).map((row) => [row.column_name, row.data_type]),
      );
    const original = await columnsNow();
    const adopt = (body: object) =>
      t.request({ method: 'POST', url: `${BASE}/reverse/adopt`, headers: t.auth, payload: body });

    // By default adopting adds nothing: every column and index is offered, none chosen.
    const preview = await adopt({ tableName: 'legacy_goods', confirm: false });
    expect(preview.statusCode, preview.body).toBe(200);
    const offered = data<{
      statements: string[];
      preview: { columns: { name: string }[]; indexes: { name: string }[] };
    }>(preview);
    expect(offered.statements).toEqual([]);
    const optIn = {
      addColumns: offered.preview.columns.map((column) => column.name),
      indexes: offered.preview.indexes.map((index) => index.name),
    };
    const plan = await adopt({ tableName: 'legacy_goods', confirm: false, ...optIn });
    expect(plan.statusCode, plan.body).toBe(200);
    const planned = data<{ formCode: string; schema: EntitySchema; statements: string[] }>(plan);
    expect(planned.formCode).toBe('legacygoods');
    expect(planned.schema['x-entity']).toMatchObject({
      table: 'legacy_goods',
      adopt: true,
      api: 'online/legacygoods',
    });
    expect(planned.schema.title).toBe('旧商品表');
    expect(planned.statements.slice(0, 5)).toEqual([
      'alter table "legacy_goods" add column "created_at" timestamptz not null default now()',
      'alter table "legacy_goods" add column "created_by" text',
      'alter table "legacy_goods" add column "updated_at" timestamptz not null default now()',
      'alter table "legacy_goods" add column "updated_by" text',
      'alter table "legacy_goods" add column "version" integer not null default 1',
    ]);
    // Then the engine's own non-unique indexes, under its names, IF NOT EXISTS (concurrently on
    // PostgreSQL); never a unique index nor a foreign key.
    const indexes = planned.statements.slice(5);
    expect(indexes.length).toBeGreaterThan(0);
    for (const statement of indexes)
      expect(statement).toMatch(
        new RegExp(
          `^create index ${t.app.ctx.dbKind === 'postgres' ? 'concurrently ' : ''}if not exists "legacy_goods_`,
        ),
      );
    expect(planned.statements.join('\n')).not.toMatch(/unique|foreign key|alter column|drop/);
    // Nothing changes before the confirmation.
    expect(await columnsNow()).toEqual(original);
    const badCode = await adopt({ tableName: 'legacy_goods', formCode: 'Bad-Code', confirm: true, ...optIn });
    expect(badCode.statusCode).toBe(400);
    expect(errorFields(badCode)).toContain('/formCode');

    const done = await adopt({ tableName: 'legacy_goods', confirm: true, ...optIn });
    expect(done.statusCode, done.body).toBe(200);
    const formId = data<{ form: { id: number; status: string } }>(done).form.id;
    expect(data<{ form: { status: string } }>(done).form.status).toBe('draft');
    const adopted = await columnsNow();
    // The table's own columns keep their types; the unmapped bytea column stays.
    for (const [column, type] of Object.entries(original)) expect(adopted[column]).toBe(type);
    expect(Object.keys(adopted)).toEqual(expect.arrayContaining(['created_at', 'version']));
    expect(Object.keys(adopted)).not.toContain('tenant_code');
    const indexesNow = async (): Promise<string[]> =>
      (
        await t.sql<{ indexname: string }>(
          `select indexname from pg_indexes where schemaname = current_schema() and tablename = 'legacy_goods' order by 1`,
        )
      ).map((row) => row.indexname);
    const built = await indexesNow();
    expect(built).toEqual(expect.arrayContaining(['legacy_goods_pkey']));
    expect(built.length).toBe(1 + indexes.length);
    // Adopting twice is refused with a clear answer naming the draft that adopted it, and the
    // table is listed as adopted with that draft rather than offered again.
    for (const confirm of [false, true]) {
      const again = await adopt({ tableName: 'legacy_goods', confirm });
      expect(again.statusCode).toBe(409);
      expect((again.json() as ErrorBody).message).toBe(
        '表 legacy_goods 已被表单 legacygoods 接管，请在表单设计器中打开这个草稿',
      );
      expect(errorFields(again)).toEqual(['/tableName']);
    }
    const listedTables = data<{ tableName: string; adoptedBy?: { formId: number; formCode: string } }[]>(
      await t.request({ method: 'GET', url: `${BASE}/reverse/tables`, headers: t.auth }),
    );
    expect(listedTables.find((table) => table.tableName === 'legacy_goods')?.adoptedBy).toEqual({
      formId,
      formCode: 'legacygoods',
    });

    const published = await t.request({
      method: 'POST',
      url: '/api/generator/form/publish',
      headers: t.auth,
      payload: { id: formId, menuParent: 'formgenerator', roles: [] },
    });
    expect(published.statusCode, published.body).toBe(200);
    expect(await columnsNow()).toEqual(adopted);
    expect(await indexesNow()).toEqual(built);
    const added = await t.request({
      method: 'POST',
      url: '/api/online/legacygoods/add',
      headers: t.auth,
      payload: { goodsName: '新货', oldCode: 'B002', price: '8.25', qty: 2 },
    });
    expect(added.statusCode, added.body).toBe(200);
    const listed = await t.request({
      method: 'GET',
      url: '/api/online/legacygoods/query?sort=id',
      headers: t.auth,
    });
    expect(listed.statusCode, listed.body).toBe(200);
    const records = data<{ records: Record<string, unknown>[] }>(listed).records;
    expect(records.map((record) => [record.goodsName, record.price, record.qty])).toEqual([
      ['旧货', '12.50', 3],
      ['新货', '8.25', 2],
    ]);
    const tooLong = await t.request({
      method: 'POST',
      url: '/api/online/legacygoods/add',
      headers: t.auth,
      payload: { goodsName: 'x'.repeat(41) },
    });
    expect(tooLong.statusCode).toBe(400);
  });

  it('adopts uuid and timestamp without time zone columns: rows read and written as UTC, filtered, bad values refused', async () => {
    await t.sql(`create table legacy_visit (
      id serial primary key,
      visit_uid uuid not null,
      visited_at timestamp without time zone,
      note varchar(40)
    )`);
    await t.sql(
      `insert into legacy_visit (visit_uid, visited_at, note) values ('6f1c1a52-3b51-4c6e-9d8e-1a2b3c4d5e6f', '2024-05-01 02:00:00', '旧访问')`,
    );
    const typesNow = async (): Promise<Record<string, string>> =>
      Object.fromEntries(
        (
          await t.sql<{ column_name: string; data_type: string }>(
            `select column_name, data_type from information_schema.columns
             where table_schema = current_schema() and table_name = 'legacy_visit'`,
          )
        ).map((row) => [row.column_name, row.data_type]),
      );
    const schema = data<EntitySchema>(
      await t.request({
        method: 'POST',
        url: `${BASE}/reverse/schema?tableName=legacy_visit`,
        headers: t.auth,
      }),
    );
    expect(schema.properties.visitUid).toMatchObject({ type: 'string', format: 'uuid' });
    expect(schema.properties.visitedAt).toMatchObject({ type: 'string', format: 'date-time' });
    expect(schema.required).toContain('visitUid');
    const done = await t.request({
      method: 'POST',
      url: `${BASE}/reverse/adopt`,
      headers: t.auth,
      payload: { tableName: 'legacy_visit', confirm: true },
    });
    expect(done.statusCode, done.body).toBe(200);
    const published = await t.request({
      method: 'POST',
      url: '/api/generator/form/publish',
      headers: t.auth,
      payload: { id: data<{ form: { id: number } }>(done).form.id, menuParent: 'formgenerator', roles: [] },
    });
    expect(published.statusCode, published.body).toBe(200);
    expect(await typesNow()).toMatchObject({ visit_uid: 'uuid', visited_at: 'timestamp without time zone' });

    const api = '/api/online/legacyvisit';
    // An offset is converted, not dropped: 10:00 in Beijing is 02:00 UTC in the naive column.
    const added = await t.request({
      method: 'POST',
      url: `${api}/add`,
      headers: t.auth,
      payload: {
        visitUid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
        visitedAt: '2024-05-01T10:30:00+08:00',
        note: '新访问',
      },
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(
      await t.sql(`select visit_uid::text as uid, visited_at::text as at from legacy_visit order by id`),
    ).toEqual([
      { uid: '6f1c1a52-3b51-4c6e-9d8e-1a2b3c4d5e6f', at: '2024-05-01 02:00:00' },
      { uid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', at: '2024-05-01 02:30:00' },
    ]);
    const list = async (query: string): Promise<Record<string, unknown>[]> => {
      const response = await t.request({
        method: 'GET',
        url: `${api}/query?sort=id${query}`,
        headers: t.auth,
      });
      expect(response.statusCode, response.body).toBe(200);
      return data<{ records: Record<string, unknown>[] }>(response).records;
    };
    expect((await list('')).map((record) => [record.visitUid, record.visitedAt])).toEqual([
      ['6f1c1a52-3b51-4c6e-9d8e-1a2b3c4d5e6f', '2024-05-01T02:00:00.000Z'],
      ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2024-05-01T02:30:00.000Z'],
    ]);
    // Filters: part of a uuid, a time range.
    expect((await list('&visitUid=bb6d')).map((record) => record.note)).toEqual(['新访问']);
    expect(
      (await list(`&visitedAt=${encodeURIComponent('2024-05-01T02:15:00Z,2024-05-01T03:00:00Z')}`)).map(
        (record) => record.note,
      ),
    ).toEqual(['新访问']);
    // A value the uuid column cannot take is a 400 naming the field.
    const bad = await t.request({
      method: 'POST',
      url: `${api}/add`,
      headers: t.auth,
      payload: { visitUid: 'not-a-uuid' },
    });
    expect(bad.statusCode).toBe(400);
    expect(errorFields(bad)).toEqual(['/visitUid']);
  });

  it('adopts a table with the table referring to it as its lines: kept as they are, read, written, exported, imported and deleted through its own columns', async () => {
    // A legacy order and its lines: order_id (no cascade), no seq, no tenant_code.
    await t.sql(`create table legacy_order (
      id serial primary key,
      order_no varchar(20) not null,
      buyer varchar(40)
    )`);
    await t.sql(`comment on table legacy_order is '旧订单'`);
    await t.sql(`create table legacy_order_line (
      id serial primary key,
      order_id integer not null references legacy_order (id),
      product varchar(40) not null,
      qty integer not null default 1,
      price numeric(10,2)
    )`);
    await t.sql(`comment on table legacy_order_line is '旧订单明细'`);
    await t.sql(`insert into legacy_order (order_no, buyer) values ('L-1', '老客户')`);
    // Inserted out of product order: the lines keep the order of their key.
    await t.sql(`insert into legacy_order_line (order_id, product, qty, price) values
      (1, 'Bolt', 2, 0.50), (1, 'Anchor', 1, 3.00)`);
    const lineTable = async (): Promise<{ columns: string[]; indexes: string[]; constraints: string[] }> => ({
      columns: (
        await t.sql<{ c: string }>(
          `select column_name || ' ' || data_type as c from information_schema.columns
           where table_schema = current_schema() and table_name = 'legacy_order_line' order by ordinal_position`,
        )
      ).map((row) => row.c),
      indexes: (
        await t.sql<{ i: string }>(
          `select indexdef as i from pg_indexes where schemaname = current_schema() and tablename = 'legacy_order_line' order by 1`,
        )
      ).map((row) => row.i),
      constraints: (
        await t.sql<{ c: string }>(
          `select conname || ' ' || pg_get_constraintdef(oid) as c from pg_constraint where conrelid = 'legacy_order_line'::regclass order by 1`,
        )
      ).map((row) => row.c),
    });
    const original = await lineTable();
    const adopt = (confirm: boolean) =>
      t.request({
        method: 'POST',
        url: `${BASE}/reverse/adopt`,
        headers: t.auth,
        // The lines are a sub-table because the admin chose them (never inferred from the foreign key).
        payload: { tableName: 'legacy_order', confirm, details: ['legacy_order_line'] },
      });

    const plan = await adopt(false);
    expect(plan.statusCode, plan.body).toBe(200);
    const planned = data<{ schema: EntitySchema; statements: string[]; details: string[] }>(plan);
    expect(planned.details).toEqual(['legacy_order_line']);
    const lines = planned.schema.properties.legacyOrderLine;
    expect(lines).toMatchObject({
      type: 'array',
      title: '旧订单明细',
      'x-detail': { table: 'legacy_order_line', parentColumn: 'order_id', seq: null },
      items: { type: 'object', required: ['product'] },
    });
    expect(Object.keys(lines?.items?.properties ?? {})).toEqual(['product', 'qty', 'price']);
    // Nothing is added to either table unless the admin opts in.
    expect(planned.statements).toEqual([]);

    const done = await adopt(true);
    expect(done.statusCode, done.body).toBe(200);
    expect(data<{ details: string[] }>(done).details).toEqual(['legacy_order_line']);
    expect(await lineTable()).toEqual(original);
    // The lines' table is adopted with its parent: not offered again on its own.
    const again = await t.request({
      method: 'POST',
      url: `${BASE}/reverse/adopt`,
      headers: t.auth,
      payload: { tableName: 'legacy_order_line', confirm: false },
    });
    expect(again.statusCode).toBe(409);
    const published = await t.request({
      method: 'POST',
      url: '/api/generator/form/publish',
      headers: t.auth,
      payload: { id: data<{ form: { id: number } }>(done).form.id, menuParent: 'formgenerator', roles: [] },
    });
    expect(published.statusCode, published.body).toBe(200);
    expect(await lineTable()).toEqual(original);

    const api = '/api/online/legacyorder';
    const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
      t.request({ method, url: `${api}/${url}`, headers: t.auth, ...(payload ? { payload } : {}) });
    const byKey = async (id: unknown): Promise<Record<string, unknown>> => {
      const response = await call('GET', `query?id=${String(id)}`);
      expect(response.statusCode, response.body).toBe(200);
      const [record] = data<{ records: Record<string, unknown>[] }>(response).records;
      return record ?? {};
    };
    // The legacy rows, in key order.
    expect((await byKey(1)).legacyOrderLine).toEqual([
      { product: 'Bolt', qty: 2, price: '0.50' },
      { product: 'Anchor', qty: 1, price: '3.00' },
    ]);
    const added = await call('POST', 'add', {
      orderNo: 'L-2',
      buyer: '新客户',
      legacyOrderLine: [
        { product: 'Pipe', qty: 4, price: '12.25' },
        { product: 'Elbow', qty: 8 },
      ],
    });
    expect(added.statusCode, added.body).toBe(200);
    const newId = (data<Record<string, unknown>>(added).id as number) ?? 0;
    const stored = await byKey(newId);
    expect(stored.legacyOrderLine).toEqual([
      { product: 'Pipe', qty: 4, price: '12.25' },
      { product: 'Elbow', qty: 8 },
    ]);
    const rowsOf = (orderId: unknown) =>
      t.sql<{ product: string; qty: number }>(
        `select product, qty from legacy_order_line where order_id = $1 order by id`,
        [orderId],
      );
    expect(await rowsOf(newId)).toEqual([
      { product: 'Pipe', qty: 4 },
      { product: 'Elbow', qty: 8 },
    ]);
    // A line is checked like any row: a missing product is a 400 naming the line and column.
    const bad = await call('POST', 'add', { orderNo: 'L-X', legacyOrderLine: [{ qty: 1 }] });
    expect(bad.statusCode).toBe(400);
    expect(errorFields(bad)).toEqual(['/legacyOrderLine/0/product']);
    // An update replaces the lines.
    const updated = await call('PUT', 'update', {
      id: newId,
      version: stored.version,
      legacyOrderLine: [
        { product: 'Valve', qty: 1 },
        { product: 'Pipe', qty: 5 },
      ],
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await rowsOf(newId)).toEqual([
      { product: 'Valve', qty: 1 },
      { product: 'Pipe', qty: 5 },
    ]);

    // The export: the lines on their own sheet, numbered in key order.
    const exported = await call('POST', 'export', { sort: 'orderNo' });
    expect(exported.statusCode).toBe(200);
    const sheets = await sheetsOf(exported.rawPayload);
    expect(sheets).toHaveLength(2);
    const [lineHeaders = [], ...lineRows] = sheets[1]?.rows ?? [];
    expect(lineHeaders.slice(1)).toEqual(['#', 'Product', 'Qty', 'Price']);
    expect(lineRows).toEqual([
      ['L-1', 1, 'Bolt', 2, 0.5],
      ['L-1', 2, 'Anchor', 1, 3],
      ['L-2', 1, 'Valve', 1],
      ['L-2', 2, 'Pipe', 5],
    ]);

    // The import, in the layout the export writes: lines by their # into the legacy table.
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet(sheets[0]?.name).addRows([
      ['orderNo', 'buyer'],
      ['L-3', '导入客户'],
    ]);
    workbook.addWorksheet(sheets[1]?.name).addRows([
      [lineHeaders[0], '#', 'product', 'qty'],
      ['L-3', 2, 'Second', 2],
      ['L-3', 1, 'First', 1],
    ]);
    const imported = await upload(`${api}/import`, Buffer.from(await workbook.xlsx.writeBuffer()));
    expect(imported.statusCode, imported.body).toBe(200);
    const [l3] = await t.sql<{ id: number }>(`select id from legacy_order where order_no = 'L-3'`);
    expect(await rowsOf(l3?.id)).toEqual([
      { product: 'First', qty: 1 },
      { product: 'Second', qty: 2 },
    ]);

    // Deleting an order deletes its lines first (the legacy foreign key does not cascade).
    const deleted = await call('POST', `delete?id=${newId}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await rowsOf(newId)).toEqual([]);
    expect(await rowsOf(1)).toHaveLength(2);
    expect(await lineTable()).toEqual(original);
  });

  it('runs the generated menu.sql against the database: menu and URL grant added once, the menu shown to the admin', async () => {
    const preview = await t.request({
      method: 'POST',
      url: `${BASE}/forward/preview`,
      headers: t.auth,
      payload: { ...FORWARD, serviceName: 'shopapi', templateType: 'sql' },
    });
    const menus = data<{ files: File[] }>(preview).files.filter((file) => file.path.endsWith('/menu.sql'));
    expect(menus.map((file) => file.path)).toEqual(['shop/sysregion/menu.sql', 'shop/purchase/menu.sql']);
    const run = async (file: File): Promise<void> => {
      const statements = file.content
        .replace(/^--.*$/gm, '')
        .split(/;\s*\n/)
        .map((statement) => statement.trim())
        .filter((statement) => statement.length > 0);
      // the menu, then a URL grant per action of the API
      expect(statements[0]).toMatch(/^insert into sys_menu/);
      expect(statements.length).toBeGreaterThan(2);
      expect(statements.slice(1).every((statement) => statement.startsWith('insert into sys_url'))).toBe(
        true,
      );
      for (const statement of statements) await t.sql(statement);
    };
    // Twice: a second run adds nothing.
    for (const file of [...menus, ...menus]) await run(file);
    const rows = await t.sql<{
      menu_code: string;
      menu_path: string;
      menu_component: string;
      menu_button: unknown;
    }>(
      `select menu_code, menu_path, menu_component, menu_button from sys_menu where menu_code like 'shop\\_%' order by menu_code`,
    );
    expect(rows.map((row) => [row.menu_code, row.menu_path, row.menu_component])).toEqual([
      ['shop_purchase', '/shop/purchase', 'shop/purchase'],
      ['shop_sysregion', '/shop/sysregion', 'shop/sysregion'],
    ]);
    // each action's URL of the entities' API once, however often menu.sql ran
    const granted = menus.flatMap((file) =>
      [...file.content.matchAll(/^insert into sys_url[^\n]*\nselect '[^']*', '([^']+)'/gm)].map(
        (match) => match[1],
      ),
    );
    expect(granted.length).toBeGreaterThan(4);
    const urls = await t.sql<{ url: string }>(
      `select url from sys_url where url in (${granted.map((url) => `'${url}'`).join(', ')}) order by url`,
    );
    expect(urls.map((row) => row.url)).toEqual([...new Set(granted)].sort());
    const authority = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/queryCurrentAuthority',
      headers: t.auth,
    });
    expect(authority.statusCode, authority.body).toBe(200);
    expect(data<{ menu: string[] }>(authority).menu).toEqual(
      expect.arrayContaining(['/shop/sysregion', '/shop/purchase']),
    );
  });

  it('is granted by URL: a user without the grant gets 403', async () => {
    const { token } = await createUserWithRole(t, 'gen-outsider', 'ROLE_SYS_BUYER');
    for (const [method, url] of [
      ['POST', `${BASE}/forward/preview`],
      ['GET', `${BASE}/reverse/tables`],
      ['GET', `${BASE}/template/query`],
      ['POST', `${BASE}/template/check`],
    ] as const) {
      const answer = await t.request({
        method,
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(method === 'POST' ? { payload: { content: 'x', ...FORWARD } } : {}),
      });
      expect(answer.statusCode, `${method} ${url}`).toBe(403);
    }
  });
});
