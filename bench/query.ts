/**
 * query: GET /api/admin/sysuser/query (page of 20, status=1, default sort) over 10 000 seeded
 * users, through the real app with a bearer token, against a bare Fastify route in the same
 * process that runs the same SQL (every statement of the app's route handler, captured from a real
 * request) through the same Kysely instance. Measured alternately
 * (app, bare, app, bare, …) with autocannon; the figure is median(app rps) / median(bare rps).
 */
import autocannon from 'autocannon';
import type { QueryServerReady } from './query-server.js';
import { figure, type Figure, type SuiteResult } from './lib/report.js';
import {
  createDatabase,
  envNumber,
  median,
  round,
  sleep,
  spawnNode,
  tempDir,
  type DbKind,
} from './lib/util.js';

const SUITE = 'query';
const GOAL_RATIO = 0.8;

interface Run {
  target: 'app' | 'bare';
  round: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
}

async function fire(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
): Promise<autocannon.Result> {
  const result = await autocannon({ url, headers, connections, duration: seconds, pipelining: 1 });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return result;
}

async function startServer(
  kind: DbKind,
  users: number,
  serverScript: string,
): Promise<{ ready: QueryServerReady; stop: () => Promise<void> }> {
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_USERS: String(users) };
  delete env.DATABASE_URL;
  const cleanups: (() => Promise<void>)[] = [];
  if (kind === 'pglite') {
    const dir = tempDir('query');
    env.DATA_DIR = dir.path;
    cleanups.push(dir.remove);
  } else {
    const database = await createDatabase('query');
    const dir = tempDir('query-pg'); // outboxes
    env.DATABASE_URL = database.url;
    env.DATA_DIR = dir.path;
    cleanups.push(database.drop, dir.remove);
  }
  // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the server process (app and bare route) when it stops.
  const nodeArgs = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const child = spawnNode(serverScript, { env, ipc: true, nodeArgs });
  cleanups.unshift(child.stop);
  const stop = async (): Promise<void> => {
    if (child.process.connected) child.process.send({ type: 'stop' });
    await Promise.race([child.exited, sleep(10_000)]);
    for (const cleanup of cleanups) await cleanup();
  };
  try {
    const ready = await new Promise<QueryServerReady>((resolve, reject) => {
      child.process.on('message', (message: { type?: string; message?: string }) => {
        if (message.type === 'ready') resolve(message as QueryServerReady);
        if (message.type === 'error') reject(new Error(`query server (${kind}) failed: ${message.message}`));
      });
      void child.exited.then((code) =>
        reject(new Error(`query server (${kind}) exited with ${code}:\n${child.output()}`)),
      );
    });
    return { ready, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function measure(
  kind: DbKind,
  log: (line: string) => void,
  serverScript: string,
): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const users = envNumber('BENCH_USERS', 10_000);
  const seconds = envNumber('BENCH_DURATION', 8);
  const warmup = envNumber('BENCH_WARMUP', 3);
  const rounds = envNumber('BENCH_ROUNDS', 3);
  const connections = envNumber('BENCH_CONNECTIONS', 10);
  const { ready, stop } = await startServer(kind, users, serverScript);
  try {
    log(`  ${kind}: app booted in ${ready.bootMs} ms, ${users} users seeded in ${ready.seedMs} ms`);
    const waves = new Set(ready.queries.map((query) => query.wave)).size;
    log(
      `  ${kind}: the bare route runs the handler's ${ready.queries.length} statements in ${waves} waves; ` +
        `outside the handler a request ran ${ready.outsideHandler.length}`,
    );
    const auth = { authorization: `Bearer ${ready.token}` };
    const targets = {
      app: { url: ready.appUrl, headers: auth },
      bare: { url: ready.bareUrl, headers: {} },
    } as const;
    await fire(targets.app.url, targets.app.headers, warmup, connections);
    await fire(targets.bare.url, targets.bare.headers, warmup, connections);
    const runs: Run[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      for (const target of ['app', 'bare'] as const) {
        const result = await fire(targets[target].url, targets[target].headers, seconds, connections);
        const run: Run = {
          target,
          round,
          rps: result.requests.total / result.duration,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          requests: result.requests.total,
        };
        runs.push(run);
        log(
          `  ${kind} round ${round} ${target.padEnd(4)} ${round1(run.rps)} req/s  p50 ${run.p50Ms} ms  p99 ${run.p99Ms} ms`,
        );
      }
    }
    const of = (target: Run['target']): Run[] => runs.filter((run) => run.target === target);
    const appRps = median(of('app').map((run) => run.rps));
    const bareRps = median(of('bare').map((run) => run.rps));
    const roundRatios = of('app').map((run, index) => run.rps / (of('bare')[index]?.rps ?? NaN));
    const ratio = appRps / bareRps;
    const figures = [
      figure(
        SUITE,
        `${kind}: app / bare rps`,
        ratio,
        'ratio',
        { op: '>=', value: GOAL_RATIO },
        `per round ${roundRatios.map((r) => r.toFixed(2)).join(', ')}`,
      ),
      figure(
        SUITE,
        `${kind}: app rps (median)`,
        appRps,
        'req/s',
        undefined,
        `p50 ${median(of('app').map((run) => run.p50Ms))} ms`,
      ),
      figure(
        SUITE,
        `${kind}: bare rps (median)`,
        bareRps,
        'req/s',
        undefined,
        `p50 ${median(of('bare').map((run) => run.p50Ms))} ms`,
      ),
    ];
    return {
      figures,
      details: {
        users,
        seconds,
        warmup,
        rounds,
        connections,
        appUrl: ready.appUrl,
        queries: ready.queries,
        outsideHandler: ready.outsideHandler,
        runs,
        ratio,
        roundRatios,
        appRps,
        bareRps,
      },
    };
  } finally {
    await stop();
  }
}

const round1 = (value: number): string => round(value, 1).toFixed(1);

/** serverScript: the child to run (an experiment may pass a variant of query-server.ts). */
export async function runQuery(
  kinds: DbKind[],
  log: (line: string) => void,
  serverScript = 'bench/query-server.ts',
): Promise<SuiteResult> {
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  for (const kind of kinds) {
    const measured = await measure(kind, log, serverScript);
    figures.push(...measured.figures);
    details[kind] = measured.details;
  }
  return { suite: SUITE, figures, details };
}
