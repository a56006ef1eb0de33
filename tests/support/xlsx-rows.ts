import ExcelJS from 'exceljs';
import { dateText, openXlsx } from '../../src/server/lib/xlsx/read.js';

/**
 * The rows of an .xlsx read two ways, to compare the import's streaming reader
 * (src/server/lib/xlsx) with exceljs's full workbook loader: every sheet's non-empty rows, cells
 * trimmed, as the import takes them.
 */

/** A cell value of exceljs as the import took it before the streaming reader. */
function excelText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return dateText(value);
  if ('richText' in value) return value.richText.map((part) => part.text).join('');
  if ('formula' in value || 'sharedFormula' in value)
    return excelText((value as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue);
  if ('text' in value) return String(value.text);
  return '';
}

export type Rows = { row: number; cells: string[] }[];

/** Every sheet's non-empty rows through exceljs (the workbook loaded whole). */
export async function throughExcelJs(bytes: Buffer): Promise<Rows[]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook.worksheets.map((sheet) => {
    const rows: Rows = [];
    sheet.eachRow((row, number) => {
      const values = (row.values ?? []) as ExcelJS.CellValue[];
      const cells = values.slice(1).map((value) => excelText(value).trim());
      for (let at = 0; at < values.length - 1; at += 1) cells[at] ??= '';
      if (cells.some((cell) => cell !== '')) rows.push({ row: number, cells });
    });
    return rows;
  });
}

/** Every sheet's non-empty rows through the streaming reader. */
export async function throughStream(bytes: Buffer): Promise<Rows[]> {
  const book = await openXlsx(bytes);
  const sheets: Rows[] = [];
  for (const sheet of book.sheets) {
    const rows: Rows = [];
    for await (const { row, cells } of book.rows(sheet)) {
      const trimmed = cells.map((cell) => cell.trim());
      if (trimmed.some((cell) => cell !== '')) rows.push({ row, cells: trimmed });
    }
    sheets.push(rows);
  }
  return sheets;
}
