export interface Goal {
  op: '>=' | '<';
  value: number;
}

/** One line of the table: a figure, its unit and (when it has one) its goal. */
export interface Figure {
  suite: string;
  name: string;
  value: number;
  unit: string;
  goal?: Goal;
  isPass?: boolean;
  note?: string;
}

export interface SuiteResult {
  suite: string;
  figures: Figure[];
  /** Raw measurements behind the figures (every run, every sample), for the JSON file. */
  details: Record<string, unknown>;
  skipped?: string;
}

/** A suite measured on each database in turn: the figures of all, the details by database. */
export async function perDatabase<Kind extends string>(
  suite: string,
  kinds: readonly Kind[],
  measure: (kind: Kind) => Promise<{ figures: Figure[]; details: unknown }>,
): Promise<SuiteResult> {
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  for (const kind of kinds) {
    const measured = await measure(kind);
    figures.push(...measured.figures);
    details[kind] = measured.details;
  }
  return { suite, figures, details };
}

export function figure(
  suite: string,
  name: string,
  value: number,
  unit: string,
  goal?: Goal,
  note?: string,
): Figure {
  const result: Figure = { suite, name, value, unit };
  if (goal) {
    result.goal = goal;
    result.isPass = goal.op === '>=' ? value >= goal.value : value < goal.value;
  }
  if (note) result.note = note;
  return result;
}

function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  const digits = unit === 'ratio' ? 3 : Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatTable(results: SuiteResult[]): string {
  const header = ['suite', 'figure', 'value', 'unit', 'goal', 'status', 'note'];
  const rows: string[][] = [];
  for (const result of results) {
    if (result.skipped) rows.push([result.suite, '(skipped)', '', '', '', 'SKIP', result.skipped]);
    for (const item of result.figures) {
      rows.push([
        item.suite,
        item.name,
        formatValue(item.value, item.unit),
        item.unit,
        item.goal ? `${item.goal.op} ${formatValue(item.goal.value, item.unit)}` : '',
        item.isPass === undefined ? '' : item.isPass ? 'ok' : 'MISSED',
        item.note ?? '',
      ]);
    }
  }
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]): string =>
    cells
      .map((cell, column) =>
        column === 2 ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}
