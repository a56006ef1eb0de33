import { fileURLToPath } from 'node:url';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDef, FieldDef } from '../../src/engine/index.js';
import { loadRegistry } from '../../src/server/lib/registry.js';
import { Api, data, errorFields, tableCounts, type ErrorBody, type Page, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { Samples, token } from '../support/samples.js';

/**
 * Whatever a client sends, the API answers 4xx (never 5xx), names the offending field where
 * there is one, and changes nothing.
 */
const declared = loadRegistry(fileURLToPath(new URL('../../schemas', import.meta.url))).all.map(
  (entity) => entity.name,
);

let t: TestApp;
let api: Api;
let samples: Samples;
beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t);
  samples = new Samples(api);
});
afterAll(async () => {
  await t?.close();
});

const SQL_LIKE = ["' or 1=1 --", '"; drop table sys_user; --', '%', '_', '\\'];
const UNSAFE_INTEGERS = ['9007199254740993', '-9007199254740993', '12345678901234567890', '1e400'];

/** A 400 whose errors all concern this field (its own pointer or one below it). */
function expectFieldError(response: LightMyRequestResponse, field: string, what = ''): void {
  expect(response.statusCode, `${what} ${response.body.slice(0, 300)}`).toBe(400);
  const fields = errorFields(response);
  expect(fields.length, `${what} names a field`).toBeGreaterThan(0);
  for (const name of fields)
    expect(name === field || name.startsWith(`${field}/`), `${what}: ${name} should be ${field}`).toBe(true);
}

const isExactNumber = (field: FieldDef): boolean =>
  field.schema.format === 'decimal' || field.schema.format === 'int64';

/** Values of the wrong JSON type for a field. */
function wrongTypes(field: FieldDef): unknown[] {
  switch (field.type) {
    case 'string':
      // An exact number (decimal, int64) travels as text and takes a whole JSON number as its
      // digits; a fraction has been a float since JSON.parse and is refused.
      return isExactNumber(field) ? [1.5, true, ['a'], { a: 1 }] : [12345, true, ['a'], { a: 1 }];
    case 'integer':
      return ['abc', 1.5, '12', true];
    case 'number':
      return ['abc', false, [1]];
    case 'boolean':
      return ['yes', 1, 'true'];
    case 'array':
      return ['x', { a: 1 }, [{ a: 1 }], [null]];
    case 'object':
      return ['x', [1], 7];
  }
}

const json = { 'content-type': 'application/json' };

for (const name of declared) {
  describe(name, () => {
    let entity: EntityDef;
    let base: Row;
    let existing: Row;
    let counts: Record<string, number>;
    const url = (action: string): string => `/api/${entity.api}/${action}`;
    const writable = (): FieldDef[] => entity.fields.filter((field) => !field.isReadOnly);
    const keyOf = (row: Row): unknown => row[entity.key.name];
    const updateOf = (extra: Row): Row => ({
      [entity.key.name]: keyOf(existing),
      version: existing.version,
      ...extra,
    });

    beforeAll(async () => {
      entity = t.app.ctx.registry.require(name);
      // The record is the entity's fields: an add may answer more (a new tenant also carries its
      // administrator's initial sign-in, shown once).
      const names = new Set(entity.fields.map((field) => field.name));
      existing = Object.fromEntries(
        Object.entries(await samples.create(entity)).filter(([name]) => names.has(name)),
      );
      base = await samples.record(entity);
      counts = await tableCounts(t);
    });

    it('refuses malformed JSON (400), other content types (415) and bodies over 1 MB (413)', async () => {
      for (const [method, action] of [
        ['POST', 'add'],
        ['PUT', 'update'],
        ['POST', 'export'],
      ] as const) {
        for (const payload of ['{"a":', '{', 'nul', '{"a":1}}', "{'a':1}", '']) {
          const response = await api.call({ method, url: url(action), headers: json, payload });
          expect(response.statusCode, `${action} ${JSON.stringify(payload)}`).toBe(400);
          expect(response.json<ErrorBody>()).toMatchObject({ code: 400, message: expect.any(String) });
        }
        const poisoned = await api.call({
          method,
          url: url(action),
          headers: json,
          payload: '{"__proto__":{"isAdmin":true}}',
        });
        expect(poisoned.statusCode).toBe(400);
        for (const type of [
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/xml',
          'multipart/form-data; boundary=x',
        ]) {
          const response = await api.call({
            method,
            url: url(action),
            headers: { 'content-type': type },
            payload: 'x=1',
          });
          expect(response.statusCode, `${action} ${type}`).toBe(415);
          expect(response.json<ErrorBody>()).toMatchObject({ code: 415, message: expect.any(String) });
        }
        const huge = JSON.stringify({ [entity.label]: 'x'.repeat(1024 * 1024) });
        const tooLarge = await api.call({ method, url: url(action), headers: json, payload: huge });
        expect(tooLarge.statusCode, action).toBe(413);
        expect(tooLarge.json<ErrorBody>()).toMatchObject({ code: 413, message: expect.any(String) });
      }
      for (const payload of ['null', '[]', '"text"', '42']) {
        expectFieldError(
          await api.call({ method: 'POST', url: url('add'), headers: json, payload }),
          '/',
          `add ${payload}`,
        );
        expectFieldError(
          await api.call({ method: 'PUT', url: url('update'), headers: json, payload }),
          '/',
          `update ${payload}`,
        );
        if (payload !== 'null') {
          expectFieldError(
            await api.call({ method: 'POST', url: url('export'), headers: json, payload }),
            '/',
            `export ${payload}`,
          );
        }
      }
      const deleteWithText = await api.call({
        method: 'POST',
        url: `${url('delete')}?${entity.key.name}=${String(keyOf(existing))}`,
        headers: { 'content-type': 'text/plain' },
        payload: 'x',
      });
      expect(deleteWithText.statusCode).toBe(415);
    });

    it('refuses values of the wrong type in every field, on add and on update', async () => {
      for (const field of writable()) {
        for (const value of wrongTypes(field)) {
          expectFieldError(
            await api.add(entity, { ...base, [field.name]: value }),
            `/${field.name}`,
            `add ${field.name}=${JSON.stringify(value)}`,
          );
          if (field.isKey) continue;
          expectFieldError(
            await api.update(entity, updateOf({ [field.name]: value })),
            `/${field.name}`,
            `update ${field.name}=${JSON.stringify(value)}`,
          );
        }
      }
    });

    it('refuses missing required fields and unknown fields', async () => {
      const required = writable().filter((field) => field.isRequired && field.schema.default === undefined);
      const empty = await api.add(entity, {});
      expect(empty.statusCode).toBe(400);
      expect(errorFields(empty).sort()).toEqual(required.map((field) => `/${field.name}`).sort());
      for (const field of required) {
        const { [field.name]: _omitted, ...rest } = base;
        expectFieldError(await api.add(entity, rest), `/${field.name}`, `add without ${field.name}`);
        expectFieldError(
          await api.add(entity, { ...base, [field.name]: null }),
          `/${field.name}`,
          `add ${field.name}=null`,
        );
        if (field.type === 'string')
          expectFieldError(
            await api.add(entity, { ...base, [field.name]: '' }),
            `/${field.name}`,
            `add ${field.name}=""`,
          );
        // (an empty secret on update keeps the current one: see crud.test.ts)
        if (!field.isKey && !field.isSecret)
          expectFieldError(
            await api.update(entity, updateOf({ [field.name]: null })),
            `/${field.name}`,
            `clear ${field.name}`,
          );
      }
      for (const unknown of ['bogus', 'tenant_code', 'constructor', 'a\u0000b', "x' or 1=1 --"]) {
        expectFieldError(await api.add(entity, { ...base, [unknown]: 1 }), `/${unknown}`, `add ${unknown}`);
        expectFieldError(
          await api.update(entity, updateOf({ [unknown]: 1 })),
          `/${unknown}`,
          `update ${unknown}`,
        );
      }
    });

    it('refuses strings beyond maxLength, NUL characters and integers beyond 2^53', async () => {
      for (const field of writable()) {
        const items = field.type === 'array' ? field.schema.items : undefined;
        const wrap = (value: unknown): unknown => (items ? [value] : value);
        const maxLength = items ? items.maxLength : field.schema.maxLength;
        if ((field.type === 'string' || items?.type === 'string') && maxLength !== undefined) {
          const long = wrap('a'.repeat(maxLength + 1));
          expectFieldError(
            await api.add(entity, { ...base, [field.name]: long }),
            `/${field.name}`,
            `add long ${field.name}`,
          );
          if (!field.isKey)
            expectFieldError(
              await api.update(entity, updateOf({ [field.name]: long })),
              `/${field.name}`,
              `update long ${field.name}`,
            );
        }
        if (field.type === 'string' || items?.type === 'string' || field.type === 'object') {
          const nul =
            field.type === 'object'
              ? { note: 'a\u0000b' }
              : wrap(`${String(field.type === 'string' ? base[field.name] : 'a')}\u0000`);
          expectFieldError(
            await api.add(entity, { ...base, [field.name]: nul }),
            `/${field.name}`,
            `add NUL ${field.name}`,
          );
          if (!field.isKey)
            expectFieldError(
              await api.update(entity, updateOf({ [field.name]: nul })),
              `/${field.name}`,
              `update NUL ${field.name}`,
            );
        }
        if (field.type === 'integer' || items?.type === 'integer') {
          for (const text of UNSAFE_INTEGERS) {
            const raw = items ? `[${text}]` : text;
            const add = `${JSON.stringify({ ...base, [field.name]: 0 }).replace(`"${field.name}":0`, `"${field.name}":${raw}`)}`;
            expectFieldError(
              await api.call({ method: 'POST', url: url('add'), headers: json, payload: add }),
              `/${field.name}`,
              `add ${field.name}=${raw}`,
            );
            const update = JSON.stringify(updateOf({ [field.name]: 0 })).replace(
              `"${field.name}":0`,
              `"${field.name}":${raw}`,
            );
            expectFieldError(
              await api.call({ method: 'PUT', url: url('update'), headers: json, payload: update }),
              `/${field.name}`,
              `update ${field.name}=${raw}`,
            );
          }
        }
      }
    });

    it('refuses bad keys and versions on update', async () => {
      const key = `/${entity.key.name}`;
      // a version beyond 2^53 can never match: the stale-version 409 naming /version
      const unsafeVersion = await api.update(entity, updateOf({ version: 2 ** 53 + 2 }));
      expect(unsafeVersion.statusCode).toBe(409);
      expect(errorFields(unsafeVersion)).toEqual(['/version']);
      for (const version of ['1', -1, 1.5, null, true]) {
        expectFieldError(
          await api.update(entity, updateOf({ version })),
          '/version',
          `version ${JSON.stringify(version)}`,
        );
      }
      const { version: _version, ...noVersion } = updateOf({});
      expectFieldError(await api.update(entity, noVersion), '/version', 'no version');
      const { [entity.key.name]: _key, ...noKey } = updateOf({});
      expectFieldError(await api.update(entity, noKey), key, 'no key');
      const badKeys =
        entity.key.type === 'integer'
          ? ['abc', 1.5, 0, -1, 2 ** 53 + 2, null, [1]]
          : [12, 'a\u0000', null, ['x']];
      for (const bad of badKeys)
        expectFieldError(
          await api.update(entity, updateOf({ [entity.key.name]: bad })),
          key,
          `key ${JSON.stringify(bad)}`,
        );
      const missing = await api.update(
        entity,
        updateOf({ [entity.key.name]: entity.key.type === 'integer' ? 987_654_321 : '99999999999999' }),
      );
      expect(missing.statusCode).toBe(404);
    });

    it('treats SQL-looking values in every filter as data', async () => {
      for (const field of entity.fields.filter((f) => f.filter)) {
        for (const value of SQL_LIKE) {
          const response = await api.query(entity, { [field.name]: value, pageSize: '10000' });
          if (response.statusCode === 400) {
            expect(errorFields(response), `${field.name}=${value}`).toEqual([`/${field.name}`]);
            continue;
          }
          expect(response.statusCode, `${field.name}=${value}: ${response.body}`).toBe(200);
          const { records, total } = data<Page>(response);
          expect(total).toBe(records.length);
          for (const record of records) {
            const actual = record[field.name];
            if (field.filter === 'text')
              expect(String(actual).toLowerCase(), `${field.name}=${value}`).toContain(value.toLowerCase());
            else if (Array.isArray(actual)) expect(actual.map(String)).toContain(value);
            else expect(String(actual)).toBe(value);
          }
        }
      }
      // the tables are all still there
      expect((await api.query(t.app.ctx.registry.require('sysuser'), { username: 'admin' })).statusCode).toBe(
        200,
      );
    });

    it('refuses SQL-looking, unknown and unsortable sort fields and unknown filters', async () => {
      const unsortable = entity.fields.filter((field) => !field.isSortable).map((field) => field.name);
      const unfilterable = entity.fields.filter((field) => !field.filter).map((field) => field.name);
      for (const sort of [
        ...SQL_LIKE,
        'nosuch',
        '-nosuch',
        `${entity.key.name},nosuch`,
        'id;drop',
        '--id',
        ...unsortable,
        ...unsortable.map((f) => `-${f}`),
      ]) {
        const response = await api.query(entity, { sort });
        expect(response.statusCode, `sort=${sort}`).toBe(400);
        expect(errorFields(response), `sort=${sort}`).toEqual(['/sort']);
        const exported = await api.export(entity, { sort });
        expect(exported.statusCode, `export sort=${sort}`).toBe(400);
        expect(errorFields(exported)).toEqual(['/sort']);
      }
      for (const filter of ['nosuch', 'tenant_code', "1=1 or '", ...unfilterable]) {
        const response = await api.query(entity, { [filter]: '1' });
        expect(response.statusCode, `filter ${filter}`).toBe(400);
        expect(errorFields(response)).toEqual([`/${filter}`]);
        const exported = await api.export(entity, { [filter]: '1' });
        expect(exported.statusCode, `export filter ${filter}`).toBe(400);
      }
      for (const field of entity.fields.filter((f) => f.filter)) {
        const nul = await api.query(entity, { [field.name]: '1\u0000' });
        expect(nul.statusCode, `${field.name} NUL`).toBe(400);
        expect(errorFields(nul)).toEqual([`/${field.name}`]);
      }
      // typed filters take only values of their type
      for (const field of entity.fields.filter(
        (f) =>
          f.filter === 'number' || f.filter === 'boolean' || (f.filter === 'select' && f.type === 'integer'),
      )) {
        for (const value of ['abc', '1.5x', ...UNSAFE_INTEGERS.slice(0, 3)]) {
          if ((field.type === 'number' || isExactNumber(field)) && /^-?\d+$/.test(value)) continue;
          const response = await api.query(entity, { [field.name]: value });
          expect(response.statusCode, `${field.name}=${value}`).toBe(400);
          expect(errorFields(response)).toEqual([`/${field.name}`]);
        }
      }
    });

    it('refuses bad currentPage and pageSize', async () => {
      for (const [param, values] of [
        ['currentPage', ['0', '-1', 'abc', '1.5', '1e3', '99999999999', "1' or '1'='1"]],
        ['pageSize', ['0', '-5', 'abc', '10001', '2.5', '1e4', '99999999999']],
      ] as const) {
        for (const value of values) {
          const response = await api.query(entity, { [param]: value });
          expect(response.statusCode, `${param}=${value}`).toBe(400);
          expect(errorFields(response)).toEqual([`/${param}`]);
        }
        const twice = await api.query(entity, { [param]: ['1', '2'] });
        expect(twice.statusCode).toBe(400);
        expect(errorFields(twice)).toEqual([`/${param}`]);
      }
      // a page past the end is empty, not an error
      const far = await api.query(entity, { currentPage: '1000000', pageSize: '10000' });
      expect(far.statusCode).toBe(200);
      expect(data<Page>(far).records).toEqual([]);
    });

    it('refuses bad date ranges', async () => {
      const bad = [
        'yesterday',
        '2024-13-01',
        '2024-02-30',
        '2023-02-29',
        '2024-00-10',
        '2024-01-01T25:00:00',
        '2024-01-01T10:61:00',
        '2024-01-01T10:00:00+25:00',
        '2024-01-01,soon',
        ',',
        '2024-01-01,2024-01-02,2024-01-03',
        "2024-01-01' or 1=1 --",
        '99999-01-01',
      ];
      for (const field of entity.fields.filter((f) => f.filter === 'dateRange')) {
        for (const value of bad) {
          const response = await api.query(entity, { [field.name]: value });
          expect(response.statusCode, `${field.name}=${value}: ${response.body}`).toBe(400);
          expect(errorFields(response), `${field.name}=${value}`).toEqual([`/${field.name}`]);
        }
        const twice = await api.query(entity, { [field.name]: ['2024-01-01', '2024-01-02'] });
        expect(twice.statusCode).toBe(400);
        const ok = await api.query(entity, { [field.name]: '2024-02-29,2024-03-01T23:59:59+08:00' });
        expect(ok.statusCode, ok.body).toBe(200);
      }
    });

    it('refuses bad delete keys', async () => {
      const key = `/${entity.key.name}`;
      const many = Array.from({ length: 1001 }, (_, index) =>
        entity.key.type === 'integer' ? String(index + 1) : String(100_000 + index),
      );
      const bad: string[][] =
        entity.key.type === 'integer'
          ? [['abc'], [''], ['1.5'], ['-1'], ['1e3'], ['99999999999999999999'], ['1\u0000'], ['1', 'x'], many]
          : [[''], ['\u0000'], ['1', ''], many];
      for (const keys of bad) {
        const response = await api.post(url('delete'), undefined, { [entity.key.name]: keys });
        expect(response.statusCode, `delete ${JSON.stringify(keys).slice(0, 60)}`).toBe(400);
        expect(errorFields(response)).toContain(key);
      }
      const none = await api.post(url('delete'));
      expect(none.statusCode).toBe(400);
      expect(errorFields(none)).toEqual([key]);
      const unknown = await api.post(url('delete'), undefined, {
        [entity.key.name]: String(keyOf(existing)),
        other: '1',
      });
      expect(unknown.statusCode).toBe(400);
      expect(errorFields(unknown)).toEqual(['/other']);
      for (const value of SQL_LIKE) {
        const response = await api.post(url('delete'), undefined, { [entity.key.name]: value });
        expect([400, 404], `delete ${value}`).toContain(response.statusCode);
      }
    });

    it('left every table as it was', async () => {
      expect(await tableCounts(t)).toEqual(counts);
      const after = data<Page>(
        await api.query(entity, { [entity.key.name]: String(keyOf(existing)) }),
      ).records;
      expect(after).toEqual([existing]);
    });

    it('matches %, _ and \\ in a contains filter literally', async () => {
      const field = entity.fields.find(
        (f) =>
          f.filter === 'text' &&
          f.type === 'string' &&
          !f.isKey &&
          !f.schema.pattern &&
          !f.schema.format &&
          (f.schema.maxLength ?? 100) >= 40,
      );
      if (!field) return; // no free-text filter to try
      const special = await samples.create(entity, { [field.name]: `50%_\\ off ${token(0)}` });
      const plain = await samples.create(entity, { [field.name]: `50 off a ${token(0)}` });
      for (const value of ['%', '_', '\\', '50%', '%_\\', '0%_']) {
        const keys = (await api.records(entity, { [field.name]: value })).map(keyOf);
        expect(keys, `${field.name}=${value}`).toContain(keyOf(special));
        expect(keys, `${field.name}=${value}`).not.toContain(keyOf(plain));
        for (const record of await api.records(entity, { [field.name]: value }))
          expect(String(record[field.name])).toContain(value);
      }
      expect((await api.records(entity, { [field.name]: '5%0' })).map(keyOf)).toEqual([]);
      expect((await api.remove(entity, [keyOf(special), keyOf(plain)])).statusCode).toBe(200);
    });
  });
}
