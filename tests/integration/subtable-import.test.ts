import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { fileUpload } from '../support/multipart.js';
import { rowsOf, sheetsOf, workbookOf } from '../support/workbook.js';

/**
 * Sub-table (x-detail) rows in an import (issue 14): read from the sheets after the first, in the
 * layout the export writes (the master's label column, #, the columns), so that an export imports
 * back. Both an entity of schemas/ (bizorder, a test fixture) and a published form; dry run, all
 * in one transaction, problems naming the sheet, the row and <sub-table>/<column>. Also the rule
 * for fields hidden by a visibility condition (engine/conditions.ts).
 */
const SCHEMAS = fileURLToPath(new URL('../../schemas', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/schemas/bizorder.schema.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ecobid-subtable-import-'));

let t: TestApp;
beforeAll(async () => {
  cpSync(SCHEMAS, dir, { recursive: true });
  cpSync(FIXTURE, join(dir, 'bizorder.schema.json'));
  t = await startTestApp({ env: { SCHEMAS_DIR: dir } });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;
const dataOf = <T = Json>(response: LightMyRequestResponse): T => (response.json() as Json).data as T;
const errorsOf = (response: LightMyRequestResponse): { field: string; message: string }[] =>
  (response.json() as { errors: { field: string; message: string }[] }).errors;
const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  t.request({ method, url, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as Json }) });
const count = async (table: string): Promise<number> =>
  Number((await t.sql<{ n: string | number }>(`select count(*) as n from ${table}`))[0]?.n);

function upload(url: string, bytes: Buffer, dryRun = false): Promise<LightMyRequestResponse> {
  const form = fileUpload('rows.xlsx', bytes, {
    type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  });
  return t.request({
    method: 'POST',
    url: `${url}${dryRun ? '?dryRun=true' : ''}`,
    headers: { ...t.auth, ...form.headers },
    payload: form.payload,
  });
}

describe('an entity of schemas/ with a sub-table', () => {
  const url = (action: string): string => `/api/biz/order/${action}`;

  it('imports orders with their lines from the layout the export writes, in one transaction', async () => {
    for (const [orderNo, lines] of [
      [
        'PO-1',
        [
          { productName: 'Pump', qty: 3, status: '1' },
          { productName: 'Valve', qty: 7 },
        ],
      ],
      ['PO-2', [{ productName: 'Gasket', qty: 10 }]],
    ] as const) {
      const added = await call('POST', url('add'), { orderNo, note: 'first', lines });
      expect(added.statusCode, added.body).toBe(200);
    }
    const exported = await call('POST', url('export'), { sort: 'orderNo' });
    expect(exported.statusCode).toBe(200);
    const file = exported.rawPayload;
    const sheets = await sheetsOf(file);
    expect(sheets).toHaveLength(2);
    expect(sheets[1]?.rows[0]?.slice(0, 4)).toEqual(['Order no.', '#', 'Product', 'Quantity']);
    // the same file back, after the orders are gone
    const ids = dataOf<{ records: Json[] }>(await call('GET', url('query'))).records.map((row) => row.id);
    expect(
      (await call('POST', `${url('delete')}?${ids.map((id) => `id=${String(id)}`).join('&')}`)).statusCode,
    ).toBe(200);
    expect(await count('biz_order_lines')).toBe(0);

    const dry = await upload(url('import'), file, true);
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dataOf(dry)).toMatchObject({ dryRun: true, total: 2, imported: 0, problemCount: 0 });
    expect(await count('biz_order')).toBe(0);

    const imported = await upload(url('import'), file);
    expect(imported.statusCode, imported.body).toBe(200);
    expect(dataOf(imported)).toMatchObject({ dryRun: false, total: 2, imported: 2, problemCount: 0 });
    const back = dataOf<{ records: Json[] }>(await call('GET', url('query?orderNo=PO-1'))).records[0];
    const read = dataOf<{ records: Json[] }>(await call('GET', url(`query?id=${String(back?.id)}`)))
      .records[0];
    expect(read?.lines).toEqual([
      { productName: 'Pump', qty: 3, status: '1' },
      { productName: 'Valve', qty: 7 },
    ]);
    expect(await count('biz_order_lines')).toBe(3);
  });

  it('names the sheet, row and column of a bad detail cell, and writes nothing', async () => {
    const before = [await count('biz_order'), await count('biz_order_lines')];
    const file = await workbookOf([
      [
        'Orders',
        [
          ['Order no.', 'Note'],
          ['PO-7', 'ok'],
          ['PO-8', 'bad lines'],
        ],
      ],
      [
        'Purchase order - Lines',
        [
          ['Order no.', '#', 'Product', 'Quantity', 'Status'],
          ['PO-7', 1, 'Hose', 2, ''],
          ['PO-8', 1, 'Tap', 0, ''],
          ['PO-8', 2, 'Tap', 1, 'no such status'],
          ['PO-9', 1, 'Orphan', 1, ''],
        ],
      ],
    ]);
    const dry = await upload(url('import'), file, true);
    expect(dry.statusCode, dry.body).toBe(200);
    const problems = dataOf<{ problems: Json[] }>(dry).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ sheet: 'Purchase order - Lines', row: 3, field: 'lines/qty' }),
        expect.objectContaining({ sheet: 'Purchase order - Lines', row: 4, field: 'lines/status' }),
        expect.objectContaining({
          sheet: 'Purchase order - Lines',
          row: 5,
          field: 'lines',
          message: expect.stringContaining('PO-9'),
        }),
      ]),
    );
    const refused = await upload(url('import'), file);
    expect(refused.statusCode).toBe(400);
    expect(errorsOf(refused).map((error) => error.field)).toEqual(
      expect.arrayContaining(['/Purchase order - Lines/3/lines/qty', '/Purchase order - Lines/5/lines']),
    );
    // PO-7 alone was fine: nothing of the file is written
    expect([await count('biz_order'), await count('biz_order_lines')]).toEqual(before);
  });

  it('refuses a detail sheet without the master key column, and a key given to two master rows', async () => {
    const noKey = await workbookOf([
      ['Orders', [['Order no.'], ['PO-11']]],
      [
        'Lines',
        [
          ['Product', 'Quantity'],
          ['Hose', 1],
        ],
      ],
    ]);
    const answer = dataOf<{ problems: Json[] }>(await upload(url('import'), noKey, true));
    expect(answer.problems).toEqual([
      expect.objectContaining({
        sheet: 'Lines',
        row: 1,
        field: 'lines',
        message: expect.stringContaining('Order no.'),
      }),
    ]);
    const twice = await workbookOf([
      [
        'Orders',
        [
          ['Order no.', 'Note'],
          ['PO-12', 'a'],
          ['PO-12', 'b'],
        ],
      ],
      [
        'lines',
        [
          ['orderNo', 'productName', 'qty'],
          ['PO-12', 'Hose', 1],
        ],
      ],
    ]);
    const problems = dataOf<{ problems: Json[] }>(await upload(url('import'), twice, true)).problems;
    expect(problems).toEqual(expect.arrayContaining([expect.objectContaining({ row: 3, field: 'orderNo' })]));
  });
});

describe('a published form with a sub-table and a visibility condition', () => {
  const content: Json = {
    title: 'Requisition',
    'x-ui': { titles: { zh: '请购单', en: 'Requisition' } },
    required: ['subject'],
    properties: {
      subject: { type: 'string', title: 'Subject', maxLength: 60, 'x-ui': { titles: { zh: '主题' } } },
      urgent: { type: 'boolean', title: 'Urgent', 'x-ui': { titles: { zh: '加急' } } },
      reason: { type: 'string', title: 'Reason', maxLength: 60, 'x-ui': { titles: { zh: '加急原因' } } },
      lines: {
        type: 'array',
        title: 'Lines',
        'x-detail': {},
        'x-ui': { titles: { zh: '明细' } },
        items: {
          type: 'object',
          required: ['item'],
          properties: {
            item: { type: 'string', title: 'Item', maxLength: 40, 'x-ui': { titles: { zh: '物品' } } },
            qty: { type: 'integer', title: 'Quantity', minimum: 1, 'x-ui': { titles: { zh: '数量' } } },
          },
        },
      },
    },
    allOf: [
      {
        if: { properties: { urgent: { const: true } }, required: ['urgent'] },
        then: { required: ['reason'] },
        else: { properties: { reason: false } },
      },
    ],
  };
  const api = (action: string): string => `/api/online/reqform/${action}`;

  it('publishes; a hidden field takes no value, and an update that hides a field clears it', async () => {
    const added = await call('POST', '/api/generator/form/add', {
      formCode: 'reqform',
      formName: 'Requisition',
      formContent: content,
    });
    expect(added.statusCode, added.body).toBe(200);
    const published = await call('POST', '/api/generator/form/publish', {
      id: dataOf(added).id,
      menuParent: 'formgenerator',
      roles: [],
    });
    expect(published.statusCode, published.body).toBe(200);

    // hidden (not urgent): a reason sent is refused, naming the field
    const hidden = await call('POST', api('add'), { subject: 'Pumps', reason: 'late' });
    expect(hidden.statusCode).toBe(400);
    expect(errorsOf(hidden)).toEqual([{ field: '/reason', message: '在当前条件下隐藏，不能填写' }]);
    // shown and required by its condition
    const missing = await call('POST', api('add'), { subject: 'Pumps', urgent: true });
    expect(missing.statusCode).toBe(400);
    expect(errorsOf(missing).map((error) => error.field)).toEqual(['/reason']);
    const record = dataOf(
      await call('POST', api('add'), {
        subject: 'Pumps',
        urgent: true,
        reason: 'plant stopped',
        lines: [{ item: '离心泵', qty: 2 }],
      }),
    );
    expect(record.reason).toBe('plant stopped');

    // an update that turns the condition off without sending the field: its stored value is cleared
    const off = await call('PUT', api('update'), { id: record.id, version: record.version, urgent: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(dataOf(off).reason ?? null).toBeNull();
    const [stored] = await t.sql<{ reason: string | null }>(
      'select reason from online_reqform where id = $1',
      [record.id],
    );
    expect(stored?.reason).toBeNull();
    // an update may not give a hidden field a value (the record stays not urgent)
    const sneaked = await call('PUT', api('update'), {
      id: record.id,
      version: dataOf(off).version,
      reason: 'again',
    });
    expect(sneaked.statusCode).toBe(400);
    expect(errorsOf(sneaked)).toEqual([{ field: '/reason', message: '在当前条件下隐藏，不能填写' }]);
    // turning it on again requires the field while it is shown
    const on = await call('PUT', api('update'), {
      id: record.id,
      version: dataOf(off).version,
      urgent: true,
    });
    expect(on.statusCode).toBe(400);
    expect(errorsOf(on).map((error) => error.field)).toEqual(['/reason']);
  });

  it('exports detail rows under the designer titles, and imports the export back with its rows', async () => {
    const second = await call('POST', api('add'), { subject: 'Seals', lines: [{ item: '密封圈', qty: 40 }] });
    expect(second.statusCode, second.body).toBe(200);
    const exported = await call('POST', api('export'), { sort: 'subject' });
    expect(exported.statusCode).toBe(200);
    const sheets = await sheetsOf(exported.rawPayload);
    expect(sheets.map((sheet) => sheet.name)).toEqual([expect.any(String), '请购单 - 明细']);
    expect(sheets[1]?.rows).toEqual([
      ['主题', '#', '物品', '数量'],
      ['Pumps', 1, '离心泵', 2],
      ['Seals', 1, '密封圈', 40],
    ]);
    const file = exported.rawPayload;
    const dry = await upload(api('import'), file, true);
    expect(dataOf(dry)).toMatchObject({ dryRun: true, total: 2, problemCount: 0 });
    const imported = await upload(api('import'), file);
    expect(imported.statusCode, imported.body).toBe(200);
    expect(dataOf(imported)).toMatchObject({ imported: 2 });
    const rows = await t.sql<{ item: string; qty: number | string; subject: string }>(
      `select l.item, l.qty, p.subject from online_reqform_lines l join online_reqform p on p.id = l.parent_id
       order by p.id, l.seq`,
    );
    expect(rows.map((row) => [row.subject, row.item, Number(row.qty)])).toEqual([
      ['Pumps', '离心泵', 2],
      ['Seals', '密封圈', 40],
      ['Pumps', '离心泵', 2],
      ['Seals', '密封圈', 40],
    ]);
    // a hidden field's value in a sheet is named like any cell
    const hiddenCell = await workbookOf([
      [
        'x',
        [
          ['主题', '加急原因'],
          ['Hoses', 'why'],
        ],
      ],
    ]);
    const problems = dataOf<{ problems: Json[] }>(await upload(api('import'), hiddenCell, true)).problems;
    expect(problems).toEqual([{ row: 2, field: 'reason', message: '加急原因：在当前条件下隐藏，不能填写' }]);
  });
});

describe('the import template of an entity with a sub-table', () => {
  const api = (action: string): string => `/api/online/reqform/${action}`;
  /** The template as the caller downloads it, as a workbook to fill in. */
  async function template(url: string): Promise<ExcelJS.Workbook> {
    const response = await call('GET', url);
    expect(response.statusCode, response.body).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(response.rawPayload as unknown as ArrayBuffer);
    return workbook;
  }
  const bytesOf = async (workbook: ExcelJS.Workbook): Promise<Buffer> =>
    Buffer.from(await workbook.xlsx.writeBuffer());

  it('has a sheet per sub-table whose example line imports with the example row as downloaded', async () => {
    const workbook = await template('/api/biz/order/importTemplate');
    const visible = workbook.worksheets.filter((sheet) => sheet.state === 'visible');
    expect(visible.map((sheet) => sheet.name)).toEqual([expect.any(String), 'Purchase order - Lines']);
    const [head, example] = rowsOf(visible[1]);
    expect(head).toEqual([
      'Order no.',
      '#',
      'Product',
      'Quantity',
      'Unit price',
      'Status',
      'Buyer',
      'Delivery date',
    ]);
    // the example line belongs to the example order (its label), with a value for every column
    const [master, masterExample] = rowsOf(visible[0]);
    expect(example?.[0]).toBe(masterExample?.[master?.indexOf('Order no.') ?? -1]);
    expect(example?.slice(1, 4)).toEqual([1, expect.any(String), 1]);
    expect(example?.[5]).toBe('正常'); // the user_status dictionary's first label
    expect(example?.[6]).toEqual(expect.any(String)); // a user's label
    // the status column has the dictionary's dropdown
    const validation = (
      visible[1] as unknown as { dataValidations: { model: Record<string, { formulae?: string[] }> } }
    ).dataValidations.model;
    expect(Object.entries(validation).some(([range]) => range.startsWith('F2'))).toBe(true);

    const before = await count('biz_order_lines');
    const imported = await upload('/api/biz/order/import', await bytesOf(workbook));
    expect(imported.statusCode, imported.body).toBe(200);
    expect(dataOf(imported)).toMatchObject({ imported: 1, problemCount: 0 });
    expect(await count('biz_order_lines')).toBe(before + 1);
  });

  it('a published form: the template filled in (two rows, three lines) imports, and the records read back with their lines', async () => {
    const workbook = await template('/api/online/reqform/importTemplate');
    const [main, lines] = workbook.worksheets.filter((sheet) => sheet.state === 'visible');
    expect(lines?.name).toBe('请购单 - 明细');
    expect(rowsOf(main)[0]).toEqual(['主题', '加急', '加急原因']);
    expect(rowsOf(lines)[0]).toEqual(['主题', '#', '物品', '数量']);
    // filled in as a user would: the example rows overwritten, more added below
    if (!main || !lines) throw new Error('the template has its two sheets');
    main.getRow(2).values = ['阀门更换', '否', null];
    main.getRow(3).values = ['滤芯采购', '是', '设备停机'];
    lines.getRow(2).values = ['阀门更换', 1, '闸阀', 4];
    lines.getRow(3).values = ['滤芯采购', 1, '滤芯', 12];
    lines.getRow(4).values = ['滤芯采购', 2, '密封垫', 30];
    const file = await bytesOf(workbook);
    const dry = await upload(api('import'), file, true);
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dataOf(dry)).toMatchObject({ total: 2, problemCount: 0 });
    const imported = await upload(api('import'), file);
    expect(imported.statusCode, imported.body).toBe(200);
    expect(dataOf(imported)).toMatchObject({ imported: 2 });
    const read = async (subject: string): Promise<Json | undefined> => {
      const [found] = dataOf<{ records: Json[] }>(
        await call('GET', api(`query?subject=${encodeURIComponent(subject)}`)),
      ).records;
      return dataOf<{ records: Json[] }>(await call('GET', api(`query?id=${String(found?.id)}`))).records[0];
    };
    expect(await read('阀门更换')).toMatchObject({ urgent: false, lines: [{ item: '闸阀', qty: 4 }] });
    expect(await read('滤芯采购')).toMatchObject({
      urgent: true,
      reason: '设备停机',
      lines: [
        { item: '滤芯', qty: 12 },
        { item: '密封垫', qty: 30 },
      ],
    });
  });
});

describe('a published form whose label is its key (no text field): issue 40 point 10', () => {
  const api = (action: string): string => `/api/online/keyform/${action}`;
  const content: Json = {
    title: 'Meter readings',
    'x-ui': { titles: { zh: '抄表记录' } },
    required: ['meterNo'],
    properties: {
      meterNo: { type: 'integer', title: 'Meter', minimum: 1, 'x-ui': { titles: { zh: '表号' } } },
      readings: {
        type: 'array',
        title: 'Readings',
        'x-detail': {},
        'x-ui': { titles: { zh: '读数' } },
        items: {
          type: 'object',
          required: ['value'],
          properties: {
            value: { type: 'integer', title: 'Value', minimum: 0, 'x-ui': { titles: { zh: '读数值' } } },
          },
        },
      },
    },
  };

  it('下载模板 answers the template (no 500), tied by the first field an import gives; its export imports back', async () => {
    const added = await call('POST', '/api/generator/form/add', {
      formCode: 'keyform',
      formName: 'Meter readings',
      formContent: content,
    });
    expect(added.statusCode, added.body).toBe(200);
    const published = await call('POST', '/api/generator/form/publish', {
      id: dataOf(added).id,
      menuParent: 'formgenerator',
      roles: [],
    });
    expect(published.statusCode, published.body).toBe(200);

    const template = await call('GET', api('importTemplate'));
    expect(template.statusCode, template.body).toBe(200);
    const sheets = await sheetsOf(template.rawPayload);
    expect(sheets[0]?.rows[0]).toEqual(['表号']);
    expect(sheets[1]).toMatchObject({
      name: '抄表记录 - 读数',
      rows: [
        ['表号', '#', '读数值'],
        [1, 1, 0],
      ],
    });
    // the template as downloaded imports, with its example line
    const dry = await upload(api('import'), template.rawPayload, true);
    expect(dataOf(dry)).toMatchObject({ total: 1, problemCount: 0 });

    expect(
      (await call('POST', api('add'), { meterNo: 7, readings: [{ value: 120 }, { value: 135 }] })).statusCode,
    ).toBe(200);
    const exported = await call('POST', api('export'), {});
    expect(exported.statusCode).toBe(200);
    expect((await sheetsOf(exported.rawPayload))[1]?.rows).toEqual([
      ['表号', '#', '读数值'],
      // the tie column holds the master's text, as a label would
      ['7', 1, 120],
      ['7', 2, 135],
    ]);
    const imported = await upload(api('import'), exported.rawPayload);
    expect(imported.statusCode, imported.body).toBe(200);
    expect(dataOf(imported)).toMatchObject({ imported: 1 });
    const rows = await t.sql<{ meter: number | string; value: number | string }>(
      `select p.meter_no as meter, l.value from online_keyform_readings l join online_keyform p on p.id = l.parent_id
       order by p.id, l.seq`,
    );
    expect(rows.map((row) => [Number(row.meter), Number(row.value)])).toEqual([
      [7, 120],
      [7, 135],
      [7, 120],
      [7, 135],
    ]);
  });
});
