import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { createXlsxWriter, sheetText } from '../../src/server/lib/xlsx/write.js';
import { READ_BUDGETS, ReadMeter } from '../../src/server/lib/xlsx/budget.js';
import { openXlsx } from '../../src/server/lib/xlsx/read.js';

/**
 * The export's sheet writer encodes cells as bytes (constant markup written natively, text
 * escaped byte by byte); whatever the text, the file must read back exactly, in the project's
 * own reader and in exceljs.
 */

async function fileOf(fill: (writer: ReturnType<typeof createXlsxWriter>) => Promise<void>): Promise<Buffer> {
  const writer = createXlsxWriter({ sheetName: '导出', headers: ['编号', 'Text', 'Label'] });
  const chunks: Buffer[] = [];
  const collected = pipeline(
    writer.stream,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    }),
  );
  await fill(writer);
  await writer.end();
  await collected;
  return Buffer.concat(chunks);
}

/**
 * Reads a sheet back with the reader the import uses. The import refuses a cell past Excel's own
 * 32,767 characters (BUDGETS.import.cellCharacters); this reads the writer's longest text, made
 * to cross the sheet's chunks, with room for it.
 */
async function rowsOf(file: Buffer): Promise<string[][]> {
  const book = await openXlsx(file, new ReadMeter({ ...READ_BUDGETS, cellCharacters: 100_000 }));
  const sheet = book.sheets[0];
  if (!sheet) throw new Error('no sheet');
  const rows: string[][] = [];
  for await (const row of book.rows(sheet)) rows.push(row.cells);
  return rows;
}

describe('sheet cells', () => {
  const long = `${'环保'.repeat(5000)}<&>"${'x'.repeat(70_000)}`; // longer than a chunk of the sheet
  const texts = [
    '普通中文文本',
    'a & b < c > d "e" \'f\'',
    '  leading and trailing  ',
    'line\nbreak',
    `control\u0000\u0001\u0008\u000b\u000c\u001f characters\ttab\r`,
    `noncharacters \uFFFE\uFFFF kept around`,
    '😀 emoji and 𠀀 astral',
    long,
  ];
  const expected = (text: string): string =>
    // eslint-disable-next-line no-control-regex -- the characters XML forbids, as the writer leaves them out
    text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');

  it('reads back every text exactly, control characters left out', async () => {
    const labels = texts.map(sheetText);
    const file = await fileOf(async (writer) => {
      for (const [index, text] of texts.entries()) {
        writer.rows.startRow();
        writer.rows.value(0, index + 1);
        const bytes = Buffer.from(text, 'utf8');
        writer.rows.textBytes(1, bytes, 0, bytes.length);
        writer.rows.text(2, labels[index] as ReturnType<typeof sheetText>);
        writer.rows.endRow();
      }
      await writer.flush();
    });
    const rows = await rowsOf(file);
    expect(rows[0]).toEqual(['编号', 'Text', 'Label']);
    for (const [index, text] of texts.entries()) {
      expect(rows[index + 1]?.[0]).toBe(String(index + 1));
      expect(rows[index + 1]?.[1], text.slice(0, 40)).toBe(expected(text));
      expect(rows[index + 1]?.[2], text.slice(0, 40)).toBe(expected(text));
    }

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(file as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    expect(sheet?.name).toBe('导出');
    expect(sheet?.getCell('B3').value).toBe(expected(texts[1] as string));
    expect(sheet?.getCell('C4').value).toBe(texts[2]);
    expect(sheet?.getCell('A9').value).toBe(8);
    expect(sheet?.getCell('B9').value).toBe(expected(long));
  });

  it('leaves empty values out and keeps later cells in their columns', async () => {
    const file = await fileOf(async (writer) => {
      for (let row = 0; row < 3; row += 1) {
        writer.rows.startRow();
        writer.rows.value(0, null);
        writer.rows.value(1, '');
        writer.rows.value(2, row === 1 ? undefined : `c${row}`);
        writer.rows.endRow();
      }
      await writer.flush();
    });
    expect((await rowsOf(file)).slice(1)).toEqual([['', '', 'c0'], [], ['', '', 'c2']]);
  });

  it('writes many rows across chunks in order, holding back a producer while deflate is behind', async () => {
    const count = 60_000;
    let heldBack = 0;
    const file = await fileOf(async (writer) => {
      for (let row = 0; row < count; row += 1) {
        writer.rows.startRow();
        writer.rows.value(0, row);
        writer.rows.value(1, `用户${row} & <${row}>`);
        writer.rows.endRow();
        const backlog = writer.backlog();
        if (backlog) {
          heldBack += 1;
          await backlog;
        }
      }
      await writer.flush();
    });
    expect(heldBack).toBeGreaterThan(0);
    const rows = await rowsOf(file);
    expect(rows).toHaveLength(count + 1);
    for (let row = 0; row < count; row += 997)
      expect(rows[row + 1]).toEqual([String(row), `用户${row} & <${row}>`]);
    expect(rows[count]).toEqual([String(count - 1), `用户${count - 1} & <${count - 1}>`]);
  });
});
