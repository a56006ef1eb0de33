import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDef, ReportResult } from '../../src/engine/index.js';
import { buildApp } from '../../src/server/app.js';
import { readConfig } from '../../src/server/lib/config.js';
import { Api, data, errorFields, type Page, type Row } from '../support/api.js';
import { ADMIN_PASSWORD, passwordGrant, startTestApp, type TestApp } from '../support/app.js';
import { throughStream } from '../support/xlsx-rows.js';

/**
 * Money is exact (issue 32 point 3) and 64-bit integers keep every digit (issue 33 point 6):
 * a decimal field (format decimal, x-decimal precision and scale) is numeric(p,s) in the
 * table and a string on the wire; an int64 field is bigint and a string. Runs on PGlite, and on
 * PostgreSQL with TEST_DATABASE_URL.
 */

const SCHEMAS = fileURLToPath(new URL('../../schemas', import.meta.url));
const temporaryDirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ecobid-${prefix}-`));
  temporaryDirs.push(dir);
  return dir;
}
type Json = Record<string, unknown>;
const writeJson = (file: string, json: unknown): void =>
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);

afterAll(() => {
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
});

function multipart(fileName: string, bytes: Buffer): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----ecobid${Math.random().toString(16).slice(2)}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A snowflake-keyed entity with a decimal amount, dropped into a copy of schemas/. */
const LEDGER = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Ledger entry',
  type: 'object',
  'x-entity': { api: 'biz/ledger', table: 'biz_ledger', key: 'id', label: 'memo' },
  required: ['id', 'memo'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'int64', title: 'ID' },
    memo: { type: 'string', title: 'Memo', maxLength: 64 },
    amount: {
      type: 'string',
      format: 'decimal',
      title: 'Amount',
      'x-decimal': { precision: 10, scale: 2, minimum: '-100000', maximum: '99999999.99' },
    },
    rate: { type: 'string', format: 'decimal', title: 'Rate', 'x-decimal': { precision: 6, scale: 4 } },
    reference: { type: 'string', format: 'int64', title: 'Reference' },
    quantity: { type: 'integer', title: 'Quantity' },
    lines: {
      type: 'array',
      title: 'Lines',
      'x-detail': {},
      items: {
        type: 'object',
        properties: {
          price: {
            type: 'string',
            format: 'decimal',
            title: 'Price',
            'x-decimal': { precision: 8, scale: 2, minimum: '0' },
          },
        },
      },
    },
  },
};

describe('purchase budgets are exact decimals', () => {
  let t: TestApp;
  let api: Api;
  let purchase: EntityDef;
  const url = (action: string): string => `/api/${purchase.api}/${action}`;

  beforeAll(async () => {
    t = await startTestApp();
    api = new Api(t);
    purchase = t.app.ctx.registry.require('purchase');
  });
  afterAll(async () => {
    await t?.close();
  });

  const add = (title: string, budget: unknown): Promise<LightMyRequestResponse> =>
    api.add(purchase, { title, buyerName: 'Exact Buyer', budget });

  it('stores numeric(18,2) and answers 0.1 + 0.2 = 0.30 in the report designer, list and get', async () => {
    const columns = await t.sql<{ data_type: string; numeric_precision: number; numeric_scale: number }>(
      "select data_type, numeric_precision, numeric_scale from information_schema.columns where table_name = 'portal_purchase' and column_name = 'budget'",
    );
    expect(columns).toEqual([{ data_type: 'numeric', numeric_precision: 18, numeric_scale: 2 }]);
    const first = await add('DEC-SUM one', '0.1');
    expect(first.statusCode, first.body).toBe(200);
    expect(data(first).budget).toBe('0.10');
    expect((await add('DEC-SUM two', '0.2')).statusCode).toBe(200);

    const report = await api.post('/api/demo/reportdesigner/run', {
      entity: 'purchase',
      dimensions: [],
      measures: ['sum:budget', 'avg:budget'],
      chartType: 'table',
      filters: { title: 'DEC-SUM' },
    });
    expect(report.statusCode, report.body).toBe(200);
    expect(data<ReportResult>(report).rows).toEqual([{ m0: '0.30', m1: '0.15' }]);

    const listed = data<Page>(await api.query(purchase, { title: 'DEC-SUM', sort: 'budget' })).records;
    expect(listed.map((row) => row.budget)).toEqual(['0.10', '0.20']);
    const got = await api.get(url('query'), { id: String(data(first).id) });
    expect(data<Page>(got).records[0]?.budget).toBe('0.10');
    // An exact filter: 0.2 finds the row of 0.20, not a float's neighbour.
    const filtered = data<Page>(await api.query(purchase, { budget: '0.2' })).records;
    expect(filtered.map((row) => row.title)).toEqual(['DEC-SUM two']);
  });

  it('refuses more fraction digits than the scale (1.005 at scale 2), a float and a value below the minimum, naming the field', async () => {
    for (const budget of ['1.005', 0.5, '-1', '1e3', '12345678901234567.00']) {
      const response = await add('DEC-BAD', budget);
      expect(response.statusCode, `${String(budget)}: ${response.body}`).toBe(400);
      expect(errorFields(response)).toEqual(['/budget']);
    }
    const message = (await add('DEC-BAD', '1.005')).json<{ errors: { message: string }[] }>().errors[0]
      ?.message;
    expect(message).toMatch(/2/);
    expect(await t.sql("select 1 from portal_purchase where title = 'DEC-BAD'")).toEqual([]);
  });

  it('keeps an 18-digit amount through add, get, update, export and import', async () => {
    const amount = '1234567890123456.78';
    const added = await add('DEC-18 digits', amount);
    expect(added.statusCode, added.body).toBe(200);
    const row = data(added);
    expect(row.budget).toBe(amount);
    const updated = await api.update(purchase, {
      id: row.id,
      version: row.version,
      budget: '9999999999999999.99',
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(data(updated).budget).toBe('9999999999999999.99');
    const back = await api.update(purchase, { id: row.id, version: data(updated).version, budget: amount });
    expect(data(back).budget).toBe(amount);

    const exported = await api.export(purchase, { title: 'DEC-18' });
    expect(exported.statusCode).toBe(200);
    const bytes = exported.rawPayload;
    // A number cell with the exact digits, shown with a two-decimal number format.
    const [sheet] = await throughStream(bytes);
    const header = sheet?.[0]?.cells ?? [];
    const budgetColumn = header.findIndex((cell) => /budget|预算/i.test(cell));
    expect(budgetColumn).toBeGreaterThanOrEqual(0);
    expect(sheet?.[1]?.cells[budgetColumn]).toBe(amount);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const cell = workbook.worksheets[0]?.getRow(2).getCell(budgetColumn + 1);
    expect(cell?.type).toBe(ExcelJS.ValueType.Number);
    expect(cell?.numFmt).toBe('#,##0.00');

    // The sheet imports back: a number cell's exact digits, and a text cell too.
    const importSheet = new ExcelJS.Workbook();
    const rows = importSheet.addWorksheet('data');
    rows.addRow(['title', 'buyerName', 'budget']);
    rows.addRow(['DEC-IMPORT text', 'Exact Buyer', amount]);
    rows.addRow(['DEC-IMPORT number', 'Exact Buyer', 0.3]);
    const file = multipart('purchases.xlsx', Buffer.from(await importSheet.xlsx.writeBuffer()));
    const imported = await api.call({
      method: 'POST',
      url: url('import'),
      payload: file.payload,
      headers: file.headers,
    });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(data<{ imported: number }>(imported).imported).toBe(2);
    const importedRows = data<Page>(
      await api.query(purchase, { title: 'DEC-IMPORT', sort: 'budget' }),
    ).records;
    expect(importedRows.map((item) => item.budget)).toEqual(['0.30', amount]);

    // The exported file itself imports back with the same amount (a dry run: its rows exist).
    const again = multipart('export.xlsx', bytes);
    const dry = await api.call({
      method: 'POST',
      url: `${url('import')}?dryRun=true`,
      payload: again.payload,
      headers: again.headers,
    });
    expect(dry.statusCode, dry.body).toBe(200);
    const preview = data<{ preview?: { values: Record<string, string> }[] }>(dry).preview ?? [];
    expect(preview[0]?.values.budget).toBe(amount);

    // An import with more digits than the scale is a problem of its row, not a rounded value.
    const tooFine = new ExcelJS.Workbook();
    const fine = tooFine.addWorksheet('data');
    fine.addRow(['title', 'buyerName', 'budget']);
    fine.addRow(['DEC-IMPORT fine', 'Exact Buyer', '1.005']);
    const fineFile = multipart('fine.xlsx', Buffer.from(await tooFine.xlsx.writeBuffer()));
    const refused = await api.call({
      method: 'POST',
      url: url('import'),
      payload: fineFile.payload,
      headers: fineFile.headers,
    });
    const problems = refused.json<{
      data?: { problems?: { field: string }[] };
      errors?: { field: string }[];
    }>();
    expect(
      refused.statusCode === 200
        ? problems.data?.problems?.map((p) => p.field)
        : problems.errors?.map((e) => e.field.replace(/^.*\//, '')),
    ).toContain('budget');
    expect(await t.sql("select 1 from portal_purchase where title = 'DEC-IMPORT fine'")).toEqual([]);
  });
});

describe('a 64-bit key and a decimal of a dropped-in entity', () => {
  let t: TestApp;
  let api: Api;
  let ledger: EntityDef;
  const id = '1859123456789012345';

  beforeAll(async () => {
    const dir = tempDir('schemas');
    cpSync(SCHEMAS, dir, { recursive: true });
    writeJson(join(dir, 'ledger.schema.json'), LEDGER);
    t = await startTestApp({ env: { SCHEMAS_DIR: dir } });
    api = new Api(t);
    ledger = t.app.ctx.registry.require('ledger');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('round trips 1859123456789012345 through add, get, filter, update and delete', async () => {
    const added = await api.add(ledger, { id, memo: 'snowflake', amount: '12.5', rate: '0.1250' });
    expect(added.statusCode, added.body).toBe(200);
    expect(data(added)).toMatchObject({ id, amount: '12.50', rate: '0.1250' });
    expect(await t.sql('select id::text as id from biz_ledger')).toEqual([{ id }]);
    // Its neighbour within a double's precision is another record.
    const neighbour = await api.add(ledger, { id: '1859123456789012346', memo: 'neighbour' });
    expect(neighbour.statusCode, neighbour.body).toBe(200);

    const got = data<Page>(await api.query(ledger, { id })).records;
    expect(got.map((row) => [row.id, row.memo])).toEqual([[id, 'snowflake']]);
    const byAmount = data<Page>(await api.query(ledger, { amount: '12.50' })).records;
    expect(byAmount.map((row) => row.id)).toEqual([id]);

    const updated = await api.update(ledger, { id, version: 1, memo: 'renamed', amount: '-99.99' });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(data(updated)).toMatchObject({ id, memo: 'renamed', amount: '-99.99' });
    expect(errorFields(await api.update(ledger, { id, version: 2, amount: '-100000.01' }))).toEqual([
      '/amount',
    ]);
    expect(errorFields(await api.update(ledger, { id, version: 2, rate: '0.12345' }))).toEqual(['/rate']);
    expect(errorFields(await api.add(ledger, { id: '9223372036854775808', memo: 'too big' }))).toEqual([
      '/id',
    ]);

    // Detail rows keep the same rules, each cell named by its row.
    const badLine = await api.add(ledger, {
      id: '42',
      memo: 'lines',
      lines: [{ price: '1.5' }, { price: '-1' }],
    });
    expect(errorFields(badLine)).toEqual(['/lines/1/price']);
    const lines = await api.add(ledger, { id: '42', memo: 'lines', lines: [{ price: '2.5' }] });
    expect(lines.statusCode, lines.body).toBe(200);
    expect(data<Page>(await api.query(ledger, { id: '42' })).records[0]?.lines).toEqual([{ price: '2.50' }]);
    expect((await api.remove(ledger, ['42'])).statusCode).toBe(200);

    const deleted = await api.remove(ledger, [id]);
    expect(deleted.statusCode, deleted.body).toBe(200);
    const left = data<Page>(await api.query(ledger)).records as Row[];
    expect(left.map((row) => row.id)).toEqual(['1859123456789012346']);
  });
  it('sorts int64 and decimal columns by number (9, 10, 100), on every page and after a cursor', async () => {
    for (const [id, amount] of [
      ['9', '9'],
      ['100', '100'],
      ['10', '10'],
      ['1859123456789012345', '-0.5'],
    ] as const) {
      // a bigint column that is not the key, and an integer one, hold the same numbers
      const reference = id;
      const quantity = id.length > 3 ? 1_000_000 : Number(id);
      const added = await api.add(ledger, { id, memo: `order ${id}`, amount, reference, quantity });
      expect(added.statusCode, added.body).toBe(200);
    }
    const ids = async (query: Record<string, string>): Promise<unknown[]> =>
      data<Page>(await api.query(ledger, { memo: 'order', ...query })).records.map((row) => row.id);
    expect(await ids({ sort: 'id' })).toEqual(['9', '10', '100', '1859123456789012345']);
    expect(await ids({ sort: '-id' })).toEqual(['1859123456789012345', '100', '10', '9']);
    expect(await ids({ sort: 'amount' })).toEqual(['1859123456789012345', '9', '10', '100']);
    expect(await ids({ sort: '-amount' })).toEqual(['100', '10', '9', '1859123456789012345']);
    expect(await ids({ sort: 'reference' })).toEqual(['9', '10', '100', '1859123456789012345']);
    expect(await ids({ sort: '-reference' })).toEqual(['1859123456789012345', '100', '10', '9']);
    expect(await ids({ sort: 'quantity' })).toEqual(['9', '10', '100', '1859123456789012345']);
    expect(await ids({ sort: '-quantity,id' })).toEqual(['1859123456789012345', '100', '10', '9']);
    // Page by page: by offset, and each next page after the cursor of the one before.
    expect(await ids({ sort: 'id', pageSize: '1', currentPage: '2' })).toEqual(['10']);
    const walked: unknown[] = [];
    let after: string | undefined;
    for (let page = 1; page <= 4; page += 1) {
      const query = { memo: 'order', sort: 'id', pageSize: '1', currentPage: String(page) };
      const answer = data<Page & { cursor?: string }>(
        await api.query(ledger, { ...query, ...(after ? { after } : {}) }),
      );
      walked.push(...answer.records.map((row) => row.id));
      after = answer.cursor;
    }
    expect(walked).toEqual(['9', '10', '100', '1859123456789012345']);
    expect((await api.remove(ledger, ['9', '10', '100', '1859123456789012345'])).statusCode).toBe(200);
  });
});

/** A database kept across restarts: a data directory, or a PostgreSQL database of its own. */
async function persistentDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return { env: { DATA_DIR: tempDir('data') }, drop: async () => {} };
  const name = `ecobid_test_decimal_${process.pid}_${Date.now()}`;
  const run = async (statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await run(`create database ${name}`);
  const target = new URL(serverUrl);
  target.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: target.toString(), DATA_DIR: tempDir('data') },
    drop: () => run(`drop database if exists ${name} with (force)`),
  };
}

describe('a double precision column becomes a decimal at start-up', () => {
  let database: Awaited<ReturnType<typeof persistentDatabase>>;
  let dir: string;
  const schemaWith = (amount: Json): Json => ({
    ...LEDGER,
    properties: { ...LEDGER.properties, id: { type: 'integer', title: 'ID', readOnly: true }, amount },
    required: ['memo'],
  });

  beforeAll(async () => {
    database = await persistentDatabase();
    dir = tempDir('schemas');
    cpSync(SCHEMAS, dir, { recursive: true });
  });
  afterAll(async () => {
    await database?.drop();
  });

  const start = (): Promise<{ app: FastifyInstance }> =>
    buildApp({ config: readConfig({ ...database.env, SCHEMAS_DIR: dir, ADMIN_PASSWORD }) });

  async function startFails(): Promise<string> {
    const error: unknown = await start().then(
      async ({ app }) => {
        await app.close();
        return undefined;
      },
      (thrown: unknown) => thrown,
    );
    expect(error, 'start-up should have stopped').toBeInstanceOf(Error);
    return (error as Error).message;
  }

  async function run<T>(app: FastifyInstance, text: string): Promise<T[]> {
    const { CompiledQuery } = await import('kysely');
    return (await app.ctx.db.executeQuery<T>(CompiledQuery.raw(text))).rows;
  }

  it(
    'converts when every value survives exactly, and refuses naming the rows that do not',
    { timeout: 300_000 },
    async () => {
      writeJson(join(dir, 'ledger.schema.json'), schemaWith({ type: 'number', title: 'Amount' }));
      const first = await start();
      const signIn = await passwordGrant(first.app, 'admin', ADMIN_PASSWORD);
      expect(signIn.statusCode).toBe(200);
      await run(
        first.app,
        "insert into biz_ledger (memo, amount, tenant_code) values ('a', 0.1, 'default'), ('b', 1234567.25, 'default'), ('c', null, 'default'), ('d', 1.005, 'default')",
      );
      await first.app.close();

      // 1.005 does not survive at scale 2: start-up stops naming the table, column and row.
      writeJson(
        join(dir, 'ledger.schema.json'),
        schemaWith({
          type: 'string',
          format: 'decimal',
          title: 'Amount',
          'x-decimal': { precision: 12, scale: 2 },
        }),
      );
      const message = await startFails();
      expect(message).toContain('biz_ledger');
      expect(message).toContain('amount');
      expect(message).toContain('(1.005)');
      expect(message).not.toContain('(0.1)');

      // At scale 3 every value survives: converted, values exact.
      writeJson(
        join(dir, 'ledger.schema.json'),
        schemaWith({
          type: 'string',
          format: 'decimal',
          title: 'Amount',
          'x-decimal': { precision: 12, scale: 3 },
        }),
      );
      const second = await start();
      const column = await run<{ data_type: string; numeric_scale: number }>(
        second.app,
        "select data_type, numeric_scale from information_schema.columns where table_name = 'biz_ledger' and column_name = 'amount'",
      );
      expect(column).toEqual([{ data_type: 'numeric', numeric_scale: 3 }]);
      const signed = await passwordGrant(second.app, 'admin', ADMIN_PASSWORD);
      const authorization = `Bearer ${signed.json<{ access_token: string }>().access_token}`;
      const listed = await second.app.inject({
        method: 'GET',
        url: '/api/biz/ledger/query?sort=memo',
        headers: { authorization },
      });
      expect(listed.statusCode, listed.body).toBe(200);
      const records = (listed.json<{ data: Page }>().data.records as Row[]).map((row) => [
        row.memo,
        row.amount,
      ]);
      expect(records).toEqual([
        ['a', '0.100'],
        ['b', '1234567.250'],
        ['c', null],
        ['d', '1.005'],
      ]);
      await second.app.close();
      expect(JSON.parse(readFileSync(join(dir, 'ledger.schema.json'), 'utf8'))).toBeTruthy();
    },
  );
});
