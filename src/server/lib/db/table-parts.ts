import type { TableSpec } from '../../../engine/index.js';

/** The columns and link tables the features' own tables (not entities) are made of. */

export const ID_COLUMN = { name: 'id', type: 'bigint', isNullable: false, isIdentity: true } as const;
export const TENANT_COLUMN = { name: 'tenant_code', type: 'text', isNullable: false } as const;
export const CREATED_AT_COLUMN = {
  name: 'created_at',
  type: 'timestamptz',
  isNullable: false,
  defaultSql: 'now()',
} as const;

/** A link table between two tables' ids (`left` and `right`: column and table), both cascading. */
export function linkTable(table: string, left: [string, string], right: [string, string]): TableSpec {
  return {
    name: table,
    columns: [
      ID_COLUMN,
      TENANT_COLUMN,
      { name: left[0], type: 'bigint', isNullable: false },
      { name: right[0], type: 'bigint', isNullable: false },
      CREATED_AT_COLUMN,
    ],
    primaryKey: ['id'],
    indexes: [
      { name: `${table}_uq`, columns: [left[0], right[0]], isUnique: true },
      { name: `${table}_${right[0]}_idx`, columns: [right[0]], isUnique: false },
    ],
    foreignKeys: [
      {
        name: `${table}_${left[0]}_fk`,
        columns: [left[0]],
        refTable: left[1],
        refColumns: ['id'],
        onDelete: 'cascade',
      },
      {
        name: `${table}_${right[0]}_fk`,
        columns: [right[0]],
        refTable: right[1],
        refColumns: ['id'],
        onDelete: 'cascade',
      },
    ],
  };
}
