/**
 * start: time from spawning `node dist/server/main.js` (what npm start runs) until the server answers
 * HTTP (polled every few ms), on PGlite. Cold: an empty DATA_DIR (the embedded database is
 * created, the tables made and the first-start data seeded). Warm: the same DATA_DIR again.
 * Also the floor: the same node + tsx start with a script that only listens.
 */
import { join } from 'node:path';
import { figure, type SuiteResult } from './lib/report.js';
import {
  ADMIN_PASSWORD,
  envNumber,
  freePort,
  median,
  readMemory,
  sleep,
  spawnNode,
  SERVER_ENTRY,
  ensureServerBuilt,
  tempDir,
  waitForHttp,
} from './lib/util.js';

const SUITE = 'start';
const GOAL_COLD_MS = 10_000;
const GOAL_WARM_MS = 2_000;

interface StartRun {
  kind: 'cold' | 'warm' | 'floor';
  ms: number;
  /** What main.ts itself reports ("started in N ms": buildApp + listen, after the imports). */
  reportedMs?: number;
  /** RSS of the server right after it answered. */
  rssMb?: number;
}

async function timeStart(
  script: string,
  kind: StartRun['kind'],
  dataDir: string,
  nodeArgs: string[],
): Promise<StartRun> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  const started = performance.now();
  const child = spawnNode(script, { env, nodeArgs });
  try {
    await waitForHttp(port, child);
    const ms = performance.now() - started;
    const rssMb = readMemory(child.pid)?.rssMb;
    const reported = async (): Promise<number | undefined> => {
      for (let tries = 0; tries < 100; tries += 1) {
        const match = /started in (\d+) ms/.exec(child.output());
        if (match) return Number(match[1]);
        await sleep(10);
      }
      return undefined;
    };
    const reportedMs = kind === 'floor' ? undefined : await reported();
    return {
      kind,
      ms,
      ...(reportedMs === undefined ? {} : { reportedMs }),
      ...(rssMb === undefined ? {} : { rssMb }),
    };
  } finally {
    await child.stop();
  }
}

export async function runStart(log: (line: string) => void): Promise<SuiteResult> {
  const repeats = envNumber('BENCH_START_RUNS', 3);
  // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of every measured server start there.
  const nodeArgs = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const runs: StartRun[] = [];
  for (let repeat = 1; repeat <= repeats; repeat += 1) {
    const dir = tempDir('start');
    try {
      const dataDir = join(dir.path, 'data');
      for (const kind of ['cold', 'warm'] as const) {
        const run = await timeStart((ensureServerBuilt(), SERVER_ENTRY), kind, dataDir, nodeArgs);
        runs.push(run);
        log(
          `  ${kind} ${repeat}: ${Math.round(run.ms)} ms to first HTTP answer (server reports ${run.reportedMs ?? '?'} ms for buildApp + listen), ` +
            `RSS ${run.rssMb?.toFixed(0) ?? '?'} MB`,
        );
      }
      const floor = await timeStart('bench/listen-only.ts', 'floor', dataDir, []);
      runs.push(floor);
      log(`  floor ${repeat}: ${Math.round(floor.ms)} ms (node + tsx + a bare http server)`);
    } finally {
      await dir.remove();
    }
  }
  const of = (kind: StartRun['kind']): StartRun[] => runs.filter((run) => run.kind === kind);
  const msOf = (kind: StartRun['kind']): number => median(of(kind).map((run) => run.ms));
  const reportedOf = (kind: StartRun['kind']): number => median(of(kind).map((run) => run.reportedMs ?? NaN));
  const note = (kind: 'cold' | 'warm'): string =>
    `buildApp+listen ${Math.round(reportedOf(kind))} ms, node+tsx+imports ${Math.round(msOf(kind) - reportedOf(kind))} ms; ` +
    `RSS after start ${Math.round(median(of(kind).map((run) => run.rssMb ?? NaN)))} MB`;
  return {
    suite: SUITE,
    figures: [
      figure(
        SUITE,
        `cold start, empty DATA_DIR (median of ${repeats})`,
        msOf('cold'),
        'ms',
        { op: '<', value: GOAL_COLD_MS },
        note('cold'),
      ),
      figure(
        SUITE,
        `warm start, same DATA_DIR (median of ${repeats})`,
        msOf('warm'),
        'ms',
        { op: '<', value: GOAL_WARM_MS },
        note('warm'),
      ),
      figure(SUITE, `floor: node + tsx + http.listen (median of ${repeats})`, msOf('floor'), 'ms'),
    ],
    details: { runs },
  };
}
