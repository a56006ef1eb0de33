import { sql, type RawBuilder } from 'kysely';
import {
  decimalOf,
  evaluateExpression,
  ExpressionError,
  expressionValues,
  fieldValueOf,
  isInt64,
  isVirtualField,
  parseExpression,
  type EntityDef,
  type FieldDef,
} from '../../../../engine/index.js';
import type { CellValue, SheetRows } from '../../../lib/xlsx/write.js';

/**
 * A virtual computed field (x-computed, not stored) in an export: it has no column, so the row
 * hands over the fields its expression reads, as one JSON object, and the cell is computed from
 * them by the same evaluator the lists and forms use. Exact numbers travel as their text.
 */
export interface ComputedColumn {
  /** The fields the expression reads, as a JSON object's text. */
  select: RawBuilder<unknown>;
  /** The cell of one row, from that JSON text (null: an empty cell). */
  cell(json: string): CellValue;
}

export function computedColumn({
  entity,
  field,
  labels,
  displayTimestamp,
}: {
  entity: EntityDef;
  field: FieldDef;
  /** The cells of true and false. */
  labels: { yes: string; no: string };
  /** An ISO timestamp as the export shows it. */
  displayTimestamp: (iso: string) => string;
}): ComputedColumn | undefined {
  const expression = field.computed?.expression;
  if (!expression) return undefined;
  const inputs = parseExpression(expression)
    .names.map((name) => entity.fieldsByName.get(name))
    .filter((input): input is FieldDef => input !== undefined && !input.detail && !isVirtualField(input));
  const pairs = inputs.flatMap((input) => {
    const ref = sql.ref(`t.${input.column}`);
    const exact = decimalOf(input.schema) !== undefined || isInt64(input.schema);
    return [sql`${input.name}::text`, exact ? sql`${ref}::text` : ref];
  });
  const select = pairs.length === 0 ? sql`'{}'` : sql`json_build_object(${sql.join(pairs, sql`, `)})::text`;
  const properties = entity.schema.properties;
  const schema = field.schema;
  return {
    select,
    cell: (json) => {
      let value: unknown;
      try {
        const record = JSON.parse(json) as Record<string, unknown>;
        value = fieldValueOf(schema, evaluateExpression(expression, expressionValues(properties, record)));
      } catch (error) {
        // a value the expression cannot compute (a text where a number is wanted …): an empty cell
        if (error instanceof ExpressionError) return null;
        throw error;
      }
      if (value === null || value === undefined) return null;
      if (decimalOf(schema)) return { number: String(value) };
      if (typeof value === 'boolean') return value ? labels.yes : labels.no;
      if (typeof value === 'number') return value;
      if (schema.format === 'date-time' && typeof value === 'string') return displayTimestamp(value);
      return String(value);
    },
  };
}

/** Writes a computed column's cell from the row's JSON text, src[start, end). */
export function computedWriter(
  computed: ComputedColumn,
): (rows: SheetRows, column: number, src: Buffer, start: number, end: number) => void {
  return (rows, column, src, start, end) =>
    rows.value(column, computed.cell(src.toString('utf8', start, end)));
}
