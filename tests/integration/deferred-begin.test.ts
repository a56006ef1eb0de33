import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferBegin } from '../../src/server/lib/db/deferred-begin.js';
import { PREPARED } from '../../src/server/lib/db/prepared.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * A transaction's `begin` goes out with its first statement on PostgreSQL (deferred-begin.ts).
 * What a user of the database layer relies on holds on both databases: a transaction's writes are
 * its own until it commits, every one of them is undone when any statement fails, and the
 * connection serves the next request afterwards.
 */
describe('transactions whose begin goes with the first statement', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
    await sql`create table if not exists test_deferred_begin (id int primary key, note text not null)`.execute(
      app.app.ctx.db,
    );
  });
  afterAll(async () => {
    await sql`drop table if exists test_deferred_begin`.execute(app.app.ctx.db);
    await app.close();
  });

  const notes = async (): Promise<string[]> =>
    (
      await sql<{ note: string }>`select note from test_deferred_begin order by id`.execute(app.app.ctx.db)
    ).rows.map((row) => row.note);

  it('keeps a transaction of a prepared first statement and a later one whole, and commits both', async () => {
    await sql`delete from test_deferred_begin`.execute(app.app.ctx.db);
    for (let round = 0; round < 3; round += 1)
      await app.app.ctx.db.transaction().execute(async (trx) => {
        // The first statement's own answer (not the begin's): its rows and count.
        const first = await sql<{
          id: number;
        }>`${PREPARED}insert into test_deferred_begin (id, note) values (${round * 2}, ${`first ${round}`}) returning id`.execute(
          trx,
        );
        expect(first.rows).toEqual([{ id: round * 2 }]);
        expect(first.numAffectedRows).toBe(1n);
        await sql`insert into test_deferred_begin (id, note) values (${round * 2 + 1}, ${`second ${round}`})`.execute(
          trx,
        );
      });
    expect(await notes()).toEqual(['first 0', 'second 0', 'first 1', 'second 1', 'first 2', 'second 2']);
  });

  it('undoes the first statement when a later one fails, and the connection serves the next transaction', async () => {
    await sql`delete from test_deferred_begin`.execute(app.app.ctx.db);
    const failing = app.app.ctx.db.transaction().execute(async (trx) => {
      await sql`insert into test_deferred_begin (id, note) values (${1}, ${'kept only if committed'})`.execute(
        trx,
      );
      await sql`insert into test_deferred_begin (id, note) values (${1}, ${'a clash'})`.execute(trx);
    });
    await expect(failing).rejects.toMatchObject({ code: '23505' });
    expect(await notes()).toEqual([]);
    // Every pooled connection is used again: none is left inside the failed transaction.
    await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        app.app.ctx.db.transaction().execute(async (trx) => {
          await sql`insert into test_deferred_begin (id, note) values (${index + 10}, ${`after ${index}`})`.execute(
            trx,
          );
        }),
      ),
    );
    expect(await notes()).toHaveLength(12);
  });

  it('undoes nothing else when the first statement itself fails, and a throw after a write undoes it', async () => {
    await sql`delete from test_deferred_begin`.execute(app.app.ctx.db);
    await expect(
      app.app.ctx.db.transaction().execute(async (trx) => {
        await sql`insert into test_deferred_begin (id, note) values (${1}, ${null})`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '23502' });
    await expect(
      app.app.ctx.db.transaction().execute(async (trx) => {
        await sql`insert into test_deferred_begin (id, note) values (${2}, ${'thrown away'})`.execute(trx);
        throw new Error('the service changed its mind');
      }),
    ).rejects.toThrow('the service changed its mind');
    expect(await notes()).toEqual([]);
  });

  it('prepares a marked first statement again on the same connection after its preparing failed', async () => {
    const db = app.app.ctx.db;
    await sql`drop table if exists test_deferred_later`.execute(db);
    await db.connection().execute(async (connection) => {
      const count = sql<{
        n: number;
      }>`${PREPARED}select count(*)::int as n from test_deferred_later where id > ${0}`;
      await expect(connection.transaction().execute((trx) => count.execute(trx))).rejects.toMatchObject({
        code: '42P01',
      });
      await sql`create table test_deferred_later (id int)`.execute(connection);
      const rows = await connection.transaction().execute((trx) => count.execute(trx));
      expect(rows.rows).toEqual([{ n: 0 }]);
    });
    await sql`drop table test_deferred_later`.execute(db);
  });

  it('runs a first statement without parameters inside the transaction too', async () => {
    await sql`delete from test_deferred_begin`.execute(app.app.ctx.db);
    await expect(
      app.app.ctx.db.transaction().execute(async (trx) => {
        await sql`insert into test_deferred_begin (id, note) values (3, 'no parameters')`.execute(trx);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await notes()).toEqual([]);
  });

  it('hides a transaction’s writes from other connections until it commits', async () => {
    await sql`delete from test_deferred_begin`.execute(app.app.ctx.db);
    let seenInside: string[] = ['not read'];
    await app.app.ctx.db.transaction().execute(async (trx) => {
      await sql`insert into test_deferred_begin (id, note) values (${5}, ${'not yet'})`.execute(trx);
      // The embedded database has one connection: a read outside would wait for this transaction.
      if (app.app.ctx.dbKind === 'postgres') seenInside = await notes();
      else seenInside = [];
    });
    expect(seenInside).toEqual([]);
    expect(await notes()).toEqual(['not yet']);
  });
});

describe('the deferred begin on the wire (deferBegin over a recording query function)', () => {
  interface Sent {
    what: string;
    values?: unknown[];
  }
  const recorder = (): { sent: Sent[]; query: (...args: unknown[]) => unknown } => {
    const sent: Sent[] = [];
    const query = (...args: unknown[]): unknown => {
      const [first, values] = args;
      if (first instanceof pg.Query) {
        const statement = first as unknown as { text: string; values: unknown[]; name?: string };
        sent.push({ what: `begin + ${statement.name ?? statement.text}`, values: statement.values });
        const callback = (first as unknown as { callback: (error: null, answer: pg.QueryResult) => void })
          .callback;
        callback(null, { command: 'INSERT', rowCount: 1, oid: 0, fields: [], rows: [] });
        return first;
      }
      if (typeof first === 'object' && first !== null && 'name' in first) {
        const statement = first as { name: string; values: unknown[] };
        sent.push({ what: statement.name, values: statement.values });
      } else sent.push({ what: String(first), ...(Array.isArray(values) ? { values } : {}) });
      return Promise.resolve({ command: 'SELECT', rowCount: 0, oid: 0, fields: [], rows: [] });
    };
    return { sent, query };
  };
  const named = (text: string): string | undefined => (text.startsWith('/* prepared */') ? 'p1' : undefined);

  it('sends begin in one message with the first statement that has parameters, prepared or not', async () => {
    const { sent, query } = recorder();
    const deferred = deferBegin(query, named);
    await deferred.query('begin', []);
    expect(sent).toEqual([]);
    await deferred.query('/* prepared */ update t set a = $1', [1]);
    await deferred.query('update t set b = $1', [2]);
    await deferred.query('commit', []);
    await deferred.query('begin', []);
    await deferred.query('update t set c = $1', [3]);
    await deferred.query('rollback', []);
    expect(sent.map((message) => message.what)).toEqual([
      'begin + p1',
      'update t set b = $1',
      'commit',
      'begin + update t set c = $1',
      'rollback',
    ]);
    expect(sent[0]?.values).toEqual([1]);
  });

  it('sends nothing for a transaction without statements, and a plain begin before a statement without parameters', async () => {
    const { sent, query } = recorder();
    const deferred = deferBegin(query, named);
    await deferred.query('begin', []);
    await deferred.query('commit', []);
    await deferred.query('begin', []);
    await deferred.query('rollback', []);
    expect(sent).toEqual([]);
    await deferred.query('begin', []);
    await deferred.query('lock table t', []);
    await deferred.query('commit', []);
    expect(sent.map((message) => message.what)).toEqual(['begin', 'lock table t', 'commit']);
  });

  it('forgets a waiting begin when the connection goes back to the pool', async () => {
    const { sent, query } = recorder();
    const deferred = deferBegin(query, named);
    await deferred.query('begin', []);
    deferred.reset();
    await deferred.query('select $1', [1]);
    expect(sent.map((message) => message.what)).toEqual(['select $1']);
  });
});
