/**
 * import: POST /api/notification/purchase/import of 100 000 rows (a CSV and the same rows as an
 * .xlsx) against the real server (`node dist/server/main.js`) as a child process: rows per second
 * end to end (request sent to answer received: upload, parse, checks of every row, one
 * transaction of inserts and audit rows) and the peak RSS of the server process (VmRSS sampled
 * every 10 ms and the kernel's high-water mark VmHWM). The rows are counted in the table after.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import pg from 'pg';
import { figure, perDatabase, type Figure, type SuiteResult } from './lib/report.js';
import {
  ADMIN_PASSWORD,
  createDatabase,
  ensureServerBuilt,
  envNumber,
  freePort,
  PG_SERVER_URL,
  readCpuSeconds,
  readMemory,
  ROOT,
  round,
  sampleMemory,
  SERVER_ENTRY,
  signIn,
  spawnNode,
  tempDir,
  waitForHttp,
  type DbKind,
} from './lib/util.js';

const SUITE = 'import';
const GOAL_ROWS_PER_SECOND = 20_000;
const GOAL_PEAK_RSS_MB = 300;
/** Peak RSS over the idle server's (issue 31). */
const GOAL_RSS_GROWTH_MB = 150;
/** Import rows/s over the floor's (the same rows by bare multi-row INSERTs, issue 31). */
const GOAL_FLOOR_RATIO = 0.7;
const BASE = '/api/notification/purchase';
/** At most this long waiting for an earlier import's events and autovacuum before the next (settle). */
const SETTLE_MS = 180_000;

interface ImportRun {
  seconds: number;
  status: number;
  body: string;
  peakRssMb: number;
  hwmMb: number;
  rssBeforeMb: number;
  /** CPU seconds of the server process during the import (PGlite: the database's too). */
  serverCpuSeconds: number;
  /** CPU seconds of the PostgreSQL backends of the bench database during the import (0 on PGlite). */
  databaseCpuSeconds: number;
}

/** Resets a process's VmHWM to its current RSS; false when the kernel refuses. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** The PostgreSQL backends serving one database (the server's pool), by pid. */
async function backendPids(databaseUrl: string | undefined): Promise<number[]> {
  if (!databaseUrl) return [];
  const name = new URL(databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: PG_SERVER_URL });
  await client.connect();
  try {
    const rows = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
    return rows.rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/**
 * Waits (PostgreSQL, at most SETTLE_MS) until the earlier import's aftermath is over: its outbox
 * rows dispatched (the server marks them 200 at a time) and no autovacuum worker in the database
 * (100,000 inserted rows start one). Both run in the database's backends, whose CPU the next
 * import's figure counts. `withEvents: false` once the server has stopped: nobody dispatches then,
 * so only autovacuum is waited for.
 */
async function settle(
  databaseUrl: string | undefined,
  log: (line: string) => void,
  { withEvents = true }: { withEvents?: boolean } = {},
): Promise<void> {
  if (!databaseUrl) return;
  const name = new URL(databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = performance.now();
  try {
    for (;;) {
      const { rows } = await client.query<{ pending: number; vacuums: number }>(
        `select (case when $2 then (select count(*)::int from sys_event where dispatched_at is null) else 0 end) as pending,
                (select count(*)::int from pg_stat_activity
                  where datname = $1 and backend_type = 'autovacuum worker') as vacuums`,
        [name, withEvents],
      );
      const { pending = 0, vacuums = 0 } = rows[0] ?? {};
      if (pending === 0 && vacuums === 0) return;
      if (performance.now() - started > SETTLE_MS) {
        log(
          `  (not settled after ${SETTLE_MS / 1000} s: ${pending} events pending, ${vacuums} autovacuum workers)`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await client.end();
  }
}

/** CPU seconds the given backends have used so far (a backend that is gone counts 0). */
async function backendCpu(databaseUrl: string | undefined): Promise<Map<number, number>> {
  const pids = await backendPids(databaseUrl);
  return new Map(pids.map((pid) => [pid, readCpuSeconds(pid) || 0]));
}

function rowsOf(count: number, tag: string): string[][] {
  const rows: string[][] = [['title', 'projectCode', 'buyerName', 'category', 'budget', 'published']];
  for (let index = 0; index < count; index += 1)
    rows.push([
      `Bench import ${tag} ${index}`,
      `BI-${tag}-${index}`,
      `Buyer ${index % 500}`,
      `Category ${index % 20}`,
      String((index % 1000) * 1000),
      index % 2 === 0 ? 'true' : 'false',
    ]);
  return rows;
}

const csvOf = (rows: string[][]): Buffer => Buffer.from(rows.map((row) => row.join(',')).join('\n'));

async function xlsxOf(rows: string[][]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('data');
  rows.forEach((row, index) =>
    sheet.addRow(row.map((cell, column) => (index > 0 && column === 4 ? Number(cell) : cell))),
  );
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

async function upload(
  baseUrl: string,
  token: string,
  name: string,
  file: Buffer,
  pid: number,
  databaseUrl: string | undefined,
): Promise<ImportRun> {
  const backendsBefore = await backendCpu(databaseUrl);
  const serverCpuBefore = readCpuSeconds(pid);
  const answer = await send(baseUrl, token, name, file, pid);
  const serverCpuSeconds = readCpuSeconds(pid) - serverCpuBefore;
  let databaseCpuSeconds = 0;
  // A backend that started during the import counts whole (the pool opens them as needed).
  for (const [backend, seconds] of await backendCpu(databaseUrl))
    databaseCpuSeconds += Math.max(seconds - (backendsBefore.get(backend) ?? 0), 0);
  return { ...answer, serverCpuSeconds, databaseCpuSeconds };
}

function send(
  baseUrl: string,
  token: string,
  name: string,
  file: Buffer,
  pid: number,
): Promise<Omit<ImportRun, 'serverCpuSeconds' | 'databaseCpuSeconds'>> {
  const boundary = `----bench${Date.now().toString(16)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(`${baseUrl}${BASE}/import`);
  // VmHWM is the process's peak since it started: the cold start (seeding a fresh database, on
  // PGlite over 700 MB) would stand as the import's peak. Reset it (Linux clear_refs, 5), so that
  // it is the import's own; where that is refused, only the 10 ms samples count.
  const isHwmReset = resetPeak(pid);
  const rssBeforeMb = readMemory(pid)?.rssMb ?? NaN;
  const memory = sampleMemory(pid);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + file.length + tail.length,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const seconds = (performance.now() - started) / 1000;
          const stopped = memory.stop();
          const { peakRssMb } = stopped;
          const hwmMb = isHwmReset ? stopped.hwmMb : NaN;
          resolve({
            seconds,
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            peakRssMb,
            hwmMb,
            rssBeforeMb,
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', (error) => {
      memory.stop();
      reject(error);
    });
    request.write(head);
    request.write(file);
    request.end(tail);
  });
}

/** Rows of the purchase table whose title starts with the run's tag (read by the bench, not the API). */
async function countRows(
  kind: DbKind,
  env: NodeJS.ProcessEnv,
  baseUrl: string,
  token: string,
  tag: string,
): Promise<number | undefined> {
  if (kind === 'postgres' && env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    const result = await client.query<{ n: number }>(
      'select count(*)::int as n from portal_purchase where title like $1',
      [`Bench import ${tag} %`],
    );
    await client.end();
    return result.rows[0]?.n ?? 0;
  }
  // PGlite belongs to the server process: ask the API for an exact total.
  const response = await fetch(
    `${baseUrl}${BASE}/query?pageSize=1&totalExact=true&title=${encodeURIComponent(`Bench import ${tag} `)}`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  const answer = (await response.json()) as { data: { total: number; totalExact?: boolean } };
  // On a loaded machine PGlite's exact count can run out of its time and answer the planner's
  // estimate: that is no count of the rows.
  if (answer.data.totalExact === false) return undefined;
  return Number(answer.data.total);
}

interface TreeRun {
  format: 'csv' | 'xlsx';
  rowsPerSecond: number;
  peakMb: number;
  run: ImportRun;
  bytes: number;
  stored: number;
  /** The floor measured on this import's database after it. */
  floor: FloorRun;
}

interface FloorRun {
  seconds: number;
  rowsPerSecond: number;
  /** CPU seconds of the floor's process (on PGlite the database's work is in it). */
  cpuSeconds: number;
  /** CPU seconds of the floor transaction's PostgreSQL backend (0 on PGlite). */
  databaseCpuSeconds: number;
}

/**
 * The floor (bench/import-floor.ts): the same rows into the same table and indexes by bare
 * multi-row INSERTs through the app's driver, in one transaction, once the server has stopped
 * (PGlite's files belong to one process at a time).
 */
async function measureFloor(env: NodeJS.ProcessEnv, sampleTag: string, count: number): Promise<FloorRun> {
  const tag = `floor${Date.now().toString(36)}`;
  const child = spawnNode(join(ROOT, 'bench/import-floor.ts'), {
    env,
    args: [sampleTag, tag, String(count)],
  });
  const code = await child.exited;
  const line = child
    .output()
    .split('\n')
    .find((text) => text.startsWith('{"seconds"'));
  if (code !== 0 || !line) throw new Error(`the import floor failed (${code}):\n${child.output()}`);
  const { seconds, cpuSeconds, databaseCpuSeconds } = JSON.parse(line) as {
    seconds: number;
    cpuSeconds: number;
    databaseCpuSeconds?: number;
  };
  return { seconds, rowsPerSecond: count / seconds, cpuSeconds, databaseCpuSeconds: databaseCpuSeconds ?? 0 };
}

/** Builds another checkout's server bundle (esbuild, seconds) for the "before" figures. */
function ensureBuiltAt(root: string): void {
  const result = spawnSync(process.execPath, ['scripts/build-server.mjs'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`building the server in ${root} failed`);
}

/**
 * Imports one format into a fresh database through the server of one tree (started once to seed
 * it, then again for the import), then measures the floor on that database once the server has
 * stopped, into the same table emptied. Each format has a database of its own: an import into the
 * buffers another import left dirty pays for writing them (on PGlite, where no background writer
 * runs, 1.8 s more of every 100,000 rows), which the floor, started on a closed database, would not.
 */
async function measureFormat(
  kind: DbKind,
  root: string,
  format: 'csv' | 'xlsx',
  count: number,
  log: (line: string) => void,
  label: string,
): Promise<TreeRun> {
  const dir = tempDir(`import-${kind}`);
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
    const database = await createDatabase('import');
    env.DATABASE_URL = database.url;
    dropDatabase = database.drop;
  }
  try {
    const port = await freePort();
    if (root === ROOT) ensureServerBuilt();
    else ensureBuiltAt(root);
    // A cold start seeds the fresh database (minutes on a loaded machine); the import runs on a
    // second, warm start, whose database buffers hold none of the seeding's unwritten pages.
    const seeding = spawnNode(join(root, SERVER_ENTRY), { env: { ...env, PORT: String(port) }, cwd: root });
    try {
      await waitForHttp(port, seeding, 300_000);
    } finally {
      await seeding.stop();
    }
    // BENCH_IMPORT_CPU_PROF=<dir>: a V8 CPU profile of each server, written when it stops.
    const profileDir = process.env.BENCH_IMPORT_CPU_PROF;
    const server = spawnNode(join(root, SERVER_ENTRY), {
      env: { ...env, PORT: String(port) },
      cwd: root,
      ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
    });
    const tag = `${format}${Date.now().toString(36)}`;
    let measured: Omit<TreeRun, 'floor'>;
    try {
      await waitForHttp(port, server, 300_000);
      const baseUrl = `http://127.0.0.1:${port}`;
      const token = await signIn(baseUrl);
      const rows = rowsOf(count, tag);
      const file = format === 'csv' ? csvOf(rows) : await xlsxOf(rows);
      await settle(env.DATABASE_URL, log);
      const run = await upload(baseUrl, token, `bench.${format}`, file, server.pid, env.DATABASE_URL);
      if (run.status !== 200) throw new Error(`import answered ${run.status}: ${run.body.slice(0, 500)}`);
      const counted = await countRows(kind, env, baseUrl, token, tag);
      // Uncounted (the count timed out): the import's own answer, which is one transaction's.
      const stored =
        counted ?? Number((JSON.parse(run.body) as { data?: { imported?: number } }).data?.imported ?? 0);
      if (stored !== count) throw new Error(`${kind} ${format}: ${stored} rows stored, expected ${count}`);
      const rowsPerSecond = count / run.seconds;
      const peakMb = Number.isNaN(run.hwmMb) ? run.peakRssMb : Math.max(run.peakRssMb, run.hwmMb);
      const per100k = 100_000 / count;
      log(
        `  ${kind} ${format}${label}: ${round(rowsPerSecond)} rows/s (${run.seconds.toFixed(1)} s, ${(file.length / 1048576).toFixed(1)} MiB), ` +
          `RSS ${run.rssBeforeMb.toFixed(0)} → peak ${run.peakRssMb.toFixed(0)} MB, VmHWM ${run.hwmMb.toFixed(0)} MB; ` +
          `CPU per 100k rows: server ${(run.serverCpuSeconds * per100k).toFixed(1)} s` +
          (kind === 'postgres'
            ? `, PostgreSQL backends ${(run.databaseCpuSeconds * per100k).toFixed(1)} s`
            : '') +
          `; ${stored} rows ${counted === undefined ? 'imported (the count timed out)' : 'counted'}; load ${loadavg()[0]?.toFixed(1) ?? '?'}`,
      );
      measured = { format, rowsPerSecond, peakMb, run, bytes: file.length, stored };
    } finally {
      await server.stop();
    }
    // The floor of this tree's table (the before tree's indexes may be others), once the import's
    // autovacuum is done (the stopped server dispatches no events); it empties the table first,
    // as the import found it.
    await settle(env.DATABASE_URL, log, { withEvents: false });
    const floor = await measureFloor(env, tag, count);
    log(
      `  ${kind} ${format} floor${label} (bare multi-row INSERTs, one transaction, same table and indexes): ${round(floor.rowsPerSecond)} rows/s (${floor.seconds.toFixed(1)} s, CPU ${floor.cpuSeconds.toFixed(1)} s` +
        (kind === 'postgres' ? `, PostgreSQL backend ${floor.databaseCpuSeconds.toFixed(1)} s` : '') +
        `; load ${loadavg()[0]?.toFixed(1) ?? '?'})`,
    );
    return { ...measured, floor };
  } finally {
    await dropDatabase?.();
    await dir.remove();
  }
}

/** Each format through the server of one tree, each into a fresh database. */
async function measureTree(
  kind: DbKind,
  root: string,
  formats: readonly ('csv' | 'xlsx')[],
  count: number,
  log: (line: string) => void,
  label: string,
): Promise<TreeRun[]> {
  const runs: TreeRun[] = [];
  for (const format of formats) runs.push(await measureFormat(kind, root, format, count, log, label));
  return runs;
}

/** BENCH_IMPORT_FORMATS: which files to import (csv,xlsx by default). */
function formatsWanted(): ('csv' | 'xlsx')[] {
  const wanted = (process.env.BENCH_IMPORT_FORMATS ?? 'csv,xlsx').split(',').map((item) => item.trim());
  const formats = (['csv', 'xlsx'] as const).filter((format) => wanted.includes(format));
  if (formats.length === 0) throw new Error('BENCH_IMPORT_FORMATS names neither csv nor xlsx');
  return formats;
}

async function measure(
  kind: DbKind,
  log: (line: string) => void,
): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const count = envNumber('BENCH_IMPORT_ROWS', 100_000);
  const formats = formatsWanted();
  const beforeRoot = process.env.BENCH_IMPORT_ROOT;
  // The other tree first, then this one: the same machine load for both as far as may be.
  const earlierTree = beforeRoot
    ? await measureTree(kind, beforeRoot, formats, count, log, ' (before)')
    : undefined;
  const before = earlierTree ?? [];
  const after = await measureTree(kind, ROOT, formats, count, log, '');
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {
    rows: count,
    ...(beforeRoot ? { beforeRoot } : {}),
  };
  for (const { format, rowsPerSecond, peakMb, run, bytes, stored, floor } of after) {
    const earlier = before.find((item) => item.format === format);
    figures.push(
      figure(
        SUITE,
        `${kind} ${format} floor: bare multi-row INSERT rows/s`,
        floor.rowsPerSecond,
        'rows/s',
        undefined,
        'the same rows, table and indexes, one transaction, no checks or audit rows',
      ),
      ...(earlier
        ? [
            figure(
              SUITE,
              `${kind} ${format} floor before: bare multi-row INSERT rows/s`,
              earlier.floor.rowsPerSecond,
              'rows/s',
              undefined,
              "the before tree's table and indexes",
            ),
          ]
        : []),
    );
    figures.push(
      figure(
        SUITE,
        `${kind} ${format}: rows/s end to end`,
        rowsPerSecond,
        'rows/s',
        // The absolute goal is PostgreSQL's (issue 31); on PGlite the floor ratio is the goal.
        kind === 'postgres' ? { op: '>=', value: GOAL_ROWS_PER_SECOND } : undefined,
        `${stored} rows counted in the table`,
      ),
      figure(
        SUITE,
        `${kind} ${format}: peak RSS of the server`,
        peakMb,
        'MB',
        { op: '<', value: GOAL_PEAK_RSS_MB },
        `VmHWM; RSS ${run.rssBeforeMb.toFixed(0)} MB before`,
      ),
    );
    figures.push(
      figure(
        SUITE,
        `${kind} ${format}: peak RSS growth over the idle server`,
        peakMb - run.rssBeforeMb,
        'MB',
        { op: '<', value: GOAL_RSS_GROWTH_MB },
        `${run.rssBeforeMb.toFixed(0)} MB idle`,
      ),
    );
    figures.push(
      figure(
        SUITE,
        `${kind} ${format}: import / floor rows/s`,
        rowsPerSecond / floor.rowsPerSecond,
        'ratio',
        { op: '>=', value: GOAL_FLOOR_RATIO },
        `floor ${round(floor.rowsPerSecond)} rows/s`,
      ),
    );
    // On PGlite the database runs in the server process: floor CPU over the import's is the same
    // ratio by CPU, steadier than wall time on a shared machine.
    if (kind === 'pglite')
      figures.push(
        figure(
          SUITE,
          `${kind} ${format}: floor CPU / import CPU`,
          floor.cpuSeconds / run.serverCpuSeconds,
          'ratio',
          undefined,
          `floor ${floor.cpuSeconds.toFixed(1)} s, import ${run.serverCpuSeconds.toFixed(1)} s`,
        ),
      );
    // On PostgreSQL the same ratio by the backends' CPU: the database's work for the import's rows
    // over the floor's, steadier than wall time on a shared machine.
    if (kind === 'postgres' && floor.databaseCpuSeconds > 0)
      figures.push(
        figure(
          SUITE,
          `${kind} ${format}: floor backend CPU / import backend CPU`,
          floor.databaseCpuSeconds / run.databaseCpuSeconds,
          'ratio',
          undefined,
          `floor ${floor.databaseCpuSeconds.toFixed(1)} s, import ${run.databaseCpuSeconds.toFixed(1)} s`,
        ),
      );
    const per100k = 100_000 / count;
    figures.push(
      figure(
        SUITE,
        `${kind} ${format}: server CPU per 100k rows`,
        run.serverCpuSeconds * per100k,
        's',
        undefined,
        kind === 'pglite' ? 'the server process, PGlite included' : 'the server process',
      ),
    );
    if (kind === 'postgres')
      figures.push(
        figure(
          SUITE,
          `${kind} ${format}: PostgreSQL backend CPU per 100k rows`,
          run.databaseCpuSeconds * per100k,
          's',
          undefined,
          "the bench database's backends",
        ),
      );
    if (earlier) {
      figures.push(
        figure(
          SUITE,
          `${kind} ${format}: server CPU, this tree / before`,
          run.serverCpuSeconds / earlier.run.serverCpuSeconds,
          'ratio',
          undefined,
          `before ${(earlier.run.serverCpuSeconds * per100k).toFixed(1)} s per 100k rows`,
        ),
      );
      if (kind === 'postgres')
        figures.push(
          figure(
            SUITE,
            `${kind} ${format}: PostgreSQL backend CPU, this tree / before`,
            run.databaseCpuSeconds / earlier.run.databaseCpuSeconds,
            'ratio',
            undefined,
            `before ${(earlier.run.databaseCpuSeconds * per100k).toFixed(1)} s per 100k rows`,
          ),
        );
      figures.push(
        figure(
          SUITE,
          `${kind} ${format}: rows/s before`,
          earlier.rowsPerSecond,
          'rows/s',
          undefined,
          beforeRoot,
        ),
        figure(
          SUITE,
          `${kind} ${format}: import / floor rows/s before`,
          earlier.rowsPerSecond / earlier.floor.rowsPerSecond,
          'ratio',
          undefined,
          `floor before ${round(earlier.floor.rowsPerSecond)} rows/s`,
        ),
        figure(
          SUITE,
          `${kind} ${format}: speed over before`,
          rowsPerSecond / earlier.rowsPerSecond,
          'ratio',
          undefined,
          `peak RSS before ${earlier.peakMb.toFixed(0)} MB`,
        ),
      );
    }
    details[format] = {
      seconds: run.seconds,
      bytes,
      peakRssMb: run.peakRssMb,
      hwmMb: run.hwmMb,
      serverCpuSeconds: run.serverCpuSeconds,
      databaseCpuSeconds: run.databaseCpuSeconds,
      floor,
      ...(earlier
        ? {
            before: {
              seconds: earlier.run.seconds,
              peakRssMb: earlier.run.peakRssMb,
              hwmMb: earlier.run.hwmMb,
              serverCpuSeconds: earlier.run.serverCpuSeconds,
              databaseCpuSeconds: earlier.run.databaseCpuSeconds,
              floor: earlier.floor,
            },
          }
        : {}),
    };
  }
  return { figures, details };
}

export async function runImport(kinds: DbKind[], log: (line: string) => void): Promise<SuiteResult> {
  return perDatabase(SUITE, kinds, (kind) => measure(kind, log));
}
