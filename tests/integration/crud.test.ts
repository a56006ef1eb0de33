import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELETED_AT_COLUMN, hasRecycleBin, type EntityDef, type FieldDef } from '../../src/engine/index.js';
import { loadRegistry } from '../../src/server/lib/registry.js';
import { Api, data, errorFields, tableCounts, type ErrorBody, type Page, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { filterValue, Samples, sameValue, TAG, token } from '../support/samples.js';

/**
 * The generated CRUD API of every entity the schemas declare: one block of tests per entity,
 * the same for all of them, driven by the registry.
 */
const declaredEntities = loadRegistry(fileURLToPath(new URL('../../schemas', import.meta.url))).all;
const declared = declaredEntities.map((entity) => entity.name);
const hasSecrets = (name: string): boolean =>
  declaredEntities.some((entity) => entity.name === name && entity.fields.some((field) => field.isSecret));

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

it('serves every entity of the schemas directory', () => {
  expect(t.app.ctx.registry.all.map((entity) => entity.name)).toEqual(declared);
  expect(declared.length).toBeGreaterThanOrEqual(13);
});

it('keys and deletes regions by regionCode, as DESIGN.md says', async () => {
  const region = t.app.ctx.registry.require('sysregion');
  const created = await samples.create(region);
  expect(created.regionCode).toMatch(/^[0-9]{6,20}$/);
  const url = `/api/${region.api}/delete`;
  const byId = await api.post(url, undefined, { id: String(created.regionCode) });
  expect(byId.statusCode).toBe(400);
  expect(errorFields(byId).sort()).toEqual(['/id', '/regionCode']);
  const updated = await api.update(region, {
    regionCode: created.regionCode,
    version: 1,
    regionName: 'Renamed region',
  });
  expect(updated.statusCode, updated.body).toBe(200);
  expect(data(updated)).toMatchObject({
    regionCode: created.regionCode,
    regionName: 'Renamed region',
    version: 2,
  });
  const response = await api.post(url, undefined, { regionCode: String(created.regionCode) });
  expect(response.statusCode, response.body).toBe(200);
  expect(data(response)).toEqual({ deleted: 1 });
});

/** Declares a test only where it applies (entities with secret fields), rather than skipping it elsewhere. */
function itIf(condition: boolean, title: string, test: () => Promise<void>): void {
  if (condition) it(title, test);
}

/** A value of the key that no record has. */
function missingKey(entity: EntityDef): unknown {
  return entity.key.type === 'integer' ? 987_654_321 : '99999999999999';
}

/** Query parameters that select exactly the record with this key. */
function keyFilter(entity: EntityDef, key: unknown): Record<string, string> {
  return { [entity.key.name]: String(key) };
}

/** A text field the sample generator filled with a token: filtering by TAG finds sample records. */
function taggedTextField(entity: EntityDef, record: Row): FieldDef | undefined {
  return entity.fields.find(
    (field) =>
      field.filter === 'text' &&
      typeof record[field.name] === 'string' &&
      String(record[field.name]).toLowerCase().includes(TAG),
  );
}

async function storedRow(entity: EntityDef, key: unknown): Promise<Row | undefined> {
  const rows = await t.sql(`select * from "${entity.table}" where "${entity.key.column}" = $1`, [key]);
  return rows[0];
}

/** The entity's live rows (a record in a recycle bin is kept, marked, until purged). */
async function countRows(entity: EntityDef): Promise<number> {
  const live = hasRecycleBin(entity) ? ` where "${DELETED_AT_COLUMN}" is null` : '';
  const rows = await t.sql<{ n: number }>(`select count(*)::int as n from "${entity.table}"${live}`);
  return Number(rows[0]?.n);
}

for (const name of declared) {
  describe(name, () => {
    let entity: EntityDef;
    let sent: Row[] = [];
    let added: Row[] = [];
    let keys: unknown[] = [];
    let updatedField: FieldDef | undefined;
    let updatedValue: unknown;

    beforeAll(() => {
      entity = t.app.ctx.registry.require(name);
    });

    it('adds valid records and answers with the record, never its secrets', async () => {
      sent = [await samples.record(entity), await samples.record(entity)];
      added = [];
      for (const record of sent) {
        const response = await api.add(entity, record);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({ code: 200, message: 'success' });
        const row = data(response);
        added.push(row);
        for (const field of entity.fields) {
          if (field.isSecret) {
            expect(row).not.toHaveProperty(field.name);
            expect(response.body).not.toContain(String(record[field.name]));
          } else if (field.name in record) {
            expect(
              sameValue(field, record[field.name], row[field.name]),
              `${field.name}: sent ${JSON.stringify(record[field.name])}, got ${JSON.stringify(row[field.name])}`,
            ).toBe(true);
          }
        }
        expect(row[entity.key.name]).toBeDefined();
        expect(row).toMatchObject({ version: 1, createdBy: 'admin', updatedBy: 'admin' });
        expect(typeof row.createdAt).toBe('string');
        if (entity.isTenantScoped) expect(row.tenantCode).toBe('default');
      }
      keys = added.map((row) => row[entity.key.name]);
      expect(new Set(keys).size).toBe(2);
    });

    itIf(hasSecrets(name), 'stores secret fields as scrypt hashes', async () => {
      const secrets = entity.fields.filter((field) => field.isSecret);
      for (const [index, key] of keys.entries()) {
        const row = await storedRow(entity, key);
        expect(row).toBeDefined();
        for (const field of secrets) {
          expect(String(row?.[field.column])).toMatch(/^scrypt\$/);
          expect(String(row?.[field.column])).not.toContain(String(sent[index]?.[field.name]));
        }
      }
    });

    it('finds the records with paging, sort asc/desc and filters', async () => {
      const [first, second] = added as [Row, Row];
      const text = taggedTextField(entity, first);
      expect(text, 'a text filter the sample generator filled').toBeDefined();
      if (!text) return;
      const tagged = { [text.name]: TAG.toUpperCase() }; // contains, case-insensitive
      const ascending = await api.query(entity, { ...tagged, pageSize: '100', sort: entity.key.name });
      expect(ascending.statusCode, ascending.body).toBe(200);
      const asc = data<Page>(ascending);
      expect(asc).toMatchObject({ currentPage: 1, pageSize: 100, total: asc.records.length });
      const ascKeys = asc.records.map((row) => row[entity.key.name]);
      expect(ascKeys).toEqual(expect.arrayContaining(keys));
      for (const row of asc.records) expect(String(row[text.name]).toLowerCase()).toContain(TAG);
      const sortedKeys = [...ascKeys].sort((a, b) =>
        typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1,
      );
      expect(ascKeys).toEqual(sortedKeys);

      const descending = data<Page>(
        await api.query(entity, { ...tagged, pageSize: '100', sort: `-${entity.key.name}` }),
      );
      expect(descending.records.map((row) => row[entity.key.name])).toEqual([...ascKeys].reverse());

      // paging: the second record of the sorted list, alone on page 2 of size 1
      const page2 = data<Page>(
        await api.query(entity, { ...tagged, pageSize: '1', currentPage: '2', sort: entity.key.name }),
      );
      expect(page2).toEqual({
        records: [asc.records[1]],
        total: asc.total,
        totalExact: true,
        cursor: expect.any(String) as string,
        currentPage: 2,
        pageSize: 1,
      });

      // sort by the label: the two records swap places between asc and desc when their labels differ
      const label = entity.fieldsByName.get(entity.label);
      if (label?.isSortable && first[label.name] !== second[label.name]) {
        const order = async (sort: string): Promise<unknown[]> =>
          (await api.records(entity, { ...tagged, sort }))
            .map((row) => row[entity.key.name])
            .filter((key) => keys.includes(key));
        const up = await order(label.name);
        const down = await order(`-${label.name}`);
        expect(down).toEqual([...up].reverse());
      }

      // one record's own token finds it alone; a token no record has finds nothing
      const own = data<Page>(await api.query(entity, { [text.name]: String(first[text.name]) }));
      expect(own.records.map((row) => row[entity.key.name])).toContain(keys[0]);
      expect(own.records.map((row) => row[entity.key.name])).not.toContain(keys[1]);
      expect(data<Page>(await api.query(entity, { [text.name]: token(0) })).total).toBe(0);

      // the key filter, and every other filter with the record's value, find the record
      const byKey = data<Page>(await api.query(entity, keyFilter(entity, keys[0])));
      expect(byKey.records.map((row) => row[entity.key.name])).toEqual([keys[0]]);
      for (const field of entity.fields) {
        const value = filterValue(field, first[field.name]);
        if (value === undefined || field.isKey) continue;
        const response = await api.query(entity, { ...keyFilter(entity, keys[0]), [field.name]: value });
        expect(response.statusCode, `${field.name}=${value}: ${response.body}`).toBe(200);
        expect(
          data<Page>(response).records.map((row) => row[entity.key.name]),
          `filter ${field.name}=${value}`,
        ).toEqual([keys[0]]);
      }
    });

    it('updates with the right version: version+1 and the change', async () => {
      const fresh = await samples.record(entity);
      const first = added[0] as Row;
      updatedField = entity.fields.find(
        (field) =>
          !field.isReadOnly &&
          !field.isKey &&
          !field.isSecret &&
          !field.ref &&
          field.type === 'string' &&
          fresh[field.name] !== first[field.name],
      );
      expect(updatedField, 'a writable field to change').toBeDefined();
      if (!updatedField) return;
      updatedValue = fresh[updatedField.name];
      const secrets = entity.fields.filter((field) => field.isSecret);
      const before = await storedRow(entity, keys[0]);
      const change: Row = { [entity.key.name]: keys[0], version: 1, [updatedField.name]: updatedValue };
      for (const secret of secrets) change[secret.name] = fresh[secret.name];
      const response = await api.update(entity, change);
      expect(response.statusCode, response.body).toBe(200);
      const row = data(response);
      expect(row.version).toBe(2);
      expect(sameValue(updatedField, updatedValue, row[updatedField.name])).toBe(true);
      expect(row[entity.key.name]).toBe(keys[0]);
      for (const secret of secrets) {
        expect(response.body).not.toContain(String(fresh[secret.name]));
        const after = await storedRow(entity, keys[0]);
        expect(String(after?.[secret.column])).toMatch(/^scrypt\$/);
        expect(after?.[secret.column]).not.toBe(before?.[secret.column]);
      }
      const listed = data<Page>(await api.query(entity, keyFilter(entity, keys[0]))).records[0];
      expect(listed?.version).toBe(2);
      expect(sameValue(updatedField, updatedValue, listed?.[updatedField.name])).toBe(true);
      // untouched fields keep their values
      for (const field of entity.fields) {
        if (field === updatedField || field.isSecret || field.isSystem || !(field.name in first)) continue;
        expect(sameValue(field, first[field.name], listed?.[field.name]), field.name).toBe(true);
      }
    });

    itIf(hasSecrets(name), 'keeps the stored secret when an update leaves it empty', async () => {
      const secrets = entity.fields.filter((field) => field.isSecret);
      const extra = await samples.create(entity);
      const key = extra[entity.key.name];
      const stored = await storedRow(entity, key);
      for (const blank of ['', null]) {
        const change = {
          [entity.key.name]: key,
          version: 1,
          ...Object.fromEntries(secrets.map((secret) => [secret.name, blank])),
        };
        const response = await api.update(entity, blank === '' ? change : { ...change, version: 2 });
        expect(response.statusCode, response.body).toBe(200);
        const after = await storedRow(entity, key);
        for (const secret of secrets) expect(after?.[secret.column]).toBe(stored?.[secret.column]);
      }
      expect((await api.remove(entity, [key])).statusCode).toBe(200);
    });

    it('refuses an update with a stale version: 409 naming /version, nothing changed', async () => {
      if (!updatedField) return expect.fail('no update happened');
      const stale = await api.update(entity, {
        [entity.key.name]: keys[0],
        version: 1,
        [updatedField.name]: (added[1] as Row)[updatedField.name],
      });
      expect(stale.statusCode).toBe(409);
      expect(stale.json<ErrorBody>()).toMatchObject({ code: 409, message: expect.any(String) });
      expect(errorFields(stale)).toContain('/version');
      const listed = data<Page>(await api.query(entity, keyFilter(entity, keys[0]))).records[0];
      expect(listed?.version).toBe(2);
      expect(sameValue(updatedField, updatedValue, listed?.[updatedField.name])).toBe(true);
    });

    it('refuses a clash on a unique field with 409 naming the field', async () => {
      const unique = entity.fields.filter((field) => field.isUnique);
      const first = data<Page>(await api.query(entity, keyFilter(entity, keys[0]))).records[0] as Row;
      const count = await countRows(entity);
      for (const field of unique) {
        const clash = await api.add(
          entity,
          await samples.record(entity, { [field.name]: first[field.name] }),
        );
        expect(clash.statusCode, clash.body).toBe(409);
        expect(errorFields(clash)).toEqual([`/${field.name}`]);
        const onUpdate = await api.update(entity, {
          [entity.key.name]: keys[1],
          version: 1,
          [field.name]: first[field.name],
        });
        expect(onUpdate.statusCode, onUpdate.body).toBe(409);
        expect(errorFields(onUpdate)).toEqual([`/${field.name}`]);
      }
      if (!entity.isKeyGenerated) {
        // a key the client supplies clashes like a unique field
        const clash = await api.add(entity, await samples.record(entity, { [entity.key.name]: keys[0] }));
        expect(clash.statusCode, clash.body).toBe(409);
        expect(errorFields(clash)).toEqual([`/${entity.key.name}`]);
      }
      expect(await countRows(entity)).toBe(count);
      const second = data<Page>(await api.query(entity, keyFilter(entity, keys[1]))).records[0];
      expect(second?.version).toBe(1);
    });

    it('answers 404 for a delete naming a missing key, and deletes nothing', async () => {
      const before = await tableCounts(t);
      const response = await api.remove(entity, [keys[0], missingKey(entity)]);
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json<ErrorBody>()).toMatchObject({
        code: 404,
        message: expect.stringContaining(String(missingKey(entity))),
      });
      expect(await tableCounts(t)).toEqual(before);
      expect(data<Page>(await api.query(entity, keyFilter(entity, keys[0]))).total).toBe(1);
    });

    it('deletes two records in one batch, after which the list no longer has them', async () => {
      const count = await countRows(entity);
      const response = await api.remove(entity, keys);
      expect(response.statusCode, response.body).toBe(200);
      expect(data(response)).toEqual({ deleted: 2 });
      for (const key of keys)
        expect(data<Page>(await api.query(entity, keyFilter(entity, key))).total).toBe(0);
      expect(await countRows(entity)).toBe(count - 2);
      const again = await api.remove(entity, [keys[0]]);
      expect(again.statusCode).toBe(404);
    });

    it('writes one audit row per add, update and delete, without secrets', async () => {
      const rows = await t.sql<{
        record_key: string;
        action: string;
        username: string;
        before: Row | null;
        after: Row | null;
      }>(
        'select record_key, action, username, before, after from sys_audit_log where entity = $1 and record_key = any($2) order by id',
        [entity.name, keys.map(String)],
      );
      const actions = (key: unknown): string[] =>
        rows.filter((row) => row.record_key === String(key)).map((row) => row.action);
      expect(actions(keys[0])).toEqual(['add', 'update', 'delete']);
      expect(actions(keys[1])).toEqual(['add', 'delete']);
      for (const row of rows) {
        expect(row.username).toBe('admin');
        for (const field of entity.fields.filter((f) => f.isSecret)) {
          expect(row.before ?? {}).not.toHaveProperty(field.name);
          expect(row.after ?? {}).not.toHaveProperty(field.name);
        }
      }
      const [add, update, remove] = rows.filter((row) => row.record_key === String(keys[0]));
      expect(add?.before).toBeNull();
      expect(add?.after).toMatchObject({ [entity.key.name]: keys[0], version: 1 });
      expect(update?.before).toMatchObject({ version: 1 });
      expect(update?.after).toMatchObject({ version: 2 });
      if (updatedField)
        expect(sameValue(updatedField, updatedValue, update?.after?.[updatedField.name])).toBe(true);
      expect(remove?.before).toMatchObject({ [entity.key.name]: keys[0], version: 2 });
      expect(remove?.after).toBeNull();
    });
  });
}
