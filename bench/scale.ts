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
import { figure, type Figure, type SuiteResult } from './lib/report.js';
import { dropSecondaryIndexes, seedScaleUsers, type Execute } from './lib/scale-seed.js';
import {
  ADMIN_PASSWORD,
  createDatabase,
  envNumber,
  freePort,
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

function startServer(root: string, env: NodeJS.ProcessEnv, port: number): Child {
  return spawnNode(join(root, 'src/server/main.ts'), { env: { ...env, PORT: String(port) }, cwd: root });
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
): Promise<{ seconds: number; bytes: number; peakRssMb: number; status: number; rssBeforeMb: number }> {
  const payload = JSON.stringify(body);
  const url = new URL(`${baseUrl}/api/admin/sysuser/export`);
  const rssBeforeMb = readMemory(pid)?.rssMb ?? NaN;
  const memory = sampleMemory(pid);
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
  const { peakRssMb, hwmMb } = memory.stop();
  return {
    seconds,
    bytes,
    peakRssMb: Math.max(peakRssMb, hwmMb),
    status: response.statusCode ?? 0,
    rssBeforeMb,
  };
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
  if (kind === 'postgres') {
    const database = await createDatabase('scale');
    env.DATABASE_URL = database.url;
    dropDatabase = database.drop;
  }
  try {
    // First start: tables, dictionaries and the admin user.
    let port = await freePort();
    let server = startServer(root, env, port);
    await waitForHttp(port, server, 120_000);
    await server.stop();

    const seedStarted = Date.now();
    const database = await openDatabase(kind, env.DATABASE_URL, env.DATA_DIR ?? '');
    try {
      const dropped = await dropSecondaryIndexes(database.execute, TABLE);
      log(`  ${label}: ${dropped} secondary indexes dropped for seeding`);
      await seedScaleUsers(database.execute, TABLE, rows, log);
      await database.execute(`vacuum analyze ${TABLE}`);
    } finally {
      await database.close();
    }
    const seedMs = Date.now() - seedStarted;

    // Second start: the migration builds the indexes over the seeded rows.
    const startStarted = Date.now();
    port = await freePort();
    server = startServer(root, env, port);
    await waitForHttp(port, server, 3_600_000);
    const indexStartMs = Date.now() - startStarted;
    log(
      `  ${label}: seeded in ${(seedMs / 1000).toFixed(0)} s; start with index builds ${(indexStartMs / 1000).toFixed(1)} s`,
    );
    if (kind === 'postgres') {
      const client = new pg.Client({ connectionString: env.DATABASE_URL });
      await client.connect();
      await client.query(`vacuum analyze ${TABLE}`);
      await client.end();
    }
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

      const exportFilter = { userType: '2' };
      const counted = await getJson(`${baseUrl}${LIST}?pageSize=1&userType=2&totalExact=true`, token);
      const exactCounted =
        counted.status === 200
          ? counted.body
          : (await getJson(`${baseUrl}${LIST}?pageSize=1&userType=2`, token)).body;
      const exportedRows = exactCounted.data?.total ?? NaN;
      const exported = await exportRows(baseUrl, token, exportFilter, server.pid);
      if (exported.status !== 200) throw new Error(`export answered ${exported.status}`);
      const exportRate = exportedRows / exported.seconds;
      log(
        `  ${label} export of ${exportedRows} rows: ${round(exportRate)} rows/s (${exported.seconds.toFixed(1)} s, ${(exported.bytes / 1048576).toFixed(0)} MiB), RSS ${exported.rssBeforeMb.toFixed(0)} → peak ${exported.peakRssMb.toFixed(0)} MB`,
      );

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
      figures.push(
        figure(
          SUITE,
          `${label}: export rows/s`,
          exportRate,
          'rows/s',
          { op: '>=', value: GOAL_EXPORT_ROWS_PER_SECOND },
          `${exportedRows} rows, peak RSS ${exported.peakRssMb.toFixed(0)} MB (before ${exported.rssBeforeMb.toFixed(0)} MB)`,
        ),
        figure(SUITE, `${label}: start with index builds`, indexStartMs / 1000, 's'),
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
          export: { ...exported, rows: exportedRows },
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
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  for (const kind of kinds) {
    const measured = await measure(kind, log);
    figures.push(...measured.figures);
    details[kind] = measured.details;
  }
  return { suite: SUITE, figures, details };
}
