import { inflateRawSync } from 'node:zlib';

/**
 * Just enough of the zip format to read one entry of an .xlsx (no zip64: the files here are far
 * below 4 GiB). Sizes come from the central directory, because a streamed zip leaves them out of
 * the local headers.
 */
export function readZipEntry(zip: Buffer, name: string): Buffer {
  const EOCD = 0x06054b50;
  let eocd = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 65535); at -= 1) {
    if (zip.readUInt32LE(at) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file (no end of central directory)');
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let index = 0; index < entries; index += 1) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('broken central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const entryName = zip.toString('utf8', at + 46, at + 46 + nameLength);
    names.push(entryName);
    if (entryName === name) {
      const localNameLength = zip.readUInt16LE(localOffset + 26);
      const localExtraLength = zip.readUInt16LE(localOffset + 28);
      const start = localOffset + 30 + localNameLength + localExtraLength;
      const data = zip.subarray(start, start + compressedSize);
      if (method === 0) return Buffer.from(data);
      if (method === 8) return inflateRawSync(data);
      throw new Error(`zip method ${method} not supported`);
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`${name} not in the zip (entries: ${names.join(', ')})`);
}

export interface SheetCheck {
  rows: number;
  lastRowNumber: number;
  cellsInLastRow: number;
  sheetXmlBytes: number;
  lastRowXml: string;
}

/** Counts the <row> elements of the first worksheet of an .xlsx (the header row included). */
export function checkSheet(xlsx: Buffer): SheetCheck {
  const xml = readZipEntry(xlsx, 'xl/worksheets/sheet1.xml').toString('utf8');
  let rows = 0;
  let last = -1;
  for (let at = xml.indexOf('<row '); at >= 0; at = xml.indexOf('<row ', at + 5)) {
    rows += 1;
    last = at;
  }
  const lastRowXml = last >= 0 ? xml.slice(last, xml.indexOf('</row>', last) + 6) : '';
  const lastRowNumber = Number(/<row r="(\d+)"/.exec(lastRowXml)?.[1] ?? NaN);
  const cellsInLastRow = (lastRowXml.match(/<c[ >]/g) ?? []).length;
  return { rows, lastRowNumber, cellsInLastRow, sheetXmlBytes: Buffer.byteLength(xml), lastRowXml };
}
