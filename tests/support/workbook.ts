import ExcelJS from 'exceljs';

/**
 * Workbooks as a test reads and writes them through exceljs (loaded whole): what an export or an
 * import template gave, what an import is given.
 */

/** A sheet's non-empty rows, each its cells' values from the first column on. */
export function rowsOf(sheet: ExcelJS.Worksheet | undefined): unknown[][] {
  const rows: unknown[][] = [];
  sheet?.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

/** Every sheet of an .xlsx, in order: its name and rows. */
export async function sheetsOf(bytes: Buffer): Promise<{ name: string; rows: unknown[][] }[]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook.worksheets.map((sheet) => ({ name: sheet.name, rows: rowsOf(sheet) }));
}

/** The rows of an .xlsx's first sheet (none when it has no sheet). */
export async function firstSheetRows(bytes: Buffer): Promise<unknown[][]> {
  return (await sheetsOf(bytes))[0]?.rows ?? [];
}

/** An .xlsx of the sheets given, each a name and its rows. */
export async function workbookOf(sheets: [string, unknown[][]][]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of sheets) workbook.addWorksheet(name).addRows(rows);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
