/**
 * List indexes of a table that already holds rows are built after the server is ready, while it
 * answers (PostgreSQL: CREATE INDEX CONCURRENTLY under an advisory lock); a server closed during
 * the build stops it, and the next start builds what is missing.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { readConfig } from '../../src/server/lib/config.js';
import { ADMIN_PASSWORD, passwordGrant, startTestApp, type TestApp } from '../support/app.js';

const BUILD_LOCK = 7243020;

let t: TestApp;
let databaseUrl = '';
let listIndexes: string[] = [];

const validIndexes = async (): Promise<string[]> =>
  (
    await t.sql<{ name: string }>(
      `select i.relname as name from pg_index x join pg_class i on i.oid = x.indexrelid
       join pg_class c on c.oid = x.indrelid where c.relname = 'sys_user' and x.indisvalid and i.relname like '%\\_lx'
       order by 1`,
    )
  ).map((row) => row.name);

async function untilBuilt(timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await validIndexes();
    if (now.length === listIndexes.length || Date.now() > deadline) return now;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const startAnother = (env: Record<string, string> = {}) =>
  buildApp({
    config: readConfig({ DATABASE_URL: databaseUrl, DATA_DIR: ':memory:', ADMIN_PASSWORD, ...env }),
  });

/** Whether the index is valid (undefined: there is none), and its definition. */
async function indexState(name: string): Promise<{ valid: boolean; definition: string } | undefined> {
  const [row] = await t.sql<{ valid: boolean; definition: string }>(
    `select x.indisvalid as valid, pg_get_indexdef(x.indexrelid) as definition
     from pg_index x join pg_class i on i.oid = x.indexrelid where i.relname = $1`,
    [name],
  );
  return row;
}

/**
 * Leaves the index invalid as a concurrent build killed half-way does: the build is started
 * while another transaction writes to the table (it waits for that one), then cancelled.
 */
async function leaveInvalid(name: string, definition: string): Promise<void> {
  await t.sql(`drop index "${name}"`);
  const writer = new pg.Client({ connectionString: databaseUrl });
  const builder = new pg.Client({ connectionString: databaseUrl });
  await writer.connect();
  await builder.connect();
  try {
    await writer.query('begin');
    await writer.query('lock table sys_user in row exclusive mode');
    const pid = (await builder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
    const build = builder.query(definition.replace(/^CREATE INDEX /, 'CREATE INDEX CONCURRENTLY ')).then(
      () => 'built',
      (error: { code?: string }) => error.code,
    );
    const deadline = Date.now() + 30_000;
    while ((await indexState(name)) === undefined && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await writer.query('select pg_cancel_backend($1)', [pid]);
    expect(await build).toBe('57014'); // query_canceled
    await writer.query('rollback');
  } finally {
    await writer.end();
    await builder.end();
  }
  expect(await indexState(name)).toEqual({ valid: false, definition });
}

async function untilValid(name: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await indexState(name))?.valid === true) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Another session holds the build lock: a build waits for it. */
async function holdBuildLock(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('select pg_advisory_lock($1)', [BUILD_LOCK]);
  return client;
}

beforeAll(async () => {
  t = await startTestApp();
  databaseUrl = t.app.ctx.config.databaseUrl ?? '';
  if (!databaseUrl) throw new Error('needs TEST_DATABASE_URL');
  listIndexes = await validIndexes();
  expect(listIndexes.length).toBeGreaterThan(5);
  await t.sql(
    `insert into sys_user (username, nickname, password, email, country_code, mobile, phone, status, user_type,
       role_id, org_id, tenant_code, created_by, updated_by)
     select 'idx' || i, '索引' || i, a.password, 'idx' || i || '@example.com', '+86', (17000000000 + i)::text,
       '010-1234', '1', i % 3, a.role_id, a.org_id, 'default', 'test', 'test'
     from generate_series(1, 5000) as i,
       (select password, role_id, org_id from sys_user where username = 'admin') as a`,
  );
});
afterAll(async () => t?.close());

describe('list indexes of a table with rows', () => {
  it('are built after the server is ready, and it answers lists meanwhile', async () => {
    for (const name of listIndexes) await t.sql(`drop index "${name}"`);
    const lock = await holdBuildLock();
    const { app } = await startAnother();
    try {
      await app.ready();
      // the build waits for the lock: the server answers without the indexes
      const token = (await passwordGrant(app, 'admin', ADMIN_PASSWORD)).json<{ access_token: string }>();
      const answer = await app.inject({
        method: 'GET',
        url: '/api/admin/sysuser/query?username=idx12&pageSize=5',
        headers: { authorization: `Bearer ${token.access_token}` },
      });
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json<{ data: { records: unknown[] } }>().data.records.length).toBe(5);
      expect(await validIndexes()).toEqual([]);

      await lock.query('select pg_advisory_unlock($1)', [BUILD_LOCK]);
      expect(await untilBuilt(60_000)).toEqual(listIndexes);
    } finally {
      await lock.end();
      await app.close();
    }
  });

  it('a server closed while it waits to build stops at once; the next start builds them', async () => {
    for (const name of listIndexes) await t.sql(`drop index "${name}"`);
    const lock = await holdBuildLock();
    const first = await startAnother();
    await first.app.ready();
    const closing = Date.now();
    await first.app.close();
    expect(Date.now() - closing).toBeLessThan(10_000);
    await lock.end();
    expect(await validIndexes()).toEqual([]);

    const second = await startAnother();
    try {
      await second.app.ready();
      expect(await untilBuilt(60_000)).toEqual(listIndexes);
    } finally {
      await second.app.close();
    }
  });

  it('an index a killed build left invalid is built again while the server runs', async () => {
    expect(await untilBuilt(60_000)).toEqual(listIndexes);
    const { app } = await startAnother({ INDEX_CHECK_SECONDS: '1' });
    try {
      await app.ready();
      const name = listIndexes[0] ?? '';
      const before = await indexState(name);
      expect(before?.valid).toBe(true);
      // While a build holds the build lock, the check leaves the index to it.
      const lock = await holdBuildLock();
      try {
        await leaveInvalid(name, before?.definition ?? '');
        await new Promise((resolve) => setTimeout(resolve, 2500));
        expect((await indexState(name))?.valid).toBe(false);
      } finally {
        await lock.end();
      }
      // Then the next check builds it again, the same index as before.
      expect(await untilValid(name, 30_000)).toBe(true);
      expect(await indexState(name)).toEqual(before);
      expect(await validIndexes()).toEqual(listIndexes);
    } finally {
      await app.close();
    }
  });

  it('an index left invalid is built again at the next start', async () => {
    const name = listIndexes[1] ?? '';
    const before = await indexState(name);
    expect(before?.valid).toBe(true);
    await leaveInvalid(name, before?.definition ?? '');
    // No check while it runs: the start's own build repairs it.
    const { app } = await startAnother({ INDEX_CHECK_SECONDS: '3600' });
    try {
      await app.ready();
      expect(await untilValid(name, 30_000)).toBe(true);
      expect(await indexState(name)).toEqual(before);
    } finally {
      await app.close();
    }
  });
});
