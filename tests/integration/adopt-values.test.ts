import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntitySchema } from '../../src/engine/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { data, errorFields, type ErrorBody } from '../support/api.js';

/**
 * Issue 33 (2, 3, 7): a table another application owns, adopted through the API, keeps every
 * value exactly: '' apart from NULL, wall-clock timestamps in the configured zone, its defaults
 * (CURRENT_TIMESTAMP, an id from a sequence no default names), text[], time, bit(1), a bytea
 * left out; its CHECK constraints answer as a 400 naming the field. The server runs with
 * DB_LOCAL_TIME_ZONE=Asia/Shanghai (the database's zone); one table names its own (UTC).
 */

const BASE = '/api/generator';
const ZONE = 'Asia/Shanghai';

/** The other application's table, as RuoYi-style schemas have it. */
const MENU_DDL = `
  create sequence legacy_menu_seq start 100;
  create table legacy_menu (
    menu_id bigint primary key,
    menu_name varchar(50) not null default '',
    perms varchar(100) default '',
    remark text,
    code varchar(20) check (code <> 'bad'),
    weight integer check (weight > 0),
    create_time timestamp without time zone default CURRENT_TIMESTAMP,
    start_time timestamp(6) without time zone,
    tags text[],
    open_at time,
    visible bit(1) not null default B'1',
    icon bytea
  );
  insert into legacy_menu (menu_id, menu_name, perms, remark, code, weight, create_time, start_time, tags, open_at, visible, icon)
  values (1, '', '', '', 'a1', 3, '2024-05-01 10:00:00', '2024-05-01 10:00:00', '{a,"b c"}', '09:30', B'0', '\\x0102'),
         (2, '系统管理', null, null, null, null, '2024-05-01 23:30:15.123456', '2024-05-01 23:30:15.123456', null, null, B'1', null);`;

/** The original columns of a row as the database prints them: what the other application reads. */
const ORIGINAL_COLUMNS =
  'menu_id, menu_name, perms, remark, code, weight, create_time, start_time, tags, open_at, visible, icon';
const rawRows = (t: TestApp): Promise<Record<string, string | null>[]> =>
  t.sql<Record<string, string | null>>(
    `select ${ORIGINAL_COLUMNS.split(', ')
      .map((name) => `${name}::text as ${name}`)
      .join(', ')}, menu_name is null as name_null, perms is null as perms_null, remark is null as remark_null
     from legacy_menu order by menu_id`,
  );

describe('adopted tables keep their values exactly (issue 33: 2, 3, 7)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { DB_LOCAL_TIME_ZONE: ZONE } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const adoptAndPublish = async (tableName: string, extra: object = {}): Promise<EntitySchema> => {
    const done = await t.request({
      method: 'POST',
      url: `${BASE}/reverse/adopt`,
      headers: t.auth,
      payload: { tableName, confirm: true, ...extra },
    });
    expect(done.statusCode, done.body).toBe(200);
    const answer = data<{ schema: EntitySchema; form: { id: number } }>(done);
    const published = await t.request({
      method: 'POST',
      url: '/api/generator/form/publish',
      headers: t.auth,
      payload: { id: answer.form.id, menuParent: 'formgenerator', roles: [] },
    });
    expect(published.statusCode, published.body).toBe(200);
    return answer.schema;
  };

  it("reads, saves unchanged, adds and refuses exactly as the other application's table holds them", async () => {
    for (const statement of MENU_DDL.split(';').filter((part) => part.trim())) await t.sql(statement);
    const before = await rawRows(t);

    const preview = await t.request({
      method: 'POST',
      url: `${BASE}/reverse/adopt`,
      headers: t.auth,
      payload: { tableName: 'legacy_menu', confirm: false },
    });
    expect(preview.statusCode, preview.body).toBe(200);
    const schema = data<{ schema: EntitySchema }>(preview).schema;
    // The id comes from the sequence (not an input); the defaulted columns are not required;
    // text[], time and bit(1) are fields; the bytea is left out; CHECK (weight > 0) is a minimum.
    expect(schema.properties.menuId).toMatchObject({
      type: 'integer',
      readOnly: true,
      'x-column': { default: { sequence: 'legacy_menu_seq' } },
    });
    expect(schema.required ?? []).toEqual([]);
    expect(schema.properties.menuName).toMatchObject({ type: 'string', default: '' });
    // create_time is the table's own createdAt (adoption bookkeeping), a wall clock in the zone:
    // one 创建时间, read and filled in Shanghai; start_time a field converted the same way.
    expect(schema.properties.createTime).toBeUndefined();
    expect(schema['x-entity'].adoption).toMatchObject({
      bookkeeping: { createdAt: 'create_time' },
      wallClock: ['createdAt'],
    });
    expect(schema.properties.startTime).toMatchObject({
      format: 'date-time',
      'x-column': { type: 'timestamp' },
    });
    expect(schema.properties.tags).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(schema.properties.openAt).toMatchObject({ type: 'string', 'x-column': { type: 'time' } });
    expect(schema.properties.visible).toMatchObject({ type: 'boolean', default: true });
    expect(schema.properties.weight).toMatchObject({ type: 'integer', minimum: 1 });
    expect(schema.properties.icon).toBeUndefined();

    await adoptAndPublish('legacy_menu');
    const api = '/api/online/legacymenu';
    const getOne = async (id: number): Promise<Record<string, unknown>> => {
      const response = await t.request({ method: 'GET', url: `${api}/query?menuId=${id}`, headers: t.auth });
      expect(response.statusCode, response.body).toBe(200);
      const [record] = data<{ records: Record<string, unknown>[] }>(response).records;
      expect(record).toBeDefined();
      return record ?? {};
    };

    // Get: '' stays '' and NULL stays null; the wall clock is Shanghai's (10:00 there is 02:00Z).
    const first = await getOne(1);
    expect(first).toMatchObject({
      menuName: '',
      perms: '',
      remark: '',
      code: 'a1',
      weight: 3,
      createdAt: '2024-05-01T02:00:00.000Z',
      startTime: '2024-05-01T02:00:00.000Z',
      tags: ['a', 'b c'],
      openAt: '09:30:00',
      visible: false,
    });
    const second = await getOne(2);
    expect(second).toMatchObject({ menuName: '系统管理', perms: null, remark: null, visible: true });
    expect(second.createdAt).toBe('2024-05-01T15:30:15.123Z');
    expect(second.startTime).toBe('2024-05-01T15:30:15.123Z');

    // Update unchanged: every original column byte-identical.
    for (const record of [first, second]) {
      const saved = await t.request({
        method: 'PUT',
        url: `${api}/update`,
        headers: t.auth,
        payload: record,
      });
      expect(saved.statusCode, saved.body).toBe(200);
    }
    // Row 2's time has microseconds a JavaScript date cannot carry: kept too.
    expect(await rawRows(t)).toEqual(before);

    // A change of the time is written as Shanghai's wall clock.
    const moved = await t.request({
      method: 'PUT',
      url: `${api}/update`,
      headers: t.auth,
      payload: {
        menuId: 1,
        startTime: '2024-06-01T00:00:00Z',
        perms: '',
      },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(
      await t.sql(
        `select start_time::text as at, create_time::text as created, perms from legacy_menu where menu_id = 1`,
      ),
    ).toEqual([{ at: '2024-06-01 08:00:00', created: '2024-05-01 10:00:00', perms: '' }]);

    // Add without the defaulted fields: the id from the sequence, the defaults stored.
    const added = await t.request({
      method: 'POST',
      url: `${api}/add`,
      headers: t.auth,
      payload: { code: 'n1' },
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(data<Record<string, unknown>>(added)).toMatchObject({ menuId: 100, menuName: '', visible: true });
    const [fresh] = await t.sql<Record<string, unknown>>(
      `select menu_name, perms, visible::text as visible, icon,
         abs(extract(epoch from (create_time - (now() at time zone '${ZONE}')))) < 120 as is_shanghai_now
       from legacy_menu where menu_id = 100`,
    );
    expect(fresh).toEqual({ menu_name: '', perms: '', visible: '1', icon: null, is_shanghai_now: true });
    // Values of every kind written as the other application reads them.
    const full = await t.request({
      method: 'POST',
      url: `${api}/add`,
      headers: t.auth,
      payload: {
        menuName: '',
        remark: '',
        tags: ['x', 'y,z', ''],
        openAt: '18:05',
        visible: false,
        startTime: '2024-01-02T03:04:05+08:00',
      },
    });
    expect(full.statusCode, full.body).toBe(200);
    expect(
      await t.sql(
        `select menu_name, remark, tags::text as tags, open_at::text as open_at, visible::text as visible,
           start_time::text as start_time,
           abs(extract(epoch from (create_time - (now() at time zone '${ZONE}')))) < 120 as is_shanghai_now
         from legacy_menu where menu_id = 101`,
      ),
    ).toEqual([
      {
        menu_name: '',
        remark: '',
        tags: '{x,"y,z",""}',
        open_at: '18:05:00',
        visible: '0',
        start_time: '2024-01-02 03:04:05',
        is_shanghai_now: true,
      },
    ]);

    // A CHECK the schema cannot carry: a 400 naming the field, nothing written.
    const refused = await t.request({
      method: 'PUT',
      url: `${api}/update`,
      headers: t.auth,
      payload: { menuId: 2, code: 'bad' },
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(errorFields(refused)).toEqual(['/code']);
    expect(await t.sql(`select code from legacy_menu where menu_id = 2`)).toEqual([{ code: null }]);
    const refusedAdd = await t.request({
      method: 'POST',
      url: `${api}/add`,
      headers: t.auth,
      payload: { code: 'bad' },
    });
    expect(refusedAdd.statusCode, refusedAdd.body).toBe(400);
    expect(errorFields(refusedAdd)).toEqual(['/code']);
    // The translated CHECK: refused before the database.
    const tooSmall = await t.request({
      method: 'POST',
      url: `${api}/add`,
      headers: t.auth,
      payload: { weight: 0 },
    });
    expect(tooSmall.statusCode).toBe(400);
    expect(errorFields(tooSmall)).toEqual(['/weight']);
    // A filter on the wall-clock columns, the field's and the bookkeeping one's.
    for (const name of ['startTime', 'createdAt']) {
      const listed = await t.request({
        method: 'GET',
        url: `${api}/query?sort=menuId&${name}=${encodeURIComponent('2024-05-01T15:00:00Z,2024-05-01T16:00:00Z')}`,
        headers: t.auth,
      });
      expect(listed.statusCode, listed.body).toBe(200);
      expect(data<{ records: { menuId: number }[] }>(listed).records.map((record) => record.menuId)).toEqual([
        2,
      ]);
    }
  });

  // One finding each, so that each fails on its own on the old code.
  it("(2) '' is kept apart from NULL: a NOT NULL DEFAULT '' column holding '' saves unchanged, a nullable '' stays ''", async () => {
    await t.sql(`create table legacy_role (
      role_id serial primary key,
      role_name varchar(30) not null,
      role_key varchar(100) not null default '',
      remark varchar(500) default null
    )`);
    await t.sql(
      `insert into legacy_role (role_name, role_key, remark) values ('普通角色', '', ''), ('管理员', 'admin', null)`,
    );
    const rows = (): Promise<unknown[]> =>
      t.sql(
        `select role_id, role_name, role_key, remark, remark is null as is_null from legacy_role order by role_id`,
      );
    const before = await rows();
    await adoptAndPublish('legacy_role');
    const api = '/api/online/legacyrole';
    const listed = await t.request({ method: 'GET', url: `${api}/query?sort=roleId`, headers: t.auth });
    const records = data<{ records: Record<string, unknown>[] }>(listed).records;
    expect(records.map((record) => [record.roleKey, record.remark])).toEqual([
      ['', ''],
      ['admin', null],
    ]);
    for (const record of records) {
      const saved = await t.request({
        method: 'PUT',
        url: `${api}/update`,
        headers: t.auth,
        payload: record,
      });
      expect(saved.statusCode, saved.body).toBe(200);
    }
    expect(await rows()).toEqual(before);
    // What the user sends is stored: '' as '', null as NULL (a NOT NULL column's null: a 400 naming it).
    const changed = await t.request({
      method: 'PUT',
      url: `${api}/update`,
      headers: t.auth,
      payload: { roleId: 1, remark: null },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(await t.sql(`select remark is null as is_null from legacy_role where role_id = 1`)).toEqual([
      { is_null: true },
    ]);
    const notNull = await t.request({
      method: 'PUT',
      url: `${api}/update`,
      headers: t.auth,
      payload: { roleId: 2, roleKey: null },
    });
    expect(notNull.statusCode, notNull.body).toBe(400);
    expect(errorFields(notNull)).toEqual(['/roleKey']);
  });

  it("(2) an own table keeps '' apart from NULL too", async () => {
    const added = await t.request({
      method: 'POST',
      url: '/api/notification/notice/add',
      headers: t.auth,
      payload: { title: '通知', content: '<p>正文</p>', summary: '' },
    });
    expect(added.statusCode, added.body).toBe(200);
    const record = data<Record<string, unknown>>(added);
    expect(record.summary).toBe('');
    const read = async (): Promise<unknown> =>
      (
        await t.sql<{ summary: string | null }>(`select summary from portal_notice where id = $1`, [
          record.id,
        ])
      )[0]?.summary;
    expect(await read()).toBe('');
    const saved = await t.request({
      method: 'PUT',
      url: '/api/notification/notice/update',
      headers: t.auth,
      payload: { id: record.id, version: record.version, summary: '' },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(await read()).toBe('');
    const cleared = await t.request({
      method: 'PUT',
      url: '/api/notification/notice/update',
      headers: t.auth,
      payload: { id: record.id, version: data<{ version: number }>(saved).version, summary: null },
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(await read()).toBeNull();
  });

  it('(3) a timestamp without time zone holding Shanghai time is read and written in that zone; its CURRENT_TIMESTAMP default is Shanghai now', async () => {
    await t.sql(`create table legacy_oper_log (
      oper_id serial primary key,
      title varchar(50) default '',
      oper_time timestamp without time zone default CURRENT_TIMESTAMP
    )`);
    await t.sql(`insert into legacy_oper_log (title, oper_time) values ('登录', '2024-05-01 10:00:00')`);
    await adoptAndPublish('legacy_oper_log');
    const api = '/api/online/legacyoperlog';
    const listed = await t.request({ method: 'GET', url: `${api}/query?sort=operId`, headers: t.auth });
    expect(data<{ records: Record<string, unknown>[] }>(listed).records).toMatchObject([
      { title: '登录', operTime: '2024-05-01T02:00:00.000Z' },
    ]);
    const written = await t.request({
      method: 'POST',
      url: `${api}/add`,
      headers: t.auth,
      payload: { title: '退出', operTime: '2024-05-01T03:00:00Z' },
    });
    expect(written.statusCode, written.body).toBe(200);
    const defaulted = await t.request({
      method: 'POST',
      url: `${api}/add`,
      headers: t.auth,
      payload: { title: '新增' },
    });
    expect(defaulted.statusCode, defaulted.body).toBe(200);
    expect(
      await t.sql(
        `select oper_time::text as at,
           abs(extract(epoch from (oper_time - (now() at time zone '${ZONE}')))) < 120 as is_shanghai_now
         from legacy_oper_log order by oper_id`,
      ),
    ).toMatchObject([
      { at: '2024-05-01 10:00:00', is_shanghai_now: false },
      { at: '2024-05-01 11:00:00', is_shanghai_now: false },
      { is_shanghai_now: true },
    ]);
  });

  it('(6) snowflake ids beyond 2^53 and numeric money: read, filtered, updated and deleted exactly', async () => {
    await t.sql(`create table legacy_order (
      order_id bigint primary key,
      buyer_id bigint not null,
      amount numeric(10,2) not null default 0
    )`);
    await t.sql(`insert into legacy_order values (1859123456789012345, 1859123456789012346, 1.01),
                                    (1859123456789012347, 1859123456789012346, 2.50)`);
    const schema = await adoptAndPublish('legacy_order');
    expect(schema.properties.orderId).toMatchObject({ type: 'string', format: 'int64' });
    expect(schema.properties.amount).toMatchObject({
      format: 'decimal',
      'x-decimal': { precision: 10, scale: 2 },
    });
    const api = '/api/online/legacyorder';
    const get = async (id: string) => {
      const page = await t.request({ method: 'GET', url: `${api}/query?orderId=${id}`, headers: t.auth });
      expect(page.statusCode, page.body).toBe(200);
      return data<{ records: Record<string, unknown>[] }>(page).records;
    };
    expect(await get('1859123456789012345')).toEqual([
      expect.objectContaining({
        orderId: '1859123456789012345',
        buyerId: '1859123456789012346',
        amount: '1.01',
      }),
    ]);
    const updated = await t.request({
      method: 'PUT',
      url: `${api}/update`,
      headers: t.auth,
      payload: { orderId: '1859123456789012345', buyerId: '1859123456789012346', amount: '1.005' },
    });
    expect(updated.statusCode, updated.body).toBe(400);
    expect(errorFields(updated)).toEqual(['/amount']);
    const saved = await t.request({
      method: 'PUT',
      url: `${api}/update`,
      headers: t.auth,
      payload: { orderId: '1859123456789012345', buyerId: '1859123456789012346', amount: '3.10' },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const deleted = await t.request({
      method: 'POST',
      url: `${api}/delete?orderId=1859123456789012347`,
      headers: t.auth,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await t.sql(`select order_id::text as id, amount::text as amount from legacy_order`)).toEqual([
      { id: '1859123456789012345', amount: '3.10' },
    ]);
  });

  it('(7) a CHECK the schema does not carry: a violation is a 400 naming the field', async () => {
    await t.sql(`create table legacy_price (
      id serial primary key,
      label text,
      amount integer check (amount <> 13)
    )`);
    await adoptAndPublish('legacy_price');
    const refused = await t.request({
      method: 'POST',
      url: '/api/online/legacyprice/add',
      headers: t.auth,
      payload: { label: 'x', amount: 13 },
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(errorFields(refused)).toEqual(['/amount']);
    expect(await t.sql(`select count(*)::int as n from legacy_price`)).toEqual([{ n: 0 }]);
  });

  it('reads a table adopted with its own zone in that zone, and refuses a table whose NOT NULL bytea no field can fill', async () => {
    await t.sql(`create table legacy_log (
      id serial primary key,
      happened_at timestamp without time zone not null default now(),
      note text not null default ''
    )`);
    await t.sql(`insert into legacy_log (happened_at, note) values ('2024-05-01 10:00:00', '')`);
    const schema = await adoptAndPublish('legacy_log', { timeZone: 'UTC' });
    expect(schema['x-entity'].timeZone).toBe('UTC');
    const response = await t.request({ method: 'GET', url: '/api/online/legacylog/query', headers: t.auth });
    expect(data<{ records: Record<string, unknown>[] }>(response).records).toMatchObject([
      { happenedAt: '2024-05-01T10:00:00.000Z', note: '' },
    ]);
    const badZone = await t.request({
      method: 'POST',
      url: `${BASE}/reverse/adopt`,
      headers: t.auth,
      payload: { tableName: 'legacy_log', confirm: false, timeZone: 'Mars/Olympus' },
    });
    expect(badZone.statusCode).toBe(400);

    await t.sql(`create table legacy_blob (id serial primary key, title text, payload bytea not null)`);
    const before = await t.sql(
      `select count(*)::int as n from pg_attribute where attrelid = 'legacy_blob'::regclass`,
    );
    const refused = await t.request({
      method: 'POST',
      url: `${BASE}/reverse/adopt`,
      headers: t.auth,
      payload: { tableName: 'legacy_blob', confirm: false },
    });
    expect(refused.statusCode).toBe(400);
    expect(errorFields(refused)).toEqual(['/tableName']);
    expect((refused.json() as ErrorBody).errors?.[0]?.message).toMatch(/payload \(bytea\).*NOT NULL/);
    expect(
      await t.sql(`select count(*)::int as n from pg_attribute where attrelid = 'legacy_blob'::regclass`),
    ).toEqual(before);
  });
});
