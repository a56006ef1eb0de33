/**
 * scale: the user list at 1,000,000 users and more (BENCH_SCALE_ROWS), against the real server
 * (`node --import tsx src/server/main.ts` of BENCH_SCALE_ROOT, by default this tree) on a
 * database seeded with generate_series. The secondary indexes are dropped before seeding and the
 * server's migration builds them when it starts again; that start is reported. Then, with
 * autocannon and 10 clients, p50 / p99 / requests/s of each list request, and the export of the
 * rows of one user type (rows/s, peak server RSS).
 *
 * BENCH_SCALE_ROOT=<another checkout> measures other code on the same data (the figures "before").
 */
import { once } from 'node:events';
import http from 'node:http';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { figure, perDatabase, type Figure, type SuiteResult } from './lib/report.js';
import { dropSecondaryIndexes, SCALE_USER_PREFIX, seedScaleUsers, type Execute } from './lib/scale-seed.js';
import {
  ADMIN_PASSWORD,
  createDatabase,
  envNumber,
  keptDatabase,
  freePort,
  median,
  readCpuSeconds,
  readMemory,
  ROOT,
  round,
  sampleMemory,
  signIn,
  spawnNode,
  tempDir,
  waitForHttp,
  type Child,
  type DbKind,
} from './lib/util.js';

const SUITE = 'scale';
const TABLE = 'sys_user';
const GOAL_P50_MS = { postgres: 50, pglite: 200 } as const;
const GOAL_RPS = 200;
/** Issue 20 sets the export goal on PostgreSQL at 10M rows; PGlite reports its figure. */
const GOAL_EXPORT_ROWS_PER_SECOND = 60_000;
const LIST = '/api/admin/sysuser/query';

interface Scenario {
  name: string;
  path: string;
  /** A list request, held to the latency and throughput goals. */
  isList: boolean;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'first page, dictionary filter',
    path: `${LIST}?currentPage=1&pageSize=20&userType=2`,
    isList: true,
  },
  { name: 'contains on user name', path: `${LIST}?currentPage=1&pageSize=20&username=1234`, isList: true },
  // Three characters: a trigram index cannot serve a two-character "contains" (no whole trigram in it).
  {
    name: 'contains on nickname (Chinese)',
    path: `${LIST}?currentPage=1&pageSize=20&nickname=${encodeURIComponent('黄国娟')}`,
    isList: true,
  },
  { name: 'sort by created time', path: `${LIST}?currentPage=1&pageSize=20&sort=-createdAt`, isList: true },
  { name: 'page 1,000', path: `${LIST}?currentPage=1000&pageSize=20&sort=-createdAt`, isList: true },
  {
    name: 'exact count (dictionary filter)',
    path: `${LIST}?currentPage=1&pageSize=20&status=1&totalExact=true`,
    isList: false,
  },
];

interface Measured {
  scenario: string;
  path: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  total?: number;
  totalExact?: boolean;
  records?: number;
}

interface PageAnswer {
  code: number;
  data?: { records: unknown[]; total: number; totalExact?: boolean; cursor?: string };
}

async function getJson(url: string, token: string): Promise<{ status: number; body: PageAnswer }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as PageAnswer };
}

async function fire(
  url: string,
  token: string,
  seconds: number,
  connections: number,
): Promise<autocannon.Result> {
  const result = await autocannon({
    url,
    headers: { authorization: `Bearer ${token}` },
    connections,
    duration: seconds,
    pipelining: 1,
    timeout: 60,
  });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  return result;
}

function startServer(root: string, env: NodeJS.ProcessEnv, port: number, isProfiled = false): Child {
  // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the measured server (written when it stops).
  const nodeArgs =
    isProfiled && process.env.BENCH_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
  return spawnNode(join(root, 'src/server/main.ts'), {
    env: { ...env, PORT: String(port) },
    cwd: root,
    nodeArgs,
  });
}

/**
 * BENCH_SCALE_ONLY=<words>: only the requests whose name holds one of the comma-separated words
 * ("export" for the export); every request when unset.
 */
function isSelected(name: string): boolean {
  const only = process.env.BENCH_SCALE_ONLY;
  if (!only) return true;
  return only.split(',').some((word) => word.trim() !== '' && name.includes(word.trim()));
}

async function openDatabase(
  kind: DbKind,
  url: string | undefined,
  dataDir: string,
): Promise<{ execute: Execute; close: () => Promise<void> }> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return {
      execute: async (text, params) => client.query(text, params),
      close: () => client.end(),
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(join(dataDir, 'pg'));
  return {
    execute: async (text, params) => db.query<Record<string, unknown>>(text, params),
    close: () => db.close(),
  };
}

/** Streams the export to nowhere, counting bytes, while sampling the server's memory. */
async function exportRows(
  baseUrl: string,
  token: string,
  body: unknown,
  pid: number,
  databaseUrl: string | undefined,
): Promise<{
  seconds: number;
  bytes: number;
  peakRssMb: number;
  status: number;
  rssBeforeMb: number;
  serverCpuSeconds: number;
  backendCpuSeconds: number;
}> {
  const payload = JSON.stringify(body);
  const url = new URL(`${baseUrl}/api/admin/sysuser/export`);
  const rssBeforeMb = readMemory(pid)?.rssMb ?? NaN;
  const memory = sampleMemory(pid);
  const backends = databaseUrl ? await sampleBackendCpu(databaseUrl) : undefined;
  const cpuBefore = readCpuSeconds(pid);
  const started = performance.now();
  const request = http.request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    agent: false,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
    },
  });
  request.end(payload);
  const [response] = (await once(request, 'response')) as [http.IncomingMessage];
  let bytes = 0;
  for await (const chunk of response) bytes += (chunk as Buffer).length;
  const seconds = (performance.now() - started) / 1000;
  const serverCpuSeconds = readCpuSeconds(pid) - cpuBefore;
  const { peakRssMb, hwmMb } = memory.stop();
  const backendCpuSeconds = (await backends?.stop()) ?? NaN;
  return {
    seconds,
    bytes,
    peakRssMb: Math.max(peakRssMb, hwmMb),
    status: response.statusCode ?? 0,
    rssBeforeMb,
    serverCpuSeconds,
    backendCpuSeconds,
  };
}

/**
 * CPU seconds the database's backends (other than the sampler's own) use from now until stop():
 * every backend's utime+stime from /proc, polled every 20 ms, so that a backend that ends (the
 * export's cursor connection) is counted up to its last sample. PostgreSQL on this machine only.
 */
async function sampleBackendCpu(url: string): Promise<{ stop(): Promise<number> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const take = async (): Promise<void> => {
    const found = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    for (const { pid } of found.rows) {
      const cpu = readCpuSeconds(pid);
      if (Number.isNaN(cpu)) continue;
      if (!first.has(pid)) first.set(pid, cpu);
      last.set(pid, cpu);
    }
  };
  await take();
  // A backend seen for the first time after the start began during the export: from zero.
  const known = new Set(first.keys());
  let isRunning = true;
  const loop = (async () => {
    while (isRunning) {
      await take();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      isRunning = false;
      await loop;
      await client.end();
      let total = 0;
      for (const [pid, cpu] of last) total += cpu - (known.has(pid) ? (first.get(pid) ?? 0) : 0);
      return total;
    },
  };
}

/** Until the table has its primary key and `secondary` more indexes, all valid (built). */
async function waitForValidIndexes(client: pg.Client, secondary: number): Promise<void> {
  for (;;) {
    const found = await client.query<{ valid: number }>(
      `select count(*)::int as valid from pg_index x join pg_class c on c.oid = x.indrelid
       where c.relname = $1 and x.indisvalid`,
      [TABLE],
    );
    if ((found.rows[0]?.valid ?? 0) >= secondary + 1) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Whether a kept database already holds the seeded users (the last one is there). */
async function isSeeded(url: string, rows: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const found = await client.query(
      `select 1 from pg_class where relname = $1 and exists (select 1 from ${TABLE} where username = $2)`,
      [TABLE, `${SCALE_USER_PREFIX}${String(rows).padStart(8, '0')}`],
    );
    return found.rows.length === 1;
  } catch {
    return false;
  } finally {
    await client.end();
  }
}

/** A kept database: until no index of the table is being built (none invalid, no build running). */
async function waitForNoIndexBuild(client: pg.Client): Promise<void> {
  // The server starts its build just after it answers; give it a moment to take its lock.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  for (;;) {
    const found = await client.query<{ busy: number }>(
      `select (select count(*) from pg_index x join pg_class c on c.oid = x.indrelid
                where c.relname = $1 and not x.indisvalid)
            + (select count(*) from pg_stat_progress_create_index p join pg_class c on c.oid = p.relid
                where c.relname = $1) as busy`,
      [TABLE],
    );
    if (Number(found.rows[0]?.busy ?? 0) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function measure(
  kind: DbKind,
  log: (line: string) => void,
): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const rows = envNumber('BENCH_SCALE_ROWS', 1_000_000);
  const seconds = envNumber('BENCH_DURATION', 8);
  const warmup = envNumber('BENCH_WARMUP', 2);
  const connections = envNumber('BENCH_CONNECTIONS', 10);
  const root = process.env.BENCH_SCALE_ROOT ?? ROOT;
  const label = `${kind} ${(rows / 1e6).toLocaleString('en-US')}M`;
  const dir = tempDir(`scale-${kind}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ADMIN_PASSWORD,
    DATA_DIR: join(dir.path, 'data'),
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
  };
  delete env.DATABASE_URL;
  let dropDatabase: (() => Promise<void>) | undefined;
  // BENCH_SCALE_DATABASE=<name>: a PostgreSQL database kept after the run; seeded only when new,
  // so a later run (other code with BENCH_SCALE_ROOT, or a change) measures the requests alone.
  const keptName = process.env.BENCH_SCALE_DATABASE;
  let reuse = false;
  if (kind === 'postgres' && keptName) {
    const database = await keptDatabase(keptName);
    env.DATABASE_URL = database.url;
    reuse = !database.created && (await isSeeded(database.url, rows));
    if (!database.created && !reuse) throw new Error(`${keptName} exists but does not hold ${rows} users`);
    log(`  ${label}: database ${keptName} kept${reuse ? ', already seeded' : ', seeding it'}`);
  } else if (kind === 'postgres') {
    const database = await createDatabase('scale');
    env.DATABASE_URL = database.url;
    dropDatabase = database.drop;
  }
  try {
    let port: number;
    let server: Child;
    const seedStarted = Date.now();
    let dropped = 0;
    if (!reuse) {
      // First start: tables, dictionaries and the admin user.
      port = await freePort();
      server = startServer(root, env, port);
      await waitForHttp(port, server, 120_000);
      await server.stop();

      const database = await openDatabase(kind, env.DATABASE_URL, env.DATA_DIR ?? '');
      try {
        dropped = await dropSecondaryIndexes(database.execute, TABLE);
        log(`  ${label}: ${dropped} secondary indexes dropped for seeding`);
        await seedScaleUsers(database.execute, TABLE, rows, log);
        await database.execute(`vacuum analyze ${TABLE}`);
      } finally {
        await database.close();
      }
    }
    const seedMs = Date.now() - seedStarted;

    // Second start: the migration builds the indexes over the seeded rows.
    const startStarted = Date.now();
    port = await freePort();
    server = startServer(root, env, port, true);
    await waitForHttp(port, server, 3_600_000);
    const indexStartMs = Date.now() - startStarted;
    let indexesBuiltMs = indexStartMs;
    if (kind === 'postgres') {
      // PostgreSQL builds the list indexes of a table with rows after the server is ready.
      const client = new pg.Client({ connectionString: env.DATABASE_URL });
      await client.connect();
      if (reuse) await waitForNoIndexBuild(client);
      else await waitForValidIndexes(client, dropped);
      indexesBuiltMs = Date.now() - startStarted;
      if (!reuse) await client.query(`vacuum analyze ${TABLE}`);
      await client.end();
    }
    log(
      `  ${label}: seeded in ${(seedMs / 1000).toFixed(0)} s; answering ${(indexStartMs / 1000).toFixed(1)} s after start, indexes built after ${(indexesBuiltMs / 1000).toFixed(1)} s`,
    );
    try {
      const baseUrl = `http://127.0.0.1:${port}`;
      const token = await signIn(baseUrl);
      const results: Measured[] = [];
      const scenarios = [...SCENARIOS];
      // The page after page 1,000 from its cursor, as the back-office asks for "next".
      const deep = await getJson(`${baseUrl}${SCENARIOS[4]?.path ?? ''}`, token);
      if (deep.body.data?.cursor) {
        scenarios.splice(5, 0, {
          name: 'page 1,001 after page 1,000 (cursor)',
          path: `${LIST}?currentPage=1001&pageSize=20&sort=-createdAt&after=${deep.body.data.cursor}`,
          isList: true,
        });
      }
      for (const scenario of scenarios) {
        if (!isSelected(scenario.name)) continue;
        let path = scenario.path;
        let check = await getJson(`${baseUrl}${path}`, token);
        if (check.status === 400 && path.includes('totalExact')) {
          // Code that predates the estimate counts every request exactly.
          path = path.replace('&totalExact=true', '');
          check = await getJson(`${baseUrl}${path}`, token);
        }
        if (check.status !== 200 || !check.body.data)
          throw new Error(`${path} answered ${check.status}: ${JSON.stringify(check.body).slice(0, 300)}`);
        await fire(`${baseUrl}${path}`, token, warmup, connections);
        const result = await fire(`${baseUrl}${path}`, token, seconds, connections);
        const measured: Measured = {
          scenario: scenario.name,
          path,
          rps: result.requests.total / result.duration,
          // No answer within the run is no latency figure at all, not a latency of 0 ms.
          p50Ms: result.requests.total === 0 ? Infinity : result.latency.p50,
          p99Ms: result.requests.total === 0 ? Infinity : result.latency.p99,
          requests: result.requests.total,
          total: check.body.data.total,
          records: check.body.data.records.length,
          ...(check.body.data.totalExact === undefined ? {} : { totalExact: check.body.data.totalExact }),
        };
        results.push(measured);
        log(
          `  ${label} ${scenario.name.padEnd(38)} ${round(measured.rps, 1).toFixed(1).padStart(7)} req/s  p50 ${measured.p50Ms} ms  p99 ${measured.p99Ms} ms  (total ${measured.total}${measured.totalExact === false ? ' ≈' : ''}, ${measured.records} records)`,
        );
      }

      // BENCH_SCALE_EXPORT_RUNS exports one after the other (1); the median rate is reported.
      const exportRuns = isSelected('export') ? envNumber('BENCH_SCALE_EXPORT_RUNS', 1) : 0;
      // BENCH_SCALE_EXPORT_FILTER (JSON, {"userType":"2"}): the filters of the exported rows.
      const exportFilter = JSON.parse(process.env.BENCH_SCALE_EXPORT_FILTER ?? '{"userType":"2"}') as Record<
        string,
        string
      >;
      const filterQuery = new URLSearchParams({ pageSize: '1', ...exportFilter }).toString();
      let exportedRows = NaN;
      if (exportRuns > 0) {
        const counted = await getJson(`${baseUrl}${LIST}?${filterQuery}&totalExact=true`, token);
        const exactCounted =
          counted.status === 200
            ? counted.body
            : (await getJson(`${baseUrl}${LIST}?${filterQuery}`, token)).body;
        exportedRows = exactCounted.data?.total ?? NaN;
      }
      const exports: Awaited<ReturnType<typeof exportRows>>[] = [];
      for (let run = 0; run < exportRuns; run += 1) {
        const exported = await exportRows(
          baseUrl,
          token,
          exportFilter,
          server.pid,
          kind === 'postgres' ? env.DATABASE_URL : undefined,
        );
        if (exported.status !== 200) throw new Error(`export answered ${exported.status}`);
        exports.push(exported);
        const perRow = (cpuSeconds: number): string => `${((cpuSeconds * 1e6) / exportedRows).toFixed(1)} µs`;
        log(
          `  ${label} export of ${exportedRows} rows: ${round(exportedRows / exported.seconds)} rows/s (${exported.seconds.toFixed(1)} s, ${(exported.bytes / 1048576).toFixed(0)} MiB), RSS ${exported.rssBeforeMb.toFixed(0)} → peak ${exported.peakRssMb.toFixed(0)} MB; CPU a row: server ${perRow(exported.serverCpuSeconds)}, database ${perRow(exported.backendCpuSeconds)}`,
        );
      }
      const exported = [...exports].sort((a, b) => a.seconds - b.seconds)[Math.floor(exports.length / 2)];
      const exportRate = exported ? exportedRows / exported.seconds : NaN;

      const figures: Figure[] = [];
      for (const item of results) {
        const scenario = scenarios.find((candidate) => candidate.name === item.scenario);
        const isList = scenario?.isList === true;
        figures.push(
          figure(
            SUITE,
            `${label}: ${item.scenario} p50`,
            item.p50Ms,
            'ms',
            isList ? { op: '<', value: GOAL_P50_MS[kind] } : undefined,
            `p99 ${item.p99Ms} ms`,
          ),
          figure(
            SUITE,
            `${label}: ${item.scenario} rps`,
            item.rps,
            'req/s',
            isList && kind === 'postgres' ? { op: '>=', value: GOAL_RPS } : undefined,
          ),
        );
      }
      if (exported)
        figures.push(
          figure(
            SUITE,
            `${label}: export rows/s`,
            exportRate,
            'rows/s',
            kind === 'postgres' ? { op: '>=', value: GOAL_EXPORT_ROWS_PER_SECOND } : undefined,
            `${exportedRows} rows, peak RSS ${exported.peakRssMb.toFixed(0)} MB (before ${exported.rssBeforeMb.toFixed(0)} MB)`,
          ),
          figure(
            SUITE,
            `${label}: export server CPU a row`,
            (median(exports.map((run) => run.serverCpuSeconds)) * 1e6) / exportedRows,
            'µs',
            undefined,
            'utime+stime of the server process (every thread) over the export, median of the runs',
          ),
        );
      if (exported && kind === 'postgres')
        figures.push(
          figure(
            SUITE,
            `${label}: export database CPU a row`,
            (median(exports.map((run) => run.backendCpuSeconds)) * 1e6) / exportedRows,
            'µs',
            undefined,
            "utime+stime of the database's backends over the export, median of the runs",
          ),
        );
      // A kept database that was seeded before has its indexes: its start measures nothing of them.
      if (!reuse)
        figures.push(
          figure(SUITE, `${label}: start over unindexed rows, until it answers`, indexStartMs / 1000, 's'),
          figure(
            SUITE,
            `${label}: start over unindexed rows, until the indexes are built`,
            indexesBuiltMs / 1000,
            's',
          ),
        );
      return {
        figures,
        details: {
          rows,
          root,
          seconds,
          warmup,
          connections,
          seedMs,
          indexStartMs,
          results,
          export: { runs: exports, rows: exportedRows },
        },
      };
    } finally {
      await server.stop();
    }
  } finally {
    await dropDatabase?.();
    await dir.remove();
  }
}

export async function runScale(kinds: DbKind[], log: (line: string) => void): Promise<SuiteResult> {
  return perDatabase(SUITE, kinds, (kind) => measure(kind, log));
}
