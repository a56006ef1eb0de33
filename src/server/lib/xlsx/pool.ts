import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { BUDGETS } from '../budgets.js';
import { ImportBudgetError, READ_BUDGETS, type ImportBudget, type ReadBudgets } from './budget.js';
import type { RowSurvey } from './survey.js';

/**
 * Reads .xlsx files off the request thread: a small pool of worker threads (worker.ts), each
 * reading one file at a time and handing its rows over in batches as the request thread asks for
 * them. Parsing a file is CPU work whose cost a client chooses; here it cannot hold the event
 * loop (or, on PGlite, the database that runs in it), and a reading that keeps the request
 * waiting longer than BUDGETS.import.parseMs in all has its thread stopped (terminate) and is an
 * ImportBudgetError. The built server runs dist/server/xlsx-worker.js (scripts/build-server.mjs);
 * the sources (tsx, tests) run worker.ts through tsx's loader.
 */

/** One row of a sheet, as the worker hands it over (cells trimmed). */
export interface XlsxSheetRow {
  sheet: string;
  row: number;
  cells: string[];
}

export type ToWorker =
  | {
      type: 'start';
      job: number;
      bytes: Uint8Array;
      which: 'first' | 'rest';
      budgets: ReadBudgets;
      /** Post only a survey of the rows (stopping once the rows holding a value pass `stopAfter`). */
      survey?: { stopAfter: number };
    }
  | { type: 'next'; job: number };

export type SheetRowsMessage =
  | { type: 'rows'; job: number; rows: XlsxSheetRow[] }
  | ({ type: 'survey'; job: number } & RowSurvey)
  | { type: 'end'; job: number }
  | { type: 'error'; job: number; message: string; budget?: ImportBudget; limit?: number };

/** A file that is not an .xlsx the reader understands (the answer is a 400 naming the file). */
export class XlsxReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XlsxReadError';
  }
}

/** Threads reading at once at most (more readings wait for one); idle ones kept for reuse. */
const MAX_THREADS = Math.max(2, Math.min(4, availableParallelism()));
const MAX_IDLE = 2;

const idle: Worker[] = [];
let live = 0;
const waiting: ((worker: Worker) => void)[] = [];
let jobs = 0;

function spawn(): Worker {
  const here = import.meta.url;
  const resourceLimits = {
    maxOldGenerationSizeMb: BUDGETS.import.parserHeapMb,
    maxYoungGenerationSizeMb: 8,
  };
  if (!here.endsWith('.ts')) {
    // The bundle: dist/server/main.js beside dist/server/xlsx-worker.js.
    return new Worker(new URL('./xlsx-worker.js', here), { resourceLimits });
  }
  // The sources: the worker is TypeScript, loaded through tsx's loader registered in the thread.
  const tsx = pathToFileURL(createRequire(here).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
  const entry = new URL('./worker.ts', here).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, resourceLimits });
}

/** A new thread; one that ends while idle (it should not) leaves the pool. */
function started(): Worker {
  const worker = spawn();
  worker.unref();
  worker.once('exit', () => {
    const at = idle.indexOf(worker);
    if (at < 0) return;
    idle.splice(at, 1);
    live -= 1;
  });
  return worker;
}

async function acquire(): Promise<Worker> {
  const ready = idle.pop();
  if (ready) return ready;
  if (live < MAX_THREADS) {
    live += 1;
    return started();
  }
  return new Promise((resolve) => waiting.push(resolve));
}

/** Hands a thread back after a reading: to a waiting reading, to the idle ones, or stopped. */
function release(worker: Worker, isReusable: boolean): void {
  if (!isReusable) {
    live -= 1;
    void worker.terminate();
    const next = waiting.shift();
    if (next) {
      live += 1;
      next(started());
    }
    return;
  }
  const next = waiting.shift();
  if (next) next(worker);
  else if (idle.length < MAX_IDLE) idle.push(worker);
  else {
    live -= 1;
    void worker.terminate();
  }
}

/** What a reading asks for: the file, the sheets to walk, and (BUDGETS.import unless given) its budgets. */
export interface ReadingOf {
  bytes: Uint8Array;
  which: 'first' | 'rest';
  budgets?: ReadBudgets;
  parseMs?: number;
}

/** A reading as a pooled thread takes it: only a survey of the rows, or the rows. */
type Reading = Required<ReadingOf> & { survey?: { stopAfter: number } };

const withBudgets = ({ budgets, parseMs, ...rest }: ReadingOf): Required<ReadingOf> => ({
  ...rest,
  budgets: budgets ?? READ_BUDGETS,
  parseMs: parseMs ?? BUDGETS.import.parseMs,
});

/**
 * The rows of an .xlsx, read in a worker thread: the first sheet's, or those of every sheet after
 * it, in batches. Past a budget (BUDGETS.import, or `budgets`) an ImportBudgetError; a file that
 * cannot be read an XlsxReadError. Stopping the walk early stops the thread's reading.
 */
export async function* xlsxRowsOffThread(reading: ReadingOf): AsyncGenerator<XlsxSheetRow[]> {
  for await (const answer of readOffThread(withBudgets(reading))) if (Array.isArray(answer)) yield answer;
}

/**
 * The first row holding a value (a cell not blank) of the first sheet, or of every sheet after it,
 * and the number of such rows: read in a worker thread within the same budgets as the rows, of
 * which no other crosses to this thread. The reading stops once the count passes `stopAfter`.
 */
export async function xlsxSurveyOffThread({
  stopAfter,
  ...reading
}: ReadingOf & { stopAfter: number }): Promise<RowSurvey> {
  let survey: RowSurvey = { filled: 0 };
  for await (const answer of readOffThread({ ...withBudgets(reading), survey: { stopAfter } }))
    if (!Array.isArray(answer)) survey = answer;
  return survey;
}

/** One reading in a pooled thread: its batches of rows, or its survey, as the thread posts them. */
async function* readOffThread({
  bytes,
  which,
  budgets,
  parseMs,
  survey,
}: Reading): AsyncGenerator<XlsxSheetRow[] | RowSurvey> {
  const worker = await acquire();
  const job = (jobs += 1);
  const queue: SheetRowsMessage[] = [];
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const onMessage = (message: SheetRowsMessage): void => {
    if (message.job !== job) return;
    queue.push(message);
    wake?.();
  };
  const onError = (error: Error & { code?: string }): void => {
    failure =
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new ImportBudgetError('memory', BUDGETS.import.parserHeapMb)
        : error;
    wake?.();
  };
  const onExit = (): void => {
    failure ??= new Error('xlsx worker: the thread ended');
    wake?.();
  };
  worker.on('message', onMessage);
  worker.on('error', onError);
  worker.on('exit', onExit);
  let isEnded = false;
  // One copy of the file for the thread, handed over (transferred) rather than copied again.
  const copy = new Uint8Array(bytes);
  worker.postMessage(
    { type: 'start', job, bytes: copy, which, budgets, ...(survey ? { survey } : {}) } satisfies ToWorker,
    [copy.buffer],
  );
  let waitedMs = 0;
  try {
    for (;;) {
      const message = queue.shift();
      if (!message) {
        if (failure) throw failure;
        const started = performance.now();
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, Math.max(0, parseMs - waitedMs));
        });
        clearTimeout(timer);
        wake = undefined;
        waitedMs += performance.now() - started;
        if (queue.length === 0 && !failure && waitedMs >= parseMs)
          throw new ImportBudgetError('parseMs', parseMs);
        continue;
      }
      if (message.type === 'rows' || message.type === 'survey') {
        // The thread reads the next batch (or comes to its end) while this one is used.
        worker.postMessage({ type: 'next', job } satisfies ToWorker);
        yield message.type === 'rows'
          ? message.rows
          : { filled: message.filled, ...(message.first ? { first: message.first } : {}) };
      } else if (message.type === 'end') {
        isEnded = true;
        return;
      } else {
        isEnded = true;
        if (message.budget !== undefined && message.limit !== undefined)
          throw new ImportBudgetError(message.budget, message.limit);
        throw new XlsxReadError(message.message);
      }
    }
  } finally {
    worker.off('message', onMessage);
    worker.off('error', onError);
    worker.off('exit', onExit);
    // A reading left before its end (or a thread that failed) is stopped with its thread.
    release(worker, isEnded && !failure);
  }
}
