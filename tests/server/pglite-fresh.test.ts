import { existsSync, statSync, writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, pgliteStartParams } from '../../src/server/lib/db/database.js';
import { forgetFreshDump, freshDumpPath } from '../../src/server/lib/db/pglite-fresh.js';

/**
 * A fresh in-memory database starts from the data directory initdb left the first time
 * (lib/db/pglite-fresh.ts): it is as fresh as initdb's, and a kept file that cannot be loaded is
 * made again rather than failing the start.
 */
describe('fresh in-memory databases', () => {
  const params = pgliteStartParams();
  const path = freshDumpPath(params);
  const tables = async (database: Awaited<ReturnType<typeof openDatabase>>) =>
    (
      await sql<{ name: string }>`select table_name as name from information_schema.tables
        where table_schema = 'public'`.execute(database.db)
    ).rows.map((row) => row.name);

  it('start from the kept initdb directory, empty each time; a kept file that cannot be loaded is made again', async () => {
    forgetFreshDump(params);
    const first = await openDatabase({ dataDir: ':memory:', databaseUrl: undefined });
    expect(existsSync(path)).toBe(true);
    await sql`create table written_by_first (id int)`.execute(first.db);
    await first.close();

    const second = await openDatabase({ dataDir: ':memory:', databaseUrl: undefined });
    expect(await tables(second)).toEqual([]);
    expect((await sql<{ n: number }>`select 1 + 1 as n`.execute(second.db)).rows).toEqual([{ n: 2 }]);
    await second.close();

    forgetFreshDump(params);
    writeFileSync(path, 'not a tarball');
    const third = await openDatabase({ dataDir: ':memory:', databaseUrl: undefined });
    expect(await tables(third)).toEqual([]);
    await third.close();
    expect(statSync(path).size).toBeGreaterThan(1_000_000);
  }, 120_000);
});
