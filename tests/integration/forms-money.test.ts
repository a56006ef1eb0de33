/**
 * The form designer's 金额 field (issue 32 point 3, money in designed forms): the palette's money
 * item (designer/model.ts paletteSchema) is an exact decimal. Checked and published through the
 * designer's API, its column is numeric(18,2); the published form's API takes and answers text,
 * refuses a float, a third fraction digit and a value past the precision naming the field, sorts
 * by number and the report designer sums it exactly (0.1 + 0.2 = 0.30). PGlite, and PostgreSQL
 * with TEST_DATABASE_URL.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paletteSchema } from '../../src/admin/features/forms/designer/model.js';
import type { ReportResult } from '../../src/engine/index.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Json = Record<string, unknown>;
const dataOf = <T = Json>(response: LightMyRequestResponse): T => (response.json() as Json).data as T;
const errorFields = (response: LightMyRequestResponse): string[] =>
  ((response.json() as { errors?: { field: string }[] }).errors ?? []).map((error) => error.field);
const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
  t.request({
    method,
    url,
    headers: t.auth,
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });

describe('a designed form with a 金额 field', () => {
  const content = {
    title: 'Expense claim',
    type: 'object',
    required: ['item'],
    properties: {
      item: { type: 'string', title: 'Item', maxLength: 40 },
      amount: paletteSchema('money', '金额'),
    },
  };

  it('publishes as numeric(18,2): exact on the wire, validated on the server, summed exactly', async () => {
    expect(content.properties.amount).toEqual({
      type: 'string',
      title: '金额',
      format: 'decimal',
      'x-decimal': { precision: 18, scale: 2 },
    });
    const added = await call('POST', '/api/generator/form/add', {
      formCode: 'expense',
      formName: 'Expense claim',
      formContent: content,
    });
    expect(added.statusCode, added.body).toBe(200);
    const id = dataOf(added).id;

    // The designer's check: valid as drawn; a scale past the precision is named.
    const checked = await call('POST', '/api/generator/form/check', { id, formContent: content });
    expect(dataOf(checked)).toMatchObject({ isValid: true, errors: [] });
    const badDigits = {
      ...content,
      properties: {
        ...content.properties,
        amount: { ...content.properties.amount, 'x-decimal': { precision: 2, scale: 4 } },
      },
    };
    const bad = dataOf<{ isValid: boolean; errors: { field: string }[] }>(
      await call('POST', '/api/generator/form/check', { id, formContent: badDigits }),
    );
    expect(bad.isValid).toBe(false);
    expect(bad.errors.map((error) => error.field).join(' ')).toContain('/formContent/properties/amount');

    const published = await call('POST', '/api/generator/form/publish', { id, menuParent: 'formgenerator' });
    expect(published.statusCode, published.body).toBe(200);
    const columns = await t.sql<{ data_type: string; numeric_precision: number; numeric_scale: number }>(
      "select data_type, numeric_precision, numeric_scale from information_schema.columns where column_name = 'amount' and table_name like '%expense%'",
    );
    expect(columns).toEqual([{ data_type: 'numeric', numeric_precision: 18, numeric_scale: 2 }]);

    const add = (item: string, amount: unknown) => call('POST', '/api/online/expense/add', { item, amount });
    const first = await add('taxi', '0.1');
    expect(first.statusCode, first.body).toBe(200);
    expect(dataOf(first).amount).toBe('0.10');
    expect((await add('bus', '0.2')).statusCode).toBe(200);
    const big = await add('plant', '1234567890123456.78');
    expect(big.statusCode, big.body).toBe(200);
    expect(dataOf(big).amount).toBe('1234567890123456.78');
    expect((await add('meal', '10')).statusCode).toBe(200);

    // Refused on the server, naming the field: a float, a third fraction digit, too many digits, text.
    for (const amount of [0.5, '1.005', '12345678901234567.00', 'ten']) {
      const refused = await add('bad', amount);
      expect(refused.statusCode, `${String(amount)}: ${refused.body}`).toBe(400);
      expect(errorFields(refused)).toEqual(['/amount']);
    }
    expect(await t.sql("select 1 from online_expense where item = 'bad'")).toEqual([]);

    // Listed as text and sorted by number (10 after 0.20, before the 16-digit amount).
    const listed = await call('GET', '/api/online/expense/query?sort=amount');
    expect(listed.statusCode, listed.body).toBe(200);
    expect(dataOf<{ records: Json[] }>(listed).records.map((row) => row.amount)).toEqual([
      '0.10',
      '0.20',
      '10.00',
      '1234567890123456.78',
    ]);
    const filtered = await call('GET', '/api/online/expense/query?amount=0.2');
    expect(dataOf<{ records: Json[] }>(filtered).records.map((row) => row.item)).toEqual(['bus']);

    // The report designer sums and averages exactly.
    const report = await call('POST', '/api/demo/reportdesigner/run', {
      entity: 'expense',
      dimensions: [],
      measures: ['sum:amount', 'avg:amount'],
      chartType: 'table',
      filters: { amount: ['0.1', '0.2'] },
    });
    expect(report.statusCode, report.body).toBe(200);
    expect(dataOf<ReportResult>(report).rows).toEqual([{ m0: '0.30', m1: '0.15' }]);
    const all = await call('POST', '/api/demo/reportdesigner/run', {
      entity: 'expense',
      dimensions: [],
      measures: ['sum:amount'],
      chartType: 'table',
    });
    expect(dataOf<ReportResult>(all).rows).toEqual([{ m0: '1234567890123467.08' }]);
  });
});
