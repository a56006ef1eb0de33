import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREPARED, PREPARED_MARK, preparedNames } from '../../src/server/lib/db/prepared.js';
import { startTestApp, type TestApp } from '../support/app.js';

const onPostgres = process.env.TEST_DATABASE_URL !== undefined;

describe('prepared statements (the PREPARED mark)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('names only marked texts, one name per text, and at most `cap` texts', () => {
    const name = preparedNames(2);
    expect(name('select 1')).toBeUndefined();
    const first = name(`${PREPARED_MARK}select $1::int`);
    expect(first).toMatch(/^ecobid_p\d+$/);
    expect(name(`${PREPARED_MARK}select $1::int`)).toBe(first);
    const second = name(`${PREPARED_MARK}select $1::text`);
    expect(second).not.toBe(first);
    expect(name(`${PREPARED_MARK}select $1::bigint`)).toBeUndefined();
    expect(name(`${PREPARED_MARK}select $1::int`)).toBe(first);
  });

  it('a marked statement answers with each call’s values, prepared once per connection on PostgreSQL', async () => {
    const db = app.app.ctx.db;
    await db.transaction().execute(async (trx) => {
      const answers: number[] = [];
      for (const value of [3, 4, 5]) {
        const rows = await sql<{ n: number }>`${PREPARED}select ${value}::int + 1 as n`.execute(trx);
        answers.push(rows.rows[0]?.n ?? 0);
      }
      expect(answers).toEqual([4, 5, 6]);
      await sql`select ${1}::int as unmarked`.execute(trx);
      if (!onPostgres) return;
      // The transaction holds one connection: what it has prepared.
      const prepared = await sql<{ name: string; statement: string }>`select name, statement
        from pg_prepared_statements where statement like '%::int + 1 as n' or statement like '%unmarked'`.execute(
        trx,
      );
      expect(prepared.rows).toHaveLength(1);
      expect(prepared.rows[0]?.name).toMatch(/^ecobid_p\d+$/);
      expect(prepared.rows[0]?.statement.startsWith(PREPARED_MARK)).toBe(true);
    });
  });

  it('DATABASE_PREPARED=off sends marked statements unprepared (PostgreSQL: nothing prepared)', async () => {
    const unprepared = await startTestApp({ env: { DATABASE_PREPARED: 'off' } });
    try {
      await unprepared.app.ctx.db.transaction().execute(async (trx) => {
        const rows = await sql<{ n: number }>`${PREPARED}select ${7}::int + 1 as n`.execute(trx);
        expect(rows.rows[0]?.n).toBe(8);
        if (!onPostgres) return;
        const prepared = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(trx);
        expect(prepared.rows).toEqual([]);
      });
    } finally {
      await unprepared.close();
    }
  });
});
