/**
 * A survey of an import file's rows: the first row holding a value (the header) and how many
 * rows hold one, without handing the rows on. The .xlsx reading thread (worker.ts) and the CSV
 * reader (features/crud/import/read.ts) survey the same way.
 */

/** What a survey finds: the first row holding a value, and how many do. */
export interface RowSurvey {
  /** The cells of the first row holding a value (a cell not blank); none in an empty sheet. */
  first?: string[];
  /** Rows holding a value (past `stopAfter`, the reading stopped there). */
  filled: number;
}

/** A row none of whose cells (trimmed) holds a value: skipped by every reading of an import. */
export const isBlankRow = (cells: readonly string[]): boolean => cells.every((cell) => cell === '');

/** Surveys rows of trimmed cells; the walk stops once the rows holding a value pass `stopAfter`. */
export async function surveyRows(
  rows: AsyncIterable<{ cells: string[] }>,
  stopAfter: number,
): Promise<RowSurvey> {
  let first: string[] | undefined;
  let filled = 0;
  for await (const { cells } of rows) {
    if (isBlankRow(cells)) continue;
    first ??= cells;
    filled += 1;
    if (filled > stopAfter) break;
  }
  return { filled, ...(first ? { first } : {}) };
}
