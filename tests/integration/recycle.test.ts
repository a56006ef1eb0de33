import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDef } from '../../src/engine/index.js';
import { Api, data, errorFields, type Page, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

/**
 * Recycle bin and restore (issue 34): a purchase announcement (x-entity.softDelete) deleted goes
 * to the bin, leaves every list, comes back, is purged by hand and after the recycleBinDays
 * param; a unique key of a deleted record is used again and its restore refused; any record is
 * set back to a version of its 修改历史, refused when that version no longer passes the schema.
 */

const SCHEMAS = fileURLToPath(new URL('../../schemas', import.meta.url));
const temporaryDirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ecobid-${prefix}-`));
  temporaryDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
});

type BinPage = {
  records: (Row & { deletedAt: string; deletedBy: string; expiresAt: string })[];
  total: number;
  recycleDays: number;
};

describe('the recycle bin of purchase announcements', () => {
  let t: TestApp;
  let api: Api;
  let purchase: EntityDef;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp();
    api = new Api(t);
    purchase = t.app.ctx.registry.require('purchase');
    base = `/api/${purchase.api}`;
  });
  afterAll(async () => {
    await t?.close();
  });

  const addPurchase = async (title: string): Promise<Row> => {
    const added = await api.add(purchase, { title, buyerName: 'Green Water Co.', budget: '1200.50' });
    expect(added.statusCode, added.body).toBe(200);
    return data(added);
  };
  const bin = async (): Promise<BinPage> => {
    const response = await api.get(`${base}/recycle`, { pageSize: '100' });
    expect(response.statusCode, response.body).toBe(200);
    return data<BinPage>(response);
  };
  const actions = async (id: unknown): Promise<string[]> =>
    (
      await t.sql<{ action: string }>(
        "select action from sys_audit_log where entity = 'purchase' and record_key = $1 order by id",
        [String(id)],
      )
    ).map((row) => row.action);

  it('moves a deleted record to the bin: out of the list, the detail read and the counts', async () => {
    const kept = await addPurchase('Kept river survey');
    const gone = await addPurchase('Binned river survey');
    const removed = await api.remove(purchase, [gone.id]);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(data(removed)).toEqual({ deleted: 1 });

    const titles = (await api.records(purchase)).map((row) => row.title);
    expect(titles).toContain('Kept river survey');
    expect(titles).not.toContain('Binned river survey');
    expect(await api.records(purchase, { id: String(gone.id) })).toEqual([]);
    const page = data<Page>(await api.query(purchase, { title: 'river survey' }));
    expect(page.total).toBe(1);
    const again = await api.remove(purchase, [gone.id]);
    expect(again.statusCode).toBe(404);

    const inBin = await bin();
    const entry = inBin.records.find((row) => row.id === gone.id);
    expect(entry).toMatchObject({ title: 'Binned river survey', deletedBy: 'admin' });
    expect(new Date(entry?.expiresAt ?? '').getTime() - new Date(entry?.deletedAt ?? '').getTime()).toBe(
      30 * 24 * 3600 * 1000,
    );
    expect(inBin.records.some((row) => row.id === kept.id)).toBe(false);
    expect(await actions(gone.id)).toEqual(['add', 'delete']);
    // The row is still there, marked.
    const [row] = await t.sql<{ deleted_by: string }>(
      'select deleted_by from portal_purchase where id = $1',
      [gone.id],
    );
    expect(row?.deleted_by).toBe('admin');
  });

  it('restores records from the bin into the lists, audited', async () => {
    const record = await addPurchase('Restored sludge plant');
    await api.remove(purchase, [record.id]);
    const restored = await api.post(`${base}/recycle/restore`, undefined, { id: String(record.id) });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(data(restored)).toEqual({ restored: 1 });
    expect((await api.records(purchase)).map((row) => row.title)).toContain('Restored sludge plant');
    expect((await bin()).records.some((row) => row.id === record.id)).toBe(false);
    expect(await actions(record.id)).toEqual(['add', 'delete', 'restore']);
    // Not in the bin any more: 404 naming the key.
    const twice = await api.post(`${base}/recycle/restore`, undefined, { id: String(record.id) });
    expect(twice.statusCode).toBe(404);
    expect(errorFields(twice)).toEqual(['/id']);
  });

  it('purges records of the bin for good, by hand and after the recycleBinDays param', async () => {
    const record = await addPurchase('Purged dust filter');
    await api.remove(purchase, [record.id]);
    const purged = await api.post(`${base}/recycle/purge`, undefined, { id: String(record.id) });
    expect(purged.statusCode, purged.body).toBe(200);
    expect(data(purged)).toEqual({ purged: 1 });
    expect(await t.sql('select id from portal_purchase where id = $1', [record.id])).toEqual([]);
    expect(await actions(record.id)).toEqual(['add', 'delete', 'purge']);
    // A live record cannot be purged through the bin.
    const live = await addPurchase('Live record');
    const refused = await api.post(`${base}/recycle/purge`, undefined, { id: String(live.id) });
    expect(refused.statusCode).toBe(404);

    // The param is seeded where admins look (系统参数), and read per tenant.
    const [param] = await t.sql<{ param_value: string }>(
      "select param_value from sys_param where param_key = 'recycleBinDays' and tenant_code = 'default'",
    );
    expect(param?.param_value).toBe('30');
    await t.sql("update sys_param set param_value = '5' where param_key = 'recycleBinDays'");
    const old = await addPurchase('Six days in the bin');
    const recent = await addPurchase('Four days in the bin');
    await api.remove(purchase, [old.id, recent.id]);
    await t.sql("update portal_purchase set deleted_at = now() - interval '6 days' where id = $1", [old.id]);
    await t.sql("update portal_purchase set deleted_at = now() - interval '4 days' where id = $1", [
      recent.id,
    ]);
    const page = await bin();
    expect(page.recycleDays).toBe(5);
    expect(page.records.map((row) => row.id)).toContain(recent.id);
    expect(page.records.map((row) => row.id)).not.toContain(old.id);
    expect(await t.sql('select id from portal_purchase where id = $1', [old.id])).toEqual([]);
    expect(await actions(old.id)).toEqual(['add', 'delete', 'purge']);
    await t.sql("update sys_param set param_value = '30' where param_key = 'recycleBinDays'");
  });

  it('sets a record back to a version of its change history, as a new audited update', async () => {
    const record = await addPurchase('First title');
    const updated = await api.update(purchase, { ...record, title: 'Second title', region: 'North' });
    expect(updated.statusCode, updated.body).toBe(200);
    const [added] = await t.sql<{ id: number }>(
      "select id from sys_audit_log where entity = 'purchase' and record_key = $1 and action = 'add'",
      [String(record.id)],
    );
    const back = await api.post(`${base}/restoreVersion`, { auditId: added?.id });
    expect(back.statusCode, back.body).toBe(200);
    expect(data(back)).toMatchObject({ id: record.id, title: 'First title', region: null, version: 3 });
    expect((await api.records(purchase, { id: String(record.id) }))[0]).toMatchObject({
      title: 'First title',
    });
    expect(await actions(record.id)).toEqual(['add', 'update', 'update']);

    // A record in the bin is restored from the bin first: 409 saying so.
    await api.remove(purchase, [record.id]);
    const binned = await api.post(`${base}/restoreVersion`, { auditId: added?.id });
    expect(binned.statusCode).toBe(409);
    expect(binned.json().message).toContain('回收站');
    // Another entity's version, or none: 404 naming the field.
    const missing = await api.post(`${base}/restoreVersion`, { auditId: 999_999_999 });
    expect(missing.statusCode).toBe(404);
    expect(errorFields(missing)).toEqual(['/auditId']);
  });

  it('is described in the API document', async () => {
    const document = (await t.request({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, unknown>;
    };
    for (const path of ['recycle', 'recycle/restore', 'recycle/purge', 'restoreVersion'])
      expect(document.paths[`${base}/${path}`], path).toBeDefined();
    expect(document.paths['/api/admin/sysuser/recycle']).toBeUndefined();
  });

  it('answers only to roles granted the URLs', async () => {
    const role = await api.add(t.app.ctx.registry.require('sysrole'), {
      roleCode: 'ROLE_BIN_KEEPER',
      roleName: 'Bin keeper',
    });
    expect(role.statusCode, role.body).toBe(200);
    const { token } = await createUserWithRole(t, 'binkeeper', 'ROLE_BIN_KEEPER');
    const grant = async (url: string): Promise<void> => {
      const added = await api.post('/api/admin/sysurl/add', { url, description: url });
      expect(added.statusCode, added.body).toBe(200);
      const granted = await api.post('/api/admin/sysurl/authorizeRoleToUrl', {
        urlId: data(added).id,
        roleIds: [data(role).id],
      });
      expect(granted.statusCode, granted.body).toBe(200);
    };
    await grant(`${base}/*`);
    const keeper = { authorization: `Bearer ${token}` };
    const record = await addPurchase('Granted bin');
    const deleted = await t.request({
      method: 'POST',
      url: `${base}/delete?id=${String(record.id)}`,
      headers: keeper,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const listed = await t.request({ method: 'GET', url: `${base}/recycle`, headers: keeper });
    expect(listed.statusCode, listed.body).toBe(200);
    const restoreUrl = `${base}/recycle/restore?id=${String(record.id)}`;
    const refused = await t.request({ method: 'POST', url: restoreUrl, headers: keeper });
    expect(refused.statusCode).toBe(403);
    await grant(`${base}/recycle/**`);
    const allowed = await t.request({ method: 'POST', url: restoreUrl, headers: keeper });
    expect(allowed.statusCode, allowed.body).toBe(200);
  });

  it("gives a designed form the recycle calls when its x-entity.softDelete is on (the designer's switch)", async () => {
    const publish = async (code: string, softDelete: boolean): Promise<void> => {
      const form = await api.post('/api/generator/form/add', {
        formCode: code,
        formName: `Form ${code}`,
        formContent: {
          title: `Form ${code}`,
          type: 'object',
          ...(softDelete ? { 'x-entity': { softDelete: true } } : {}),
          required: ['name'],
          properties: { name: { type: 'string', title: 'Name', maxLength: 40 } },
        },
      });
      expect(form.statusCode, form.body).toBe(200);
      const published = await api.post('/api/generator/form/publish', {
        id: data(form).id,
        menuParent: 'formgenerator',
        icon: 'form',
        roles: [],
      });
      expect(published.statusCode, published.body).toBe(200);
    };
    await publish('binnedform', true);
    await publish('plainform', false);
    const online = '/api/online/binnedform';
    const added = await api.post(`${online}/add`, { name: 'Kept for later' });
    expect(added.statusCode, added.body).toBe(200);
    const id = String(data(added).id);
    const other = await api.post(`${online}/add`, { name: 'Gone for good' });
    const otherId = String(data(other).id);
    for (const key of [id, otherId])
      expect((await api.post(`${online}/delete`, undefined, { id: key })).statusCode).toBe(200);
    const listed = async (): Promise<string[]> =>
      data<Page>(await api.get(`${online}/query`, { pageSize: '100' })).records.map((row) =>
        String(row.name),
      );
    expect(await listed()).toEqual([]);
    const binned = await api.get(`${online}/recycle`, { pageSize: '100' });
    expect(binned.statusCode, binned.body).toBe(200);
    const page = data<BinPage>(binned);
    expect(page.records.map((row) => row.name).sort()).toEqual(['Gone for good', 'Kept for later']);
    expect(page.records[0]).toMatchObject({ deletedBy: 'admin' });
    expect(page.recycleDays).toBeGreaterThan(0);
    const restored = await api.post(`${online}/recycle/restore`, undefined, { id });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(data(restored)).toEqual({ restored: 1 });
    const purged = await api.post(`${online}/recycle/purge`, undefined, { id: otherId });
    expect(data(purged)).toEqual({ purged: 1 });
    expect(await listed()).toEqual(['Kept for later']);
    expect(data<BinPage>(await api.get(`${online}/recycle`)).total).toBe(0);
    // restoreVersion, for every form: the add's version of the restored record
    const [current] = data<Page>(await api.get(`${online}/query`, { id })).records;
    const updated = await api.call({
      method: 'PUT',
      url: `${online}/update`,
      payload: { id: Number(id), version: current?.version, name: 'Renamed' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await listed()).toEqual(['Renamed']);
    const [addEntry] = await t.sql<{ id: number }>(
      "select id from sys_audit_log where entity = 'binnedform' and record_key = $1 and action = 'add'",
      [id],
    );
    const back = await api.post(`${online}/restoreVersion`, { auditId: addEntry?.id });
    expect(back.statusCode, back.body).toBe(200);
    expect(data(back)).toMatchObject({ name: 'Kept for later' });
    expect(await listed()).toEqual(['Kept for later']);
    // a form without softDelete deletes for good and has no bin
    for (const path of ['recycle', 'recycle/restore?id=1', 'recycle/purge?id=1']) {
      const missing = await api.call({
        method: path === 'recycle' ? 'GET' : 'POST',
        url: `/api/online/plainform/${path}`,
      });
      expect(missing.statusCode, `${path}: ${missing.body}`).toBe(404);
    }
  });
});

/** A database kept across restarts: a data directory, or a PostgreSQL database of its own. */
async function persistentDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return { env: { DATA_DIR: tempDir('data') }, drop: async () => {} };
  const name = `ecobid_test_recycle_${process.pid}_${Date.now()}`;
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

/** A drop-in entity with a recycle bin, a unique code and a closed list of kinds. */
const gadgetSchema = (changes: { kinds: string[]; ownerRequired: boolean }) => ({
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Gadget',
  type: 'object',
  'x-entity': { api: 'admin/gadget', table: 'test_gadget', key: 'id', label: 'name', softDelete: true },
  required: ['name', 'code', ...(changes.ownerRequired ? ['owner'] : [])],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', title: 'ID', readOnly: true },
    name: { type: 'string', title: 'Name', maxLength: 64 },
    code: { type: 'string', title: 'Code', maxLength: 32, 'x-unique': true },
    kind: { type: 'string', title: 'Kind', enum: changes.kinds },
    ...(changes.ownerRequired ? { owner: { type: 'string', title: 'Owner', maxLength: 64 } } : {}),
  },
});

describe('unique keys and versions across schema changes', () => {
  let database: Awaited<ReturnType<typeof persistentDatabase>>;
  let dir: string;
  let t: TestApp | undefined;
  beforeAll(async () => {
    database = await persistentDatabase();
    dir = tempDir('schemas');
    cpSync(SCHEMAS, dir, { recursive: true });
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });
  const boot = async (changes: { kinds: string[]; ownerRequired: boolean }): Promise<Api> => {
    await t?.close();
    writeFileSync(join(dir, 'gadget.schema.json'), JSON.stringify(gadgetSchema(changes), null, 2));
    // startTestApp makes a fresh PostgreSQL database per call when TEST_DATABASE_URL is set:
    // here the same one (database.env) must survive the restart.
    const serverUrl = process.env.TEST_DATABASE_URL;
    delete process.env.TEST_DATABASE_URL;
    try {
      t = await startTestApp({ env: { ...database.env, SCHEMAS_DIR: dir } });
    } finally {
      if (serverUrl !== undefined) process.env.TEST_DATABASE_URL = serverUrl;
    }
    return new Api(t);
  };

  it(
    'lets a deleted record’s code be used again and refuses its restore naming the field',
    { timeout: 120_000 },
    async () => {
      const api = await boot({ kinds: ['a', 'b'], ownerRequired: false });
      const gadget = t?.app.ctx.registry.require('gadget') as EntityDef;
      const first = data(await api.add(gadget, { name: 'First', code: 'G-1', kind: 'a' }));
      const clash = await api.add(gadget, { name: 'Clash', code: 'G-1' });
      expect(clash.statusCode).toBe(409);
      expect((await api.remove(gadget, [first.id])).statusCode).toBe(200);
      const second = await api.add(gadget, { name: 'Second', code: 'G-1' });
      expect(second.statusCode, second.body).toBe(200);
      const refused = await api.post('/api/admin/gadget/recycle/restore', undefined, {
        id: String(first.id),
      });
      expect(refused.statusCode).toBe(409);
      expect(errorFields(refused)).toEqual(['/code']);
      expect(refused.json().message).toContain('G-1');
      // The database itself holds the rule: only records outside the bin are unique.
      expect((await api.remove(gadget, [data(second).id])).statusCode).toBe(200);
      const restored = await api.post('/api/admin/gadget/recycle/restore', undefined, {
        id: String(first.id),
      });
      expect(restored.statusCode, restored.body).toBe(200);
    },
  );

  it(
    'refuses a version that no longer passes the schema, naming the fields',
    { timeout: 120_000 },
    async () => {
      let api = await boot({ kinds: ['a', 'b'], ownerRequired: false });
      const gadget = (): EntityDef => t?.app.ctx.registry.require('gadget') as EntityDef;
      const record = data(await api.add(gadget(), { name: 'Versioned', code: 'V-1', kind: 'a' }));
      const updated = await api.update(gadget(), { ...record, kind: 'b', name: 'Versioned twice' });
      expect(updated.statusCode, updated.body).toBe(200);
      const [added] =
        (await t?.sql<{ id: number }>(
          "select id from sys_audit_log where entity = 'gadget' and record_key = $1 and action = 'add'",
          [String(record.id)],
        )) ?? [];
      // Kind a is gone from the list and an owner is now required.
      api = await boot({ kinds: ['b', 'c'], ownerRequired: true });
      const refused = await api.post('/api/admin/gadget/restoreVersion', { auditId: added?.id });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(errorFields(refused).sort()).toEqual(['/kind', '/owner']);
      expect(refused.json().message).toMatch(/Kind|Owner/);
      const row = (await api.records(gadget(), { id: String(record.id) }))[0];
      expect(row).toMatchObject({ name: 'Versioned twice', kind: 'b' });
      // A record deleted for good comes back from its history (a new key: the old one is not reused).
      expect((await api.remove(gadget(), [record.id])).statusCode).toBe(200);
      expect(
        (await api.post('/api/admin/gadget/recycle/purge', undefined, { id: String(record.id) })).statusCode,
      ).toBe(200);
      const [purged] =
        (await t?.sql<{ id: number }>(
          "select id from sys_audit_log where entity = 'gadget' and record_key = $1 and action = 'purge'",
          [String(record.id)],
        )) ?? [];
      const readded = await api.post('/api/admin/gadget/restoreVersion', { auditId: purged?.id });
      expect(readded.statusCode, readded.body).toBe(400);
      expect(errorFields(readded)).toEqual(['/owner']);
    },
  );
});
