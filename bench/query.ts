/**
 * query: GET /api/admin/sysuser/query (page of 20, status=1, default sort) over 10 000 seeded
 * users, through the real app with a bearer token, against a bare Fastify route in the same
 * process that runs the same SQL (every statement of the app's route handler, captured from a real
 * request) through the same Kysely instance. Measured alternately
 * (app, bare, app, bare, …) with autocannon; the figure is median(app rps) / median(bare rps).
 *
 * BENCH_MONITORING: on (default), off (the app with MONITORING=off), or both: a second server
 * process with MONITORING=off on its own copy of the data, measured in the same rounds (app,
 * app without monitoring, bare, …); the overhead figure is median(on rps) / median(off rps).
 * With monitoring on, the request lines are logged at LOG_LEVEL info (the server's default) to
 * /dev/null, so their cost is in the figure without the parent reading them.
 */
import autocannon from 'autocannon';
import type { QueryServerReady } from './query-server.js';
import { figure, perDatabase, type Figure, type SuiteResult } from './lib/report.js';
import {
  createDatabase,
  envNumber,
  median,
  readCpuSeconds,
  round,
  sleep,
  spawnNode,
  tempDir,
  type DbKind,
} from './lib/util.js';

const SUITE = 'query';
const GOAL_RATIO = 0.8;
/** Issue 17: metrics and request logs cost less than 10 % of the requests per second. */
const GOAL_MONITORING_RATIO = 0.9;

type Monitoring = 'on' | 'off' | 'both';

function monitoringMode(): Monitoring {
  const value = (process.env.BENCH_MONITORING ?? 'on').trim().toLowerCase();
  if (value === 'on' || value === 'off' || value === 'both') return value;
  throw new Error(`BENCH_MONITORING must be on, off or both, got "${value}"`);
}

interface Run {
  target: 'app' | 'bare' | 'appOff';
  round: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** CPU time of the server process (every thread) during the run, per request answered. */
  cpuMsPerRequest: number;
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
  monitoring: 'on' | 'off',
): Promise<{ ready: QueryServerReady; pid: number; stop: () => Promise<void> }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BENCH_USERS: String(users),
    MONITORING: monitoring,
    ...(monitoring === 'on' ? { LOG_LEVEL: 'info', BENCH_LOG_FILE: '/dev/null' } : {}),
  };
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
    return { ready, pid: child.pid, stop };
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
  const monitoring = monitoringMode();
  const { ready, pid, stop } = await startServer(
    kind,
    users,
    serverScript,
    monitoring === 'off' ? 'off' : 'on',
  );
  let withoutMonitoring: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    if (monitoring === 'both') withoutMonitoring = await startServer(kind, users, serverScript, 'off');
    log(`  ${kind}: app booted in ${ready.bootMs} ms, ${users} users seeded in ${ready.seedMs} ms`);
    const waves = new Set(ready.queries.map((query) => query.wave)).size;
    log(
      `  ${kind}: the bare route runs the handler's ${ready.queries.length} statements in ${waves} waves; ` +
        `outside the handler a request ran ${ready.outsideHandler.length}`,
    );
    const auth = { authorization: `Bearer ${ready.token}` };
    const off = withoutMonitoring?.ready;
    // pid: the process whose CPU time a run costs (the app and the bare route share one).
    const targets: Record<Run['target'], { url: string; headers: Record<string, string>; pid: number }> = {
      app: { url: ready.appUrl, headers: auth, pid },
      appOff: {
        url: off?.appUrl ?? '',
        headers: { authorization: `Bearer ${off?.token ?? ''}` },
        pid: withoutMonitoring?.pid ?? pid,
      },
      bare: { url: ready.bareUrl, headers: {}, pid },
    };
    const measured: Run['target'][] = off ? ['app', 'appOff', 'bare'] : ['app', 'bare'];
    for (const target of measured)
      await fire(targets[target].url, targets[target].headers, warmup, connections);
    const runs: Run[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      for (const target of measured) {
        const cpuBefore = readCpuSeconds(targets[target].pid);
        const result = await fire(targets[target].url, targets[target].headers, seconds, connections);
        const cpuSeconds = readCpuSeconds(targets[target].pid) - cpuBefore;
        const run: Run = {
          target,
          round,
          rps: result.requests.total / result.duration,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          requests: result.requests.total,
          cpuMsPerRequest: (cpuSeconds * 1000) / Math.max(1, result.requests.total),
        };
        runs.push(run);
        log(
          `  ${kind} round ${round} ${target.padEnd(6)} ${round1(run.rps)} req/s  p50 ${run.p50Ms} ms  p99 ${run.p99Ms} ms  server CPU ${run.cpuMsPerRequest.toFixed(2)} ms/req`,
        );
      }
    }
    const of = (target: Run['target']): Run[] => runs.filter((run) => run.target === target);
    const appRps = median(of('app').map((run) => run.rps));
    const bareRps = median(of('bare').map((run) => run.rps));
    const roundRatios = of('app').map((run, index) => run.rps / (of('bare')[index]?.rps ?? NaN));
    const ratio = appRps / bareRps;
    const cpuMs = (target: Run['target']): number => median(of(target).map((run) => run.cpuMsPerRequest));
    const label = monitoring === 'off' ? ' (monitoring off)' : '';
    const figures = [
      figure(
        SUITE,
        `${kind}: app${label} / bare rps`,
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
      // CPU a request costs the server process: steadier than rps on a shared machine, and what
      // the app's hooks, validation and serialization add over the bare route shows directly.
      figure(SUITE, `${kind}: app server CPU a request (median)`, cpuMs('app'), 'ms'),
      figure(SUITE, `${kind}: bare server CPU a request (median)`, cpuMs('bare'), 'ms'),
    ];
    let monitoringRatio: number | undefined;
    if (off) {
      const offRps = median(of('appOff').map((run) => run.rps));
      monitoringRatio = appRps / offRps;
      const perRound = of('app').map((run, index) => run.rps / (of('appOff')[index]?.rps ?? NaN));
      figures.push(
        figure(
          SUITE,
          `${kind}: app rps, monitoring off (median)`,
          offRps,
          'req/s',
          undefined,
          `p50 ${median(of('appOff').map((run) => run.p50Ms))} ms`,
        ),
        figure(SUITE, `${kind}: app server CPU a request, monitoring off (median)`, cpuMs('appOff'), 'ms'),
        figure(
          SUITE,
          `${kind}: monitoring on / off rps`,
          monitoringRatio,
          'ratio',
          { op: '>=', value: GOAL_MONITORING_RATIO },
          `per round ${perRound.map((r) => r.toFixed(2)).join(', ')}`,
        ),
      );
    }
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
        monitoring,
        ...(monitoringRatio === undefined ? {} : { monitoringRatio }),
      },
    };
  } finally {
    await withoutMonitoring?.stop();
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
  return perDatabase(SUITE, kinds, (kind) => measure(kind, log, serverScript));
}
