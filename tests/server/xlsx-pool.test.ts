import { describe, expect, it } from 'vitest';
import { ImportBudgetError } from '../../src/server/lib/xlsx/budget.js';
import { xlsxRowsOffThread, xlsxSurveyOffThread, type XlsxSheetRow } from '../../src/server/lib/xlsx/pool.js';
import { xlsxOf } from '../support/hostile-xlsx.js';

/** The .xlsx reading threads of the import (lib/xlsx/pool.ts): rows in batches, the time limit, reuse. */

const rowsOf = async (bytes: Buffer, which: 'first' | 'rest' = 'first'): Promise<XlsxSheetRow[]> => {
  const rows: XlsxSheetRow[] = [];
  for await (const batch of xlsxRowsOffThread({ bytes, which })) rows.push(...batch);
  return rows;
};

const numbered = (count: number): Buffer =>
  xlsxOf({
    sheetData: Array.from(
      { length: count },
      (_, index) => `<row r="${index + 1}"><c r="A${index + 1}"><v>${index}</v></c></row>`,
    ),
  });

describe('xlsxRowsOffThread', () => {
  it('hands over every row of the first sheet in order, in batches', async () => {
    const rows = await rowsOf(numbered(2_500));
    expect(rows).toHaveLength(2_500);
    expect(rows[2_499]).toEqual({ sheet: 'data', row: 2_500, cells: ['2499'] });
    // No sheet after the first.
    expect(await rowsOf(numbered(3), 'rest')).toEqual([]);
  });

  it('stops a reading that keeps the request waiting past its time budget, and reads again after', async () => {
    const slow = xlsxOf({
      sheetData: ['<row r="1"><c r="A1" t="s"><v>0</v></c></row>'],
      sharedStrings: [{ text: '<si><t>a</t></si>', count: 900_000 }],
    });
    const reading = (async () => {
      for await (const _ of xlsxRowsOffThread({ bytes: slow, which: 'first', parseMs: 20 })) {
        // The budget ends the reading before its first batch.
      }
    })();
    await expect(reading).rejects.toEqual(new ImportBudgetError('parseMs', 20));
    // The stopped thread was replaced: readings go on.
    expect(await rowsOf(numbered(5))).toHaveLength(5);
  });

  it('a reading left early frees its thread; several readings at once each get their rows', async () => {
    for await (const batch of xlsxRowsOffThread({ bytes: numbered(5_000), which: 'first' })) {
      expect(batch.length).toBeGreaterThan(0);
      break;
    }
    const counts = await Promise.all(
      [10, 20, 30, 40, 50, 60].map(async (count) => (await rowsOf(numbered(count))).length),
    );
    expect(counts).toEqual([10, 20, 30, 40, 50, 60]);
  });

  it('a file that is not an .xlsx is an error naming why, not a budget', async () => {
    await expect(rowsOf(Buffer.from('PK\u0003\u0004 not a zip at all'))).rejects.toThrow(/zip/);
  });

  it('a survey hands over the first row holding a value and the count, stopping past its limit', async () => {
    const bytes = xlsxOf({
      sheetData: [
        '<row r="1"><c r="A1" t="inlineStr"><is><t> </t></is></c></row>',
        ...Array.from(
          { length: 50 },
          (_, index) =>
            `<row r="${index + 2}"><c r="A${index + 2}" t="inlineStr"><is><t> v${index} </t></is></c></row>`,
        ),
      ],
    });
    expect(await xlsxSurveyOffThread({ bytes, which: 'first', stopAfter: 1_000 })).toEqual({
      first: ['v0'],
      filled: 50,
    });
    // Stopped once past 10: the count is 11, and the thread is free for the next reading.
    expect(await xlsxSurveyOffThread({ bytes, which: 'first', stopAfter: 10 })).toEqual({
      first: ['v0'],
      filled: 11,
    });
    expect(await xlsxSurveyOffThread({ bytes, which: 'rest', stopAfter: 10 })).toEqual({ filled: 0 });
    expect((await rowsOf(bytes))[1]).toEqual({ sheet: 'data', row: 2, cells: ['v0'] });
  });
});
