/**
 * workflow: instances per second of "start + complete two user tasks" through the HTTP API,
 * everything persisted, with BENCH_CONNECTIONS (10) concurrent clients, on PGlite and
 * PostgreSQL. Goal (issue 12): at least 300 instances/s on PostgreSQL.
 *
 * What one client loop sends (keep-alive HTTP/1.1, bearer token, JSON):
 * - `answers` (the figure): POST processinstance/start, POST task/completeTask for the task the
 *   start answered in `nextTasks`, POST task/completeTask for the task that answer named: 3
 *   requests an instance; each answer is checked (200, one next task assigned to the caller).
 * - `lists` (the loop of the earlier sessions, for comparison): POST processinstance/start,
 *   GET task/queryPersonalTask?processInstanceId=…, POST task/completeTask, twice: 5 requests.
 * BENCH_WORKFLOW_BEFORE=<another checkout> also boots that checkout's app (same database kind,
 * a database of its own) and measures it with the figure's loop (`lists` with
 * BENCH_WORKFLOW_BEFORE_LOOP=lists, for a checkout without `nextTasks`) in the same rounds.
 *
 * Beside them, in the same rounds, the floors of these cores: bare `select 1` round trips and
 * one-row transactions (begin, insert, commit) through the app's pool with as many clients, and
 * a bare Fastify route driven by the same HTTP client. For every measured piece the CPU time of
 * the server process, of the bench client (this process), of PostgreSQL (the backends of the
 * bench's database and the WAL writer) and of everything else on the machine is read from /proc.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import pg from 'pg';
import type { TableWrites, WorkflowServerReady } from './workflow-server.js';
import { figure, type Figure, type SuiteResult } from './lib/report.js';
import {
  createDatabase,
  envNumber,
  median,
  PG_SERVER_URL,
  ROOT,
  round,
  sleep,
  spawnNode,
  tempDir,
  type DbKind,
} from './lib/util.js';

const SUITE = 'workflow';
const GOAL_POSTGRES = 300;

interface Server {
  ready: WorkflowServerReady;
  pid: number;
  database?: string;
  ask: <T>(message: Record<string, unknown>, answer: string) => Promise<T>;
  stop: () => Promise<void>;
}

async function startServer(kind: DbKind, label: string, root?: string): Promise<Server> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DATABASE_URL;
  const cleanups: (() => Promise<void>)[] = [];
  const dir = tempDir(`workflow-${label}-${kind}`);
  env.DATA_DIR = dir.path;
  cleanups.push(dir.remove);
  let database: string | undefined;
  if (kind === 'postgres') {
    const created = await createDatabase(`workflow_${label}`);
    env.DATABASE_URL = created.url;
    database = new URL(created.url).pathname.slice(1);
    cleanups.unshift(created.drop);
  }
  if (root) env.BENCH_APP_ROOT = root;
  // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the server process when it stops.
  const nodeArgs = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  // Another checkout runs from its own directory, so its app reads its own schemas, locales and
  // modules (config resolves them from the working directory); the server script is this tree's.
  const child = spawnNode(join(ROOT, 'bench/workflow-server.ts'), {
    env,
    ipc: true,
    nodeArgs,
    ...(root ? { cwd: root } : {}),
  });
  cleanups.unshift(child.stop);
  const stop = async (): Promise<void> => {
    if (child.process.connected) child.process.send({ type: 'stop' });
    await Promise.race([child.exited, sleep(10_000)]);
    for (const cleanup of cleanups) await cleanup();
  };
  const ask = <T>(message: Record<string, unknown>, answer: string): Promise<T> =>
    new Promise<T>((resolve) => {
      const listen = (reply: { type?: string }): void => {
        if (reply.type !== answer) return;
        child.process.off('message', listen);
        resolve(reply as T);
      };
      child.process.on('message', listen);
      child.process.send(message);
    });
  try {
    const ready = await new Promise<WorkflowServerReady>((resolve, reject) => {
      child.process.on('message', (message: { type?: string; message?: string }) => {
        if (message.type === 'ready') resolve(message as WorkflowServerReady);
        if (message.type === 'error')
          reject(new Error(`workflow server (${label}, ${kind}) failed: ${message.message}`));
      });
      void child.exited.then((code) =>
        reject(new Error(`workflow server (${label}, ${kind}) exited with ${code}:\n${child.output()}`)),
      );
    });
    return { ready, pid: child.pid, ...(database ? { database } : {}), ask, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// CPU time from /proc --------------------------------------------------------------------------

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of a process, in ms (0 when it is gone). */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** CPU time the whole machine spent busy (all cores), in ms. */
function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return (total - idle) * TICK_MS;
}

/** The PostgreSQL processes working for a database: its backends and the WAL writer. */
async function postgresPids(database: string | undefined): Promise<number[]> {
  if (!database) return [];
  const client = new pg.Client({ connectionString: PG_SERVER_URL });
  await client.connect();
  try {
    const rows = await client.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = $1 or backend_type = 'walwriter'`,
      [database],
    );
    return rows.rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

interface CpuShare {
  /** CPU ms per unit (instance or trip) of each part. */
  server: number;
  postgres: number;
  client: number;
  other: number;
}

/** Measures a piece of work: its count and the CPU each part spent on it. */
async function withCpu(
  server: Server,
  work: () => Promise<{ count: number; perSecond: number }>,
): Promise<{ count: number; perSecond: number; cpu: CpuShare }> {
  // PostgreSQL's processes by pid: one that starts during the work counts whole, one that ends is lost.
  const readPostgres = async (): Promise<Map<number, number>> =>
    new Map((await postgresPids(server.database)).map((pid) => [pid, processCpuMs(pid)]));
  const postgresBefore = await readPostgres();
  const before = {
    server: processCpuMs(server.pid),
    client: process.cpuUsage(),
    machine: machineBusyMs(),
  };
  const result = await work();
  const client = process.cpuUsage(before.client);
  const postgresAfter = await readPostgres();
  let postgres = 0;
  for (const [pid, ms] of postgresAfter) postgres += Math.max(ms - (postgresBefore.get(pid) ?? 0), 0);
  const used = {
    server: processCpuMs(server.pid) - before.server,
    postgres,
    client: (client.user + client.system) / 1000,
    machine: machineBusyMs() - before.machine,
  };
  const per = (ms: number): number => round(ms / Math.max(result.count, 1), 3);
  return {
    ...result,
    cpu: {
      server: per(used.server),
      postgres: per(used.postgres),
      client: per(used.client),
      other: per(Math.max(used.machine - used.server - used.postgres - used.client, 0)),
    },
  };
}

// The HTTP client ------------------------------------------------------------------------------

interface Answer {
  status: number;
  body: { data?: Record<string, unknown> };
}

/** A small keep-alive JSON client on node:http (lighter than fetch: it shares the cores). */
function client(base: string, token: string, connections: number) {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const request = (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const call = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: {
            authorization: `Bearer ${token}`,
            ...(payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            try {
              resolve({
                status: response.statusCode ?? 0,
                body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer['body'],
              });
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          });
          response.on('error', reject);
        },
      );
      call.on('error', reject);
      call.end(payload);
    });
  return { request, close: () => agent.destroy() };
}

type Client = ReturnType<typeof client>;
type Loop = 'answers' | 'lists' | 'bare-http';

function data(answer: Answer, what: string): Record<string, unknown> {
  if (answer.status !== 200 || !answer.body.data)
    throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  return answer.body.data;
}

/** The one task the answer says comes next (assigned to the caller). */
function nextTaskOf(answer: Record<string, unknown>, what: string): number {
  const next = answer.nextTasks as { id: number }[] | undefined;
  const [task] = next ?? [];
  if (!task || next?.length !== 1)
    throw new Error(`${what}: expected one next task, got ${JSON.stringify(next)}`);
  return task.id;
}

const START = { processDefinitionKey: 'bench_two_tasks', description: 'bench' };
const API = '/api/activiti';

/** One instance, start to end, through the API. */
async function oneInstance(http1: Client, loop: Loop): Promise<void> {
  if (loop === 'bare-http') {
    data(await http1.request('POST', '/bare', START), 'bare');
    return;
  }
  const started = data(await http1.request('POST', `${API}/processinstance/start`, START), 'start');
  if (loop === 'answers') {
    let taskId = nextTaskOf(started, 'start');
    const first = data(
      await http1.request('POST', `${API}/task/completeTask`, { id: taskId, comment: 'ok' }),
      'complete',
    );
    taskId = nextTaskOf(first, 'complete');
    const second = data(
      await http1.request('POST', `${API}/task/completeTask`, { id: taskId, comment: 'ok' }),
      'complete',
    );
    if ((second.nextTasks as unknown[] | undefined)?.length !== 0)
      throw new Error('the instance did not end');
    return;
  }
  for (let step = 0; step < 2; step += 1) {
    const tasks = data(
      await http1.request('GET', `${API}/task/queryPersonalTask?processInstanceId=${String(started.id)}`),
      'queryPersonalTask',
    );
    const [task] = tasks.records as { id: number }[];
    if (!task) throw new Error(`no open task of instance ${String(started.id)}`);
    data(await http1.request('POST', `${API}/task/completeTask`, { id: task.id, comment: 'ok' }), 'complete');
  }
}

async function drive(
  base: string,
  token: string,
  loop: Loop,
  seconds: number,
  clients: number,
): Promise<{ count: number; perSecond: number; latencies: number[] }> {
  const http1 = client(base, token, clients);
  const until = Date.now() + seconds * 1000;
  const latencies: number[] = [];
  const began = Date.now();
  const one = async (): Promise<void> => {
    while (Date.now() < until) {
      const at = performance.now();
      await oneInstance(http1, loop);
      latencies.push(performance.now() - at);
    }
  };
  try {
    await Promise.all(Array.from({ length: clients }, one));
  } finally {
    http1.close();
  }
  const elapsed = (Date.now() - began) / 1000;
  return { count: latencies.length, perSecond: latencies.length / elapsed, latencies };
}

// The suite ------------------------------------------------------------------------------------

interface Piece {
  name: string;
  server: Server;
  /** Work units per second and the CPU per unit. */
  measure: (seconds: number) => Promise<{
    count: number;
    perSecond: number;
    statements?: number;
    p50Ms?: number;
  }>;
}

function instancePiece(name: string, server: Server, loop: Loop, clients: number): Piece {
  return {
    name,
    server,
    measure: async (seconds) => {
      const before = await server.ask<{ statements: number }>({ type: 'statements' }, 'statements');
      const result = await drive(server.ready.url, server.ready.token, loop, seconds, clients);
      const after = await server.ask<{ statements: number }>({ type: 'statements' }, 'statements');
      return {
        count: result.count,
        perSecond: result.perSecond,
        statements: (after.statements - before.statements) / Math.max(result.count, 1),
        p50Ms: median(result.latencies),
      };
    },
  };
}

function floorPiece(name: string, server: Server, kind: 'bare' | 'commit', clients: number): Piece {
  return {
    name,
    server,
    measure: async (seconds) => {
      const answer = await server.ask<{ perSecond: number }>({ type: kind, seconds, clients }, kind);
      return { count: answer.perSecond * seconds, perSecond: answer.perSecond };
    },
  };
}

export async function runWorkflow(kinds: DbKind[], log: (line: string) => void): Promise<SuiteResult> {
  const seconds = envNumber('BENCH_DURATION', 8);
  const warmup = envNumber('BENCH_WARMUP', 3);
  const rounds = envNumber('BENCH_ROUNDS', 3);
  const clients = envNumber('BENCH_CONNECTIONS', 10);
  const beforeRoot = process.env.BENCH_WORKFLOW_BEFORE;
  // The before checkout is driven by the figure's loop unless it predates `nextTasks`.
  const beforeLoop: Loop = process.env.BENCH_WORKFLOW_BEFORE_LOOP === 'lists' ? 'lists' : 'answers';
  const BEFORE_PIECE = `before (${beforeLoop === 'lists' ? 'lists loop' : '3 requests'})`;
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  for (const kind of kinds) {
    const app = await startServer(kind, 'app');
    const before = beforeRoot ? await startServer(kind, 'before', beforeRoot) : undefined;
    try {
      log(
        `  ${kind}: app booted in ${app.ready.bootMs} ms${before ? `, before (${beforeRoot}) in ${before.ready.bootMs} ms` : ''}`,
      );
      const pieces: Piece[] = [
        instancePiece('app', app, 'answers', clients),
        instancePiece('app (lists loop)', app, 'lists', clients),
        ...(before ? [instancePiece(BEFORE_PIECE, before, beforeLoop, clients)] : []),
        {
          name: 'bare Fastify route',
          server: app,
          measure: async (s) => {
            const result = await drive(app.ready.bareUrl, '', 'bare-http', s, clients);
            return { count: result.count, perSecond: result.perSecond };
          },
        },
        floorPiece('bare select 1', app, 'bare', clients),
        floorPiece('bare commit (begin, insert, commit)', app, 'commit', clients),
      ];
      for (const piece of pieces.slice(0, before ? 3 : 2))
        await piece.measure(warmup).catch((error: unknown) => {
          throw new Error(`${piece.name}: ${error instanceof Error ? error.message : String(error)}`);
        });
      const runs = new Map<
        string,
        { perSecond: number; statements?: number; p50Ms?: number; cpu: CpuShare }[]
      >();
      for (let index = 1; index <= rounds; index += 1) {
        // Alternate the order so no piece always runs after the same neighbour.
        const order = index % 2 === 1 ? pieces : [...pieces].reverse();
        const line: string[] = [];
        for (const piece of order) {
          const measured = await withCpu(piece.server, () => piece.measure(seconds));
          const { count: _count, ...kept } = measured;
          void _count;
          runs.set(piece.name, [...(runs.get(piece.name) ?? []), kept]);
          line.push(`${piece.name} ${round(measured.perSecond, 1)}/s`);
        }
        log(`  ${kind} round ${index} (load ${loadAverage()}): ${line.join(', ')}`);
      }
      const summary: Record<
        string,
        { perSecond: number; statements?: number; p50Ms?: number; cpu: CpuShare }
      > = {};
      for (const [name, measured] of runs) {
        const middle = <K extends keyof CpuShare>(key: K): number =>
          median(measured.map((run) => run.cpu[key]));
        const statements = measured.map((run) => run.statements).filter((value) => value !== undefined);
        const p50 = measured.map((run) => run.p50Ms).filter((value) => value !== undefined);
        summary[name] = {
          perSecond: median(measured.map((run) => run.perSecond)),
          ...(statements.length > 0 ? { statements: median(statements) } : {}),
          ...(p50.length > 0 ? { p50Ms: median(p50) } : {}),
          cpu: {
            server: middle('server'),
            postgres: middle('postgres'),
            client: middle('client'),
            other: middle('other'),
          },
        };
      }
      figures.push(...figuresOf(kind, clients, summary, before ? beforeLoop : undefined));
      // On PostgreSQL: the rows each table took, and the share of updates that were HOT (the new
      // row version on the same page, no index entry written).
      const writes: Record<string, TableWrites[]> = {};
      for (const [label, server] of kind === 'postgres'
        ? ([['app', app], ...(before ? [['before', before] as const] : [])] as const)
        : []) {
        const { tables } = await server.ask<{ tables: TableWrites[] }>({ type: 'tables' }, 'tables');
        writes[label] = tables;
        const busy = tables.filter((t) => t.inserted + t.updated + t.deleted > 0);
        log(
          `  ${kind} ${label} rows written (inserted/updated (HOT)/deleted): ${busy
            .map((t) => `${t.table} ${t.inserted}/${t.updated} (${t.hot})/${t.deleted}`)
            .join(', ')}`,
        );
      }
      details[kind] = { summary, runs: Object.fromEntries(runs), writes };
    } finally {
      await before?.stop();
      await app.stop();
    }
  }
  return { suite: SUITE, figures, details };
}

const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

type Summary = Record<string, { perSecond: number; statements?: number; p50Ms?: number; cpu: CpuShare }>;

function figuresOf(kind: DbKind, clients: number, summary: Summary, beforeLoop: Loop | undefined): Figure[] {
  const out: Figure[] = [];
  const app = summary.app;
  const lists = summary['app (lists loop)'];
  const before = summary[`before (${beforeLoop === 'lists' ? 'lists loop' : '3 requests'})`];
  const bareHttp = summary['bare Fastify route'];
  const bareSql = summary['bare select 1'];
  const commit = summary['bare commit (begin, insert, commit)'];
  if (!app || !lists || !bareHttp || !bareSql || !commit) return out;
  const cpu = (share: CpuShare): string =>
    `CPU ms per unit: server ${share.server}, PostgreSQL ${share.postgres}, client ${share.client}, rest of the machine ${share.other}`;
  const goal = kind === 'postgres' ? { op: '>=' as const, value: GOAL_POSTGRES } : undefined;
  out.push(
    figure(
      SUITE,
      `${kind}: instances/s (start + 2 tasks, ${clients} clients, 3 requests)`,
      round(app.perSecond, 1),
      'inst/s',
      goal,
      cpu(app.cpu),
    ),
    figure(
      SUITE,
      `${kind}: instances/s, lists loop (5 requests)`,
      round(lists.perSecond, 1),
      'inst/s',
      undefined,
      cpu(lists.cpu),
    ),
  );
  if (beforeLoop && before) {
    const same = beforeLoop === 'lists' ? lists : app;
    const loopName = beforeLoop === 'lists' ? 'lists loop (5 requests)' : '3 requests';
    const cpuOf = (share: CpuShare): number => share.server + share.postgres + share.client;
    out.push(
      figure(
        SUITE,
        `${kind}: before, ${loopName}`,
        round(before.perSecond, 1),
        'inst/s',
        undefined,
        cpu(before.cpu),
      ),
      figure(
        SUITE,
        `${kind}: app ÷ before (${loopName} on both)`,
        round(same.perSecond / before.perSecond, 2),
        'ratio',
      ),
      figure(
        SUITE,
        `${kind}: CPU ms per instance, app ÷ before (server + PostgreSQL + client, ${loopName})`,
        round(cpuOf(same.cpu) / cpuOf(before.cpu), 3),
        'ratio',
        undefined,
        `server ${round(same.cpu.server / before.cpu.server, 3)}, PostgreSQL ${round(same.cpu.postgres / before.cpu.postgres, 3)}, client ${round(same.cpu.client / before.cpu.client, 3)}`,
      ),
    );
  }
  out.push(
    figure(
      SUITE,
      `${kind}: bare Fastify route (same client)`,
      round(bareHttp.perSecond),
      'req/s',
      undefined,
      cpu(bareHttp.cpu),
    ),
    figure(
      SUITE,
      `${kind}: bare select 1 round trips/s`,
      round(bareSql.perSecond),
      'trips/s',
      undefined,
      cpu(bareSql.cpu),
    ),
    figure(
      SUITE,
      `${kind}: bare one-row transactions/s`,
      round(commit.perSecond),
      'tx/s',
      undefined,
      cpu(commit.cpu),
    ),
  );
  if (app.statements !== undefined && kind === 'postgres') {
    out.push(
      figure(
        SUITE,
        `${kind}: SQL statements per instance`,
        round(app.statements, 1),
        'stmts',
        undefined,
        `lists loop ${round(lists.statements ?? NaN, 1)}${before?.statements !== undefined ? `, before (${beforeLoop === 'lists' ? 'lists loop' : '3 requests'}) ${round(before.statements, 1)}` : ''}`,
      ),
      figure(
        SUITE,
        `${kind}: instances/s at the floors (bare HTTP and SQL rates alone)`,
        round(1 / (3 / bareHttp.perSecond + app.statements / bareSql.perSecond), 1),
        'inst/s',
        undefined,
        '3 bare requests and the statements as bare round trips, one after the other on these cores',
      ),
      figure(
        SUITE,
        `${kind}: app statements/s ÷ bare round trips/s`,
        round((app.perSecond * app.statements) / bareSql.perSecond, 3),
        'ratio',
      ),
    );
  }
  return out;
}
