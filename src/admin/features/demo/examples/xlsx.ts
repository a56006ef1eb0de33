import type ExcelJS from 'exceljs';

/**
 * exceljs in the browser (its own browser build), loaded by the excel pages only: it weighs
 * about a megabyte and no other page needs it.
 */
export async function loadExcel(): Promise<typeof ExcelJS> {
  const module = (await import('exceljs')) as unknown as { default?: typeof ExcelJS } & typeof ExcelJS;
  return module.default ?? module;
}

/** A cell as the text a person sees in it. */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date)
    return value
      .toISOString()
      .replace('T', ' ')
      .replace(/\.000Z$|Z$/, '');
  if ('richText' in value) return value.richText.map((part) => part.text).join('');
  if ('formula' in value || 'sharedFormula' in value)
    return cellText((value as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue);
  if ('text' in value) return String(value.text);
  return '';
}

export interface SheetPreview {
  sheetName: string;
  header: string[];
  /** Per header cell: part of a merged range other than its first cell (its title stays empty). */
  isHeaderMerged: boolean[];
  rows: string[][];
}

/** The first sheet of an .xlsx: its first non-empty row as the header, the rows below as text. */
export async function readFirstSheet(bytes: ArrayBuffer): Promise<SheetPreview> {
  const Excel = await loadExcel();
  const workbook = new Excel.Workbook();
  await workbook.xlsx.load(bytes);
  const sheet = workbook.worksheets[0];
  const preview: SheetPreview = { sheetName: sheet?.name ?? '', header: [], isHeaderMerged: [], rows: [] };
  const width = sheet?.columnCount ?? 0;
  sheet?.eachRow((row) => {
    const cells: string[] = [];
    const isMerged: boolean[] = [];
    for (let column = 1; column <= width; column += 1) {
      const cell = row.getCell(column);
      // a merged range shows its value once, in its first cell (exceljs repeats it in every cell)
      const isCovered = cell.isMerged && cell.master.address !== cell.address;
      isMerged.push(isCovered);
      cells.push(isCovered ? '' : cellText(cell.value).trim());
    }
    if (cells.every((cell) => cell === '')) return;
    if (preview.header.length === 0) {
      preview.header = cells;
      preview.isHeaderMerged = isMerged;
    } else preview.rows.push(cells);
  });
  return preview;
}
