import { PassThrough, type Readable } from 'node:stream';
import { crc32, createDeflateRaw, deflateRawSync, type DeflateRaw } from 'node:zlib';

/**
 * A streaming writer of one-sheet .xlsx files: inline strings, a bold frozen header row, no
 * shared-string table, so memory does not grow with the row count. It writes the zip container
 * itself (entries with data descriptors, deflate level 1) and honours backpressure end to end.
 * Files stay below the 4 GiB limit of zip without its zip64 extension.
 */
export type CellValue = string | number | null | undefined;

interface ZipEntry {
  name: Buffer;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;
const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs></styleSheet>`;

// XML 1.0 forbids most control characters; a spreadsheet cell silently drops them.
// eslint-disable-next-line no-control-regex -- these are exactly the characters XML forbids
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const XML_SPECIAL = /[&<>"]/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

// eslint-disable-next-line no-control-regex -- see INVALID_XML
const NEEDS_ESCAPE = /[&<>"\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

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

export interface XlsxOptions {
  sheetName: string;
  headers: string[];
  /** Column widths in characters. */
  widths?: number[];
}

export interface XlsxWriter {
  stream: Readable;
  /** Adds data rows; resolves once they are taken (waits while the reader is behind). */
  writeRows(rows: CellValue[][]): Promise<void>;
  end(): Promise<void>;
}

export function createXlsxWriter(options: XlsxOptions): XlsxWriter {
  const output = new PassThrough({ highWaterMark: 256 * 1024 });
  const entries: ZipEntry[] = [];
  const stamp = dosDateTime(new Date());
  let offset = 0;
  const letters = options.headers.map((_, index) => columnLetters(index));
  let rowNumber = 0;

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

  addSmallFile('[Content_Types].xml', CONTENT_TYPES);
  addSmallFile('_rels/.rels', ROOT_RELS);
  addSmallFile(
    'xl/workbook.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="${escapeXml(options.sheetName.replace(/[\\/?*[\]:]/g, ' ').slice(0, 31) || 'Sheet1')}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  );
  addSmallFile('xl/_rels/workbook.xml.rels', WORKBOOK_RELS);
  addSmallFile('xl/styles.xml', STYLES);

  // The sheet streams through deflate; its CRC and sizes go into a data descriptor at the end.
  const sheetName = Buffer.from('xl/worksheets/sheet1.xml', 'utf8');
  const sheet: ZipEntry = { name: sheetName, crc: 0, compressedSize: 0, size: 0, offset };
  push(localHeader(sheetName));
  const deflate: DeflateRaw = createDeflateRaw({ level: 1 });
  deflate.on('data', (chunk: Buffer) => {
    sheet.compressedSize += chunk.length;
    if (!push(chunk)) deflate.pause();
  });
  output.on('drain', () => deflate.resume());
  const deflateEnded = new Promise<void>((resolve, reject) => {
    deflate.once('end', resolve);
    deflate.once('error', reject);
  });

  const writeXml = (xml: string): Promise<void> => {
    const data = Buffer.from(xml, 'utf8');
    sheet.crc = crc32(data, sheet.crc);
    sheet.size += data.length;
    if (deflate.write(data)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        deflate.off('drain', done);
        output.off('close', done);
        resolve();
      };
      deflate.once('drain', done);
      output.once('close', done); // the client went away
    });
  };

  // Hot path: one string per row built by concatenation, one deflate write per batch of rows.
  const row = (values: CellValue[], style: string): string => {
    rowNumber += 1;
    const number = String(rowNumber);
    let xml = '<row r="' + number + '">';
    for (let index = 0; index < values.length; index += 1) {
      const value = values[index];
      if (value === null || value === undefined || value === '') continue;
      const ref = (letters[index] ?? columnLetters(index)) + number;
      if (typeof value === 'number' && Number.isFinite(value)) {
        xml += '<c r="' + ref + '"' + style + '><v>' + value + '</v></c>';
      } else {
        const text = String(value);
        const escaped = NEEDS_ESCAPE.test(text) ? escapeXml(text) : text;
        xml +=
          '<c r="' +
          ref +
          '"' +
          style +
          ' t="inlineStr"><is><t xml:space="preserve">' +
          escaped +
          '</t></is></c>';
      }
    }
    return xml + '</row>';
  };

  const widths = options.widths ?? [];
  const cols =
    widths.length > 0
      ? `<cols>${widths.map((width, index) => `<col min="${index + 1}" max="${index + 1}" width="${width}" customWidth="1"/>`).join('')}</cols>`
      : '';
  const started = writeXml(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>${cols}<sheetData>${row(options.headers, ' s="1"')}`,
  );

  return {
    stream: output,
    writeRows: async (rows) => {
      await started;
      let xml = '';
      for (const values of rows) xml += row(values, '');
      await writeXml(xml);
    },
    end: async () => {
      await started;
      await writeXml('</sheetData></worksheet>');
      deflate.end();
      await deflateEnded;
      push(descriptor(sheet));
      entries.push(sheet);
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
