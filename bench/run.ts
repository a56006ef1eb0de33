/**
 * EcoBid benchmarks: `npm run bench [-- <filter>…]`, i.e. `node --import tsx bench/run.ts [filter…]`.
 *
 *   query    app / bare-Fastify rps of GET /api/admin/sysuser/query (10 000 users), PGlite and PostgreSQL
 *   export   rows/s and peak server RSS of POST /api/admin/sysuser/export (100 000 users)
 *   start    cold and warm start of src/server/main.ts on PGlite
 *   ui       keystroke-to-paint on a 100-field generated form, scroll frame of a 10 000-row list (Chromium)
 *   scale    the user list at 1,000,000+ users (BENCH_SCALE_ROWS): latency, rps, export; only when named
 *   workflow instances/s of start + two user tasks through the API, 10 clients, PGlite and PostgreSQL
 *   files    upload/download MB/s of 50 files of 10 MB through the API beside a plain copy, server RSS growth
 *   import   rows/s and peak server RSS of POST /api/notification/purchase/import (100 000 rows, CSV and xlsx)
 *   adopt    the other application's insert time on its tables adopted / untouched (ruoyi-vue-pro), PostgreSQL
 *   events   a mutation's latency with 10 webhooks / without; 1,000 open live streams: server RSS a
 *            stream, one change told to all (PGlite and PostgreSQL)
 *   rowscope a purchase list under each row data scope against the same list unscoped, 1,000,000 rows
 *            (BENCH_ROWSCOPE_ROWS): scoped / unscoped median latency; only when named
 *
 * Filters pick suites by name (`query`, `export`, `start`) and databases (`pglite`, `postgres`).
 * Prints a table and writes every figure and raw measurement to bench/results/latest.json.
 * See bench/README.md for the knobs (BENCH_DURATION, BENCH_ROUNDS, …).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { runEvents } from './events.js';
import { runExport } from './export.js';
import { runFiles } from './files.js';
import { runImport } from './import.js';
import { formatTable, type SuiteResult } from './lib/report.js';
import { cleanupAll, isPostgresReachable, PG_SERVER_URL, ROOT, type DbKind } from './lib/util.js';
import { runQuery } from './query.js';
import { runScale } from './scale.js';
import { runStart } from './start.js';
import { runUi } from './ui.js';
import { runWorkflow } from './workflow.js';

const SUITES = [
  'query',
  'export',
  'start',
  'ui',
  'scale',
  'workflow',
  'files',
  'import',
  'rowscope',
  'adopt',
  'events',
] as const;
/** Seeding millions of rows takes minutes: the scale and rowscope suites run only when asked for. */
const DEFAULT_SUITES: readonly Suite[] = ['query', 'export', 'start', 'ui'];
type Suite = (typeof SUITES)[number];
const DB_ALIASES: Record<string, DbKind> = {
  pglite: 'pglite',
  postgres: 'postgres',
  postgresql: 'postgres',
  pg: 'postgres',
};

function parseArgs(args: string[]): { suites: Suite[]; kinds: DbKind[] } {
  const suites = new Set<Suite>();
  const kinds = new Set<DbKind>();
  for (const arg of args.map((item) => item.toLowerCase())) {
    if (arg === '--help' || arg === '-h') {
      console.log(
        'usage: node --import tsx bench/run.ts [query|export|start|ui|scale|workflow|files|import|rowscope|adopt|events]… [pglite|postgres]',
      );
      process.exit(0);
    }
    const kind = DB_ALIASES[arg];
    if (kind) {
      kinds.add(kind);
      continue;
    }
    const matches = SUITES.filter((suite) => suite.startsWith(arg));
    if (matches.length === 0) {
      console.error(
        `unknown filter "${arg}": use ${SUITES.join(', ')} or ${Object.keys(DB_ALIASES).join(', ')}`,
      );
      process.exit(2);
    }
    for (const suite of matches) suites.add(suite);
  }
  return {
    suites: suites.size > 0 ? SUITES.filter((suite) => suites.has(suite)) : [...DEFAULT_SUITES],
    kinds: kinds.size > 0 ? [...kinds] : ['pglite', 'postgres'],
  };
}

function gitDescription(): { commit?: string; isDirty?: boolean } {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    const status = execFileSync('git', ['status', '--porcelain', '--', 'src', 'schemas'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    return { commit, isDirty: status.length > 0 };
  } catch {
    return {};
  }
}

async function main(): Promise<number> {
  const { suites, kinds: wantedKinds } = parseArgs(process.argv.slice(2));
  const startedAt = new Date();
  const log = (line: string): void => console.log(line);
  log(
    `EcoBid benchmarks: ${suites.join(', ')} on ${cpus().length} cores, load ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}, node ${process.version}`,
  );

  let kinds = wantedKinds;
  let postgresNote: string | undefined;
  if (
    kinds.includes('postgres') &&
    suites.some(
      (suite) =>
        suite === 'query' ||
        suite === 'export' ||
        suite === 'scale' ||
        suite === 'workflow' ||
        suite === 'adopt' ||
        suite === 'rowscope' ||
        suite === 'events',
    ) &&
    !(await isPostgresReachable())
  ) {
    postgresNote = `PostgreSQL not reachable at ${PG_SERVER_URL} (set BENCH_DATABASE_URL)`;
    kinds = kinds.filter((kind) => kind !== 'postgres');
    log(`  ${postgresNote}: PostgreSQL runs skipped`);
  }

  const results: SuiteResult[] = [];
  let failure: unknown;
  for (const suite of suites) {
    const began = Date.now();
    log(`\n[${suite}]`);
    try {
      if (
        suite === 'query' ||
        suite === 'export' ||
        suite === 'scale' ||
        suite === 'workflow' ||
        suite === 'import' ||
        suite === 'rowscope' ||
        suite === 'events'
      ) {
        if (kinds.length === 0) {
          results.push({ suite, figures: [], details: {}, skipped: postgresNote ?? 'no database selected' });
          continue;
        }
        const run = {
          query: runQuery,
          export: runExport,
          scale: runScale,
          workflow: runWorkflow,
          import: runImport,
          events: runEvents,
          // the app runs in this process: loaded only when the suite runs
          rowscope: async (...args: Parameters<typeof runImport>) =>
            (await import('./row-scope.js')).runRowScope(...args),
        }[suite];
        results.push(await run(kinds, log));
      } else if (suite === 'adopt') {
        // Adoption is of a PostgreSQL database: PGlite is the app's own, nothing else writes it.
        results.push(
          kinds.includes('postgres')
            ? await (await import('./adopt-insert.js')).runAdoptInsert(log) // the app runs in this process
            : { suite, figures: [], details: {}, skipped: postgresNote ?? 'PostgreSQL only' },
        );
      } else {
        results.push(await (suite === 'ui' ? runUi(log) : suite === 'files' ? runFiles(log) : runStart(log)));
      }
      if (
        postgresNote &&
        (suite === 'query' ||
          suite === 'export' ||
          suite === 'scale' ||
          suite === 'workflow' ||
          suite === 'rowscope') &&
        wantedKinds.includes('postgres')
      ) {
        results.push({ suite, figures: [], details: {}, skipped: postgresNote });
      }
    } catch (error) {
      failure = error;
      console.error(
        `\n${suite} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      results.push({ suite, figures: [], details: { error: String(error) }, skipped: 'failed, see above' });
    } finally {
      await cleanupAll();
      log(`  (${suite}: ${((Date.now() - began) / 1000).toFixed(0)} s)`);
    }
  }

  const table = formatTable(results);
  console.log(`\n${table}\n`);
  const figures = results.flatMap((result) => result.figures);
  const missed = figures.filter((item) => item.isPass === false);
  const outDir = join(ROOT, 'bench/results');
  mkdirSync(outDir, { recursive: true });
  const outFile = join(outDir, 'latest.json');
  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    command: `node --import tsx bench/run.ts ${process.argv.slice(2).join(' ')}`.trim(),
    machine: {
      node: process.version,
      platform: process.platform,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      loadavgAtEnd: loadavg(),
    },
    git: gitDescription(),
    knobs: Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('BENCH_'))),
    figures,
    suites: results,
  };
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`figures written to ${outFile}`);
  console.log(
    missed.length === 0
      ? 'all goals met'
      : `goals missed: ${missed.map((item) => `${item.suite} / ${item.name}`).join('; ')}`,
  );
  if (failure) return 1;
  return process.env.BENCH_STRICT === '1' && missed.length > 0 ? 3 : 0;
}

let isInterrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (isInterrupted) return;
    isInterrupted = true;
    console.error(`\n${signal}: cleaning up…`);
    void cleanupAll().then(() => process.exit(130));
  });
}

main()
  .then(async (code) => {
    await cleanupAll();
    process.exit(code);
  })
  .catch(async (error: unknown) => {
    console.error(error);
    await cleanupAll();
    process.exit(1);
  });
