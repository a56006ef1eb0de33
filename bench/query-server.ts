/**
 * Child process of the query benchmark: in ONE process it boots the real app (buildApp, as
 * main.ts does) and a bare Fastify server whose only route runs the same two SQL statements
 * through the same Kysely instance, with no auth, no parsing and no validation. Both listen on
 * loopback; the parent drives them with autocannon. Talks to the parent over IPC.
 *
 * The SQL of the bare route is captured from a real request of the app (the statements that
 * touch the entity's table), so it stays the same SQL when service.ts changes.
 */
import Fastify from 'fastify';
import type { CompiledQuery, QueryResult } from 'kysely';
import { buildApp } from '../src/server/app.js';
import { readConfig } from '../src/server/lib/config.js';
import { seedUsers } from './lib/seed.js';
import { ADMIN_PASSWORD, BROWSER_CLIENT } from './lib/util.js';

export interface QueryServerReady {
  type: 'ready';
  appUrl: string;
  bareUrl: string;
  token: string;
  queries: { sql: string; parameters: unknown[] }[];
  seedMs: number;
  bootMs: number;
}

const send = (message: unknown): void => {
  process.send?.(message);
};

async function main(): Promise<void> {
  const users = Number(process.env.BENCH_USERS ?? '10000');
  const queryPath =
    process.env.BENCH_QUERY_PATH ?? '/api/admin/sysuser/query?currentPage=1&pageSize=20&status=1';
  const env: NodeJS.ProcessEnv = { ADMIN_PASSWORD, DATA_DIR: process.env.DATA_DIR };
  if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
  const bootStarted = Date.now();
  // Same logger set-up as main.ts: pino to stdout at LOG_LEVEL (the parent discards stdout).
  const { app } = await buildApp({
    config: readConfig(env),
    logger: { level: process.env.LOG_LEVEL ?? 'warn' },
  });
  const bootMs = Date.now() - bootStarted;
  const db = app.ctx.db;
  const entity = app.ctx.registry.require('sysuser');

  const seedStarted = Date.now();
  await seedUsers(db, entity.table, users);
  const seedMs = Date.now() - seedStarted;

  const signedIn = await app.inject({
    method: 'POST',
    url: '/api/uaa/oauth/token',
    headers: { authorization: BROWSER_CLIENT, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'password',
      scope: 'ui',
      client_id: 'browser',
      tenantCode: 'default',
      username: 'admin',
      password: ADMIN_PASSWORD,
    }).toString(),
  });
  if (signedIn.statusCode !== 200) throw new Error(`sign-in failed: ${signedIn.body}`);
  const token = (signedIn.json() as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}` };

  // Capture what the service sends to the database for one request.
  const executor = db.getExecutor();
  const original = executor.executeQuery.bind(executor);
  const captured: CompiledQuery[] = [];
  Object.assign(executor, {
    executeQuery: (query: CompiledQuery, options?: Parameters<typeof original>[1]) => {
      captured.push(query);
      return original(query, options);
    },
  });
  const reference = await app.inject({ method: 'GET', url: queryPath, headers });
  Reflect.deleteProperty(executor, 'executeQuery');
  if (reference.statusCode !== 200)
    throw new Error(`${queryPath} answered ${reference.statusCode}: ${reference.body}`);
  const tableName = `"${entity.table}"`;
  const queries = captured.filter((query) => query.sql.includes(tableName));
  const countQuery = queries.find((query) => /count\(/i.test(query.sql));
  const pageQuery = queries.find((query) => query !== countQuery);
  if (queries.length !== 2 || !countQuery || !pageQuery) {
    throw new Error(
      `expected a count and a page query on ${tableName}, captured:\n${captured.map((q) => q.sql).join('\n---\n')}`,
    );
  }
  const expected = (reference.json() as { data: { currentPage: number; pageSize: number } }).data;

  const bare = Fastify({ logger: false });
  bare.get('/bare', async () => {
    // Issued together, as the service does.
    const [count, page] = (await Promise.all([db.executeQuery(countQuery), db.executeQuery(pageQuery)])) as [
      QueryResult<{ total: number }>,
      QueryResult<Record<string, unknown>>,
    ];
    return {
      code: 200,
      message: 'success',
      data: {
        records: page.rows,
        total: count.rows[0]?.total ?? 0,
        currentPage: expected.currentPage,
        pageSize: expected.pageSize,
      },
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
    queries: queries.map((query) => ({ sql: query.sql, parameters: [...query.parameters] })),
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
