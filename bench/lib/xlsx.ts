import { inflateRawSync } from 'node:zlib';
import { zipEntries } from '../../src/server/lib/xlsx/zip.js';

/**
 * One entry of an .xlsx, whole (the bench checks files far below 4 GiB). The entries come from
 * the import's own zip reader (its central directory walk); the entry is inflated at once here.
 */
export function readZipEntry(zip: Buffer, name: string): Buffer {
  const entries = zipEntries(zip);
  const entry = entries.get(name);
  if (!entry) throw new Error(`${name} not in the zip (entries: ${[...entries.keys()].join(', ')})`);
  const at = entry.headerOffset;
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const data = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return Buffer.from(data);
  if (entry.method === 8) return inflateRawSync(data);
  throw new Error(`zip method ${entry.method} not supported`);
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
