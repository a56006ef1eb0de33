/**
 * Child process of the workflow benchmark: boots the real app (buildApp, as main.ts does) on
 * the database the parent chose, listens on loopback, deploys the benchmark's process and tells
 * the parent over IPC. BENCH_APP_ROOT names another checkout whose app is booted instead (the
 * "before" of a side-by-side run); the rest of this file is the same for both.
 *
 * Beside the app, the floors the parent measures with the same clients:
 * - `bare`: `select 1` round trips through the app's own database pool;
 * - `commit`: one-row transactions (begin, insert, commit) through the same pool, on a table of
 *   its own: what a commit (and its WAL flush) costs;
 * - a bare Fastify server in this process (no hooks, no database) with one JSON route, on a
 *   port of its own: what an HTTP request costs on these cores.
 * On PostgreSQL it also counts the statements the app sends (pg's Client.query).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import type { buildApp as BuildApp } from '../src/server/app.js';
import type { readConfig as ReadConfig } from '../src/server/lib/config.js';
import { ADMIN_PASSWORD, ROOT, signIn } from './lib/util.js';

export interface WorkflowServerReady {
  type: 'ready';
  url: string;
  /** The bare Fastify server's address (its route: POST /bare). */
  bareUrl: string;
  token: string;
  bootMs: number;
}

/** start → two user tasks assigned to the starter → end. */
export const TWO_TASKS = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="bench">
  <process id="bench_two_tasks" name="Bench" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="first"/>
    <userTask id="first" name="First" camunda:assignee="\${initiator}"/>
    <sequenceFlow id="f2" sourceRef="first" targetRef="second"/>
    <userTask id="second" name="Second" camunda:assignee="\${initiator}"/>
    <sequenceFlow id="f3" sourceRef="second" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`;

/** pg_stat_user_tables of one table: rows written since the start. */
export interface TableWrites {
  table: string;
  inserted: number;
  updated: number;
  hot: number;
  deleted: number;
}

let statements = 0;
const originalQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
  this: unknown,
  ...args: unknown[]
) {
  statements += 1;
  return originalQuery.apply(this, args);
};

const send = (message: unknown): void => {
  process.send?.(message);
};

/** Runs `clients` loops of `trip` for `seconds`; answers the trips per second. */
async function loops(seconds: number, clients: number, trip: () => Promise<unknown>): Promise<number> {
  const until = Date.now() + seconds * 1000;
  const began = Date.now();
  let trips = 0;
  const loop = async (): Promise<void> => {
    while (Date.now() < until) {
      await trip();
      trips += 1;
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
  return trips / ((Date.now() - began) / 1000);
}

async function main(): Promise<void> {
  const began = Date.now();
  const root = process.env.BENCH_APP_ROOT ?? ROOT;
  const { buildApp } = (await import(pathToFileURL(join(root, 'src/server/app.ts')).href)) as {
    buildApp: typeof BuildApp;
  };
  const { readConfig } = (await import(pathToFileURL(join(root, 'src/server/lib/config.ts')).href)) as {
    readConfig: typeof ReadConfig;
  };
  const config = readConfig({ ...process.env, ADMIN_PASSWORD, LOG_LEVEL: 'warn' } as Record<string, string>);
  const { app } = await buildApp({ config });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const bare = Fastify({ logger: false });
  bare.post('/bare', async (request) => ({ code: 200, message: 'success', data: request.body }));
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });
  const token = await signIn(address);
  const deployed = await fetch(`${address}/api/activiti/deployment/deployXml`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ xml: TWO_TASKS }),
  });
  if (deployed.status !== 200) throw new Error(`deploy failed: ${deployed.status} ${await deployed.text()}`);
  const db = app.ctx.db;
  await sql`create table if not exists bench_commit (id bigserial primary key, at timestamptz not null default now(), note text)`.execute(
    db,
  );
  process.on('message', (message: { type?: string; seconds?: number; clients?: number }) => {
    const seconds = message.seconds ?? 5;
    const clients = message.clients ?? 10;
    if (message.type === 'stop') {
      void Promise.all([bare.close(), app.close()]).then(() => process.exit(0));
    } else if (message.type === 'tables') {
      // Rows written per table since the start, and how many updates were HOT (no index entry).
      void sql<TableWrites>`select relname as table, n_tup_ins::int as inserted, n_tup_upd::int as updated,
          n_tup_hot_upd::int as hot, n_tup_del::int as deleted
        from pg_stat_user_tables where relname like 'wf\\_%' or relname = 'sys_notification' order by relname`
        .execute(db)
        .then((result) => send({ type: 'tables', tables: result.rows }))
        .catch(() => send({ type: 'tables', tables: [] }));
    } else if (message.type === 'statements') {
      send({ type: 'statements', statements });
    } else if (message.type === 'bare') {
      void loops(seconds, clients, () => sql`select 1`.execute(db)).then((perSecond) =>
        send({ type: 'bare', perSecond }),
      );
    } else if (message.type === 'commit') {
      void loops(seconds, clients, () =>
        db
          .transaction()
          .execute((trx) => sql`insert into bench_commit (note) values (${'bench'})`.execute(trx)),
      ).then((perSecond) => send({ type: 'commit', perSecond }));
    }
  });
  send({
    type: 'ready',
    url: address,
    bareUrl,
    token,
    bootMs: Date.now() - began,
  } satisfies WorkflowServerReady);
}

main().catch((error: unknown) => {
  send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
