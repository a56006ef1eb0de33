/**
 * export: POST /api/admin/sysuser/export of 100 000 seeded users against the real server
 * (`node dist/server/main.js` (what npm start runs) as a child process). Rows per second end to end
 * (request sent to last byte received) and the peak RSS of the server process (VmRSS sampled
 * every 10 ms and the kernel's high-water mark VmHWM). The file is unzipped and its rows counted.
 */
import { createWriteStream, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { figure, perDatabase, type Figure, type SuiteResult } from './lib/report.js';
import { BENCH_USER_PREFIX } from './lib/seed.js';
import { checkSheet } from './lib/xlsx.js';
import {
  ADMIN_PASSWORD,
  createDatabase,
  envNumber,
  freePort,
  median,
  readMemory,
  round,
  sampleMemory,
  signIn,
  spawnNode,
  SERVER_ENTRY,
  ensureServerBuilt,
  tempDir,
  waitForHttp,
  type DbKind,
} from './lib/util.js';

const SUITE = 'export';
const GOAL_ROWS_PER_SECOND = 60_000;
const GOAL_PEAK_RSS_MB = 250;

interface ExportRun {
  seconds: number;
  firstByteSeconds: number;
  bytes: number;
  status: number;
  file: string;
  peakRssMb: number;
  hwmMb: number;
  rssBeforeMb: number;
}

function download(
  baseUrl: string,
  token: string,
  body: unknown,
  file: string,
  pid: number,
): Promise<ExportRun> {
  const payload = JSON.stringify(body);
  const url = new URL(`${baseUrl}/api/admin/sysuser/export`);
  const rssBeforeMb = readMemory(pid)?.rssMb ?? NaN;
  const memory = sampleMemory(pid);
  const started = performance.now();
  return new Promise<ExportRun>((resolve, reject) => {
    const request = http.request(
      {
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
      },
      (response) => {
        const firstByteSeconds = (performance.now() - started) / 1000;
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        pipeline(response, createWriteStream(file))
          .then(() => {
            const seconds = (performance.now() - started) / 1000;
            const { peakRssMb, hwmMb } = memory.stop();
            resolve({
              seconds,
              firstByteSeconds,
              bytes,
              status: response.statusCode ?? 0,
              file,
              peakRssMb,
              hwmMb,
              rssBeforeMb,
            });
          })
          .catch((error: unknown) => {
            memory.stop();
            reject(error instanceof Error ? error : new Error(String(error)));
          });
      },
    );
    request.on('error', (error) => {
      memory.stop();
      reject(error);
    });
    request.end(payload);
  });
}

async function measure(
  kind: DbKind,
  log: (line: string) => void,
): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const rows = envNumber('BENCH_EXPORT_ROWS', 100_000);
  const runs = envNumber('BENCH_EXPORT_RUNS', 3);
  const dir = tempDir(`export-${kind}`);
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
    const database = await createDatabase('export');
    env.DATABASE_URL = database.url;
    dropDatabase = database.drop;
  }
  try {
    const seeding = spawnNode('bench/seed-child.ts', { env: { ...env, BENCH_USERS: String(rows) } });
    const seeded = await seeding.exited;
    if (seeded !== 0) throw new Error(`seeding ${kind} failed:\n${seeding.output()}`);
    log(`  ${kind}: ${seeding.output().trim()}`);

    const port = await freePort();
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the measured server (written when it stops).
    const nodeArgs = process.env.BENCH_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
    const server =
      (ensureServerBuilt(), spawnNode(SERVER_ENTRY, { env: { ...env, PORT: String(port) }, nodeArgs }));
    try {
      await waitForHttp(port, server);
      const baseUrl = `http://127.0.0.1:${port}`;
      const token = await signIn(baseUrl);
      const results: ExportRun[] = [];
      for (let run = 1; run <= runs; run += 1) {
        const file = join(dir.path, `export-${run}.xlsx`);
        const result = await download(baseUrl, token, { username: BENCH_USER_PREFIX }, file, server.pid);
        if (result.status !== 200)
          throw new Error(`export answered ${result.status}: ${readFileSync(file, 'utf8').slice(0, 500)}`);
        results.push(result);
        log(
          `  ${kind} run ${run}: ${round(rows / result.seconds)} rows/s (${result.seconds.toFixed(2)} s, first byte ${result.firstByteSeconds.toFixed(2)} s, ` +
            `${(result.bytes / 1048576).toFixed(1)} MiB), RSS ${result.rssBeforeMb.toFixed(0)} → peak ${result.peakRssMb.toFixed(0)} MB, VmHWM ${result.hwmMb.toFixed(0)} MB`,
        );
      }
      // Honesty check: the file really holds every row (header row + data rows), each with all columns.
      const last = results[results.length - 1];
      if (!last) throw new Error('no export run');
      const sheet = checkSheet(readFileSync(last.file));
      const dataRows = sheet.rows - 1;
      const isComplete =
        dataRows === rows && sheet.lastRowNumber === rows + 1 && statSync(last.file).size === last.bytes;
      log(
        `  ${kind}: file check: ${dataRows} data rows, last row r=${sheet.lastRowNumber} with ${sheet.cellsInLastRow} cells, sheet XML ${(sheet.sheetXmlBytes / 1048576).toFixed(1)} MiB`,
      );
      if (!isComplete)
        throw new Error(
          `export file of ${kind} has ${dataRows} data rows, expected ${rows}; last row: ${sheet.lastRowXml.slice(0, 400)}`,
        );

      const rowsPerSecond = median(results.map((result) => rows / result.seconds));
      const peakRss = Math.max(...results.map((result) => Math.max(result.peakRssMb, result.hwmMb)));
      const peakDuringExport = Math.max(...results.map((result) => result.peakRssMb));
      const rssBefore = results[0]?.rssBeforeMb ?? NaN;
      const figures = [
        figure(
          SUITE,
          `${kind}: rows/s end to end (median of ${runs})`,
          rowsPerSecond,
          'rows/s',
          { op: '>=', value: GOAL_ROWS_PER_SECOND },
          `${dataRows} rows verified in the file`,
        ),
        figure(
          SUITE,
          `${kind}: peak RSS of the server`,
          peakRss,
          'MB',
          { op: '<', value: GOAL_PEAK_RSS_MB },
          `VmHWM; RSS ${rssBefore.toFixed(0)} MB before the first export, ${peakDuringExport.toFixed(0)} MB sampled peak during exports`,
        ),
        figure(
          SUITE,
          `${kind}: time to first byte (median)`,
          median(results.map((result) => result.firstByteSeconds)) * 1000,
          'ms',
        ),
      ];
      return {
        figures,
        details: {
          rows,
          runs: results.map(({ file: _file, ...rest }) => rest),
          sheet: { ...sheet, lastRowXml: sheet.lastRowXml.slice(0, 400) },
          rowsPerSecond,
          peakRss,
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

export async function runExport(kinds: DbKind[], log: (line: string) => void): Promise<SuiteResult> {
  return perDatabase(SUITE, kinds, (kind) => measure(kind, log));
}
