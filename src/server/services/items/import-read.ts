import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { AppError } from '../../lib/errors.js';

/** A zip container (every .xlsx) starts with a local file header. */
const isZip = (bytes: Buffer): boolean =>
  bytes.length > 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * Excel stores dates as local wall-clock times; exceljs hands them over as UTC dates of that
 * wall clock. A whole day becomes YYYY-MM-DD, anything else YYYY-MM-DD HH:mm:ss (read later in
 * the server's time zone, as the export writes it).
 */
function dateText(date: Date): string {
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const isWholeDay = date.getUTCHours() === 0 && date.getUTCMinutes() === 0 && date.getUTCSeconds() === 0;
  return isWholeDay
    ? day
    : `${day} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return dateText(value);
  if ('richText' in value) return value.richText.map((part) => part.text).join('');
  if ('formula' in value || 'sharedFormula' in value)
    return cellText((value as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue);
  if ('text' in value) return String(value.text);
  if ('error' in value) return '';
  return '';
}

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

async function* xlsxRows(bytes: Buffer): AsyncGenerator<SheetRow> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([bytes]), {
    sharedStrings: 'cache',
    worksheets: 'emit',
    hyperlinks: 'ignore',
    styles: 'ignore',
    entries: 'emit',
  });
  for await (const worksheet of reader) {
    for await (const row of worksheet) {
      const values = (row.values ?? []) as ExcelJS.CellValue[];
      // row.values is 1-based: index 0 is always empty.
      const cells: string[] = [];
      for (let index = 1; index < values.length; index += 1) cells.push(cellText(values[index]).trim());
      yield { cells, row: row.number };
    }
    // Only the first sheet holds data (a template's second sheet holds the dropdown lists).
    break;
  }
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
export async function openUploadedSheet(
  bytes: Buffer,
  maxRows: number,
  chunkRows: number,
): Promise<SheetStream> {
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
