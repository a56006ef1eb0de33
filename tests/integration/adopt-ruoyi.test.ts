import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntitySchema } from '../../src/engine/index.js';
import type { AdoptPreview } from '../../src/engine/api-types.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { data } from '../support/api.js';

/**
 * The real-world check of issue 33: ruoyi-vue-pro's published PostgreSQL schema and data
 * (tests/fixtures/adopt, loaded unchanged) adopted table by table through the API; on each, list,
 * get, add, update unchanged and delete; afterwards the other application's DDL (columns, types,
 * defaults, nullability, indexes, constraints) is exactly as before, and its rows are compared.
 * The figures (adopted, refused with reasons, round-trip mismatches, index and column counts)
 * are printed and written to $ADOPT_REPORT when set.
 */

const FIXTURE = new URL('../fixtures/adopt/ruoyi-vue-pro.sql', import.meta.url);
/** ruoyi's timestamp (without time zone) columns hold the wall clock of its servers: China's. */
const ZONE = 'Asia/Shanghai';

/** The statements of a SQL file: split on semicolons outside quotes and comments. */
export function splitSql(text: string): string[] {
  const statements: string[] = [];
  let current = '';
  let at = 0;
  while (at < text.length) {
    const char = text[at] ?? '';
    if (char === '-' && text[at + 1] === '-') {
      const end = text.indexOf('\n', at);
      at = end < 0 ? text.length : end + 1;
      continue;
    }
    if (char === '/' && text[at + 1] === '*') {
      const end = text.indexOf('*/', at + 2);
      at = end < 0 ? text.length : end + 2;
      continue;
    }
    if (char === "'") {
      // E'…' strings take backslash escapes; standard ones only ''.
      const isEscape = /[eE]$/.test(current) && !/[a-zA-Z0-9_][eE]$/.test(current);
      let end = at + 1;
      for (;;) {
        const next = text[end];
        if (next === undefined) break;
        if (isEscape && next === '\\') end += 2;
        else if (next === "'" && text[end + 1] === "'") end += 2;
        else if (next === "'") break;
        else end += 1;
      }
      current += text.slice(at, end + 1);
      at = end + 1;
      continue;
    }
    if (char === ';') {
      if (current.trim()) statements.push(current.trim());
      current = '';
      at += 1;
      continue;
    }
    current += char;
    at += 1;
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}

interface Adopted {
  formCode: string;
  schema: EntitySchema;
  statements: string[];
  preview: AdoptPreview;
  form?: { id: number };
}

describe('adopting ruoyi-vue-pro (a real Chinese admin platform) without harm', () => {
  let t: TestApp;
  const tables: string[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    const text = readFileSync(FIXTURE, 'utf8');
    for (const match of text.matchAll(/^CREATE TABLE (\w+)/gm)) tables.push(match[1] ?? '');
    for (const statement of splitSql(text)) await t.sql(statement);
  }, 300_000);
  afterAll(async () => {
    await t.close();
  });

  const ddlOf = async (): Promise<Map<string, string[]>> => {
    const rows = await t.sql<{ t: string; d: string }>(
      `select table_name as t, 'column ' || column_name || ' ' || data_type || coalesce('(' || character_maximum_length || ')', '') || ' ' || is_nullable || ' ' || coalesce(column_default, '-') as d
         from information_schema.columns where table_schema = current_schema() and table_name = any($1)
       union all
       select tablename, 'index ' || indexdef from pg_indexes where schemaname = current_schema() and tablename = any($1)
       union all
       select r.relname, 'constraint ' || c.conname || ' ' || pg_get_constraintdef(c.oid) from pg_constraint c
         join pg_class r on r.oid = c.conrelid join pg_namespace n on n.oid = r.relnamespace
         where n.nspname = current_schema() and r.relname = any($1)
       union all
       select c.relname, 'trigger ' || tg.tgname from pg_trigger tg join pg_class c on c.oid = tg.tgrelid
         where c.relname = any($1) and not tg.tgisinternal
       order by 1, 2`,
      [tables],
    );
    const byTable = new Map<string, string[]>();
    for (const row of rows) byTable.set(row.t, [...(byTable.get(row.t) ?? []), row.d]);
    return byTable;
  };
  /** Every row of a table by its key, as JSON (the other application's view of it). */
  const rowsOf = async (table: string, key: string): Promise<Map<string, Record<string, unknown>>> => {
    const rows = await t.sql<{ k: string; r: Record<string, unknown> }>(
      `select ${key}::text as k, to_jsonb(x) as r from ${table} x`,
    );
    return new Map(rows.map((row) => [row.k, typeof row.r === 'string' ? JSON.parse(row.r) : row.r]));
  };

  it('adopts every table it can, changes no DDL, and round-trips list, get, add, update and delete', async () => {
    const ddlBefore = await ddlOf();
    const count = (ddl: Map<string, string[]>, kind: string): number =>
      [...ddl.values()].flat().filter((line) => line.startsWith(kind)).length;
    const listed = data<{ tableName: string }[]>(
      await t.request({ method: 'GET', url: '/api/generator/reverse/tables', headers: t.auth }),
    ).map((table) => table.tableName);
    const adopted: { table: string; api: string; schema: EntitySchema; key: string; keyColumn: string }[] =
      [];
    const refused: { table: string; reason: string }[] = [];
    const proposals: Record<string, unknown> = {};
    for (const table of tables) {
      if (!listed.includes(table)) {
        refused.push({ table, reason: 'not offered by reverse/tables' });
        continue;
      }
      const preview = await t.request({
        method: 'POST',
        url: '/api/generator/reverse/adopt',
        headers: t.auth,
        payload: { tableName: table, confirm: false, timeZone: ZONE },
      });
      if (preview.statusCode !== 200) {
        refused.push({ table, reason: `${preview.statusCode} ${preview.body.slice(0, 300)}` });
        continue;
      }
      const planned = data<Adopted>(preview);
      // Nothing is proposed to run by default.
      expect(planned.statements, table).toEqual([]);
      proposals[table] = {
        secrets: planned.preview.secrets.map((secret) => secret.column),
        bookkeeping: planned.preview.bookkeeping,
        softDelete: planned.preview.softDelete?.column,
        tenantColumn: planned.preview.tenantColumn
          ? { column: planned.preview.tenantColumn.column, value: planned.preview.tenantColumn.value }
          : undefined,
        offeredIndexes: planned.preview.indexes.length,
      };
      const done = await t.request({
        method: 'POST',
        url: '/api/generator/reverse/adopt',
        headers: t.auth,
        payload: { tableName: table, confirm: true, timeZone: ZONE },
      });
      expect(done.statusCode, done.body).toBe(200);
      const answer = data<Adopted>(done);
      const published = await t.request({
        method: 'POST',
        url: '/api/generator/form/publish',
        headers: t.auth,
        payload: { id: answer.form?.id, menuParent: 'formgenerator', roles: [] },
      });
      if (published.statusCode !== 200) {
        refused.push({ table, reason: `publish ${published.statusCode} ${published.body.slice(0, 300)}` });
        continue;
      }
      const key = answer.schema['x-entity'].key;
      adopted.push({
        table,
        api: `/api/${answer.schema['x-entity'].api}`,
        schema: answer.schema,
        key,
        keyColumn: key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
      });
    }
    const ddlAdopted = await ddlOf();
    // Adopting with the defaults changes nothing of the other application's tables.
    for (const table of tables) expect(ddlAdopted.get(table), table).toEqual(ddlBefore.get(table));

    const rowsBefore = new Map<string, Map<string, Record<string, unknown>>>();
    for (const entry of adopted) rowsBefore.set(entry.table, await rowsOf(entry.table, entry.keyColumn));
    const failures: { table: string; step: string; status: number; body: string }[] = [];
    const fail = (table: string, step: string, response: { statusCode: number; body: string }): void => {
      failures.push({ table, step, status: response.statusCode, body: response.body.slice(0, 300) });
    };
    const updatedKeys = new Map<string, string>();
    const addedKeys = new Map<string, string>();
    /** Tables whose key the test had to type (neither generated nor fed by a sequence). */
    const typedKeys: string[] = [];
    /** A first record's createdAt against its create_time read as Shanghai's wall clock. */
    const readTimes: { table: string; api: unknown; wallClock: string }[] = [];
    for (const entry of adopted) {
      const { api, schema, key } = entry;
      const listedPage = await t.request({ method: 'GET', url: `${api}/query?pageSize=5`, headers: t.auth });
      if (listedPage.statusCode !== 200) {
        fail(entry.table, 'list', listedPage);
        continue;
      }
      const [first] = data<{ records: Record<string, unknown>[] }>(listedPage).records;
      const writable = (record: Record<string, unknown>): Record<string, unknown> =>
        Object.fromEntries(
          Object.entries(record).filter(([name]) => {
            const field = schema.properties[name];
            return field !== undefined && field.readOnly !== true && field['x-auto'] === undefined;
          }),
        );
      if (first) {
        const got = await t.request({
          method: 'GET',
          url: `${api}/query?${key}=${encodeURIComponent(String(first[key]))}`,
          headers: t.auth,
        });
        if (got.statusCode !== 200) fail(entry.table, 'get', got);
        const createdColumn = schema['x-entity'].adoption?.bookkeeping?.createdAt;
        if (createdColumn && first.createdAt) {
          const [row] = await t.sql<{ at: string }>(
            `select ${createdColumn}::text as at from ${entry.table} where ${entry.keyColumn}::text = $1`,
            [String(first[key])],
          );
          readTimes.push({ table: entry.table, api: first.createdAt, wallClock: row?.at ?? '' });
        }
        const updated = await t.request({
          method: 'PUT',
          url: `${api}/update`,
          headers: t.auth,
          payload: {
            ...writable(first),
            [key]: first[key],
            ...(first.version !== undefined ? { version: first.version } : {}),
          },
        });
        if (updated.statusCode !== 200) fail(entry.table, 'update', updated);
        else updatedKeys.set(entry.table, String(first[key]));
      }
      // An add like the first row (or empty); the key is generated or comes from the table's
      // sequence (<table>_seq, as ruoyi's own inserts take it): typed only when neither.
      const keyField = schema.properties[key];
      const newKey = 9_000_000 + adopted.indexOf(entry);
      const body: Record<string, unknown> = first ? writable(first) : {};
      if (keyField?.readOnly !== true) {
        typedKeys.push(entry.table);
        body[key] = keyField?.type === 'string' ? `k${newKey}` : newKey;
      }
      for (const [name, field] of Object.entries(schema.properties))
        if (field['x-unique'] === true && typeof body[name] === 'string')
          body[name] = `${String(body[name]).slice(0, 20)}x${newKey}`;
      // A required field the table's rows give no value for: a value of its type.
      for (const name of schema.required ?? []) {
        const field = schema.properties[name];
        if (body[name] !== undefined || !field) continue;
        if (field.type === 'integer' || field.type === 'number') body[name] = 1;
        else if (field.type === 'boolean') body[name] = false;
        else if (field.format === 'date-time') body[name] = '2024-05-01T10:00:00.000Z';
        else if (field.format === 'date') body[name] = '2024-05-01';
        else if (field.format === 'int64' || field.format === 'decimal') body[name] = '1';
        else if (field.type === 'string') body[name] = 'x';
      }
      const added = await t.request({ method: 'POST', url: `${api}/add`, headers: t.auth, payload: body });
      if (added.statusCode !== 200) {
        fail(entry.table, 'add', added);
        continue;
      }
      const addedKey = data<Record<string, unknown>>(added)[key];
      addedKeys.set(entry.table, String(addedKey));
      const deleted = await t.request({
        method: 'POST',
        url: `${api}/delete?${key}=${encodeURIComponent(String(addedKey))}`,
        headers: t.auth,
      });
      if (deleted.statusCode !== 200) fail(entry.table, 'delete', deleted);
    }
    // The other application's rows: those an unchanged update wrote differ only in the
    // bookkeeping it keeps (updater, update_time); every other difference is a mismatch.
    const mismatches: { table: string; column: string; before: unknown; after: unknown }[] = [];
    for (const entry of adopted) {
      const before = rowsBefore.get(entry.table) ?? new Map();
      const after = await rowsOf(entry.table, entry.keyColumn);
      const bookkeeping = new Set(Object.values(entry.schema['x-entity'].adoption?.bookkeeping ?? {}));
      for (const [rowKey, row] of before) {
        const now = after.get(rowKey);
        if (!now) {
          mismatches.push({ table: entry.table, column: '(row)', before: rowKey, after: null });
          continue;
        }
        for (const [column, value] of Object.entries(row)) {
          if (['update_time', 'updater'].includes(column) && bookkeeping.has(column)) continue;
          if (JSON.stringify(now[column]) !== JSON.stringify(value))
            mismatches.push({ table: entry.table, column, before: value, after: now[column] });
        }
      }
    }
    // The rows added (kept, soft-deleted, where the table has a deleted column): create_time is
    // Shanghai's wall clock of the add, as ruoyi's CURRENT_TIMESTAMP default would write it.
    const addedTimes: { table: string; isShanghaiNow: boolean }[] = [];
    for (const entry of adopted) {
      const createdColumn = entry.schema['x-entity'].adoption?.bookkeeping?.createdAt;
      const addedKey = addedKeys.get(entry.table);
      if (!createdColumn || addedKey === undefined) continue;
      const [row] = await t.sql<{ is_now: boolean }>(
        `select abs(extract(epoch from (${createdColumn} - (now() at time zone '${ZONE}')))) < 300 as is_now
           from ${entry.table} where ${entry.keyColumn}::text = $1`,
        [addedKey],
      );
      if (row) addedTimes.push({ table: entry.table, isShanghaiNow: row.is_now });
    }
    // The rows an update wrote: update_time is Shanghai's wall clock of the update.
    const updatedTimes: { table: string; isShanghaiNow: boolean }[] = [];
    for (const entry of adopted) {
      const updatedColumn = entry.schema['x-entity'].adoption?.bookkeeping?.updatedAt;
      const updatedKey = updatedKeys.get(entry.table);
      if (!updatedColumn || updatedKey === undefined) continue;
      const [row] = await t.sql<{ is_now: boolean }>(
        `select abs(extract(epoch from (${updatedColumn} - (now() at time zone '${ZONE}')))) < 300 as is_now
           from ${entry.table} where ${entry.keyColumn}::text = $1`,
        [updatedKey],
      );
      if (row) updatedTimes.push({ table: entry.table, isShanghaiNow: row.is_now });
    }
    const ddlAfter = await ddlOf();
    for (const table of tables) expect(ddlAfter.get(table), table).toEqual(ddlBefore.get(table));
    const report = {
      tables: tables.length,
      adopted: adopted.length,
      refused,
      failures,
      mismatches,
      typedKeys,
      readTimes: readTimes.length,
      addedTimes: addedTimes.length,
      updatedTimes: updatedTimes.length,
      indexes: { before: count(ddlBefore, 'index'), after: count(ddlAfter, 'index') },
      columns: { before: count(ddlBefore, 'column'), after: count(ddlAfter, 'column') },
      proposals,
    };
    console.log(
      `ruoyi-vue-pro: ${report.tables} tables, ${report.adopted} adopted, ${refused.length} refused, ` +
        `${failures.length} failed steps, ${mismatches.length} round-trip mismatches, ${typedKeys.length} keys typed; ` +
        `createdAt read in ${ZONE} on ${readTimes.length} tables, written on ${addedTimes.length}, ` +
        `updatedAt written on ${updatedTimes.length}; ` +
        `indexes ${report.indexes.before} → ${report.indexes.after}, columns ${report.columns.before} → ${report.columns.after}`,
    );
    const out = process.env.ADOPT_REPORT;
    if (out) {
      mkdirSync(new URL('.', `file://${out}`).pathname, { recursive: true });
      writeFileSync(out, JSON.stringify(report, null, 2));
    }
    expect(report.indexes.after).toBe(report.indexes.before);
    expect(report.columns.after).toBe(report.columns.before);
    // No round-trip difference ('' stays '', not NULL) and no failed step.
    expect(mismatches).toEqual([]);
    expect(failures).toEqual([]);
    // Every key comes from the table's own sequence: none typed.
    expect(typedKeys).toEqual([]);
    // Timestamps read as Shanghai's wall clock (17:03 there is 09:03Z) and written so.
    expect(readTimes.length).toBeGreaterThan(20);
    for (const entry of readTimes)
      expect(entry.api, entry.table).toBe(
        new Date(`${entry.wallClock.replace(' ', 'T').slice(0, 23)}+08:00`).toISOString(),
      );
    expect(addedTimes.length).toBeGreaterThan(30);
    expect(addedTimes.filter((entry) => !entry.isShanghaiNow)).toEqual([]);
    expect(updatedTimes.length).toBeGreaterThan(20);
    expect(updatedTimes.filter((entry) => !entry.isShanghaiNow)).toEqual([]);
    // Every table with a single-column primary key is adopted (dual has none) but the one whose
    // NOT NULL bytea no field can fill (every add would fail): refused, naming the column.
    expect(refused.map((entry) => entry.table)).toEqual(['dual', 'infra_file_content']);
    expect(refused[1]?.reason).toContain('content (bytea)');
    // Secrets proposed where ruoyi keeps them.
    expect(proposals.system_users).toMatchObject({ secrets: ['password'] });
    expect(proposals.system_users).toMatchObject({
      softDelete: 'deleted',
      tenantColumn: { column: 'tenant_id' },
      bookkeeping: {
        createdAt: 'create_time',
        createdBy: 'creator',
        updatedAt: 'update_time',
        updatedBy: 'updater',
      },
    });
  }, 600_000);
});
