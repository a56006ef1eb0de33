import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchemaFileError, type EntityDef } from '../../src/engine/index.js';
import { Api, data, type ErrorBody, type Page } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { fileUpload } from '../support/multipart.js';

/**
 * A schema with computed fields (x-computed, stored and virtual) and a cross-field rule
 * (x-rules), on the real app and database (PGlite, or PostgreSQL with TEST_DATABASE_URL): every
 * write path computes and checks, the list sorts and filters by the stored field.
 */
const SCHEMAS = fileURLToPath(new URL('../../schemas', import.meta.url));
const dirs: string[] = [];
const schemasWith = (name: string, json: unknown): string => {
  const dir = mkdtempSync(join(tmpdir(), 'ecobid-rules-'));
  dirs.push(dir);
  cpSync(SCHEMAS, dir, { recursive: true });
  writeFileSync(join(dir, `${name}.schema.json`), JSON.stringify(json, null, 2));
  return dir;
};

const TENDER = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Tender',
  type: 'object',
  'x-entity': { api: 'biz/tender', table: 'biz_tender', key: 'id', label: 'name' },
  required: ['name'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', readOnly: true },
    name: { type: 'string', title: 'Name', minLength: 1, maxLength: 64 },
    budget: { type: 'string', format: 'decimal', title: 'Budget', 'x-decimal': { precision: 18, scale: 2 } },
    lots: { type: 'string', format: 'int64', title: 'Lots' },
    publishDate: { type: 'string', format: 'date', title: 'Publish date' },
    deadline: { type: 'string', format: 'date-time', title: 'Deadline' },
    budgetWithTax: {
      type: 'string',
      format: 'decimal',
      title: 'Budget with tax',
      'x-decimal': { precision: 18, scale: 2 },
      'x-computed': { expression: 'budget * 1.13', stored: true },
    },
    lotsDoubled: { type: 'string', format: 'int64', 'x-computed': { expression: 'lots * 2', stored: true } },
    perLot: { type: 'number', title: 'Per lot', 'x-computed': { expression: 'round(budget / lots, 2)' } },
    taxAmount: {
      type: 'string',
      format: 'decimal',
      title: 'Tax',
      'x-decimal': { precision: 18, scale: 2 },
      'x-computed': { expression: 'budget * 0.13' },
    },
  },
  'x-rules': [{ expression: 'deadline >= publishDate', message: 'validation.invalid', fields: ['deadline'] }],
};

let t: TestApp;
let api: Api;
let tender: EntityDef;
beforeAll(async () => {
  t = await startTestApp({ env: { SCHEMAS_DIR: schemasWith('tender', TENDER) } });
  api = new Api(t);
  tender = t.app.ctx.registry.require('tender');
});
afterAll(async () => {
  await t?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const errors = (response: LightMyRequestResponse): Record<string, string> =>
  Object.fromEntries((response.json<ErrorBody>().errors ?? []).map((error) => [error.field, error.message]));

describe('computed fields and cross-field rules of a schema', () => {
  let id: number;
  it('computes on add, exactly, and answers with the stored and virtual values', async () => {
    const added = await api.add(tender, {
      name: 'Roads',
      budget: '0.50',
      lots: '3',
      publishDate: '2026-03-01',
      deadline: '2026-03-01T00:00:00Z',
      // a computed value sent by a client is dropped
      budgetWithTax: '999.00',
    });
    expect(added.statusCode, added.body).toBe(200);
    const row = data(added);
    id = Number(row.id);
    // 0.50 × 1.13 = 0.565, rounded half up at scale 2: not 0.56 as a double would give
    expect(row).toMatchObject({ budgetWithTax: '0.57', lotsDoubled: '6', perLot: 0.17 });
    const stored = await t.sql<{ budget_with_tax: string }>(
      `select budget_with_tax::text from biz_tender where id = ${id}`,
    );
    expect(stored[0]?.budget_with_tax).toBe('0.57');
  });

  it('refuses a broken rule on add and update, naming the field in the reader language', async () => {
    const bad = await api.call({
      method: 'POST',
      url: `/api/${tender.api}/add`,
      payload: { name: 'Late', publishDate: '2026-03-02', deadline: '2026-03-01T23:59:59Z' },
      headers: { 'accept-language': 'zh' },
    });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(errors(bad))).toEqual(['/deadline']);
    expect(errors(bad)['/deadline']).toMatch(/[\u4e00-\u9fff]/);
    const before = data(await api.get(`/api/${tender.api}/query`, { id: String(id) }));
    const record = (before as unknown as Page).records[0] ?? {};
    const refused = await api.update(tender, { id, version: record.version, publishDate: '2026-04-01' });
    expect(refused.statusCode).toBe(400);
    expect(Object.keys(errors(refused))).toEqual(['/deadline']);
  });

  it('recomputes on update from the record as it will be', async () => {
    const page = data(await api.get(`/api/${tender.api}/query`, { id: String(id) })) as unknown as Page;
    const updated = await api.update(tender, { id, version: page.records[0]?.version, budget: '100.10' });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(data(updated)).toMatchObject({ budgetWithTax: '113.11', lotsDoubled: '6', perLot: 33.37 });
    // Clearing the budget clears what is computed from it.
    const cleared = await api.update(tender, { id, version: data(updated).version, budget: null });
    expect(data(cleared)).toMatchObject({ budgetWithTax: null, perLot: null });
  });

  it('sorts and filters by a stored computed field, and lists virtual ones', async () => {
    for (const [name, budget] of [
      ['B', '10.00'],
      ['C', '20.00'],
    ] as const) {
      const added = await api.add(tender, { name, budget, lots: '1' });
      expect(added.statusCode, added.body).toBe(200);
    }
    const sorted = data<Page>(await api.get(`/api/${tender.api}/query`, { sort: '-budgetWithTax' })).records;
    expect(sorted.slice(0, 2).map((row) => [row.name, row.budgetWithTax, row.perLot])).toEqual([
      ['C', '22.60', 20],
      ['B', '11.30', 10],
    ]);
    const filtered = data<Page>(
      await api.get(`/api/${tender.api}/query`, { budgetWithTax: '22.60' }),
    ).records;
    expect(filtered.map((row) => row.name)).toEqual(['C']);
    const unsortable = await api.get(`/api/${tender.api}/query`, { sort: 'perLot' });
    expect(unsortable.statusCode).toBe(400);
  });

  it('exports virtual computed fields with their computed values, beside the stored ones', async () => {
    const exported = await api.call({
      method: 'POST',
      url: `/api/${tender.api}/export`,
      payload: { sort: 'name' },
      headers: { 'accept-language': 'en' },
    });
    expect(exported.statusCode, exported.body).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    const rows: unknown[][] = [];
    sheet?.eachRow((row) => rows.push(Array.isArray(row.values) ? row.values.slice(1) : []));
    const [headers = [], ...records] = rows;
    const columnOf = (title: string): number => {
      const index = headers.indexOf(title);
      expect(index, `${title} in ${headers.join(', ')}`).toBeGreaterThanOrEqual(0);
      return index;
    };
    const [name, stored, perLot, tax] = ['Name', 'Budget with tax', 'Per lot', 'Tax'].map(columnOf);
    const byName = new Map(records.map((row) => [row[name ?? 0], row]));
    // exact decimals and numbers are number cells, as a stored field's are
    expect(
      [byName.get('B'), byName.get('C')].map((row) => [
        row?.[stored ?? 0],
        row?.[perLot ?? 0],
        row?.[tax ?? 0],
      ]),
    ).toEqual([
      [11.3, 10, 1.3],
      [22.6, 20, 2.6],
    ]);
    // a record without a budget: the computed cells are empty
    expect(byName.get('Roads')?.[tax ?? 0] ?? null).toBeNull();
  });

  it('computes and checks every row of an import', async () => {
    const sheet = (rows: string[][]): Buffer =>
      Buffer.from(rows.map((row) => row.map((cell) => `"${cell}"`).join(',')).join('\n'));
    const upload = (bytes: Buffer): Promise<LightMyRequestResponse> => {
      const form = fileUpload('tenders.csv', bytes);
      return api.call({
        method: 'POST',
        url: `/api/${tender.api}/import`,
        payload: form.payload,
        headers: form.headers,
      });
    };
    const refused = await upload(
      sheet([
        ['name', 'budget', 'publishDate', 'deadline'],
        ['Import ok', '1.00', '2026-01-01', '2026-01-02T00:00:00Z'],
        ['Import late', '1.00', '2026-01-05', '2026-01-02T00:00:00Z'],
      ]),
    );
    expect(refused.statusCode, refused.body).toBe(400);
    // the late row is named, with its field; nothing of the file is written
    expect(Object.keys(errors(refused))).toEqual(['/3/deadline']);
    const imported = await upload(
      sheet([
        ['name', 'budget'],
        ['Imported', '2.00'],
      ]),
    );
    expect(imported.statusCode, imported.body).toBe(200);
    const rows = data<Page>(await api.get(`/api/${tender.api}/query`, { name: 'Imported' })).records;
    expect(rows.map((row) => row.budgetWithTax)).toEqual(['2.26']);
  });
});

describe('a schema with a bad expression', () => {
  it('stops start-up naming the property', async () => {
    const broken = {
      ...TENDER,
      properties: {
        ...TENDER.properties,
        budgetWithTax: { ...TENDER.properties.budgetWithTax, 'x-computed': { expression: 'budget * tax' } },
      },
    };
    const start = startTestApp({ env: { SCHEMAS_DIR: schemasWith('tender', broken) } });
    await expect(start).rejects.toThrow(SchemaFileError);
    await expect(start).rejects.toThrow(
      /tender\.schema\.json at \/properties\/budgetWithTax\/x-computed\/expression: x-computed of "budgetWithTax": "tax" is not a field/,
    );
  });
});
