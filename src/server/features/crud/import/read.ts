import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { AppError } from '../../../lib/errors.js';
import { CSV_ROW_CHARACTERS, ImportBudgetError, ReadMeter } from '../../../lib/xlsx/budget.js';
import { xlsxRowsOffThread, xlsxSurveyOffThread } from '../../../lib/xlsx/pool.js';
import { isBlankRow, surveyRows, type RowSurvey } from '../../../lib/xlsx/survey.js';

/** A zip container (every .xlsx) starts with a local file header. */
export const isZip = (bytes: Buffer): boolean =>
  bytes.length > 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

const tooMany = (maxRows: number): ImportBudgetError => new ImportBudgetError('rows', maxRows);

/** A file that cannot be read is a 400 on /file; past a budget it stays the budget's error (a 413 naming it). */
export const asFileProblem = (error: unknown): AppError | ImportBudgetError =>
  error instanceof AppError || error instanceof ImportBudgetError
    ? error
    : new AppError('validation', {}, [
        { field: '/file', message: (error instanceof Error ? error.message : String(error)).slice(0, 200) },
      ]);

/** A line of the file: its cells and its spreadsheet row number. */
export interface SheetRow {
  cells: string[];
  row: number;
}

/**
 * An uploaded sheet read as it is walked: the header row, then the data rows in chunks (empty
 * rows skipped), so that a large file is never held as rows all at once.
 */
export interface SheetStream {
  header: string[];
  chunks: AsyncIterable<SheetRow[]>;
  /** Stops reading the rows (an import refused on its header: the reading thread is released). */
  close?: () => Promise<void>;
}

/**
 * The first sheet's rows (in the workbook's order), cells trimmed: read in a worker thread
 * (lib/xlsx/pool.ts) within the import's budgets. Only the first sheet holds data (a template's
 * second sheet holds the dropdown lists).
 */
async function* xlsxRows(bytes: Buffer): AsyncGenerator<SheetRow> {
  for await (const batch of xlsxRowsOffThread({ bytes, which: 'first' })) yield* batch;
}

/** Characters of cell text a chunk of rows holds at most (it ends early past them). */
const CHUNK_CHARACTERS = 4 * 1024 * 1024;

/** Slices of the file handed to the CSV parser, which waits for its reader between them. */
const CSV_SLICE_BYTES = 64 * 1024;

function* slices(bytes: Buffer): Generator<Buffer> {
  for (let start = 0; start < bytes.length; start += CSV_SLICE_BYTES)
    yield bytes.subarray(start, start + CSV_SLICE_BYTES);
}

/** The rows of a UTF-8 CSV, held to the same budgets as an .xlsx's (rows, cells, characters). */
async function* csvRows(bytes: Buffer): AsyncGenerator<SheetRow> {
  const meter = new ReadMeter();
  const parser = Readable.from(slices(bytes), { objectMode: false }).pipe(
    parse({
      bom: true,
      relax_column_count: true,
      skip_empty_lines: false,
      trim: true,
      max_record_size: CSV_ROW_CHARACTERS,
    }),
  );
  let row = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      row += 1;
      meter.row(cells.length);
      for (const cell of cells) meter.cell(cell.length);
      yield { cells, row };
    }
  } catch (error) {
    if ((error as { code?: unknown }).code === 'CSV_MAX_RECORD_SIZE')
      throw new ImportBudgetError('rowCharacters', CSV_ROW_CHARACTERS);
    throw error;
  } finally {
    parser.destroy();
  }
}

/**
 * Opens an .xlsx (by its bytes, whatever its name) or else a UTF-8 CSV: reads up to the header
 * row; the data rows follow in chunks of `chunkRows` as the caller walks them. More than
 * `maxRows` data rows, or a file that cannot be read, is a validation error on /file.
 */
export async function openUploadedSheet({
  bytes,
  maxRows,
  chunkRows,
}: {
  bytes: Buffer;
  maxRows: number;
  chunkRows: number;
}): Promise<SheetStream> {
  if (bytes.length === 0) throw new AppError('fileEmpty');
  const rows = isZip(bytes) ? xlsxRows(bytes) : csvRows(bytes);
  const next = async (): Promise<IteratorResult<SheetRow>> => {
    try {
      return await rows.next();
    } catch (error) {
      throw asFileProblem(error);
    }
  };
  let header: string[] = [];
  for (let item = await next(); !item.done; item = await next()) {
    if (!isBlankRow(item.value.cells)) {
      header = item.value.cells;
      break;
    }
  }
  async function* chunks(): AsyncGenerator<SheetRow[]> {
    let chunk: SheetRow[] = [];
    let count = 0;
    let characters = 0;
    for (let item = await next(); !item.done; item = await next()) {
      if (isBlankRow(item.value.cells)) continue;
      count += 1;
      if (count > maxRows) throw tooMany(maxRows);
      chunk.push(item.value);
      for (const cell of item.value.cells) characters += cell.length;
      // A chunk of long texts ends early: the rows held at once stay small whatever the cells hold.
      if (chunk.length >= chunkRows || characters >= CHUNK_CHARACTERS) {
        yield chunk;
        chunk = [];
        characters = 0;
      }
    }
    if (chunk.length > 0) yield chunk;
  }
  return {
    header,
    chunks: chunks(),
    close: async () => {
      await rows.return(undefined);
    },
  };
}

/** An upload's header row and its data rows' count. */
export interface SheetSurvey {
  header: string[];
  rows: number;
}

/**
 * An upload's header and the count of its data rows (rows holding a value, after the header),
 * read within the import's budgets: an .xlsx in its reading thread, from which only the header and
 * the count come back. More than `maxRows`, or a file that cannot be read, is the same error as
 * the import's.
 */
export async function surveyUploadedSheet({
  bytes,
  maxRows,
}: {
  bytes: Buffer;
  maxRows: number;
}): Promise<SheetSurvey> {
  // The header is the first row holding a value; past maxRows data rows, reading stops.
  const survey = await surveyUpload(bytes, maxRows + 1);
  const rows = Math.max(0, survey.filled - 1);
  if (rows > maxRows) throw tooMany(maxRows);
  return { header: survey.first ?? [], rows };
}

/** An upload's header row alone (the reading stops at the first data row). */
export async function uploadedHeader(bytes: Buffer): Promise<string[]> {
  return (await surveyUpload(bytes, 1)).first ?? [];
}

async function surveyUpload(bytes: Buffer, stopAfter: number): Promise<RowSurvey> {
  if (bytes.length === 0) throw new AppError('fileEmpty');
  let survey: RowSurvey;
  try {
    survey = isZip(bytes)
      ? await xlsxSurveyOffThread({ bytes, which: 'first', stopAfter })
      : await surveyRows(csvRows(bytes), stopAfter);
  } catch (error) {
    throw asFileProblem(error);
  }
  return survey;
}
