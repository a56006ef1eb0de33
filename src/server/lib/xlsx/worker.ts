import { parentPort } from 'node:worker_threads';
import { ImportBudgetError, ReadMeter, type ReadBudgets } from './budget.js';
import { openXlsx } from './read.js';
import type { SheetRowsMessage, ToWorker, XlsxSheetRow } from './pool.js';
import { surveyRows, type RowSurvey } from './survey.js';

/**
 * The thread that reads .xlsx files for the import (pool.ts starts it): one reading at a time,
 * its rows posted in batches, a batch more each time the request thread asks for one, so that at
 * most two batches are ever on their way; or, for a survey, only the first row that holds a value
 * and the number of such rows. The request thread stops this thread past the reading's time budget; the heap is bounded
 * by the worker's resource limits.
 */

/** A batch ends at this many rows or characters of cell text, whichever comes first. */
const BATCH_ROWS = 1_000;
const BATCH_CHARACTERS = 1024 * 1024;

/** What a reading posts, before the job is named on it. */
type Outgoing = { type: 'rows'; rows: XlsxSheetRow[] } | ({ type: 'survey' } & RowSurvey);

/**
 * The sheets a reading walks: only the first sheet holds the records; the sheets after it hold
 * sub-table rows (or a template's dropdown lists).
 */
async function* sheetRows(
  bytes: Buffer,
  which: 'first' | 'rest',
  budgets: ReadBudgets,
): AsyncGenerator<XlsxSheetRow> {
  const book = await openXlsx(bytes, new ReadMeter(budgets));
  const sheets = which === 'first' ? book.sheets.slice(0, 1) : book.sheets.slice(1);
  for (const sheet of sheets)
    for await (const { row, cells } of book.rows(sheet))
      // Trimmed here, so that the request thread takes the cells as they come.
      yield { sheet: sheet.name, row, cells: cells.map((cell) => cell.trim()) };
}

/** The rows in batches, one batch each time the request thread asks. */
async function* batches(rows: AsyncGenerator<XlsxSheetRow>): AsyncGenerator<Outgoing> {
  let batch: XlsxSheetRow[] = [];
  let characters = 0;
  for await (const item of rows) {
    batch.push(item);
    for (const cell of item.cells) characters += cell.length;
    if (batch.length >= BATCH_ROWS || characters >= BATCH_CHARACTERS) {
      yield { type: 'rows', rows: batch };
      batch = [];
      characters = 0;
    }
  }
  if (batch.length > 0) yield { type: 'rows', rows: batch };
}

/** Only the survey of the rows (survey.ts): no other row crosses to the request thread. */
async function* surveyed(rows: AsyncGenerator<XlsxSheetRow>, stopAfter: number): AsyncGenerator<Outgoing> {
  yield { type: 'survey', ...(await surveyRows(rows, stopAfter)) };
}

const port = parentPort;
if (!port) throw new Error('xlsx worker: not started as a worker thread');

let job = 0;
let reading: AsyncGenerator<Outgoing> | undefined;
let wanted = 0;
let pumping = false;

const post = (message: SheetRowsMessage): void => port.postMessage(message);

/** Reads and posts as many batches as were asked for. */
async function pump(): Promise<void> {
  if (pumping) return;
  pumping = true;
  const current = job;
  try {
    while (wanted > 0 && reading && current === job) {
      const next = await reading.next();
      if (current !== job) return;
      if (next.done) {
        reading = undefined;
        post({ type: 'end', job: current });
        return;
      }
      wanted -= 1;
      post({ ...next.value, job: current });
    }
  } catch (error) {
    reading = undefined;
    if (current !== job) return;
    post(
      error instanceof ImportBudgetError
        ? { type: 'error', job: current, budget: error.budget, limit: error.limit, message: error.message }
        : { type: 'error', job: current, message: error instanceof Error ? error.message : String(error) },
    );
  } finally {
    pumping = false;
  }
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'start') {
    job = message.job;
    const bytes = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.length);
    const rows = sheetRows(bytes, message.which, message.budgets);
    reading = message.survey ? surveyed(rows, message.survey.stopAfter) : batches(rows);
    wanted = 1;
  } else if (message.type === 'next' && message.job === job) wanted += 1;
  void pump();
});
