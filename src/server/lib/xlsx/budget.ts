import { BUDGETS } from '../budgets.js';

/**
 * The budgets of reading one import file (BUDGETS.import), and the error of going past one: the
 * reader stops at the first byte, row, cell or string past its budget, so that a small file that
 * unpacks to a great deal (a zip bomb) costs no more than the budget.
 */

/** What an import file may cost to read; each is counted as the file is read. */
export interface ReadBudgets {
  /** Bytes every part of an .xlsx may unpack to, together (counted while inflating). */
  unpackedBytes: number;
  /** Rows read (every sheet of one reading together; empty rows too). */
  rows: number;
  /** Cells read (a row's cells up to its last one with a value). */
  cells: number;
  /** Columns of one row. */
  columns: number;
  /** Shared strings of an .xlsx. */
  sharedStrings: number;
  /** Characters of every shared string together. */
  sharedStringCharacters: number;
  /** Characters of one cell (or one shared string). */
  cellCharacters: number;
  /** Characters of every cell read together (a shared string counts at each use). */
  textCharacters: number;
  /** Bytes of one tag, comment or CDATA section of the XML (text between tags is streamed). */
  markupBytes: number;
}

/** The budgets named in BUDGETS.import. */
export const READ_BUDGETS: ReadBudgets = {
  unpackedBytes: BUDGETS.import.unpackedBytes,
  // The header row comes on top of the data rows.
  rows: BUDGETS.import.rows + 1,
  cells: BUDGETS.import.cells,
  columns: BUDGETS.import.columns,
  sharedStrings: BUDGETS.import.sharedStrings,
  sharedStringCharacters: BUDGETS.import.sharedStringCharacters,
  cellCharacters: BUDGETS.import.cellCharacters,
  textCharacters: BUDGETS.import.textCharacters,
  markupBytes: BUDGETS.import.markupBytes,
};

/**
 * The budgets an import can go past: those of reading, a CSV row's length, the time and memory of
 * reading an .xlsx (the file's own size is the upload's fileTooLarge).
 */
export type ImportBudget = keyof ReadBudgets | 'rowCharacters' | 'parseMs' | 'memory';

/** Characters of one CSV row (a record of csv-parse). */
export const CSV_ROW_CHARACTERS = 1024 * 1024;

/** Reading an import file went past one of its budgets (the answer is a 413 naming it). */
export class ImportBudgetError extends Error {
  constructor(
    readonly budget: ImportBudget,
    readonly limit: number,
  ) {
    super(`import budget ${budget} (${limit}) exceeded`);
    this.name = 'ImportBudgetError';
  }
}

/** The counters of one reading, checked against its budgets as they grow. */
export class ReadMeter {
  unpackedBytes = 0;
  rows = 0;
  cells = 0;
  sharedStringCharacters = 0;
  textCharacters = 0;

  constructor(readonly budgets: ReadBudgets = READ_BUDGETS) {}

  /** Counts bytes unpacked (inflated) from the zip. */
  unpacked(bytes: number): void {
    this.unpackedBytes += bytes;
    if (this.unpackedBytes > this.budgets.unpackedBytes)
      throw new ImportBudgetError('unpackedBytes', this.budgets.unpackedBytes);
  }

  /** Counts a row of `cells` cells. */
  row(cells: number): void {
    this.rows += 1;
    if (this.rows > this.budgets.rows) throw new ImportBudgetError('rows', this.budgets.rows);
    if (cells > this.budgets.columns) throw new ImportBudgetError('columns', this.budgets.columns);
    this.cells += cells;
    if (this.cells > this.budgets.cells) throw new ImportBudgetError('cells', this.budgets.cells);
  }

  /** Checks a column index (0-based) before a row is filled up to it. */
  column(index: number): void {
    if (index >= this.budgets.columns) throw new ImportBudgetError('columns', this.budgets.columns);
  }

  /** Checks the length of one cell's (or shared string's) text so far. */
  cellText(length: number): void {
    if (length > this.budgets.cellCharacters)
      throw new ImportBudgetError('cellCharacters', this.budgets.cellCharacters);
  }

  /** Counts a cell's text as it is handed over. */
  cell(length: number): void {
    this.cellText(length);
    this.textCharacters += length;
    if (this.textCharacters > this.budgets.textCharacters)
      throw new ImportBudgetError('textCharacters', this.budgets.textCharacters);
  }

  /** Checks the count of shared strings (declared or read so far). */
  sharedStrings(count: number): void {
    if (count > this.budgets.sharedStrings)
      throw new ImportBudgetError('sharedStrings', this.budgets.sharedStrings);
  }

  /** Counts one shared string's characters. */
  sharedString(length: number): void {
    this.sharedStringCharacters += length;
    if (this.sharedStringCharacters > this.budgets.sharedStringCharacters)
      throw new ImportBudgetError('sharedStringCharacters', this.budgets.sharedStringCharacters);
  }
}
