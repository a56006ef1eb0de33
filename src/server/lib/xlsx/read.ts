import { ReadMeter } from './budget.js';
import { attributesOf, decodeXml, scanXml, type XmlHandler } from './xml.js';
import { entryContent, zipEntries, ZipFormatError, type ZipEntry } from './zip.js';

/**
 * A streaming reader of .xlsx worksheets as rows of cell texts: the zip's parts are inflated and
 * scanned a chunk at a time, and a worksheet's rows are handed over as they are read. Only the
 * shared strings, the cell styles' number formats and the sheet list are held. Every byte
 * inflated, row, cell, column and shared string is counted against the reading's budgets
 * (budget.ts) as it comes, and the first one past its budget stops the reading
 * (ImportBudgetError): the work and memory of a reading are linear in what it read.
 *
 * Cell texts, as the import reads them (the same as exceljs's values through import-read.ts):
 * shared and inline strings (rich-text runs joined, phonetic runs left out), numbers as
 * JavaScript prints them, booleans as true/false, errors as empty text, formulas by their cached
 * result, and numbers whose style is a date format as dates in local wall-clock time
 * (YYYY-MM-DD, or YYYY-MM-DD HH:mm:ss when not a whole day).
 */

export interface XlsxRow {
  /** The cells by column (A is 0); a cell with no value is ''. */
  cells: string[];
  /** The spreadsheet row number (1-based). */
  row: number;
}

export interface XlsxSheet {
  name: string;
  /** The worksheet part, for example xl/worksheets/sheet1.xml. */
  path: string;
}

export interface XlsxBook {
  sheets: XlsxSheet[];
  /** The rows of a sheet as they are read (rows with no cell are not in the file). */
  rows(sheet: XlsxSheet): AsyncGenerator<XlsxRow>;
}

export { ZipFormatError };

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * Excel stores dates as local wall-clock times; the text is that wall clock. A whole day becomes
 * YYYY-MM-DD, anything else YYYY-MM-DD HH:mm:ss (read later in the server's time zone, as the
 * export writes it).
 */
export function dateText(date: Date): string {
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const isWholeDay = date.getUTCHours() === 0 && date.getUTCMinutes() === 0 && date.getUTCSeconds() === 0;
  return isWholeDay
    ? day
    : `${day} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

/** An Excel serial date as the UTC date of its wall clock (as exceljs computes it). */
function serialDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 24 * 3600 * 1000));
}

/**
 * Built-in number formats that are dates: 14-22 and 45-47 as every Excel has them, and the
 * ids East Asian Excels write for their date formats (27-36, 50-58: 年月日 and the like).
 */
const BUILT_IN_DATES = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54,
  55, 56, 57, 58,
]);

/** A custom number format code that shows a date or time (exceljs's test: y m d h s b outside quotes and brackets). */
function isDateFormat(code: string): boolean {
  // Excel's own format codes are at most 255 characters.
  if (code.length > 255) return false;
  const bare = code.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, '');
  return /[ymdhMsb]/.test(bare);
}

/** The column index (A → 0) of a cell reference such as B12, or -1. */
function columnOf(ref: string): number {
  let column = 0;
  let at = 0;
  for (; at < ref.length; at += 1) {
    const code = ref.charCodeAt(at);
    if (code >= 65 && code <= 90) column = column * 26 + (code - 64);
    else if (code >= 97 && code <= 122) column = column * 26 + (code - 96);
    else break;
    // Past any real column (XFD is 16 384): the meter refuses it.
    if (column > 1e9) return 1e9;
  }
  return at === 0 ? -1 : column - 1;
}

/** Walks a whole part through the scanner (for the small parts read before the rows). */
async function scanPart(
  bytes: Buffer,
  entry: ZipEntry | undefined,
  handler: XmlHandler,
  meter: ReadMeter,
): Promise<void> {
  if (!entry) return;
  for await (const _ of scanXml(entryContent(bytes, entry, meter), handler, meter.budgets.markupBytes)) {
    // Nothing to hand over between chunks.
  }
}

/** A part's path from a relationship target, relative to the folder of the part that names it. */
function resolvePart(folder: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = folder === '' ? [] : folder.split('/');
  for (const piece of target.split('/')) {
    if (piece === '..') parts.pop();
    else if (piece !== '.' && piece !== '') parts.push(piece);
  }
  return parts.join('/');
}

async function relationships(
  bytes: Buffer,
  entry: ZipEntry | undefined,
  meter: ReadMeter,
): Promise<Map<string, string>> {
  const targets = new Map<string, string>();
  await scanPart(
    bytes,
    entry,
    {
      open(name, attributes) {
        if (name !== 'Relationship') return;
        const found = attributesOf(attributes);
        const id = found.get('Id');
        const target = found.get('Target');
        if (id && target && found.get('TargetMode') !== 'External') targets.set(id, target);
      },
      close() {},
      text() {},
    },
    meter,
  );
  return targets;
}

/**
 * The shared strings: the text of each <si>, its rich-text runs joined, phonetic runs left out.
 * Their count (as the part declares it, and as read) and characters are held to the budgets.
 */
async function sharedStrings(
  bytes: Buffer,
  entry: ZipEntry | undefined,
  meter: ReadMeter,
): Promise<string[]> {
  const strings: string[] = [];
  let text = '';
  let inText = false;
  let phonetic = 0;
  await scanPart(
    bytes,
    entry,
    {
      open(name, attributes, selfClosing) {
        if (name === 'si') text = '';
        else if (name === 't' && phonetic === 0 && !selfClosing) inText = true;
        else if (name === 'rPh') phonetic += 1;
        else if (name === 'sst') {
          const found = attributesOf(attributes);
          meter.sharedStrings(Number(found.get('uniqueCount') ?? 0) || 0);
        }
      },
      close(name) {
        if (name === 't') inText = false;
        else if (name === 'rPh') phonetic -= 1;
        else if (name === 'si') {
          meter.sharedStrings(strings.length + 1);
          meter.sharedString(text.length);
          strings.push(text);
        }
      },
      text(raw) {
        if (!inText) return;
        text += decodeXml(raw);
        meter.cellText(text.length);
      },
    },
    meter,
  );
  return strings;
}

/** Per cell style (the s attribute): whether its number format is a date. */
async function dateStyles(bytes: Buffer, entry: ZipEntry | undefined, meter: ReadMeter): Promise<boolean[]> {
  const customDates = new Map<number, boolean>();
  const formats: number[] = [];
  let inCellXfs = false;
  await scanPart(
    bytes,
    entry,
    {
      open(name, attributes) {
        if (name === 'numFmt') {
          const found = attributesOf(attributes);
          customDates.set(Number(found.get('numFmtId')), isDateFormat(found.get('formatCode') ?? ''));
        } else if (name === 'cellXfs') inCellXfs = true;
        else if (name === 'xf' && inCellXfs)
          formats.push(Number(attributesOf(attributes).get('numFmtId') ?? 0));
      },
      close(name) {
        if (name === 'cellXfs') inCellXfs = false;
      },
      text() {},
    },
    meter,
  );
  return formats.map((id) => customDates.get(id) ?? BUILT_IN_DATES.has(id));
}

/** The cell being read: its column, type, style, and the texts of its <v> and inline string. */
interface CellState {
  column: number;
  type: string;
  style: number;
  value: string | undefined;
  hasFormula: boolean;
}

/**
 * Opens an .xlsx held in memory: its sheet list, shared strings and date styles. The meter counts
 * this opening and every row read from the book against its budgets.
 */
export async function openXlsx(bytes: Buffer, meter: ReadMeter = new ReadMeter()): Promise<XlsxBook> {
  const entries = zipEntries(bytes);
  const rootRels = await relationships(bytes, entries.get('_rels/.rels'), meter);
  const workbookPath =
    [...rootRels.values()]
      .map((target) => resolvePart('', target))
      .find((path) => entries.has(path) && /workbook[^/]*\.xml$/.test(path)) ?? 'xl/workbook.xml';
  const workbookEntry = entries.get(workbookPath);
  if (!workbookEntry) throw new ZipFormatError('not an .xlsx file: no workbook part');
  const folder = workbookPath.slice(0, workbookPath.lastIndexOf('/'));
  const relsPath = `${folder}/_rels/${workbookPath.slice(folder.length + 1)}.rels`;
  const workbookRels = await relationships(bytes, entries.get(relsPath), meter);

  const sheets: XlsxSheet[] = [];
  let date1904 = false;
  await scanPart(
    bytes,
    workbookEntry,
    {
      open(name, attributes) {
        if (name === 'workbookPr') {
          const value = attributesOf(attributes).get('date1904');
          date1904 = value === '1' || value === 'true';
        } else if (name === 'sheet') {
          const found = attributesOf(attributes);
          const target = workbookRels.get(found.get('r:id') ?? found.get('id') ?? '');
          if (target) sheets.push({ name: found.get('name') ?? '', path: resolvePart(folder, target) });
        }
      },
      close() {},
      text() {},
    },
    meter,
  );

  const relTargets = [...workbookRels.values()].map((target) => resolvePart(folder, target));
  const partOf = (pattern: RegExp): ZipEntry | undefined => {
    const path = relTargets.find((target) => pattern.test(target));
    return path ? entries.get(path) : undefined;
  };
  const strings = await sharedStrings(
    bytes,
    partOf(/sharedStrings[^/]*\.xml$/i) ?? entries.get(`${folder}/sharedStrings.xml`),
    meter,
  );
  const isDate = await dateStyles(
    bytes,
    partOf(/styles[^/]*\.xml$/i) ?? entries.get(`${folder}/styles.xml`),
    meter,
  );

  /** A number cell's <v> as plain decimal digits (no exponent, no sign but minus). */
  const PLAIN_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

  function cellText(cell: CellState): string | undefined {
    const { value, type } = cell;
    if (value === undefined) return undefined;
    switch (type) {
      case 's':
        return cell.hasFormula
          ? String(Number.parseFloat(value))
          : (strings[Number.parseInt(value, 10)] ?? '');
      case 'str':
      case 'inlineStr':
        return value;
      case 'b':
        return String(Number.parseInt(value, 10) !== 0);
      case 'e':
        return '';
      case 'd': {
        const date = new Date(value);
        return Number.isNaN(date.getTime()) ? value : dateText(date);
      }
      default: {
        if (value === '') return undefined;
        const number = Number.parseFloat(value);
        if (isDate[cell.style] === true && Number.isFinite(number))
          return dateText(serialDate(number, date1904));
        // Plain digits are kept as the file holds them (trailing fraction zeros dropped): a
        // decimal of 18 digits would lose its last ones through a JavaScript number.
        if (PLAIN_NUMBER.test(value)) return value.includes('.') ? value.replace(/\.?0+$/, '') : value;
        return String(number);
      }
    }
  }

  async function* rows(sheet: XlsxSheet): AsyncGenerator<XlsxRow> {
    const entry = entries.get(sheet.path);
    if (!entry) throw new ZipFormatError(`no worksheet part ${sheet.path}`);
    const ready: XlsxRow[] = [];
    let inData = false;
    let rowNumber = 0;
    let cells: string[] | undefined;
    let nextColumn = 0;
    let cell: CellState | undefined;
    /** Where text goes: the <v> of a cell, a <t> of its inline string, or nowhere. */
    let capture: 'v' | 't' | undefined;
    let phonetic = 0;
    const handler: XmlHandler = {
      open(name, attributes, selfClosing) {
        if (!inData) {
          if (name === 'sheetData') inData = !selfClosing;
          return;
        }
        switch (name) {
          case 'row': {
            const r = Number.parseInt(attributesOf(attributes).get('r') ?? '', 10);
            rowNumber = Number.isFinite(r) ? r : rowNumber + 1;
            cells = [];
            nextColumn = 0;
            break;
          }
          case 'c': {
            const found = attributesOf(attributes);
            const ref = found.get('r');
            const column = ref ? columnOf(ref) : -1;
            cell = {
              column: column >= 0 ? column : nextColumn,
              type: found.get('t') ?? 'n',
              style: Number.parseInt(found.get('s') ?? '0', 10) || 0,
              value: undefined,
              hasFormula: false,
            };
            break;
          }
          case 'v':
            if (cell && !selfClosing) {
              capture = 'v';
              cell.value = '';
            }
            break;
          case 'f':
            if (cell) cell.hasFormula = true;
            break;
          case 'is':
            if (cell) cell.value = '';
            break;
          case 'rPh':
            phonetic += 1;
            break;
          case 't':
            if (cell && phonetic === 0 && !selfClosing) capture = 't';
            break;
          default:
            break;
        }
      },
      close(name) {
        if (!inData) return;
        switch (name) {
          case 'v':
          case 't':
            capture = undefined;
            break;
          case 'rPh':
            phonetic -= 1;
            break;
          case 'c':
            if (cell && cells) {
              const text = cellText(cell);
              if (text !== undefined) {
                meter.column(cell.column);
                meter.cell(text.length);
                cells[cell.column] = text;
              }
              nextColumn = cell.column + 1;
            }
            cell = undefined;
            break;
          case 'row':
            if (cells) {
              meter.row(cells.length);
              // Columns with no value between two with a value are empty texts.
              for (let at = 0; at < cells.length; at += 1) cells[at] ??= '';
              ready.push({ cells, row: rowNumber });
            }
            cells = undefined;
            break;
          case 'sheetData':
            inData = false;
            break;
          default:
            break;
        }
      },
      text(raw) {
        if (capture && cell) {
          cell.value += decodeXml(raw);
          meter.cellText(cell.value?.length ?? 0);
        }
      },
    };
    for await (const _ of scanXml(entryContent(bytes, entry, meter), handler, meter.budgets.markupBytes)) {
      for (const row of ready) yield row;
      ready.length = 0;
    }
  }

  return { sheets, rows };
}
