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

const startAnother = () =>
  buildApp({ config: readConfig({ DATABASE_URL: databaseUrl, DATA_DIR: ':memory:', ADMIN_PASSWORD }) });

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
});
