/**
 * A designed form with a computed field and a cross-field rule (issue 34), through the forms API:
 * a bad expression is refused at check and publish naming the property; the published form's
 * add, update and import compute the field and check the rule.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
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
const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, language = 'zh') =>
  t.request({
    method,
    url,
    headers: { ...t.auth, 'accept-language': language },
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });
const fieldErrors = (response: LightMyRequestResponse): Record<string, string> =>
  Object.fromEntries(
    ((body(response).errors ?? []) as { field: string; message: string }[]).map((e) => [e.field, e.message]),
  );

const tripForm = (expression = 'amount * 1.06'): Json => ({
  title: 'Business trip',
  type: 'object',
  required: ['traveller'],
  properties: {
    traveller: { type: 'string', title: 'Traveller', maxLength: 40 },
    startDate: { type: 'string', format: 'date', title: 'Start' },
    endDate: { type: 'string', format: 'date', title: 'End' },
    amount: { type: 'string', format: 'decimal', title: 'Amount', 'x-decimal': { precision: 12, scale: 2 } },
    total: {
      type: 'string',
      format: 'decimal',
      title: 'Total with fee',
      'x-decimal': { precision: 12, scale: 2 },
      'x-computed': { expression, stored: true },
    },
  },
  'x-rules': [
    { expression: 'endDate >= startDate', message: '结束日期不能早于开始日期', fields: ['endDate'] },
  ],
});

describe('a designed form with a computed field and a rule', () => {
  let formId = 0;
  it('refuses a bad expression at check and at publish, naming the property', async () => {
    const added = await call('POST', '/api/generator/form/add', {
      formCode: 'trip',
      formName: 'Business trip',
      formContent: tripForm('amount * fee'),
    });
    expect(added.statusCode, added.body).toBe(200);
    formId = dataOf(added).id as number;
    const checked = await call('POST', '/api/generator/form/check', {
      id: formId,
      formContent: tripForm('amount *'),
    });
    const answer = dataOf<{ isValid: boolean; errors: { field: string; message: string }[] }>(checked);
    expect(answer.isValid).toBe(false);
    expect(answer.errors).toEqual([
      expect.objectContaining({
        field: '/formContent/properties/total/x-computed/expression',
        message: expect.stringContaining('x-computed of "total"'),
      }),
    ]);
    const refused = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
      roles: ['ROLE_SYS_BUYER'],
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(fieldErrors(refused)).toEqual({
      '/formContent/properties/total/x-computed/expression':
        'x-computed of "total": "fee" is not a field of this schema',
    });
  });

  it('publishes; add, update and import compute the total and check the rule', async () => {
    const saved = await call('PUT', '/api/generator/form/update', {
      id: formId,
      version: dataOf<{ records: Json[] }>(await call('GET', `/api/generator/form/query?id=${formId}`))
        .records[0]?.version,
      formContent: tripForm(),
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const published = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
      roles: ['ROLE_SYS_BUYER'],
    });
    expect(published.statusCode, published.body).toBe(200);
    const api = (dataOf(published) as { api: string }).api;

    const added = await call('POST', `/api/${api}/add`, {
      traveller: 'Wang',
      startDate: '2026-05-01',
      endDate: '2026-05-03',
      amount: '1000.25',
    });
    expect(added.statusCode, added.body).toBe(200);
    // 1000.25 × 1.06 = 1060.265 → 1060.27 (half up, exactly)
    expect(dataOf(added)).toMatchObject({ total: '1060.27' });

    const late = await call('POST', `/api/${api}/add`, {
      traveller: 'Li',
      startDate: '2026-05-03',
      endDate: '2026-05-01',
    });
    expect(late.statusCode).toBe(400);
    expect(fieldErrors(late)).toEqual({ '/endDate': '结束日期不能早于开始日期' });

    const row = dataOf(added);
    const updated = await call('PUT', `/api/${api}/update`, {
      id: row.id,
      version: row.version,
      amount: '10',
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(dataOf(updated)).toMatchObject({ total: '10.60' });
    const broken = await call('PUT', `/api/${api}/update`, {
      id: row.id,
      version: dataOf(updated).version,
      endDate: '2026-04-30',
    });
    expect(broken.statusCode).toBe(400);
    expect(Object.keys(fieldErrors(broken))).toEqual(['/endDate']);

    const sheet = (rows: string[][]): Buffer =>
      Buffer.from(rows.map((cells) => cells.map((cell) => `"${cell}"`).join(',')).join('\n'));
    const upload = (bytes: Buffer): Promise<LightMyRequestResponse> => {
      const form = fileUpload('trips.csv', bytes);
      return t.request({
        method: 'POST',
        url: `/api/${api}/import`,
        payload: form.payload,
        headers: { ...t.auth, ...form.headers },
      });
    };
    const refused = await upload(
      sheet([
        ['traveller', 'startDate', 'endDate', 'amount'],
        ['Zhao', '2026-06-02', '2026-06-01', '5'],
      ]),
    );
    expect(refused.statusCode).toBe(400);
    expect(Object.keys(fieldErrors(refused))).toEqual(['/2/endDate']);
    const imported = await upload(
      sheet([
        ['traveller', 'amount'],
        ['Zhao', '5'],
      ]),
    );
    expect(imported.statusCode, imported.body).toBe(200);
    const listed = dataOf<{ records: Json[] }>(await call('GET', `/api/${api}/query?traveller=Zhao`));
    expect(listed.records.map((record) => record.total)).toEqual(['5.30']);
  });
});
