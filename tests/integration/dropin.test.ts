import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchemaFileError, type EntityDef } from '../../src/engine/index.js';
import { buildApp } from '../../src/server/app.js';
import { readConfig } from '../../src/server/lib/config.js';
import { Api, data, errorFields, type Page, type Row } from '../support/api.js';
import { ADMIN_PASSWORD, passwordGrant, startTestApp, type TestApp } from '../support/app.js';

/**
 * A developer drops a new schema file into the schemas directory and gets the whole API of the
 * entity, without changing code; broken schemas and unsafe changes stop start-up with a message
 * that says where the problem is.
 */
const SCHEMAS = fileURLToPath(new URL('../../schemas', import.meta.url));
const temporaryDirs: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ecobid-${prefix}-`));
  temporaryDirs.push(dir);
  return dir;
}

/** A copy of schemas/ (with _meta) to change freely. */
function schemasCopy(): string {
  const dir = tempDir('schemas');
  cpSync(SCHEMAS, dir, { recursive: true });
  return dir;
}

type Json = Record<string, unknown>;
const readJson = (file: string): Json => JSON.parse(readFileSync(file, 'utf8')) as Json;
const writeJson = (file: string, json: unknown): void =>
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);

const SUPPLIER = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Supplier',
  type: 'object',
  'x-entity': {
    api: 'biz/supplier',
    table: 'biz_supplier',
    key: 'id',
    label: 'supplierName',
    defaultSort: 'supplierCode',
    menu: { parent: 'admin', icon: 'shop', sequence: 95 },
  },
  required: ['supplierCode', 'supplierName', 'level', 'orgId'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', title: 'ID', readOnly: true },
    supplierCode: {
      type: 'string',
      title: 'Supplier code',
      maxLength: 16,
      pattern: '^SUP[0-9]{3,}$',
      'x-unique': true,
    },
    supplierName: { type: 'string', title: 'Supplier name', minLength: 1, maxLength: 128 },
    level: { type: 'string', title: 'Level', 'x-dict': 'supplier_level' },
    registeredAt: { type: 'string', title: 'Registered at', format: 'date-time' },
    orgId: { type: 'integer', title: 'Organisation', 'x-ref': 'sysorg' },
    employees: { type: 'integer', title: 'Employees', minimum: 0, maximum: 1_000_000 },
    // a yes/no column is sortable when its schema says so (x-list.sorter)
    isCertified: { type: 'boolean', title: 'Certified', default: false, 'x-list': { sorter: true } },
    categories: {
      type: 'array',
      title: 'Categories',
      items: { type: 'string', maxLength: 32 },
      uniqueItems: true,
      default: [],
      'x-list': { filter: 'select' },
    },
  },
};

afterAll(() => {
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
});

describe('a dropped-in entity schema', () => {
  let t: TestApp;
  let api: Api;
  let supplier: EntityDef;
  let orgId: number;
  const url = (action: string): string => `/api/biz/supplier/${action}`;

  beforeAll(async () => {
    const dir = schemasCopy();
    writeJson(join(dir, 'supplier.schema.json'), SUPPLIER);
    t = await startTestApp({ env: { SCHEMAS_DIR: dir } });
    api = new Api(t);
    supplier = t.app.ctx.registry.require('supplier');
    // its dictionary is data, made through the dictionary API like an admin would
    const dict = t.app.ctx.registry.require('sysdict');
    const group = data(
      await api.add(dict, { dictType: 'supplier_level', dictName: 'Supplier level', dictSequence: 900 }),
    );
    for (const [value, name, sequence] of [
      ['A', 'Strategic', 10],
      ['B', 'Preferred', 20],
      ['C', 'Trial', 30],
    ] as const) {
      const item = await api.add(dict, {
        dictType: 'supplier_level',
        dictName: name,
        dictValue: value,
        dictSequence: sequence,
        dictParent: group.id,
      });
      expect(item.statusCode, item.body).toBe(200);
    }
    const org = await api.add(t.app.ctx.registry.require('sysorg'), {
      orgName: 'Supplier Holding',
      orgType: 'company',
    });
    expect(org.statusCode, org.body).toBe(200);
    orgId = Number(data(org).id);
  });
  afterAll(async () => {
    await t?.close();
  });

  const base = (code: string, extra: Json = {}): Json => ({
    supplierCode: code,
    supplierName: `Supplier ${code}`,
    level: 'B',
    orgId,
    ...extra,
  });
  const records: Row[] = [];

  it('has a table and a menu entry', async () => {
    const columns = await t.sql<{ column_name: string; data_type: string }>(
      "select column_name, data_type from information_schema.columns where table_name = 'biz_supplier' order by ordinal_position",
    );
    expect(Object.fromEntries(columns.map((c) => [c.column_name, c.data_type]))).toMatchObject({
      id: 'bigint',
      supplier_code: 'text',
      registered_at: 'timestamp with time zone',
      org_id: 'bigint',
      employees: 'bigint',
      is_certified: 'boolean',
      categories: 'jsonb',
      version: 'integer',
    });
    const menus = data<Page>(
      await api.query(t.app.ctx.registry.require('sysmenu'), { menuCode: 'supplier' }),
    ).records;
    expect(menus.map((menu) => menu.menuPath)).toEqual(['/supplier']);
  });

  it('serves its schema to the back-office, which derives the screen from it', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/schemas' });
    expect(response.statusCode).toBe(200);
    const entities = data<{ entities: { name: string; schema: Json }[] }>(response).entities;
    const supplier = entities.find((entity) => entity.name === 'supplier');
    expect(supplier?.schema).toMatchObject({ title: 'Supplier', 'x-entity': { api: 'biz/supplier' } });
    expect(entities.map((entity) => entity.name)).toContain('sysuser');
  });

  it('adds records and applies defaults', async () => {
    const plan: Json[] = [
      base('SUP002', {
        level: 'A',
        registeredAt: '2024-03-01T08:00:00.000Z',
        employees: 120,
        isCertified: true,
        categories: ['pumps', 'valves'],
      }),
      base('SUP001', {
        level: 'C',
        registeredAt: '2024-05-10T08:00:00.000Z',
        employees: 8,
        categories: ['filters'],
      }),
      base('SUP003', { registeredAt: '2023-12-15T12:00:00.000Z', employees: 45, isCertified: true }),
    ];
    for (const record of plan) {
      const response = await api.post(url('add'), record);
      expect(response.statusCode, response.body).toBe(200);
      records.push(data(response));
    }
    expect(records[0]).toMatchObject({
      supplierCode: 'SUP002',
      level: 'A',
      employees: 120,
      isCertified: true,
      categories: ['pumps', 'valves'],
      version: 1,
    });
    expect(new Date(String(records[0]?.registeredAt)).toISOString()).toBe('2024-03-01T08:00:00.000Z');
    expect(records[1]).toMatchObject({ isCertified: false, categories: ['filters'] });
    expect(records[2]).toMatchObject({ categories: [], isCertified: true });
  });

  it('validates like any entity: unique, dictionary, reference, types', async () => {
    const clash = await api.post(url('add'), base('SUP001'));
    expect(clash.statusCode).toBe(409);
    expect(errorFields(clash)).toEqual(['/supplierCode']);
    const wrongDict = await api.post(url('add'), base('SUP010', { level: 'Z' }));
    expect(wrongDict.statusCode).toBe(400);
    expect(errorFields(wrongDict)).toEqual(['/level']);
    const wrongRef = await api.post(url('add'), base('SUP011', { orgId: 987_654 }));
    expect(wrongRef.statusCode).toBe(400);
    expect(errorFields(wrongRef)).toEqual(['/orgId']);
    const wrongTypes = await api.post(
      url('add'),
      base('X1', {
        employees: 'many',
        isCertified: 'yes',
        categories: 'pumps',
        registeredAt: 'yesterday',
        extra: 1,
      }),
    );
    expect(wrongTypes.statusCode).toBe(400);
    expect(errorFields(wrongTypes).sort()).toEqual([
      '/categories',
      '/employees',
      '/extra',
      '/isCertified',
      '/registeredAt',
      '/supplierCode',
    ]);
    const missing = await api.post(url('add'), { supplierName: 'No code' });
    expect(missing.statusCode).toBe(400);
    expect(errorFields(missing).sort()).toEqual(['/level', '/orgId', '/supplierCode']);
    expect(data<Page>(await api.get(url('query'))).total).toBe(3);
  });

  it('queries with every kind of filter and sort', async () => {
    const codes = async (query: Record<string, string | string[]>): Promise<unknown[]> => {
      const response = await api.get(url('query'), query);
      expect(response.statusCode, response.body).toBe(200);
      return data<Page>(response).records.map((row) => row.supplierCode);
    };
    expect(await codes({})).toEqual(['SUP001', 'SUP002', 'SUP003']); // defaultSort
    expect(await codes({ sort: '-employees' })).toEqual(['SUP002', 'SUP003', 'SUP001']);
    expect(await codes({ sort: 'isCertified,-supplierCode' })).toEqual(['SUP001', 'SUP003', 'SUP002']);
    expect(await codes({ level: 'A' })).toEqual(['SUP002']);
    expect(await codes({ level: ['A', 'C'] })).toEqual(['SUP001', 'SUP002']);
    expect(await codes({ isCertified: 'true' })).toEqual(['SUP002', 'SUP003']);
    expect(await codes({ categories: 'filters' })).toEqual(['SUP001']);
    expect(await codes({ employees: '45' })).toEqual(['SUP003']);
    expect(await codes({ orgId: String(orgId) })).toEqual(['SUP001', 'SUP002', 'SUP003']);
    expect(await codes({ supplierName: 'sup00' })).toEqual(['SUP001', 'SUP002', 'SUP003']);
    expect(await codes({ registeredAt: '2024-01-01,2024-04-30' })).toEqual(['SUP002']);
    expect(await codes({ registeredAt: '2024-03-01' })).toEqual(['SUP001', 'SUP002']);
    expect(await codes({ registeredAt: ',2024-01-01T00:00:00Z' })).toEqual(['SUP003']);
    const page = data<Page>(await api.get(url('query'), { pageSize: '2', currentPage: '2' }));
    expect(page).toMatchObject({ total: 3, currentPage: 2, pageSize: 2 });
    expect(page.records.map((row) => row.supplierCode)).toEqual(['SUP003']);
  });

  it('updates with optimistic locking', async () => {
    const first = records[1] as Row;
    const response = await api.put(url('update'), {
      id: first.id,
      version: 1,
      employees: 9,
      categories: ['filters', 'membranes'],
      registeredAt: null,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(data(response)).toMatchObject({
      id: first.id,
      version: 2,
      employees: 9,
      categories: ['filters', 'membranes'],
      registeredAt: null,
      supplierCode: 'SUP001',
    });
    const stale = await api.put(url('update'), { id: first.id, version: 1, employees: 10 });
    expect(stale.statusCode).toBe(409);
    expect(errorFields(stale)).toEqual(['/version']);
    const code = await api.put(url('update'), { id: first.id, version: 2, supplierCode: 'SUP002' });
    expect(code.statusCode).toBe(409);
    expect(errorFields(code)).toEqual(['/supplierCode']);
  });

  it('exports the filtered rows with labels and the schema titles', async () => {
    const response = await api.post(url('export'), { isCertified: 'true', sort: '-employees' }, undefined);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-disposition']).toMatch(/filename="supplier-\d{14}\.xlsx"/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(response.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    const rows: unknown[][] = [];
    sheet?.eachRow((row) => {
      rows.push((row.values as unknown[]).slice(1));
    });
    const [headers = [], ...body] = rows;
    expect(headers.slice(0, 9)).toEqual([
      'ID',
      'Supplier code',
      'Supplier name',
      'Level',
      'Registered at',
      'Organisation',
      'Employees',
      'Certified',
      'Categories',
    ]);
    const at = (name: string): number => headers.indexOf(name);
    expect(body.map((row) => row[at('Supplier code')])).toEqual(['SUP002', 'SUP003']);
    expect(body.map((row) => row[at('Level')])).toEqual(['Strategic', 'Preferred']);
    expect(body.map((row) => row[at('Organisation')])).toEqual(['Supplier Holding', 'Supplier Holding']);
    expect(body.map((row) => row[at('Certified')])).toEqual(['是', '是']);
    expect(body.map((row) => row[at('Employees')])).toEqual([120, 45]);
    expect(String(body[0]?.[at('Categories')])).toContain('pumps');
  });

  it('protects its references and deletes in batches', async () => {
    const org = await api.post(`/api/${t.app.ctx.registry.require('sysorg').api}/delete`, undefined, {
      id: String(orgId),
    });
    expect(org.statusCode).toBe(409);
    const ids = records.map((row) => String(row.id));
    const missing = await api.post(url('delete'), undefined, { id: [...ids, '987654'] });
    expect(missing.statusCode).toBe(404);
    const deleted = await api.post(url('delete'), undefined, { id: ids });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(data(deleted)).toEqual({ deleted: 3 });
    expect(data<Page>(await api.get(url('query'))).total).toBe(0);
    expect(supplier.name).toBe('supplier');
  });
});

describe('a broken schema stops start-up naming the file and the JSON pointer', () => {
  const build = (dir: string): Promise<unknown> =>
    buildApp({ config: readConfig({ SCHEMAS_DIR: dir, DATA_DIR: ':memory:', ADMIN_PASSWORD }) });

  async function problemsOf(
    mutate: (dir: string) => void,
  ): Promise<{ message: string; problems: { file: string; pointer: string }[] }> {
    const dir = schemasCopy();
    mutate(dir);
    const error: unknown = await build(dir).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(SchemaFileError);
    const schemaError = error as SchemaFileError;
    return { message: schemaError.message, problems: schemaError.problems };
  }

  it('an unknown x- keyword', async () => {
    const { message, problems } = await problemsOf((dir) => {
      const schema = structuredClone(SUPPLIER) as Json & { properties: Record<string, Json> };
      (schema.properties.supplierName as Json)['x-colour'] = 'red';
      writeJson(join(dir, 'supplier.schema.json'), schema);
    });
    expect(message).toMatch(
      /supplier\.schema\.json at \/properties\/supplierName\/x-colour: unknown keyword "x-colour"/,
    );
    expect(problems).toEqual([expect.objectContaining({ pointer: '/properties/supplierName/x-colour' })]);
  });

  it('an unknown x- keyword at the top of an existing schema', async () => {
    const { message } = await problemsOf((dir) => {
      const file = join(dir, 'sysrole.schema.json');
      writeJson(file, { ...readJson(file), 'x-owner': 'me' });
    });
    expect(message).toMatch(/sysrole\.schema\.json at \/x-owner: unknown keyword "x-owner"/);
  });

  it('a pattern that backtracks exponentially, and an enum past its budget (issue 31)', async () => {
    const started = performance.now();
    const { message, problems } = await problemsOf((dir) => {
      const schema = structuredClone(SUPPLIER) as Json & { properties: Record<string, Json> };
      (schema.properties.supplierCode as Json).pattern = '^(a+)+$';
      schema.properties.grade = {
        type: 'string',
        enum: Array.from({ length: 20_000 }, (_unused, index) => `g${index}`),
      };
      writeJson(join(dir, 'supplier.schema.json'), schema);
    });
    expect(message).toMatch(
      /supplier\.schema\.json at \/properties\/supplierCode\/pattern: past the budget schemas\.pattern: nestedQuantifier/,
    );
    expect(problems.map((problem) => problem.pointer)).toEqual([
      '/properties/supplierCode/pattern',
      '/properties/grade/enum',
    ]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a missing required x-entity key', async () => {
    const { message, problems } = await problemsOf((dir) => {
      const { table: _table, ...entity } = SUPPLIER['x-entity'];
      writeJson(join(dir, 'supplier.schema.json'), { ...SUPPLIER, 'x-entity': entity });
    });
    expect(message).toMatch(/supplier\.schema\.json at \/x-entity: missing "table"/);
    expect(problems[0]?.file).toMatch(/supplier\.schema\.json$/);
  });

  it('invalid JSON', async () => {
    const { message, problems } = await problemsOf((dir) => {
      writeFileSync(join(dir, 'supplier.schema.json'), `${JSON.stringify(SUPPLIER).slice(0, -1)},`);
    });
    expect(message).toMatch(/supplier\.schema\.json at \/: not valid JSON/);
    expect(problems).toEqual([expect.objectContaining({ pointer: '' })]);
  });

  it('a reference to an entity that does not exist', async () => {
    const { message } = await problemsOf((dir) => {
      const schema = structuredClone(SUPPLIER) as Json & { properties: Record<string, Json> };
      (schema.properties.orgId as Json)['x-ref'] = 'nosuchentity';
      writeJson(join(dir, 'supplier.schema.json'), schema);
    });
    expect(message).toMatch(
      /supplier\.schema\.json at \/properties\/orgId\/x-ref: no entity named "nosuchentity"/,
    );
  });
});

/**
 * An existing database: the embedded one in a data directory, or (when the suite runs on
 * PostgreSQL) one database kept across restarts.
 */
async function persistentDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return { env: { DATA_DIR: tempDir('data') }, drop: async () => {} };
  const name = `ecobid_test_migrate_${process.pid}_${Date.now()}`;
  const run = async (statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await run(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: tempDir('data') },
    drop: () => run(`drop database if exists ${name} with (force)`),
  };
}

describe('schema changes on an existing database', () => {
  let database: Awaited<ReturnType<typeof persistentDatabase>>;
  let dir: string;
  const paramFile = (): string => join(dir, 'sysparam.schema.json');

  beforeAll(async () => {
    database = await persistentDatabase();
    dir = schemasCopy();
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function start(): Promise<{
    app: FastifyInstance;
    api: (
      method: 'GET' | 'PUT',
      url: string,
      payload?: Json,
    ) => Promise<{ statusCode: number; json: () => Json }>;
  }> {
    const { app } = await buildApp({
      config: readConfig({ ...database.env, SCHEMAS_DIR: dir, ADMIN_PASSWORD }),
    });
    const signIn = await passwordGrant(app, 'admin', ADMIN_PASSWORD);
    expect(signIn.statusCode, signIn.body).toBe(200);
    const authorization = `Bearer ${signIn.json<{ access_token: string }>().access_token}`;
    return {
      app,
      api: async (method, target, payload) => {
        const response = await app.inject({
          method,
          url: target,
          headers: { authorization },
          ...(payload ? { payload } : {}),
        });
        return { statusCode: response.statusCode, json: () => response.json<Json>() };
      },
    };
  }

  async function startFails(): Promise<string> {
    const error: unknown = await buildApp({
      config: readConfig({ ...database.env, SCHEMAS_DIR: dir, ADMIN_PASSWORD }),
    }).then(
      async ({ app }) => {
        await app.close();
        return undefined;
      },
      (thrown: unknown) => thrown,
    );
    expect(error, 'start-up should have stopped').toBeInstanceOf(Error);
    return (error as Error).message;
  }

  it('adds the column of a new field on the next start, keeping the data', async () => {
    const first = await start();
    const before = (await first.api('GET', '/api/admin/sysparam/query?pageSize=1')).json().data as Page;
    expect(before.total).toBeGreaterThan(0);
    expect(before.records[0]).not.toHaveProperty('paramNote');
    await first.app.close();

    const schema = readJson(paramFile()) as Json & { properties: Record<string, Json> };
    schema.properties.paramNote = { type: 'string', title: 'Note', maxLength: 200 };
    writeJson(paramFile(), schema);
    const second = await start();
    const columns = await sql<{
      column_name: string;
      data_type: string;
    }>`select column_name, data_type from information_schema.columns
      where table_name = 'sys_param' and column_name = 'param_note'`.execute(second.app.ctx.db);
    expect(columns.rows).toEqual([{ column_name: 'param_note', data_type: 'text' }]);
    const existing = (await second.api('GET', '/api/admin/sysparam/query?pageSize=1')).json().data as Page;
    const row = existing.records[0] as Row;
    expect(row.paramNote).toBeNull();
    const updated = await second.api('PUT', '/api/admin/sysparam/update', {
      id: row.id as number,
      version: row.version as number,
      paramNote: 'kept',
    });
    expect(updated.statusCode).toBe(200);
    expect((updated.json().data as Row).paramNote).toBe('kept');
    await second.app.close();
  });

  it('stops start-up on a type change, naming the table and the column, and changes nothing', async () => {
    const schema = readJson(paramFile()) as Json & { properties: Record<string, Json> };
    const original = structuredClone(schema);
    schema.properties.paramNote = { type: 'integer', title: 'Note' };
    writeJson(paramFile(), schema);
    const message = await startFails();
    expect(message).toMatch(
      /Table sys_param, column param_note: the database has text but the schema wants bigint/,
    );

    delete schema.properties.paramNote;
    writeJson(paramFile(), schema);
    expect(await startFails()).toMatch(
      /Table sys_param, column param_note: the schema no longer has this field/,
    );

    // back to the schema the database matches: it starts, and the value is still there
    writeJson(paramFile(), original);
    const again = await start();
    const rows = (await again.api('GET', '/api/admin/sysparam/query?paramNote=kept')).json().data as Page;
    expect(rows.total).toBe(1);
    await again.app.close();
  });
});
