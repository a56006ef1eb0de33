import { constants, deflateRawSync } from 'node:zlib';

/**
 * Hostile .xlsx files made in the test (never committed): a zip of hand-written parts. A part is
 * a list of pieces, each deflated on its own as a non-final, byte-aligned block (a sync flush),
 * so that a piece repeated a million times is one small block written a million times: a part
 * that unpacks to hundreds of MB costs the test only its compressed size (a zip bomb of finding 4
 * of issue 31 is about 150 KB). The CRC fields are left 0: the import's reader does not check them.
 */

/** Text, or a text repeated `count` times. */
export type Piece = string | { text: string; count: number };

const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

function deflated(pieces: Piece[]): { data: Buffer; size: number } {
  const blocks: Buffer[] = [];
  let size = 0;
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      blocks.push(deflateRawSync(Buffer.from(piece), { finishFlush: constants.Z_SYNC_FLUSH }));
      size += Buffer.byteLength(piece);
      continue;
    }
    // About 1 MB of the text a block; the block repeated, then what is left.
    const perBlock = Math.max(1, Math.floor((1024 * 1024) / Buffer.byteLength(piece.text)));
    const whole = Math.floor(piece.count / perBlock);
    const block = deflateRawSync(Buffer.from(piece.text.repeat(perBlock)), {
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    for (let index = 0; index < whole; index += 1) blocks.push(block);
    const left = piece.count - whole * perBlock;
    if (left > 0)
      blocks.push(
        deflateRawSync(Buffer.from(piece.text.repeat(left)), { finishFlush: constants.Z_SYNC_FLUSH }),
      );
    size += piece.count * Buffer.byteLength(piece.text);
  }
  blocks.push(FINAL_BLOCK);
  return { data: Buffer.concat(blocks), size };
}

/** A zip of the parts (deflated). */
export function zipOf(parts: Record<string, Piece[]>): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  let count = 0;
  for (const [entryName, pieces] of Object.entries(parts)) {
    const { data, size } = deflated(pieces);
    const name = Buffer.from(entryName, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(Math.min(size, 0xfffffffe), 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(Math.min(size, 0xfffffffe), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    directory.push(central, name);
    offset += 30 + name.length + data.length;
    count += 1;
  }
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directoryBytes, end]);
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/**
 * An .xlsx of one sheet ("data"): `sheetData` the XML inside <sheetData>, `sharedStrings` the XML
 * inside <sst> (absent: no shared strings part), `sst` attributes of <sst>.
 */
export function xlsxOf({
  sheetData,
  sharedStrings,
  sst = '',
}: {
  sheetData: Piece[];
  sharedStrings?: Piece[];
  sst?: string;
}): Buffer {
  const head = '<?xml version="1.0" encoding="UTF-8"?>';
  return zipOf({
    '_rels/.rels': [
      `${head}<Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${OFFICE}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    'xl/workbook.xml': [
      `${head}<workbook xmlns="${MAIN}" xmlns:r="${OFFICE}"><sheets><sheet name="data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    'xl/_rels/workbook.xml.rels': [
      `${head}<Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${OFFICE}/worksheet" Target="worksheets/sheet1.xml"/>${sharedStrings === undefined ? '' : `<Relationship Id="rId2" Type="${OFFICE}/sharedStrings" Target="sharedStrings.xml"/>`}</Relationships>`,
    ],
    'xl/worksheets/sheet1.xml': [
      `${head}<worksheet xmlns="${MAIN}"><sheetData>`,
      ...sheetData,
      '</sheetData></worksheet>',
    ],
    ...(sharedStrings === undefined
      ? {}
      : { 'xl/sharedStrings.xml': [`${head}<sst xmlns="${MAIN}"${sst}>`, ...sharedStrings, '</sst>'] }),
  });
}

const FIRST_CELL = '<row r="1"><c r="A1" t="s"><v>0</v></c></row>';

/** The two zip bombs of finding 4 of issue 31. */
export const BOMBS = {
  /** About 150 KB: a sheet whose one cell is one shared string of 150 MB. */
  oneHugeString: (): Buffer =>
    xlsxOf({
      sheetData: [FIRST_CELL],
      sharedStrings: ['<si><t>', { text: 'a', count: 150 * 1024 * 1024 }, '</t></si>'],
    }),
  /** 3 000 000 shared strings, their count not declared (so every one is read until the budget). */
  manyStrings: (): Buffer =>
    xlsxOf({
      sheetData: [FIRST_CELL],
      sharedStrings: [{ text: '<si><t>a</t></si>', count: 3_000_000 }],
    }),
};
