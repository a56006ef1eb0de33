import { reservedDetailColumns } from '../../../../engine/detail-columns.js';
import { toColumnName } from '../../../../engine/naming.js';
import type { FieldSchema, ItemSchema, Titles } from '../../../../engine/types.js';
import { FIELD_NAME, type DesignFieldSchema } from './model.js';

/**
 * The columns of a sub-table (an x-detail field: an array whose items are objects): each item
 * property is a column of the row, stored in the child table. Pure functions over the field's
 * schema, keeping the columns in their order.
 */

export type ColumnType = 'string' | 'integer' | 'number' | 'date';
export const COLUMN_TYPES: readonly ColumnType[] = ['string', 'integer', 'number', 'date'];

export interface SubtableColumn {
  name: string;
  schema: FieldSchema;
  isRequired: boolean;
  type: ColumnType;
}

const itemsOf = (schema: DesignFieldSchema): ItemSchema => schema.items ?? { type: 'object' };

export function columnType(schema: FieldSchema): ColumnType {
  if (schema.type === 'integer' || schema.type === 'number') return schema.type;
  return schema.format === 'date' ? 'date' : 'string';
}

export function subtableColumns(schema: DesignFieldSchema): SubtableColumn[] {
  const items = itemsOf(schema);
  return Object.entries(items.properties ?? {}).map(([name, column]) => ({
    name,
    schema: column,
    isRequired: (items.required ?? []).includes(name),
    type: columnType(column),
  }));
}

function withItems(schema: DesignFieldSchema, properties: Record<string, FieldSchema>, required: string[]) {
  const { required: _old, ...items } = itemsOf(schema);
  return {
    ...schema,
    items: { ...items, type: 'object' as const, properties, ...(required.length > 0 ? { required } : {}) },
  };
}

/** Why a column cannot take a name: not an identifier, a column of the child table's own, or taken. */
export function columnProblem(
  schema: DesignFieldSchema,
  current: string,
  name: string,
): 'invalid' | 'reserved' | 'taken' | undefined {
  if (!FIELD_NAME.test(name)) return 'invalid';
  // The child table's own columns (parent_id, seq, …, or an adopted table's: x-detail.parentColumn).
  if (reservedDetailColumns(schema as FieldSchema).includes(toColumnName(name))) return 'reserved';
  if (name !== current && Object.hasOwn(itemsOf(schema).properties ?? {}, name)) return 'taken';
  return undefined;
}

/** Renames a column in place (its position kept), and in the required list. */
export function renameColumn(schema: DesignFieldSchema, current: string, name: string): DesignFieldSchema {
  if (current === name || columnProblem(schema, current, name)) return schema;
  const items = itemsOf(schema);
  const properties = Object.fromEntries(
    Object.entries(items.properties ?? {}).map(([key, column]) => [key === current ? name : key, column]),
  );
  const required = (items.required ?? []).map((key) => (key === current ? name : key));
  return withItems(schema, properties, required);
}

/** Changes one column's schema, required flag or both. */
export function updateColumn(
  schema: DesignFieldSchema,
  name: string,
  change: { schema?: FieldSchema; isRequired?: boolean },
): DesignFieldSchema {
  const items = itemsOf(schema);
  const properties = { ...(items.properties ?? {}) };
  if (change.schema) properties[name] = change.schema;
  let required = items.required ?? [];
  if (change.isRequired === true && !required.includes(name)) required = [...required, name];
  if (change.isRequired === false) required = required.filter((key) => key !== name);
  return withItems(schema, properties, required);
}

/** A column's schema for a type, keeping its title and titles. */
export function typedColumn(column: FieldSchema, type: ColumnType): FieldSchema {
  const labels: { title?: string; 'x-ui'?: { titles?: Titles } } = {};
  if (column.title !== undefined) labels.title = column.title;
  if (column['x-ui']?.titles) labels['x-ui'] = { titles: column['x-ui'].titles };
  switch (type) {
    case 'string':
      return { type: 'string', maxLength: 100, ...labels };
    case 'date':
      return { type: 'string', format: 'date', ...labels };
    case 'integer':
      return { type: 'integer', ...labels };
    case 'number':
      return { type: 'number', ...labels };
  }
}

/** A new text column at the end, named column1, column2, … */
export function addColumn(schema: DesignFieldSchema): DesignFieldSchema {
  const items = itemsOf(schema);
  const taken = new Set(Object.keys(items.properties ?? {}));
  let n = 1;
  while (taken.has(`column${n}`)) n += 1;
  const name = `column${n}`;
  return withItems(
    schema,
    { ...(items.properties ?? {}), [name]: typedColumn({ type: 'string', title: `Column ${n}` }, 'string') },
    items.required ?? [],
  );
}

/** Removes a column; the last one stays (a row needs one). */
export function removeColumn(schema: DesignFieldSchema, name: string): DesignFieldSchema {
  const items = itemsOf(schema);
  const properties = { ...(items.properties ?? {}) };
  if (Object.keys(properties).length <= 1) return schema;
  delete properties[name];
  return withItems(
    schema,
    properties,
    (items.required ?? []).filter((key) => key !== name),
  );
}
