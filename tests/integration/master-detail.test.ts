import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, data, errorFields, type Page, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Master-detail (x-detail): an order with its lines, dropped into a copy of schemas/ like any
 * entity. The lines live in a child table, are saved with the order in one transaction, replaced
 * as a set under the order's version, read back in order on a detail read, deleted with the
 * order and exported on a second sheet.
 */
const SCHEMAS = fileURLToPath(new URL('../../schemas', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/schemas/bizorder.schema.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ecobid-detail-'));

describe('a master-detail entity', () => {
  let t: TestApp;
  let api: Api;
  let adminId: number;
  const url = (action: string): string => `/api/biz/order/${action}`;
  const count = async (text: string): Promise<number> =>
    Number((await t.sql<{ n: string | number }>(`select count(*) as n from ${text}`))[0]?.n);

  beforeAll(async () => {
    cpSync(SCHEMAS, dir, { recursive: true });
    cpSync(FIXTURE, join(dir, 'bizorder.schema.json'));
    t = await startTestApp({ env: { SCHEMAS_DIR: dir } });
    api = new Api(t);
    const users = data<Page>(await api.get('/api/admin/sysuser/query', { username: 'admin' })).records;
    adminId = Number(users.find((user) => user.username === 'admin')?.id);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const line = (productName: string, qty: number, extra: Row = {}): Row => ({ productName, qty, ...extra });
  let order: Row;

  it('creates the child table with the parent key, cascade delete, order and tenant columns', async () => {
    const columns = await t.sql<{ column_name: string; data_type: string; is_nullable: string }>(
      "select column_name, data_type, is_nullable from information_schema.columns where table_name = 'biz_order_lines' order by ordinal_position",
    );
    expect(columns.map((c) => [c.column_name, c.data_type])).toEqual([
      ['id', 'bigint'],
      ['parent_id', 'bigint'],
      ['seq', 'integer'],
      ['tenant_code', 'text'],
      ['product_name', 'text'],
      ['qty', 'bigint'],
      ['price', 'double precision'],
      ['status', 'text'],
      ['buyer_id', 'bigint'],
      ['delivery_date', 'date'],
    ]);
    const parentColumns = await t.sql<{ column_name: string }>(
      "select column_name from information_schema.columns where table_name = 'biz_order'",
    );
    expect(parentColumns.map((c) => c.column_name)).not.toContain('lines');
    const fks = await t.sql<{ confdeltype: string; target: string }>(
      `select c.confdeltype, t.relname as target from pg_constraint c join pg_class t on t.oid = c.confrelid
       where c.conrelid = 'biz_order_lines'::regclass and c.contype = 'f'`,
    );
    expect(fks).toEqual([{ confdeltype: 'c', target: 'biz_order' }]);
  });

  it('adds an order with its lines in one call and answers them in order', async () => {
    const response = await api.post(url('add'), {
      orderNo: 'PO-1',
      lines: [
        line('Pump', 2, { price: 120.5, status: '1', buyerId: adminId, deliveryDate: '2026-03-01' }),
        line('Valve', 5),
        line('Filter', 1, { price: 8 }),
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    order = data(response);
    expect(order.lines).toEqual([
      {
        productName: 'Pump',
        qty: 2,
        price: 120.5,
        status: '1',
        buyerId: adminId,
        deliveryDate: '2026-03-01',
      },
      { productName: 'Valve', qty: 5 },
      { productName: 'Filter', qty: 1, price: 8 },
    ]);
    const stored = await t.sql<{ seq: number; product_name: string; tenant_code: string }>(
      'select seq, product_name, tenant_code from biz_order_lines where parent_id = $1 order by seq',
      [order.id],
    );
    expect(stored).toEqual([
      { seq: 1, product_name: 'Pump', tenant_code: 'default' },
      { seq: 2, product_name: 'Valve', tenant_code: 'default' },
      { seq: 3, product_name: 'Filter', tenant_code: 'default' },
    ]);
  });

  it('reads the lines on a detail read (a query by the key) and not in a list', async () => {
    const list = data<Page>(await api.get(url('query')));
    expect(list.records).toHaveLength(1);
    expect(list.records[0]).not.toHaveProperty('lines');
    const detail = data<Page>(await api.get(url('query'), { id: String(order.id) }));
    expect((detail.records[0]?.lines as Row[]).map((row) => row.productName)).toEqual([
      'Pump',
      'Valve',
      'Filter',
    ]);
  });

  it('refuses a bad row naming the row and the column, and writes nothing', async () => {
    const before = [await count('biz_order'), await count('biz_order_lines')];
    const badType = await api.post(url('add'), {
      orderNo: 'PO-2',
      lines: [line('Pump', 1), line('Valve', 0), { qty: 'many' }],
    });
    expect(badType.statusCode, badType.body).toBe(400);
    expect(errorFields(badType).sort()).toEqual(['/lines/1/qty', '/lines/2/productName', '/lines/2/qty']);
    const badRefs = await api.post(url('add'), {
      orderNo: 'PO-2',
      lines: [line('Pump', 1), line('Valve', 1, { status: 'nope', buyerId: 987_654 })],
    });
    expect(badRefs.statusCode, badRefs.body).toBe(400);
    expect(errorFields(badRefs).sort()).toEqual(['/lines/1/buyerId', '/lines/1/status']);
    const extra = await api.post(url('add'), {
      orderNo: 'PO-2',
      lines: [line('Pump', 1, { colour: 'red' })],
    });
    expect(extra.statusCode).toBe(400);
    expect(errorFields(extra)).toEqual(['/lines/0/colour']);
    // the parent is fine, the unique order number clashes: the lines are not left behind
    const clash = await api.post(url('add'), { orderNo: 'PO-1', lines: [line('Pump', 1)] });
    expect(clash.statusCode).toBe(409);
    expect([await count('biz_order'), await count('biz_order_lines')]).toEqual(before);
  });

  it('replaces the set of lines on update, under the version check', async () => {
    const response = await api.put(url('update'), {
      id: order.id,
      version: order.version,
      lines: [line('Filter', 4), line('Pump', 2, { price: 99 })],
    });
    expect(response.statusCode, response.body).toBe(200);
    const updated = data(response);
    expect(updated.version).toBe(Number(order.version) + 1);
    expect(updated.lines).toEqual([
      { productName: 'Filter', qty: 4 },
      { productName: 'Pump', qty: 2, price: 99 },
    ]);
    expect(await count('biz_order_lines')).toBe(2);

    const stale = await api.put(url('update'), { id: order.id, version: order.version, lines: [] });
    expect(stale.statusCode).toBe(409);
    expect(errorFields(stale)).toEqual(['/version']);
    const badRow = await api.put(url('update'), {
      id: order.id,
      version: updated.version,
      note: 'changed',
      lines: [line('Pump', 1), line('', 1)],
    });
    expect(badRow.statusCode).toBe(400);
    expect(errorFields(badRow)).toEqual(['/lines/1/productName']);
    const detail = data<Page>(await api.get(url('query'), { id: String(order.id) })).records[0];
    expect(detail).toMatchObject({ version: updated.version, note: null });
    expect((detail?.lines as Row[]).map((row) => row.productName)).toEqual(['Filter', 'Pump']);

    // an update without the field keeps the lines; null empties them
    const noteOnly = data(
      await api.put(url('update'), { id: order.id, version: updated.version, note: 'urgent' }),
    );
    expect((noteOnly.lines as Row[]).length).toBe(2);
    const emptied = data(
      await api.put(url('update'), { id: order.id, version: noteOnly.version, lines: null }),
    );
    expect(emptied.lines).toEqual([]);
    order = data(
      await api.put(url('update'), {
        id: order.id,
        version: emptied.version,
        lines: [line('Pump', 3, { status: '1', buyerId: adminId }), line('Valve', 7, { price: 1.25 })],
      }),
    );
    expect((order.lines as Row[]).length).toBe(2);
  });

  it('exports the lines on a second sheet, with labels', async () => {
    const second = await api.post(url('add'), { orderNo: 'PO-3', lines: [line('Gasket', 10)] });
    expect(second.statusCode, second.body).toBe(200);
    const response = await api.post(url('export'), { sort: 'orderNo' });
    expect(response.statusCode).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(response.rawPayload as unknown as ArrayBuffer);
    expect(workbook.worksheets).toHaveLength(2);
    const rowsOf = (index: number): unknown[][] => {
      const rows: unknown[][] = [];
      workbook.worksheets[index]?.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
      return rows;
    };
    const [orderHeaders = [], ...orders] = rowsOf(0);
    expect(orderHeaders).not.toContain('Lines');
    expect(orders.map((row) => row[orderHeaders.indexOf('Order no.')])).toEqual(['PO-1', 'PO-3']);
    const [headers = [], ...lines] = rowsOf(1);
    expect(headers).toEqual([
      'Order no.',
      '#',
      'Product',
      'Quantity',
      'Unit price',
      'Status',
      'Buyer',
      'Delivery date',
    ]);
    expect(lines.map((row) => row.slice(0, 4))).toEqual([
      ['PO-1', 1, 'Pump', 3],
      ['PO-1', 2, 'Valve', 7],
      ['PO-3', 1, 'Gasket', 10],
    ]);
    const status = lines[0]?.[5];
    expect(typeof status === 'string' && status !== '1').toBe(true); // the dictionary's label
    expect(lines[0]?.[6]).toBe('admin'); // the user's label
    expect(lines[1]?.[4]).toBe(1.25);
  });

  it('deletes the lines with their order', async () => {
    const response = await api.post(url('delete'), undefined, { id: String(order.id) });
    expect(response.statusCode, response.body).toBe(200);
    const left = await t.sql<{ n: string | number }>(
      'select count(*) as n from biz_order_lines where parent_id = $1',
      [order.id],
    );
    expect(Number(left[0]?.n)).toBe(0);
    expect(await count('biz_order_lines')).toBe(1); // PO-3's line stays
  });
});
