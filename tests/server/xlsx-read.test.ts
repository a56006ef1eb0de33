import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import {
  openUploadedSheet,
  surveyUploadedSheet,
  uploadedHeader,
} from '../../src/server/features/crud/import/read.js';
import { ImportBudgetError } from '../../src/server/lib/xlsx/budget.js';
import { throughExcelJs, throughStream, type Rows } from '../support/xlsx-rows.js';

/**
 * The import's streaming .xlsx reader (src/server/lib/xlsx) against exceljs's full workbook
 * loader: the same files give the same cell texts, row by row.
 */

async function bothAgree(bytes: Buffer): Promise<Rows[]> {
  const stream = await throughStream(bytes);
  expect(stream).toEqual(await throughExcelJs(bytes));
  return stream;
}

async function written(fill: (workbook: ExcelJS.Workbook) => void): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  fill(workbook);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** An .xlsx whose first sheet's XML is `sheetData` (and whose shared strings are `strings`). */
async function handMade(sheetData: string, strings: string[] = [], styles?: string): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
  );
  zip.file(
    'xl/workbook.xml',
    '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="数据" sheetId="1" r:id="rId1"/></sheets></workbook>',
  );
  zip.file(
    'xl/_rels/workbook.xml.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
  );
  zip.file(
    'xl/sharedStrings.xml',
    `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${strings.length}" uniqueCount="${strings.length}">${strings.join('')}</sst>`,
  );
  zip.file(
    'xl/styles.xml',
    styles ??
      '<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="176" formatCode="yyyy&quot;年&quot;m&quot;月&quot;d&quot;日&quot;"/></numFmts><fonts count="1"><font><sz val="11"/></font></fonts><fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="176" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs></styleSheet>',
  );
  zip.file(
    'xl/worksheets/sheet1.xml',
    `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${sheetData}</sheetData></worksheet>`,
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

describe('the streaming xlsx reader reads what exceljs reads', () => {
  it('strings (Chinese, emoji, XML specials, spaces), numbers, booleans, dates, empty cells', async () => {
    const bytes = await written((workbook) => {
      const sheet = workbook.addWorksheet('采购');
      sheet.addRow(['标题', '项目编号', '预算', '发布', '截止时间', '是否', '备注']);
      sheet.addRow([
        '办公用品采购',
        'P-001',
        12345.67,
        new Date(Date.UTC(2024, 0, 15)),
        new Date(Date.UTC(2024, 1, 29, 9, 30, 5)),
        true,
        '  前后空格  ',
      ]);
      sheet.addRow(['<a & b> "quoted" \'apos\'', '', -0.5, null, null, false, '😀 emoji 𠮷']);
      sheet.addRow([]);
      sheet.addRow(['only first']);
      const sparse = sheet.getRow(7);
      sparse.getCell(2).value = 'B';
      sparse.getCell(5).value = 5;
      sparse.getCell(28).value = 'AB';
      sheet.addRow([1e21, 0.1 + 0.2, 123456789012, 1.5e-7, 0, '0012', 'line\nbreak']);
      sheet.getColumn(4).numFmt = 'yyyy-mm-dd';
    });
    const [rows] = await bothAgree(bytes);
    expect(rows?.[1]?.cells).toEqual([
      '办公用品采购',
      'P-001',
      '12345.67',
      '2024-01-15',
      '2024-02-29 09:30:05',
      'true',
      '前后空格',
    ]);
    expect(rows?.find((row) => row.row === 7)?.cells[27]).toBe('AB');
    expect(rows?.find((row) => row.row === 7)?.cells.slice(0, 5)).toEqual(['', 'B', '', '', '5']);
  });

  it('rich text, formulas, error results, several sheets in their order', async () => {
    const bytes = await written((workbook) => {
      const first = workbook.addWorksheet('first');
      first.addRow(['name', 'sum', 'text', 'when']);
      first.addRow([
        {
          richText: [
            { text: '红色', font: { color: { argb: 'FFFF0000' } } },
            { text: ' and bold', font: { bold: true } },
          ],
        },
        { formula: 'A3+1', result: 42 },
        { formula: 'CONCAT("a","b")', result: 'ab' },
        { formula: 'TODAY()', result: new Date(Date.UTC(2023, 11, 31)) },
      ]);
      first.getCell('A4').value = 'after';
      first.getCell('C4').value = { formula: 'NA()', result: { error: '#N/A' } };
      const second = workbook.addWorksheet('second');
      second.addRow(['x']);
      second.addRow([2]);
    });
    const sheets = await bothAgree(bytes);
    expect(sheets.length).toBe(2);
    expect(sheets[0]?.[1]?.cells).toEqual(['红色 and bold', '42', 'ab', '2023-12-31']);
    expect(sheets[0]?.[2]?.cells).toEqual(['after', '', '']);
  });

  it('a large sheet: 5 000 rows read the same', async () => {
    const bytes = await written((workbook) => {
      const sheet = workbook.addWorksheet('big');
      sheet.addRow(['title', 'n', 'when']);
      for (let index = 0; index < 5000; index += 1)
        sheet.addRow([
          `第${index}行 ${'x'.repeat(index % 50)}`,
          index * 1.25,
          new Date(Date.UTC(2020, 0, 1 + (index % 900), index % 24)),
        ]);
      sheet.getColumn(3).numFmt = 'yyyy-mm-dd hh:mm';
    });
    const [rows] = await bothAgree(bytes);
    expect(rows?.length).toBe(5001);
  });

  it('hand-written XML: shared and inline rich text, numeric entities, date styles, gaps', async () => {
    const strings = [
      '<si><t>plain</t></si>',
      '<si><r><rPr><b/></rPr><t xml:space="preserve">rich </t></r><r><t>两段</t></r></si>',
      '<si><t>&#x4E2D;&#25991;&amp;</t></si>',
    ];
    const bytes = await handMade(
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="s"><v>1</v></c><c r="D1" t="s"><v>2</v></c></row>' +
        '<row r="3"><c r="A3" t="inlineStr"><is><t>inline</t></is></c><c r="B3" s="1"><v>45306</v></c><c r="C3" s="2"><v>45306.5</v></c><c r="D3" s="3"><v>1234.5</v></c><c r="E3" t="b"><v>0</v></c><c r="F3" t="e"><v>#DIV/0!</v></c></row>' +
        '<row r="4"><c r="A4" t="inlineStr"><is><r><t>a</t></r><r><t>b</t></r></is></c><c r="B4"><v>7</v></c><c r="E4" t="str"><f>"x"</f><v>x&lt;y</v></c></row>',
      strings,
    );
    const [rows] = await bothAgree(bytes);
    expect(rows).toEqual([
      { row: 1, cells: ['plain', '', 'rich 两段', '中文&'] },
      { row: 3, cells: ['inline', '2024-01-15', '2024-01-15 12:00:00', '1234.5', 'false', ''] },
      { row: 4, cells: ['ab', '7', '', '', 'x<y'] },
    ]);
  });
});

describe('the streaming xlsx reader where exceljs reads wrong', () => {
  it('phonetic guides (rPh) are not part of the text', async () => {
    const bytes = await handMade('<row r="1"><c r="A1" t="s"><v>0</v></c></row>', [
      '<si><t>漢字</t><rPh sb="0" eb="2"><t>カンジ</t></rPh><phoneticPr fontId="1"/></si>',
    ]);
    expect(await throughStream(bytes)).toEqual([[{ row: 1, cells: ['漢字'] }]]);
  });

  it('the East Asian built-in date formats (numFmtId 31, 57, 58) are dates', async () => {
    const styles =
      '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="31"/><xf numFmtId="58"/></cellXfs></styleSheet>';
    const bytes = await handMade(
      '<row r="1"><c r="A1" s="1"><v>45306</v></c><c r="B1" s="2"><v>45306</v></c></row>',
      [],
      styles,
    );
    expect(await throughStream(bytes)).toEqual([[{ row: 1, cells: ['2024-01-15', '2024-01-15'] }]]);
  });

  it('rows and cells without references follow the one before', async () => {
    const bytes = await handMade(
      '<row><c t="inlineStr"><is><t>a</t></is></c><c><v>7</v></c><c r="E1"><v>5</v></c><c><v>6</v></c></row><row><c><v>1</v></c></row>',
    );
    expect(await throughStream(bytes)).toEqual([
      [
        { row: 1, cells: ['a', '7', '', '', '5', '6'] },
        { row: 2, cells: ['1'] },
      ],
    ]);
  });

  it('namespace-prefixed tags (as the Open XML SDK writes them) are read', async () => {
    const zip = await JSZip.loadAsync(await handMade(''));
    zip.file(
      'xl/worksheets/sheet1.xml',
      '<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData><x:row r="1"><x:c r="B1" t="inlineStr"><x:is><x:t>prefixed</x:t></x:is></x:c></x:row></x:sheetData></x:worksheet>',
    );
    const bytes = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    expect(await throughStream(bytes)).toEqual([[{ row: 1, cells: ['', 'prefixed'] }]]);
  });
});

describe('openUploadedSheet', () => {
  it('an .xlsx: the header, then the rows in chunks; a broken file is a problem on /file', async () => {
    const bytes = await written((workbook) => {
      const sheet = workbook.addWorksheet('s');
      sheet.addRow(['a', 'b']);
      for (let index = 1; index <= 25; index += 1) sheet.addRow([`r${index}`, index]);
    });
    const sheet = await openUploadedSheet({ bytes, maxRows: 100, chunkRows: 10 });
    expect(sheet.header).toEqual(['a', 'b']);
    const sizes: number[] = [];
    for await (const chunk of sheet.chunks) sizes.push(chunk.length);
    expect(sizes).toEqual([10, 10, 5]);
    await expect(
      openUploadedSheet({ bytes: bytes.subarray(0, bytes.length - 100), maxRows: 100, chunkRows: 10 }),
    ).rejects.toMatchObject({
      errors: [{ field: '/file' }],
    });
  });
});

describe('surveyUploadedSheet', () => {
  const padded = (): Promise<Buffer> =>
    written((workbook) => {
      const sheet = workbook.addWorksheet('s');
      // A blank row before the header, blank and space-only rows among the data: none is counted.
      sheet.addRow([]);
      sheet.addRow([' name ', 'age']);
      for (let index = 1; index <= 30; index += 1) {
        sheet.addRow([`r${index}`, index]);
        if (index % 10 === 0) sheet.addRow(['  ', '']);
      }
    });

  it('an .xlsx: its header (trimmed) and the count of its data rows, as the import reads them', async () => {
    const bytes = await padded();
    expect(await surveyUploadedSheet({ bytes, maxRows: 100 })).toEqual({ header: ['name', 'age'], rows: 30 });
    const sheet = await openUploadedSheet({ bytes, maxRows: 100, chunkRows: 1000 });
    let rows = 0;
    for await (const chunk of sheet.chunks) rows += chunk.length;
    expect(rows).toBe(30);
    // Only the header.
    expect({ header: await uploadedHeader(bytes) }).toEqual({
      header: ['name', 'age'],
    });
  });

  it('past maxRows the budget error of the rows; a CSV is counted the same; a broken file is a problem on /file', async () => {
    const bytes = await padded();
    await expect(surveyUploadedSheet({ bytes, maxRows: 29 })).rejects.toEqual(
      new ImportBudgetError('rows', 29),
    );
    expect(await surveyUploadedSheet({ bytes, maxRows: 30 })).toMatchObject({ rows: 30 });
    const csv = Buffer.from('\n name ,age\nr1,1\n , \nr2,2\n', 'utf8');
    expect(await surveyUploadedSheet({ bytes: csv, maxRows: 10 })).toEqual({
      header: ['name', 'age'],
      rows: 2,
    });
    await expect(surveyUploadedSheet({ bytes: csv, maxRows: 1 })).rejects.toEqual(
      new ImportBudgetError('rows', 1),
    );
    await expect(
      surveyUploadedSheet({ bytes: bytes.subarray(0, bytes.length - 100), maxRows: 100 }),
    ).rejects.toMatchObject({ errors: [{ field: '/file' }] });
  });
});
