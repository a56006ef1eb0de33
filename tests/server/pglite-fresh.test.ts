import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, pgliteStartParams } from '../../src/server/lib/db/database.js';
import { forgetFreshDump, freshDumpPath, keepFreshDump } from '../../src/server/lib/db/pglite-fresh.js';

/**
 * A fresh in-memory database starts from the data directory kept from initdb
 * (lib/db/pglite-fresh.ts), and a kept file that cannot be loaded is made again rather than
 * failing the start. The test keeps its files in a temporary directory of its own.
 */
describe('fresh in-memory databases', () => {
  const params = pgliteStartParams();
  const ownTmp = mkdtempSync(join(tmpdir(), 'pglite-fresh-'));
  const before = process.env.TMPDIR;
  beforeAll(() => {
    process.env.TMPDIR = ownTmp;
  });
  afterAll(() => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(ownTmp, { recursive: true, force: true });
  });
  const tables = async (database: Awaited<ReturnType<typeof openDatabase>>) =>
    (
      await sql<{ name: string }>`select table_name as name from information_schema.tables
        where table_schema = 'public'`.execute(database.db)
    ).rows.map((row) => row.name);

  it('start from the kept data directory; one that cannot be loaded is made again from initdb', async () => {
    const path = freshDumpPath(params);
    expect(path.startsWith(ownTmp)).toBe(true);
    const first = await openDatabase({ dataDir: ':memory:', databaseUrl: undefined });
    expect(statSync(path).size).toBeGreaterThan(1_000_000);
    await sql`create table written_by_first (id int)`.execute(first.db);
    await first.close();
    // What a later start loads is the kept file: one holding a marker table shows it.
    const marked = await PGlite.create();
    await marked.exec('create table kept_marker (id int)');
    await keepFreshDump(marked, params);
    await marked.close();
    const second = await openDatabase({ dataDir: ':memory:', databaseUrl: undefined });
    expect(await tables(second)).toEqual(['kept_marker']);
    await second.close();
    // A file that is no data directory: the start makes a fresh one and keeps it again.
    forgetFreshDump(params);
    writeFileSync(path, 'not a tarball');
    const third = await openDatabase({ dataDir: ':memory:', databaseUrl: undefined });
    expect(await tables(third)).toEqual([]);
    expect((await sql<{ n: number }>`select 1 + 1 as n`.execute(third.db)).rows).toEqual([{ n: 2 }]);
    await third.close();
    expect(statSync(path).size).toBeGreaterThan(1_000_000);
  }, 120_000);
});
