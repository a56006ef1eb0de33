/**
 * Child process of the query benchmark: in ONE process it boots the real app (buildApp, as
 * main.ts does) and a bare Fastify server whose only route runs the same SQL statements through
 * the same Kysely instance, with no auth, no parsing and no validation. Both listen on loopback;
 * the parent drives them with autocannon. Talks to the parent over IPC.
 *
 * The SQL of the bare route is captured from a real (steady-state) request of the app: every
 * statement its route handler sends, however many (a page, a count, a planner estimate, …), in
 * the same waves (statements issued together run together, the next wave after they answered),
 * so it stays the same SQL when the service changes. What runs outside the handler (the auth and
 * permission hooks) is the framework's cost and is reported, not replayed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import Fastify from 'fastify';
import type { CompiledQuery, QueryExecutor, QueryResult } from 'kysely';
import type { Db } from '../src/server/lib/db/database.js';
import { bootApp, signInApp } from './lib/app.js';
import { seedUsers } from './lib/seed.js';

export interface QueryServerReady {
  type: 'ready';
  appUrl: string;
  bareUrl: string;
  token: string;
  /** The handler's statements, replayed by the bare route; wave 1 first, one wave's together. */
  queries: { sql: string; parameters: unknown[]; wave: number }[];
  /** Statements the app ran outside the handler in the captured request (auth, permissions). */
  outsideHandler: string[];
  seedMs: number;
  bootMs: number;
}

const send = (message: unknown): void => {
  process.send?.(message);
};

interface Captured {
  query: CompiledQuery;
  /** Statements of the handler that had answered when this one was issued. */
  answeredBefore: number;
  rows: Record<string, unknown>[];
}

/**
 * Runs one request and returns the statements its route handler sent (in the order issued) and
 * those sent outside it. Fastify's `fastify.request.handler` tracing channel runs the handler in
 * an AsyncLocalStorage bound to it, so a statement knows whether the handler issued it; the
 * binding and the storage are removed afterwards, so that the measured requests take Fastify's
 * usual path with no async hooks.
 */
async function captureRequest<T>(
  db: Db,
  request: () => Promise<T>,
): Promise<{ reference: T; handler: Captured[]; outside: CompiledQuery[] }> {
  const inHandler = new AsyncLocalStorage<boolean>();
  const handlerChannel = diagnostics.tracingChannel('fastify.request.handler').start;
  const executor = db.getExecutor();
  // On the prototype, so that a statement in a transaction (its own executor) is seen too.
  const prototype = Object.getPrototypeOf(executor) as QueryExecutor;
  const inherited = Reflect.get(prototype, 'executeQuery') as QueryExecutor['executeQuery'];
  const handler: Captured[] = [];
  const outside: CompiledQuery[] = [];
  let answered = 0;
  let foreign: string | undefined;
  async function executeQuery(
    this: QueryExecutor,
    query: CompiledQuery,
    options?: Parameters<QueryExecutor['executeQuery']>[1],
  ): Promise<QueryResult<unknown>> {
    const run = (): Promise<QueryResult<unknown>> => inherited.call(this, query, options);
    if (inHandler.getStore() !== true) {
      outside.push(query);
      return run();
    }
    if (this !== executor) foreign ??= query.sql;
    const captured: Captured = { query, answeredBefore: answered, rows: [] };
    handler.push(captured);
    const result = await run();
    answered += 1;
    captured.rows = result.rows as Record<string, unknown>[];
    return result;
  }
  handlerChannel.bindStore(inHandler, () => true);
  Object.defineProperty(prototype, 'executeQuery', {
    value: executeQuery,
    configurable: true,
    writable: true,
  });
  try {
    const reference = await request();
    if (foreign !== undefined) {
      throw new Error(
        `the handler ran a statement in a transaction or on a reserved connection, which the bare route cannot replay alike:\n${foreign}`,
      );
    }
    return { reference, handler, outside };
  } finally {
    Reflect.deleteProperty(prototype, 'executeQuery');
    handlerChannel.unbindStore(inHandler);
    // An AsyncLocalStorage once used keeps promise hooks on for the whole process until disabled.
    inHandler.disable();
  }
}

/** The statements in waves: those issued before any of them answered went together. */
function byWave(statements: Captured[]): Captured[][] {
  const waves: Captured[][] = [];
  let last: number | undefined;
  for (const statement of statements) {
    if (statement.answeredBefore !== last) waves.push([]);
    waves.at(-1)?.push(statement);
    last = statement.answeredBefore;
  }
  return waves;
}

async function main(): Promise<void> {
  const users = Number(process.env.BENCH_USERS ?? '10000');
  const queryPath =
    process.env.BENCH_QUERY_PATH ?? '/api/admin/sysuser/query?currentPage=1&pageSize=20&status=1';
  // Same logger set-up as main.ts: pino's buffered stream to stdout at LOG_LEVEL (the parent
  // discards stdout). BENCH_LOG_FILE: where the log goes instead (/dev/null: logged, not read by
  // the parent).
  const { app, bootMs } = await bootApp({
    dataDir: process.env.DATA_DIR,
    databaseUrl: process.env.DATABASE_URL,
    logTo: process.env.BENCH_LOG_FILE ?? 1,
  });
  const db = app.ctx.db;
  const entity = app.ctx.registry.require('sysuser');

  const seedStarted = Date.now();
  await seedUsers(db, entity.table, users);
  const seedMs = Date.now() - seedStarted;

  const token = await signInApp(app);
  const headers = { authorization: `Bearer ${token}` };

  // A first request warms what the app keeps between requests (the session cache); the second
  // one, a steady-state request, is the one captured.
  const warm = await app.inject({ method: 'GET', url: queryPath, headers });
  if (warm.statusCode !== 200) throw new Error(`${queryPath} answered ${warm.statusCode}: ${warm.body}`);
  const { reference, handler, outside } = await captureRequest(db, () =>
    app.inject({ method: 'GET', url: queryPath, headers }),
  );
  if (reference.statusCode !== 200)
    throw new Error(`${queryPath} answered ${reference.statusCode}: ${reference.body}`);
  const expected = (
    reference.json() as { data: Record<string, unknown> & { records: Record<string, unknown>[] } }
  ).data;
  const waves = byWave(handler);
  // Which statement gave the records and which the total, to build the same answer from them.
  const recordKeys = Object.keys(expected.records[0] ?? {});
  const pageIndex = handler.findIndex(
    (statement) =>
      statement.rows.length === expected.records.length &&
      statement.rows.every((row) => recordKeys.every((key) => key in row)),
  );
  const countIndex = handler.findIndex(
    (statement) => statement.rows.length === 1 && statement.rows[0]?.total === expected.total,
  );
  if (pageIndex < 0) {
    throw new Error(
      `no statement of the handler gave the page's records, captured:\n${handler.map((q) => q.query.sql).join('\n---\n')}`,
    );
  }

  const bare = Fastify({ logger: false });
  bare.get('/bare', async () => {
    // The handler's statements, each wave issued together as the service did, the next wave
    // once the previous one answered.
    const results: QueryResult<Record<string, unknown>>[] = [];
    for (const wave of waves) {
      const answered = await Promise.all(
        wave.map((statement) => db.executeQuery<Record<string, unknown>>(statement.query)),
      );
      results.push(...answered);
    }
    const page = results[pageIndex]?.rows ?? [];
    const count = countIndex < 0 ? undefined : results[countIndex]?.rows[0]?.total;
    const records = page.map((row) => {
      const record: Record<string, unknown> = {};
      for (const key of recordKeys) record[key] = row[key];
      return record;
    });
    return {
      code: 200,
      message: 'success',
      data: { ...expected, records, ...(count === undefined ? {} : { total: count }) },
    };
  });

  // The same answer from both, or the comparison would be meaningless.
  const bareAnswer = await bare.inject({ method: 'GET', url: '/bare' });
  if (bareAnswer.body !== reference.body) {
    throw new Error(
      `bare route and app disagree:\napp:  ${reference.body.slice(0, 300)}\nbare: ${bareAnswer.body.slice(0, 300)}`,
    );
  }

  const appAddress = await app.listen({ port: 0, host: '127.0.0.1' });
  const bareAddress = await bare.listen({ port: 0, host: '127.0.0.1' });
  const ready: QueryServerReady = {
    type: 'ready',
    appUrl: `${appAddress}${queryPath}`,
    bareUrl: `${bareAddress}/bare`,
    token,
    queries: waves.flatMap((wave, index) =>
      wave.map(({ query }) => ({ sql: query.sql, parameters: [...query.parameters], wave: index + 1 })),
    ),
    outsideHandler: outside.map((query) => query.sql),
    seedMs,
    bootMs,
  };
  send(ready);

  const shutdown = async (): Promise<void> => {
    await bare.close();
    await app.close();
    process.exit(0);
  };
  process.on('message', (message) => {
    if ((message as { type?: string }).type === 'stop') void shutdown();
  });
  // The parent went away (crash, Ctrl-C): do not linger.
  process.on('disconnect', () => void shutdown());
}

main().catch((error: unknown) => {
  send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
