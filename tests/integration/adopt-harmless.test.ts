import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntitySchema } from '../../src/engine/index.js';
import type { AdoptPreview } from '../../src/engine/api-types.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { data, errorFields } from '../support/api.js';

/**
 * Adopting another application's tables changes nothing it relies on unless the admin opts in
 * (issue 33): no column, no index, no sub-table inferred from a foreign key, secrets never read
 * out, its soft-delete, tenant and bookkeeping columns kept as it keeps them.
 */

interface Adopted {
  formCode: string;
  schema: EntitySchema;
  statements: string[];
  details: string[];
  preview: AdoptPreview;
  form?: { id: number };
}

describe('adopting a table without harm', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const adopt = (body: object) =>
    t.request({ method: 'POST', url: '/api/generator/reverse/adopt', headers: t.auth, payload: body });
  const publish = async (formId: number): Promise<void> => {
    const published = await t.request({
      method: 'POST',
      url: '/api/generator/form/publish',
      headers: t.auth,
      payload: { id: formId, menuParent: 'formgenerator', roles: [] },
    });
    expect(published.statusCode, published.body).toBe(200);
  };
  /** Columns (with types, defaults, nullability), indexes and constraints of a table. */
  const ddlOf = async (table: string): Promise<string[]> => [
    ...(
      await t.sql<{ c: string }>(
        `select column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '-') as c
         from information_schema.columns where table_schema = current_schema() and table_name = $1 order by ordinal_position`,
        [table],
      )
    ).map((row) => row.c),
    ...(
      await t.sql<{ i: string }>(
        `select indexdef as i from pg_indexes where schemaname = current_schema() and tablename = $1 order by 1`,
        [table],
      )
    ).map((row) => row.i),
    ...(
      await t.sql<{ c: string }>(
        `select conname || ' ' || pg_get_constraintdef(c.oid) as c from pg_constraint c
         join pg_class r on r.oid = c.conrelid join pg_namespace n on n.oid = r.relnamespace
         where n.nspname = current_schema() and r.relname = $1 order by 1`,
        [table],
      )
    ).map((row) => row.c),
  ];

  it('adopts a department without its employees as a sub-table: edits keep their rows, a delete the foreign key refuses is a 409 naming the key', async () => {
    await t.sql(`create table hr_dept (
      id bigserial primary key,
      name varchar(30) not null,
      sort integer not null default 0
    )`);
    await t.sql(`create table hr_employee (
      id bigserial primary key,
      dept_id bigint not null references hr_dept (id),
      name varchar(30) not null
    )`);
    await t.sql(`insert into hr_dept (name) values ('研发部'), ('空部门')`);
    await t.sql(`insert into hr_employee (dept_id, name) values (1, '张三'), (1, '李四')`);
    const before = [...(await ddlOf('hr_dept')), ...(await ddlOf('hr_employee'))];

    const preview = await adopt({ tableName: 'hr_dept', confirm: false });
    expect(preview.statusCode, preview.body).toBe(200);
    const planned = data<Adopted>(preview);
    // The employees are offered as a sub-table, not made one.
    expect(planned.details).toEqual([]);
    expect(planned.preview.detailCandidates).toEqual([
      { table: 'hr_employee', column: 'dept_id', isChosen: false },
    ]);
    expect(planned.schema.properties.hrEmployee).toBeUndefined();
    // No column and no index unless opted in: each offered with its estimates.
    expect(planned.statements).toEqual([]);
    expect(planned.preview.columns.map((column) => [column.name, column.isChosen])).toEqual([
      ['createdAt', false],
      ['createdBy', false],
      ['updatedAt', false],
      ['updatedBy', false],
      ['version', false],
    ]);
    expect(planned.preview.indexes.length).toBeGreaterThan(0);
    for (const index of planned.preview.indexes) {
      expect(index.isChosen).toBe(false);
      expect(index.writeCost).toBeGreaterThan(1);
      expect(index.estimatedBytes).toBeGreaterThanOrEqual(0);
    }

    const done = await adopt({ tableName: 'hr_dept', confirm: true });
    expect(done.statusCode, done.body).toBe(200);
    await publish(data<Adopted>(done).form?.id ?? 0);
    expect([...(await ddlOf('hr_dept')), ...(await ddlOf('hr_employee'))]).toEqual(before);

    const api = '/api/online/hrdept';
    const list = await t.request({ method: 'GET', url: `${api}/query?sort=id`, headers: t.auth });
    expect(list.statusCode, list.body).toBe(200);
    const records = data<{ records: Record<string, unknown>[] }>(list).records;
    expect(records.map((record) => record.name)).toEqual(['研发部', '空部门']);
    // No version column: an update needs none, and renaming keeps the employees as they are.
    const renamed = await t.request({
      method: 'PUT',
      url: `${api}/update`,
      headers: t.auth,
      payload: { id: 1, name: '研发中心', sort: 0 },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(await t.sql(`select id::int, dept_id::int, name from hr_employee order by id`)).toEqual([
      { id: 1, dept_id: 1, name: '张三' },
      { id: 2, dept_id: 1, name: '李四' },
    ]);
    // The table's own foreign key refuses deleting the department: a 409 naming the key.
    const refused = await t.request({ method: 'POST', url: `${api}/delete?id=1`, headers: t.auth });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(errorFields(refused)).toEqual(['/id']);
    expect(refused.body).toContain('hr_employee');
    expect(await t.sql(`select count(*)::int as n from hr_employee`)).toEqual([{ n: 2 }]);
    const emptyOne = await t.request({ method: 'POST', url: `${api}/delete?id=2`, headers: t.auth });
    expect(emptyOne.statusCode, emptyOne.body).toBe(200);
    expect([...(await ddlOf('hr_dept')), ...(await ddlOf('hr_employee'))]).toEqual(before);
  });

  it('adopts a sub-table only when chosen', async () => {
    await t.sql(`create table hr_team (id bigserial primary key, name varchar(30) not null)`);
    await t.sql(`create table hr_member (
      id bigserial primary key, team_id bigint not null references hr_team (id), name varchar(30))`);
    const chosen = await adopt({ tableName: 'hr_team', confirm: false, details: ['hr_member'] });
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect(data<Adopted>(chosen).details).toEqual(['hr_member']);
    expect(data<Adopted>(chosen).preview.detailCandidates[0]?.isChosen).toBe(true);
    const unknown = await adopt({ tableName: 'hr_team', confirm: false, details: ['hr_dept'] });
    expect(unknown.statusCode).toBe(400);
    expect(errorFields(unknown)).toEqual(['/details/0']);
  });

  it('adopts password, secret and token columns as secrets: never listed, exported, filtered or indexed, written as given', async () => {
    await t.sql(`create table app_user (
      id bigserial primary key,
      username varchar(30) not null,
      password varchar(100) not null default '',
      api_token varchar(64),
      remark varchar(100)
    )`);
    await t.sql(`comment on column app_user.remark is '备注'`);
    await t.sql(`create table app_mail_account (
      id bigserial primary key, mail varchar(60) not null, pass varchar(60))`);
    await t.sql(`comment on column app_mail_account.pass is '密码'`);
    const hash = '$2a$10$7JB720yubVSZvUI0rEqK/.VqGOZTH.ulu33dHOiBE8ByOhJIrdAu2';
    await t.sql(
      `insert into app_user (username, password, api_token, remark) values ('admin', $1, 'tok-1', 'x')`,
      [hash],
    );

    const preview = await adopt({ tableName: 'app_user', confirm: false });
    expect(preview.statusCode, preview.body).toBe(200);
    const planned = data<Adopted>(preview);
    expect(planned.preview.secrets).toEqual([
      { column: 'password', reason: 'name password', isChosen: true },
      { column: 'api_token', reason: 'name api_token', isChosen: true },
    ]);
    expect(planned.schema.properties.password?.['x-secret']).toBe(true);
    expect(planned.schema.properties.remark?.['x-secret']).toBeUndefined();
    const mail = data<Adopted>(await adopt({ tableName: 'app_mail_account', confirm: false }));
    expect(mail.preview.secrets).toEqual([{ column: 'pass', reason: 'comment 密码', isChosen: true }]);

    const done = await adopt({ tableName: 'app_user', confirm: true });
    expect(done.statusCode, done.body).toBe(200);
    await publish(data<Adopted>(done).form?.id ?? 0);
    const api = '/api/online/appuser';
    const listed = await t.request({ method: 'GET', url: `${api}/query`, headers: t.auth });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.body).not.toContain('$2a$');
    expect(listed.body).not.toContain('tok-1');
    const one = await t.request({ method: 'GET', url: `${api}/get?id=1`, headers: t.auth });
    if (one.statusCode === 200) expect(one.body).not.toContain('$2a$');
    // Not a filter: ?password=$2a is refused, never answers the hashes.
    const filtered = await t.request({ method: 'GET', url: `${api}/query?password=%242a`, headers: t.auth });
    expect(filtered.statusCode).toBe(400);
    const exported = await t.request({ method: 'GET', url: `${api}/export`, headers: t.auth });
    if (exported.statusCode === 200) expect(exported.rawPayload.toString('latin1')).not.toContain('$2a$');
    // Nothing indexed on it.
    expect(
      (await t.sql<{ i: string }>(`select indexdef as i from pg_indexes where tablename = 'app_user'`)).map(
        (row) => row.i,
      ),
    ).toEqual([
      'CREATE UNIQUE INDEX app_user_pkey ON public.app_user USING btree (id)'.replace(
        'public.',
        `${(await t.sql<{ s: string }>('select current_schema() as s'))[0]?.s ?? 'public'}.`,
      ),
    ]);
    // Written as given (the other application's hash), kept when an edit leaves it empty.
    const newHash = '$2a$10$abcdefghijklmnopqrstuu5Zr6WQh1n0mQ0Fz3H4k0pZpJ0d5oQ3a';
    const updated = await t.request({
      method: 'PUT',
      url: `${api}/update`,
      headers: t.auth,
      payload: { id: 1, username: 'admin', password: newHash, remark: 'y' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.body).not.toContain('$2a$');
    const kept = await t.request({
      method: 'PUT',
      url: `${api}/update`,
      headers: t.auth,
      payload: { id: 1, username: 'admin', password: '', remark: 'z' },
    });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(await t.sql(`select password, api_token, remark from app_user`)).toEqual([
      { password: newHash, api_token: 'tok-1', remark: 'z' },
    ]);
  });

  it("keeps the table's conventions: soft delete, its tenant column fixed to one value, its bookkeeping columns", async () => {
    await t.sql(`create table crm_customer (
      id bigserial primary key,
      name varchar(30) not null,
      creator varchar(64) default '',
      create_time timestamp not null default current_timestamp,
      updater varchar(64) default '',
      update_time timestamp not null default current_timestamp,
      deleted smallint not null default 0,
      tenant_id bigint not null default 0
    )`);
    await t.sql(`insert into crm_customer (name, tenant_id, deleted, update_time) values
      ('甲', 1, 0, '2020-01-01'), ('乙', 1, 0, '2020-01-01'), ('已删', 1, 1, '2020-01-01'), ('别家', 2, 0, '2020-01-01')`);
    const before = await ddlOf('crm_customer');

    const preview = await adopt({ tableName: 'crm_customer', confirm: false });
    expect(preview.statusCode, preview.body).toBe(200);
    const planned = data<Adopted>(preview);
    expect(planned.preview.bookkeeping).toEqual({
      createdAt: 'create_time',
      createdBy: 'creator',
      updatedAt: 'update_time',
      updatedBy: 'updater',
    });
    expect(planned.preview.softDelete).toEqual({ column: 'deleted', deleted: 1, active: 0 });
    expect(planned.preview.tenantColumn).toMatchObject({
      column: 'tenant_id',
      value: 1,
      values: [
        { value: 1, rows: 3 },
        { value: 2, rows: 1 },
      ],
    });
    // One 创建时间, not two: the convention columns are the engine's fields, not fields of their own.
    expect(Object.keys(planned.schema.properties)).toEqual(['id', 'name']);
    expect(planned.statements).toEqual([]);

    const done = await adopt({ tableName: 'crm_customer', confirm: true });
    expect(done.statusCode, done.body).toBe(200);
    await publish(data<Adopted>(done).form?.id ?? 0);
    const api = '/api/online/crmcustomer';
    const names = async (): Promise<unknown[]> => {
      const listed = await t.request({ method: 'GET', url: `${api}/query?sort=id`, headers: t.auth });
      expect(listed.statusCode, listed.body).toBe(200);
      return data<{ records: Record<string, unknown>[] }>(listed).records.map((record) => record.name);
    };
    // Deleted rows and other tenants' rows are not listed.
    expect(await names()).toEqual(['甲', '乙']);
    const added = await t.request({
      method: 'POST',
      url: `${api}/add`,
      headers: t.auth,
      payload: { name: '丙' },
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(
      await t.sql(
        `select tenant_id::int, deleted::int, creator, updater from crm_customer where name = '丙'`,
      ),
    ).toEqual([{ tenant_id: 1, deleted: 0, creator: 'admin', updater: 'admin' }]);
    const updated = await t.request({
      method: 'PUT',
      url: `${api}/update`,
      headers: t.auth,
      payload: { id: 1, name: '甲方' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(
      await t.sql(`select updater, update_time > '2020-01-02' as is_fresh from crm_customer where id = 1`),
    ).toEqual([{ updater: 'admin', is_fresh: true }]);
    // A delete sets the soft-delete column, as the other application does.
    const deleted = await t.request({ method: 'POST', url: `${api}/delete?id=2`, headers: t.auth });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await t.sql(`select deleted::int from crm_customer where id = 2`)).toEqual([{ deleted: 1 }]);
    expect(await names()).toEqual(['甲方', '丙']);
    // Another tenant's row, and a deleted one, are not found.
    for (const id of [3, 4]) {
      const hidden = await t.request({ method: 'GET', url: `${api}/query?id=${id}`, headers: t.auth });
      expect(data<{ records: unknown[] }>(hidden).records).toEqual([]);
    }
    expect(await ddlOf('crm_customer')).toEqual(before);
  });

  it('adds a column or an index only when the admin opts in', async () => {
    await t.sql(
      `create table shop_item (id bigserial primary key, title varchar(40) not null, price integer)`,
    );
    const preview = data<Adopted>(await adopt({ tableName: 'shop_item', confirm: false }));
    const offered = preview.preview.indexes.find((index) => index.statement.includes('("title"'));
    expect(offered).toBeDefined();
    const done = await adopt({
      tableName: 'shop_item',
      confirm: true,
      addColumns: ['version'],
      indexes: [offered?.name],
    });
    expect(done.statusCode, done.body).toBe(200);
    const statements = data<Adopted>(done).statements;
    expect(statements).toHaveLength(2);
    expect(statements[0]).toBe('alter table "shop_item" add column "version" integer not null default 1');
    expect(statements[1]).toContain(`"${offered?.name ?? ''}"`);
    expect(data<Adopted>(done).schema['x-entity'].adoption).toMatchObject({
      bookkeeping: { version: 'version' },
      indexes: [offered?.name],
    });
    await publish(data<Adopted>(done).form?.id ?? 0);
    expect(
      (
        await t.sql<{ n: number }>(`select count(*)::int as n from pg_indexes where tablename = 'shop_item'`)
      )[0]?.n,
    ).toBe(2);
    // With the version column opted in, a stale version is refused.
    const added = await t.request({
      method: 'POST',
      url: '/api/online/shopitem/add',
      headers: t.auth,
      payload: { title: '杯子' },
    });
    expect(added.statusCode, added.body).toBe(200);
    const stale = await t.request({
      method: 'PUT',
      url: '/api/online/shopitem/update',
      headers: t.auth,
      payload: { id: 1, title: '碗', version: 7 },
    });
    expect(stale.statusCode).toBe(409);
  });
});
