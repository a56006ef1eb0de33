import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeEndpointName, type EntityDef } from '../../src/engine/index.js';
import { Api, data, type ErrorBody, type Page, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { fileUpload } from '../support/multipart.js';
import { BUDGET_FLOOR, STAGE_UNSET } from '../fixtures/computed-modules/tender-floor/server.js';
import { firstSheetRows } from '../support/workbook.js';

/**
 * Issue 34, on the real app and database (PGlite, or PostgreSQL with TEST_DATABASE_URL), with the
 * test's own schemas `tender` and `bid` (a bid refers to a tender; both keep a recycle bin):
 * - computed fields and rules over the record as it is written, not as it was sent: a module's
 *   beforeChange (tests/fixtures/computed-modules/tender-floor raises a budget below 1000.00 to it)
 *   and the x-auto values the server fills come before the stored computed fields are computed and
 *   the rules checked, on add, update and import;
 * - the recycle bin's page, a tree and an export show records as a list does (virtual computed
 *   fields, afterRead);
 * - references across the bin: a binned record is gone for the records referring to it, and a
 *   binned referrer holds nothing back.
 */
const SCHEMAS = fileURLToPath(new URL('../../schemas', import.meta.url));
let dir: string | undefined;

const TENDER = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Tender',
  type: 'object',
  'x-entity': { api: 'biz/tender', table: 'biz_tender', key: 'id', label: 'name', softDelete: true },
  required: ['name'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', readOnly: true },
    name: { type: 'string', title: 'Name', minLength: 1, maxLength: 64 },
    budget: { type: 'string', format: 'decimal', title: 'Budget', 'x-decimal': { precision: 18, scale: 2 } },
    budgetWithTax: {
      type: 'string',
      format: 'decimal',
      title: 'Budget with tax',
      'x-decimal': { precision: 18, scale: 2 },
      'x-computed': { expression: 'budget * 1.13', stored: true },
    },
    taxAmount: {
      type: 'string',
      format: 'decimal',
      title: 'Tax',
      'x-decimal': { precision: 18, scale: 2 },
      'x-computed': { expression: 'budget * 0.13' },
    },
    publisher: { type: 'string', title: 'Publisher', maxLength: 64, 'x-auto': 'actor' },
    publishedAt: { type: 'string', format: 'date-time', title: 'Published at', 'x-auto': 'now' },
    deadline: { type: 'string', format: 'date-time', title: 'Deadline' },
    stage: { type: 'string', title: 'Stage', maxLength: 16 },
  },
  'x-rules': [{ expression: 'deadline >= publishedAt', message: 'validation.invalid', fields: ['deadline'] }],
};

const BID = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Bid',
  type: 'object',
  'x-entity': { api: 'biz/bid', table: 'biz_bid', key: 'id', label: 'bidder', softDelete: true },
  required: ['bidder', 'tender'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', readOnly: true },
    bidder: { type: 'string', title: 'Bidder', minLength: 1, maxLength: 64 },
    tender: { type: 'integer', title: 'Tender', 'x-ref': 'tender' },
  },
};

const LOT = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Lot',
  type: 'object',
  'x-entity': {
    api: 'biz/lot',
    table: 'biz_lot',
    key: 'id',
    label: 'lotName',
    tree: { parent: 'lotParent', root: 0, sequence: 'lotSequence' },
  },
  required: ['lotName'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', readOnly: true },
    lotName: { type: 'string', title: 'Lot', minLength: 1, maxLength: 64 },
    lotSequence: { type: 'integer', title: 'Sequence', minimum: 0, default: 0 },
    lotParent: { type: 'integer', title: 'Parent lot', 'x-ref': 'lot', default: 0 },
    width: { type: 'integer', title: 'Width' },
    depth: { type: 'integer', title: 'Depth' },
    area: { type: 'integer', title: 'Area', 'x-computed': { expression: 'width * depth' } },
    note: { type: 'string', title: 'Note', maxLength: 200 },
  },
};

let t: TestApp;
let api: Api;
let tender: EntityDef;
let bid: EntityDef;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ecobid-computed-hooks-'));
  cpSync(SCHEMAS, dir, { recursive: true });
  writeFileSync(join(dir, 'tender.schema.json'), JSON.stringify(TENDER, null, 2));
  writeFileSync(join(dir, 'bid.schema.json'), JSON.stringify(BID, null, 2));
  writeFileSync(join(dir, 'lot.schema.json'), JSON.stringify(LOT, null, 2));
  t = await startTestApp({ env: { SCHEMAS_DIR: dir, MODULE_DIRS: 'tests/fixtures/computed-modules' } });
  api = new Api(t);
  tender = t.app.ctx.registry.require('tender');
  bid = t.app.ctx.registry.require('bid');
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const errorFields = (response: LightMyRequestResponse): string[] =>
  (response.json<ErrorBody>().errors ?? []).map((error) => error.field);
const storedOf = async (id: unknown) =>
  (
    await t.sql<{ budget: string; budget_with_tax: string }>(
      'select budget::text, budget_with_tax::text from biz_tender where id = $1',
      [Number(id)],
    )
  )[0];
const FUTURE = '2099-01-01T00:00:00.000Z';

describe("stored computed fields after a module's beforeChange", () => {
  let id: unknown;
  let version: unknown;
  it('an add stores the taxed budget of the budget the hook set, not of the one sent', async () => {
    const added = await api.add(tender, { name: 'Low', budget: '100.00', deadline: FUTURE });
    expect(added.statusCode, added.body).toBe(200);
    const row = data(added);
    ({ id, version } = row);
    expect(row).toMatchObject({ budget: BUDGET_FLOOR, budgetWithTax: '1130.00', taxAmount: '130.00' });
    expect(await storedOf(id)).toEqual({ budget: '1000.00', budget_with_tax: '1130.00' });
  });

  it('an update too', async () => {
    const raised = await api.update(tender, { id, version, budget: '2000.00' });
    expect(data(raised)).toMatchObject({ budget: '2000.00', budgetWithTax: '2260.00' });
    const lowered = await api.update(tender, { id, version: data(raised).version, budget: '5.00' });
    expect(lowered.statusCode, lowered.body).toBe(200);
    expect(data(lowered)).toMatchObject({ budget: BUDGET_FLOOR, budgetWithTax: '1130.00' });
    expect(await storedOf(id)).toEqual({ budget: '1000.00', budget_with_tax: '1130.00' });
  });

  it('every row of an import too', async () => {
    const form = fileUpload('tenders.csv', Buffer.from('"name","budget"\n"Imported low","7.00"'));
    const imported = await api.call({
      method: 'POST',
      url: `/api/${tender.api}/import`,
      payload: form.payload,
      headers: form.headers,
    });
    expect(imported.statusCode, imported.body).toBe(200);
    const [row] = await t.sql<{ budget: string; budget_with_tax: string }>(
      `select budget::text, budget_with_tax::text from biz_tender where name = 'Imported low'`,
    );
    expect(row).toEqual({ budget: '1000.00', budget_with_tax: '1130.00' });
  });
});

describe('rules reading a value the server sets (x-auto)', () => {
  it('an add whose deadline is before the publish time the server sets is refused on the deadline', async () => {
    const late = await api.add(tender, { name: 'Late', budget: '1500.00', deadline: '2001-01-01T00:00:00Z' });
    expect(late.statusCode, late.body).toBe(400);
    expect(errorFields(late)).toEqual(['/deadline']);
    expect(await t.sql(`select id from biz_tender where name = 'Late'`)).toEqual([]);
  });

  it('and so is such a row of an import, named by its row', async () => {
    const form = fileUpload(
      'late.csv',
      Buffer.from('"name","deadline"\n"Late import","2001-01-01T00:00:00Z"'),
    );
    const refused = await api.call({
      method: 'POST',
      url: `/api/${tender.api}/import`,
      payload: form.payload,
      headers: form.headers,
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(errorFields(refused)).toEqual(['/2/deadline']);
  });
});

describe("the recycle bin's page", () => {
  it('shows virtual computed fields and passes records through afterRead, as the list does', async () => {
    const added = await api.add(tender, { name: 'Binned', budget: '3000.00' });
    expect(added.statusCode, added.body).toBe(200);
    const id = data(added).id;
    const listed = (await api.records(tender, { id: String(id) }))[0];
    expect(listed).toMatchObject({ taxAmount: '390.00' });
    expect(listed).not.toHaveProperty('publisher');
    expect((await api.remove(tender, [id])).statusCode).toBe(200);
    const bin = await api.get(`/api/${tender.api}/recycle`);
    expect(bin.statusCode, bin.body).toBe(200);
    const binned = data<Page>(bin).records.find((record) => record.id === id);
    expect(binned).toMatchObject({ name: 'Binned', budgetWithTax: '3390.00', taxAmount: '390.00' });
    expect(binned).not.toHaveProperty('publisher');
    // the publisher is stored all the same
    const [stored] = await t.sql<{ publisher: string }>('select publisher from biz_tender where id = $1', [
      Number(id),
    ]);
    expect(stored?.publisher).toBe('admin');
  });
});

describe('an export', () => {
  it('writes records as afterRead shows them: a hidden field has no value, an added one has', async () => {
    const first = await api.add(tender, { name: 'Exported A', budget: '3000.00' });
    const second = await api.add(tender, { name: 'Exported B', budget: '2000.00', stage: 'closed' });
    expect(first.statusCode, first.body).toBe(200);
    expect(second.statusCode, second.body).toBe(200);
    const exported = await api.export(tender, { name: 'Exported' });
    expect(exported.statusCode, exported.body).toBe(200);
    const [header = [], ...lines] = await firstSheetRows(exported.rawPayload);
    const cell = (line: unknown[], title: string): unknown => line[header.indexOf(title)];
    expect(header).toEqual(expect.arrayContaining(['Name', 'Tax', 'Stage']));
    const byName = new Map(lines.map((line) => [cell(line, 'Name'), line]));
    expect([...byName.keys()].sort()).toEqual(['Exported A', 'Exported B']);
    // the publisher's column (each stored as 'admin') is empty
    expect(header).toContain('Publisher');
    for (const line of lines) expect(cell(line, 'Publisher') ?? null).toBeNull();
    // afterRead's stage where none is stored, the stored one otherwise; virtual computed fields as listed
    expect(cell(byName.get('Exported A') ?? [], 'Stage')).toBe(STAGE_UNSET);
    expect(cell(byName.get('Exported B') ?? [], 'Stage')).toBe('closed');
    expect(cell(byName.get('Exported A') ?? [], 'Tax')).toBe(390);
    const [stored] = await t.sql<{ publisher: string }>('select publisher from biz_tender where id = $1', [
      Number(data(first).id),
    ]);
    expect(stored?.publisher).toBe('admin');
  });
  it('does so across its reading batches, in the order of the list', async () => {
    // more rows than one batch (2000), inserted directly, every other one with a stage
    await t.sql(
      `insert into biz_tender (tenant_code, name, budget, budget_with_tax, publisher, stage, created_by, updated_by)
       select 'default', 'Bulk ' || lpad(i::text, 4, '0'), 100.00, 113.00, 'admin',
         case when i % 2 = 0 then 'closed' end, 'admin', 'admin'
       from generate_series(1, 2500) as i`,
    );
    const exported = await api.export(tender, { name: 'Bulk ', sort: '-name' });
    expect(exported.statusCode, exported.body).toBe(200);
    const [header = [], ...lines] = await firstSheetRows(exported.rawPayload);
    const columnOf = (title: string): unknown[] => lines.map((line) => line[header.indexOf(title)] ?? null);
    expect(lines.length).toBe(2500);
    expect(columnOf('Name')[0]).toBe('Bulk 2500');
    expect(columnOf('Name')[2499]).toBe('Bulk 0001');
    expect(new Set(columnOf('Publisher'))).toEqual(new Set([null]));
    expect(columnOf('Stage').slice(0, 2)).toEqual(['closed', STAGE_UNSET]);
    expect(columnOf('Tax').every((tax) => tax === 13)).toBe(true);
  });
});

describe('references across the recycle bin', () => {
  const restore = (entity: EntityDef, id: unknown) =>
    api.post(`/api/${entity.api}/recycle/restore`, undefined, { id: String(id) });
  it('a tender a live bid refers to cannot be deleted; once the bid is in the bin it can', async () => {
    const target = data(await api.add(tender, { name: 'Referred', budget: '1200.00' }));
    const offer = await api.add(bid, { bidder: 'Blue Sky Ltd', tender: target.id });
    expect(offer.statusCode, offer.body).toBe(200);
    const held = await api.remove(tender, [target.id]);
    expect(held.statusCode).toBe(409);
    expect(errorFields(held)).toEqual(['/id']);
    expect((await api.records(tender, { id: String(target.id) })).length).toBe(1);
    // the bid goes to its bin: it no longer holds the tender
    expect((await api.remove(bid, [data(offer).id])).statusCode).toBe(200);
    const deleted = await api.remove(tender, [target.id]);
    expect(deleted.statusCode, deleted.body).toBe(200);

    // a tender in the bin cannot be referred to by a new bid
    const toBinned = await api.add(bid, { bidder: 'Late Comer', tender: target.id });
    expect(toBinned.statusCode).toBe(400);
    expect(errorFields(toBinned)).toEqual(['/tender']);
    // nor can the bid come back while its tender is in the bin: the bid stays there
    const early = await restore(bid, data(offer).id);
    expect(early.statusCode).toBe(400);
    expect(errorFields(early)).toEqual(['/tender']);
    expect((await api.records(bid, { id: String(data(offer).id) })).length).toBe(0);
    // the tender first, then its bid
    expect((await restore(tender, target.id)).statusCode).toBe(200);
    const back = await restore(bid, data(offer).id);
    expect(back.statusCode, back.body).toBe(200);
    expect(await api.records(bid, { id: String(data(offer).id) })).toMatchObject([
      { bidder: 'Blue Sky Ltd', tender: target.id },
    ]);
  });

  it('a bid whose tender was purged for good cannot come back', async () => {
    const target = data(await api.add(tender, { name: 'Purged', budget: '1200.00' }));
    const offer = data(await api.add(bid, { bidder: 'Green Leaf', tender: target.id }));
    expect((await api.remove(bid, [offer.id])).statusCode).toBe(200);
    expect((await api.remove(tender, [target.id])).statusCode).toBe(200);
    const purged = await api.post(`/api/${tender.api}/recycle/purge`, undefined, { id: String(target.id) });
    expect(purged.statusCode, purged.body).toBe(200);
    const refused = await restore(bid, offer.id);
    expect(refused.statusCode).toBe(400);
    expect(errorFields(refused)).toEqual(['/tender']);
    const bin = data<Page>(await api.get(`/api/${bid.api}/recycle`)).records;
    expect(bin.map((record) => record.id)).toContain(offer.id);
  });
});

describe("a tree's nodes", () => {
  it('show virtual computed fields and pass through afterRead, whole or level by level', async () => {
    const lot = t.app.ctx.registry.require('lot');
    const parent = await api.add(lot, { lotName: 'North field', width: 10, depth: 20, note: 'clay' });
    expect(parent.statusCode, parent.body).toBe(200);
    const parentId = data(parent).id;
    const child = await api.add(lot, {
      lotName: 'North corner',
      lotParent: parentId,
      width: 3,
      depth: 4,
      note: 'wet',
    });
    expect(child.statusCode, child.body).toBe(200);
    const url = `/api/${lot.api}/${treeEndpointName('lot')}`;
    const whole = await api.get(url);
    expect(whole.statusCode, whole.body).toBe(200);
    const [top] = data<Row[]>(whole);
    expect(top).toMatchObject({
      lotName: 'North field',
      area: 200,
      children: [{ lotName: 'North corner', area: 12 }],
    });
    expect(top).not.toHaveProperty('note');
    expect((top?.children as Row[] | undefined)?.[0]).not.toHaveProperty('note');
    const level = await api.get(url, { parentId: String(parentId) });
    expect(level.statusCode, level.body).toBe(200);
    expect(data<Row[]>(level)).toEqual([
      expect.objectContaining({ lotName: 'North corner', area: 12, lotParent: parentId, hasChildren: false }),
    ]);
    expect(data<Row[]>(level)[0]).not.toHaveProperty('note');
  });
});
