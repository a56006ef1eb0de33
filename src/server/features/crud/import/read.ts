import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { AppError } from '../../../lib/errors.js';
import { openXlsx } from '../../../lib/xlsx/read.js';

/** A zip container (every .xlsx) starts with a local file header. */
const isZip = (bytes: Buffer): boolean =>
  bytes.length > 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

const tooMany = (maxRows: number): AppError =>
  new AppError('validation', {}, [{ field: '/file', message: `> ${maxRows} rows` }]);

const asFileProblem = (error: unknown): AppError =>
  error instanceof AppError
    ? error
    : new AppError('validation', {}, [{ field: '/file', message: (error as Error).message.slice(0, 200) }]);

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
}

/** The first sheet's rows (in the workbook's order), cells trimmed. */
async function* xlsxRows(bytes: Buffer): AsyncGenerator<SheetRow> {
  const book = await openXlsx(bytes);
  // Only the first sheet holds data (a template's second sheet holds the dropdown lists).
  const [first] = book.sheets;
  if (!first) return;
  for await (const { cells, row } of book.rows(first)) yield { cells: cells.map((cell) => cell.trim()), row };
}

/** Slices of the file handed to the CSV parser, which waits for its reader between them. */
const CSV_SLICE_BYTES = 64 * 1024;

function* slices(bytes: Buffer): Generator<Buffer> {
  for (let start = 0; start < bytes.length; start += CSV_SLICE_BYTES)
    yield bytes.subarray(start, start + CSV_SLICE_BYTES);
}

async function* csvRows(bytes: Buffer): AsyncGenerator<SheetRow> {
  const parser = Readable.from(slices(bytes), { objectMode: false }).pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: false, trim: true }),
  );
  let row = 0;
  for await (const cells of parser as AsyncIterable<string[]>) {
    row += 1;
    yield { cells, row };
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
    if (item.value.cells.some((cell) => cell !== '')) {
      header = item.value.cells;
      break;
    }
  }
  async function* chunks(): AsyncGenerator<SheetRow[]> {
    let chunk: SheetRow[] = [];
    let count = 0;
    for (let item = await next(); !item.done; item = await next()) {
      if (item.value.cells.every((cell) => cell === '')) continue;
      count += 1;
      if (count > maxRows) throw tooMany(maxRows);
      chunk.push(item.value);
      if (chunk.length >= chunkRows) {
        yield chunk;
        chunk = [];
      }
    }
    if (chunk.length > 0) yield chunk;
  }
  return { header, chunks: chunks() };
}
