import { PassThrough, type Readable } from 'node:stream';
import { crc32, createDeflateRaw, deflateRawSync, type DeflateRaw } from 'node:zlib';

/**
 * A streaming writer of one-sheet .xlsx files: inline strings, a bold frozen header row, no
 * shared-string table, so memory does not grow with the row count. It writes the zip container
 * itself (entries with data descriptors, the sheet deflated at level 1) and honours backpressure
 * end to end. Files stay below the 4 GiB limit of zip without its zip64 extension.
 *
 * Rows are encoded straight to UTF-8 bytes (SheetRows): a database value read as bytes becomes
 * cell XML without ever being a JavaScript string. A cell that directly follows the previous one
 * of its row leaves out its reference (`r`), as the format allows; the first cell of a row and
 * the first after an empty one carry it.
 */
/** A cell's value; `{ number }` is a number in its exact text (a decimal), written as it is. */
export type CellValue = string | number | { number: string } | null | undefined;

interface ZipEntry {
  name: Buffer;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

function contentTypes(sheetCount: number): string {
  const sheets = Array.from(
    { length: sheetCount },
    (_, index) =>
      `<Override PartName="/xl/worksheets/sheet${index + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
  ).join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${sheets}<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;
}
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
/** Sheets are rId1…rIdN, the styles rId(N+1). */
function workbookRels(sheetCount: number): string {
  const sheets = Array.from(
    { length: sheetCount },
    (_, index) =>
      `<Relationship Id="rId${index + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${index + 1}.xml"/>`,
  ).join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets}<Relationship Id="rId${sheetCount + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;
}
/**
 * The styles part: font 1 is the header's bold (style 1); each number format a sheet's column
 * names (a decimal's #,##0.00) is a custom numFmt (ids from 164) with a cell style of its own,
 * styles 2, 3, … in the order of `numberFormats`.
 */
function stylesXml(numberFormats: readonly string[]): string {
  const numFmts =
    numberFormats.length > 0
      ? `<numFmts count="${numberFormats.length}">${numberFormats.map((format, index) => `<numFmt numFmtId="${164 + index}" formatCode="${escapeXml(format)}"/>`).join('')}</numFmts>`
      : '';
  const formatXfs = numberFormats
    .map(
      (_format, index) =>
        `<xf numFmtId="${164 + index}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${numFmts}<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="${2 + numberFormats.length}"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>${formatXfs}</cellXfs></styleSheet>`;
}

// XML 1.0 forbids most control characters; a spreadsheet cell silently drops them.
// eslint-disable-next-line no-control-regex -- these are exactly the characters XML forbids
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const XML_SPECIAL = /[&<>"]/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

export function escapeXml(text: string): string {
  return text.replace(INVALID_XML, '').replace(XML_SPECIAL, (c) => ESCAPES[c] ?? c);
}

/** A, B, …, Z, AA, AB, … */
export function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

function dosDateTime(date: Date): { time: number; day: number } {
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | Math.floor(date.getSeconds() / 2),
    day: ((date.getFullYear() - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

// ---------------------------------------------------------------------------------------------
// Cell text as bytes

/** What a byte of UTF-8 text needs in cell XML. */
const PLAIN = 0;
const ESCAPE = 1; // & < > "
const DROP = 2; // a control character XML forbids
const NEWLINE = 3; // kept, but the text needs xml:space="preserve"
const MAYBE_NONCHARACTER = 4; // 0xEF starts U+FFFE and U+FFFF (EF BF BE, EF BF BF), which XML forbids
const BYTE_CLASS = new Uint8Array(256);
for (let byte = 0; byte < 0x20; byte += 1) BYTE_CLASS[byte] = DROP;
BYTE_CLASS[0x09] = PLAIN;
BYTE_CLASS[0x0d] = PLAIN;
BYTE_CLASS[0x0a] = NEWLINE;
for (const byte of [0x26, 0x3c, 0x3e, 0x22]) BYTE_CLASS[byte] = ESCAPE;
BYTE_CLASS[0xef] = MAYBE_NONCHARACTER;

const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');
const ENTITY: Record<number, Buffer> = {
  0x26: ascii('&amp;'),
  0x3c: ascii('&lt;'),
  0x3e: ascii('&gt;'),
  0x22: ascii('&quot;'),
};

const isSpace = (byte: number | undefined): boolean =>
  byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

const ROW_OPEN = ascii('<row r="');
const ROW_OPEN_END = ascii('">');
const ROW_CLOSE = ascii('</row>');
const REF_OPEN = ascii('<c r="');
const HEADER_STYLE = ascii(' s="1"');
/** What follows the reference. */
const REF_TEXT_OPEN = ascii('" t="inlineStr"><is><t>');
const REF_NUMBER_OPEN = ascii('"><v>');
const PRESERVE = ascii(' xml:space="preserve"');
const TEXT_CLOSE = ascii('</t></is></c>');
const NUMBER_CLOSE = ascii('</v></c>');

/** Text escaped for a cell once and written many times (dictionary labels, yes/no, titles). */
export interface SheetText {
  xml: Buffer;
  /** Leading or trailing white space or a line break: written with xml:space="preserve". */
  isSpaced: boolean;
}

/** Bytes that may stand in a number cell's <v>: digits, sign, point, exponent. */
const NUMBER_BYTE = new Uint8Array(256);
for (const char of '0123456789+-.eE') NUMBER_BYTE[char.charCodeAt(0)] = 1;

/**
 * Rows of the sheet, encoded to bytes. Cells of a row come in increasing column order; a
 * column without a cell is left empty. Values come as UTF-8 bytes (src[start, end)) or as
 * JavaScript values.
 */
export interface SheetRows {
  startRow(): void;
  endRow(): void;
  /** A text cell; the bytes are escaped here. Empty text leaves the cell empty. */
  textBytes(column: number, src: Uint8Array, start: number, end: number): void;
  /** A number in its text form (as databases print it); anything else becomes a text cell. */
  numberBytes(column: number, src: Uint8Array, start: number, end: number): void;
  text(column: number, text: SheetText): void;
  value(column: number, value: CellValue): void;
}

/**
 * Sheet XML travels in chunks of this size, kept for reuse by every export of the process:
 * buffers this large are allocated outside the JavaScript heap, and allocating fresh ones for
 * every export leaves the process holding memory it no longer uses.
 */
const CHUNK = 256 * 1024;
const POOLED_CHUNKS = 12;
const freeChunks: Buffer[] = [];

function takeChunk(bytes: number): Buffer {
  if (bytes <= CHUNK) return freeChunks.pop() ?? Buffer.allocUnsafe(CHUNK);
  return Buffer.allocUnsafe(bytes);
}

function returnChunk(chunk: Buffer): void {
  if (chunk.length === CHUNK && freeChunks.length < POOLED_CHUNKS) freeChunks.push(chunk);
}

/**
 * Writes a whole constant piece of markup at `at`; returns the end. Natively: a JavaScript
 * loop costs a few nanoseconds a byte, TypedArray#set of a whole array about as much as ten
 * bytes by hand (a subarray would cost more than it saves, hence whole pieces only).
 */
function put(buffer: Buffer, at: number, piece: Buffer): number {
  buffer.set(piece, at);
  return at + piece.length;
}

/** Copies src[start, end) to buffer at `at`; returns the end. Short runs by hand, long ones natively. */
function copy(buffer: Buffer, at: number, src: Uint8Array, start: number, end: number): number {
  if (end - start > 48) {
    buffer.set(src.subarray(start, end), at);
    return at + end - start;
  }
  for (let index = start; index < end; index += 1) buffer[at++] = src[index] as number;
  return at;
}

class SheetRowEncoder implements SheetRows {
  /** Encoded rows not yet handed on: buffer[0, length). */
  buffer: Buffer;
  length = 0;
  rowNumber = 0;
  isHeader = false;
  private previousColumn = -1;
  /** The current row number as ASCII digits: rowDigits[0, rowDigitsLength). */
  private readonly rowDigits = Buffer.alloc(16);
  private rowDigitsLength = 0;
  private scratch = Buffer.allocUnsafe(4096);
  private readonly letters: Buffer[] = [];
  /** The style attribute ( s="2") of each column's number cells (a number format), if any. */
  columnStyles: (Buffer | undefined)[] = [];

  /**
   * @param onFull takes a full chunk (buffer[0, length)) and returns the buffer to continue in;
   *   without it the buffer grows instead.
   */
  constructor(
    size: number,
    private readonly onFull?: (chunk: Buffer, bytes: number) => Buffer,
  ) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  /** Makes room for `bytes` more bytes in one piece. */
  reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    if (this.onFull) {
      this.buffer = this.onFull(this.buffer.subarray(0, this.length), bytes);
      this.length = 0;
      return;
    }
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  startRow(): void {
    this.rowNumber += 1;
    this.previousColumn = -1;
    let number = this.rowNumber;
    let length = 0;
    const digits = this.rowDigits;
    for (; number > 0; number = Math.floor(number / 10)) digits[15 - length++] = 0x30 + (number % 10);
    digits.copyWithin(0, 16 - length, 16);
    this.rowDigitsLength = length;
    this.reserve(32);
    let at = copy(this.buffer, this.length, ROW_OPEN, 0, ROW_OPEN.length);
    at = copy(this.buffer, at, digits, 0, length);
    this.length = copy(this.buffer, at, ROW_OPEN_END, 0, ROW_OPEN_END.length);
  }

  endRow(): void {
    this.reserve(8);
    this.length = put(this.buffer, this.length, ROW_CLOSE);
  }

  private columnLetters(column: number): Buffer {
    let letters = this.letters[column];
    if (!letters) {
      letters = ascii(columnLetters(column));
      this.letters[column] = letters;
    }
    return letters;
  }

  /**
   * Writes a cell's opening up to its content (room reserved by the caller): without the
   * reference when the cell directly follows the previous one of the row. Returns the end.
   */
  private open(column: number, isNumber: boolean): number {
    const buffer = this.buffer;
    let at = this.length;
    // Every cell carries its reference: a cell without one is valid OOXML, but exceljs's
    // streaming reader (the import's) fails on it, and an export must import back.
    this.previousColumn = column;
    at = copy(buffer, at, REF_OPEN, 0, REF_OPEN.length);
    const letters = this.columnLetters(column);
    at = copy(buffer, at, letters, 0, letters.length);
    at = copy(buffer, at, this.rowDigits, 0, this.rowDigitsLength);
    const style = this.isHeader ? HEADER_STYLE : isNumber ? this.columnStyles[column] : undefined;
    if (style) {
      buffer[at++] = 0x22; // close the reference, then the style
      at = copy(buffer, at, style, 0, style.length - 1);
    }
    return isNumber
      ? copy(buffer, at, REF_NUMBER_OPEN, 0, REF_NUMBER_OPEN.length)
      : put(buffer, at, REF_TEXT_OPEN);
  }

  /**
   * Copies UTF-8 text to `at` escaped for XML: & < > " as entities, the characters XML forbids
   * left out. Returns the end, negated when the text needs xml:space="preserve" (leading or
   * trailing white space, or a line break). The caller reserves six times the text (" → &quot;).
   */
  private escape(at: number, src: Uint8Array, start: number, end: number): number {
    const buffer = this.buffer;
    let isSpaced = isSpace(src[start]) || isSpace(src[end - 1]);
    for (let index = start; index < end; index += 1) {
      const byte = src[index] as number;
      const kind = BYTE_CLASS[byte];
      if (kind === PLAIN) {
        buffer[at++] = byte;
      } else if (kind === ESCAPE) {
        const entity = ENTITY[byte] as Buffer;
        at = copy(buffer, at, entity, 0, entity.length);
      } else if (kind === NEWLINE) {
        buffer[at++] = byte;
        isSpaced = true;
      } else if (kind === MAYBE_NONCHARACTER) {
        const third = src[index + 2];
        if (index + 2 < end && src[index + 1] === 0xbf && (third === 0xbe || third === 0xbf)) index += 2;
        else buffer[at++] = byte;
      }
      // DROP: left out
    }
    return isSpaced ? -at : at;
  }

  textBytes(column: number, src: Uint8Array, start: number, end: number): void {
    if (start >= end) return;
    this.reserve(128 + (end - start) * 6);
    const tagEnd = this.open(column, false);
    let at = this.escape(tagEnd, src, start, end);
    if (at < 0) {
      // Needs xml:space="preserve": the attribute goes into the tag, before its closing '>'.
      at = -at;
      const buffer = this.buffer;
      buffer.copyWithin(tagEnd - 1 + PRESERVE.length, tagEnd - 1, at);
      copy(buffer, tagEnd - 1, PRESERVE, 0, PRESERVE.length);
      at += PRESERVE.length;
    }
    this.length = put(this.buffer, at, TEXT_CLOSE);
  }

  numberBytes(column: number, src: Uint8Array, start: number, end: number): void {
    if (start >= end) return;
    // NaN and ±Infinity are no numbers a sheet can hold: they show as text.
    const last = src[end - 1] as number;
    let isNumber = last >= 0x30 && last <= 0x39;
    for (let index = start; isNumber && index < end; index += 1)
      isNumber = NUMBER_BYTE[src[index] as number] === 1;
    if (!isNumber) {
      this.textBytes(column, src, start, end);
      return;
    }
    this.reserve(96 + end - start);
    const at = copy(this.buffer, this.open(column, true), src, start, end);
    this.length = copy(this.buffer, at, NUMBER_CLOSE, 0, NUMBER_CLOSE.length);
  }

  text(column: number, text: SheetText): void {
    const xml = text.xml;
    this.reserve(xml.length + 160);
    const tagEnd = this.open(column, false);
    let at = tagEnd;
    if (text.isSpaced) {
      at = copy(this.buffer, tagEnd - 1, PRESERVE, 0, PRESERVE.length);
      this.buffer[at++] = 0x3e; // >
    }
    at = xml.length > 12 ? put(this.buffer, at, xml) : copy(this.buffer, at, xml, 0, xml.length);
    this.length = put(this.buffer, at, TEXT_CLOSE);
  }

  /** A JavaScript string as UTF-8, in a scratch buffer valid until the next call. */
  utf8(text: string): Buffer {
    if (text.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafe(text.length * 3 + 1024);
    const length = this.scratch.write(text, 0, 'utf8');
    return this.scratch.subarray(0, length);
  }

  value(column: number, value: CellValue): void {
    if (value === null || value === undefined || value === '') return;
    if (typeof value === 'object') {
      const digits = this.utf8(value.number);
      this.numberBytes(column, digits, 0, digits.length);
      return;
    }
    const bytes = this.utf8(String(value));
    if (typeof value === 'number' && Number.isFinite(value)) this.numberBytes(column, bytes, 0, bytes.length);
    else this.textBytes(column, bytes, 0, bytes.length);
  }

  /** Escapes text on its own (for SheetText); returns the end, negated as escape() does. */
  escapeAlone(src: Uint8Array): number {
    this.reserve(src.length * 6 + 16);
    return this.escape(0, src, 0, src.length);
  }
}

/** A text escaped for cells once, for writing many times with SheetRows.text. */
export function sheetText(text: string): SheetText {
  const bytes = Buffer.from(text, 'utf8');
  const encoder = new SheetRowEncoder(bytes.length * 6 + 16);
  const end = encoder.escapeAlone(bytes);
  return {
    xml: Buffer.from(encoder.buffer.subarray(0, Math.abs(end))),
    isSpaced: end < 0 || Object.is(end, -0),
  };
}

// ---------------------------------------------------------------------------------------------
// The writer

export interface XlsxSheet {
  sheetName: string;
  headers: string[];
  /** Column widths in characters. */
  widths?: number[];
  /** A number format per column for its number cells (#,##0.00), or undefined for none. */
  numberFormats?: (string | undefined)[];
}

export interface XlsxOptions extends XlsxSheet {
  /** Sheets after the first (detail rows), written in turn after nextSheet(). */
  moreSheets?: XlsxSheet[];
}

export interface XlsxWriter {
  stream: Readable;
  /** Where rows are encoded; flush() sends them on. */
  rows: SheetRows;
  /** Sends the rows encoded so far; resolves once the reader has room for more. */
  flush(): Promise<void>;
  /**
   * Without sending anything: a promise when the chunks sent are not consumed yet (more rows
   * should wait for it), else undefined. Lets a producer that pushes rows hold back.
   */
  backlog(): Promise<void> | undefined;
  /** Ends the current sheet and starts the next of `moreSheets` (its header row written). */
  nextSheet(): Promise<void>;
  /** Adds data rows and flushes them. */
  writeRows(rows: CellValue[][]): Promise<void>;
  end(): Promise<void>;
}

export function createXlsxWriter(options: XlsxOptions): XlsxWriter {
  const output = new PassThrough({ highWaterMark: 256 * 1024 });
  const entries: ZipEntry[] = [];
  const stamp = dosDateTime(new Date());
  let offset = 0;

  const push = (chunk: Buffer): boolean => {
    offset += chunk.length;
    return output.write(chunk);
  };

  const localHeader = (name: Buffer): Buffer => {
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(0x0808, 6); // sizes in a data descriptor; UTF-8 names
    header.writeUInt16LE(8, 8); // deflate
    header.writeUInt16LE(stamp.time, 10);
    header.writeUInt16LE(stamp.day, 12);
    header.writeUInt16LE(name.length, 26);
    return Buffer.concat([header, name]);
  };

  const descriptor = (entry: ZipEntry): Buffer => {
    const buffer = Buffer.alloc(16);
    buffer.writeUInt32LE(0x08074b50, 0);
    buffer.writeUInt32LE(entry.crc >>> 0, 4);
    buffer.writeUInt32LE(entry.compressedSize, 8);
    buffer.writeUInt32LE(entry.size, 12);
    return buffer;
  };

  const addSmallFile = (path: string, content: string): void => {
    const name = Buffer.from(path, 'utf8');
    const data = Buffer.from(content, 'utf8');
    const compressed = deflateRawSync(data, { level: 6 });
    const entry: ZipEntry = {
      name,
      crc: crc32(data),
      compressedSize: compressed.length,
      size: data.length,
      offset,
    };
    push(localHeader(name));
    push(compressed);
    push(descriptor(entry));
    entries.push(entry);
  };

  const sheets: XlsxSheet[] = [options, ...(options.moreSheets ?? [])];
  const sheetTitle = (sheet: XlsxSheet, index: number): string =>
    sheet.sheetName.replace(/[\\/?*[\]:]/g, ' ').slice(0, 31) || `Sheet${index + 1}`;
  addSmallFile('[Content_Types].xml', contentTypes(sheets.length));
  addSmallFile('_rels/.rels', ROOT_RELS);
  addSmallFile(
    'xl/workbook.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${sheets.map((sheet, index) => `<sheet name="${escapeXml(sheetTitle(sheet, index))}" sheetId="${index + 1}" r:id="rId${index + 1}"/>`).join('')}</sheets></workbook>`,
  );
  addSmallFile('xl/_rels/workbook.xml.rels', workbookRels(sheets.length));
  const numberFormats = [
    ...new Set(
      sheets.flatMap((sheet) => (sheet.numberFormats ?? []).filter((format): format is string => !!format)),
    ),
  ];
  addSmallFile('xl/styles.xml', stylesXml(numberFormats));

  // Chunks handed to deflate and not yet consumed by it. Encoding goes on while deflate (on a
  // thread of its own) works through them; flush() waits when it falls behind.
  let pending = 0;
  let waiter: (() => void) | undefined;
  function wake(): void {
    const resolve = waiter;
    waiter = undefined;
    resolve?.();
  }

  /** One sheet in the zip: streamed through deflate, its CRC and sizes in a data descriptor at its end. */
  interface OpenSheet {
    entry: ZipEntry;
    deflate: DeflateRaw;
    ended: Promise<void>;
  }
  const openSheet = (index: number): OpenSheet => {
    const name = Buffer.from(`xl/worksheets/sheet${index + 1}.xml`, 'utf8');
    const entry: ZipEntry = { name, crc: 0, compressedSize: 0, size: 0, offset };
    push(localHeader(name));
    // Level 1 with zlib's largest hash table (memLevel 9, 256 KiB more than the default 8):
    // cell markup repeats at short distances, and the bigger table finds it faster (about a
    // sixth less deflate time per row, slightly smaller output).
    const deflate: DeflateRaw = createDeflateRaw({ level: 1, memLevel: 9, chunkSize: 64 * 1024 });
    deflate.on('data', (chunk: Buffer) => {
      entry.compressedSize += chunk.length;
      if (!push(chunk)) deflate.pause();
    });
    const ended = new Promise<void>((resolve, reject) => {
      deflate.once('end', resolve);
      deflate.once('close', resolve); // destroyed because the client went away
      deflate.once('error', reject);
    });
    return { entry, deflate, ended };
  };
  let current = openSheet(0);
  let sheetIndex = 0;
  output.on('drain', () => current.deflate.resume());
  // A client that goes away ends the deflate stream too, and with it every wait below.
  output.once('close', () => {
    if (!current.deflate.destroyed) current.deflate.destroy();
    wake();
  });

  const send = (chunk: Buffer, buffer: Buffer): void => {
    const { entry, deflate } = current;
    if (chunk.length === 0 || deflate.destroyed) {
      returnChunk(buffer);
      return;
    }
    entry.crc = crc32(chunk, entry.crc);
    entry.size += chunk.length;
    pending += 1;
    deflate.write(chunk, () => {
      pending -= 1;
      returnChunk(buffer); // consumed: the buffer can take more rows
      wake();
    });
  };

  const encoder = new SheetRowEncoder(0, (chunk, bytes) => {
    send(chunk, encoder.buffer);
    return takeChunk(bytes);
  });
  encoder.buffer = takeChunk(CHUNK);

  /** Chunks that may wait for deflate before the producer is held back. */
  const MAX_PENDING = 2;
  const drained = async (): Promise<void> => {
    while (pending > MAX_PENDING && !current.deflate.destroyed) {
      await new Promise<void>((resolve) => {
        waiter = resolve;
      });
    }
  };
  const flush = async (): Promise<void> => {
    if (encoder.length > 0) {
      const buffer = encoder.buffer;
      const chunk = buffer.subarray(0, encoder.length);
      encoder.buffer = takeChunk(CHUNK);
      encoder.length = 0;
      send(chunk, buffer);
    }
    await drained();
  };
  const backlog = (): Promise<void> | undefined =>
    pending > MAX_PENDING && !current.deflate.destroyed ? drained() : undefined;

  const writeBytes = (bytes: Buffer): void => {
    encoder.reserve(bytes.length);
    encoder.buffer.set(bytes, encoder.length);
    encoder.length += bytes.length;
  };

  const startSheet = (sheet: XlsxSheet): void => {
    const widths = sheet.widths ?? [];
    const cols =
      widths.length > 0
        ? `<cols>${widths.map((width, index) => `<col min="${index + 1}" max="${index + 1}" width="${width}" customWidth="1"/>`).join('')}</cols>`
        : '';
    writeBytes(
      Buffer.from(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>${cols}<sheetData>`,
        'utf8',
      ),
    );
    encoder.columnStyles = (sheet.numberFormats ?? []).map((format) =>
      format ? ascii(` s="${2 + numberFormats.indexOf(format)}"`) : undefined,
    );
    // Each sheet counts its rows from 1 (a detail sheet's header is row 1, under the frozen pane).
    encoder.rowNumber = 0;
    encoder.isHeader = true;
    encoder.startRow();
    sheet.headers.forEach((header, index) => encoder.value(index, header));
    encoder.endRow();
    encoder.isHeader = false;
  };

  /** Closes the sheet being written; false when the client went away. */
  const endSheet = async (): Promise<boolean> => {
    writeBytes(ascii('</sheetData></worksheet>'));
    await flush();
    if (current.deflate.destroyed) return false;
    current.deflate.end();
    await current.ended;
    push(descriptor(current.entry));
    entries.push(current.entry);
    return true;
  };

  startSheet(options);

  return {
    stream: output,
    rows: encoder,
    flush,
    backlog,
    nextSheet: async () => {
      const next = sheets[sheetIndex + 1];
      if (!next) throw new Error('no more sheets were declared');
      if (!(await endSheet())) return;
      sheetIndex += 1;
      current = openSheet(sheetIndex);
      startSheet(next);
    },
    writeRows: async (rows) => {
      for (const values of rows) {
        encoder.startRow();
        values.forEach((value, index) => encoder.value(index, value));
        encoder.endRow();
      }
      await flush();
    },
    end: async () => {
      const isOpen = await endSheet();
      returnChunk(encoder.buffer);
      if (!isOpen) return;
      const directoryStart = offset;
      for (const entry of entries) {
        const header = Buffer.alloc(46);
        header.writeUInt32LE(0x02014b50, 0);
        header.writeUInt16LE(20, 4);
        header.writeUInt16LE(20, 6);
        header.writeUInt16LE(0x0808, 8);
        header.writeUInt16LE(8, 10);
        header.writeUInt16LE(stamp.time, 12);
        header.writeUInt16LE(stamp.day, 14);
        header.writeUInt32LE(entry.crc >>> 0, 16);
        header.writeUInt32LE(entry.compressedSize, 20);
        header.writeUInt32LE(entry.size, 24);
        header.writeUInt16LE(entry.name.length, 28);
        header.writeUInt32LE(entry.offset, 42);
        push(Buffer.concat([header, entry.name]));
      }
      const end = Buffer.alloc(22);
      end.writeUInt32LE(0x06054b50, 0);
      end.writeUInt16LE(entries.length, 8);
      end.writeUInt16LE(entries.length, 10);
      end.writeUInt32LE(offset - directoryStart, 12);
      end.writeUInt32LE(directoryStart, 16);
      push(end);
      output.end();
    },
  };
}
