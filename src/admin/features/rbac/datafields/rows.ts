import type { DataFieldPermission } from '../../../../engine/api-types.js';

/**
 * One row of a menu's data-field permissions: the fields hidden from one role (可见 / 只读 / 隐藏:
 * a field in neither list is visible and writable), and those it sees but may not change.
 */
export interface DataFieldRow {
  /** Local key of the editor row. */
  key: string;
  /** Set once the row is stored. */
  id: number | undefined;
  roleCode: string | undefined;
  dataFields: string[];
  readOnlyFields: string[];
}

/** The row's lists once one list changed: a field is in one list at most (the one just chosen). */
export function withList(
  row: Pick<DataFieldRow, 'dataFields' | 'readOnlyFields'>,
  list: 'dataFields' | 'readOnlyFields',
  fields: string[],
): Pick<DataFieldRow, 'dataFields' | 'readOnlyFields'> {
  const chosen = new Set(fields);
  return list === 'dataFields'
    ? { dataFields: fields, readOnlyFields: row.readOnlyFields.filter((field) => !chosen.has(field)) }
    : { dataFields: row.dataFields.filter((field) => !chosen.has(field)), readOnlyFields: fields };
}

/** A row as queryDataFieldByMenuCode answers it. */
export type StoredDataFieldRow = DataFieldPermission;

export type RowErrors = Record<string, string>;

export function fromStored(rows: readonly StoredDataFieldRow[]): DataFieldRow[] {
  return rows.map((row) => ({
    key: `stored-${row.id}`,
    id: row.id,
    roleCode: row.roleCode,
    dataFields: [...row.dataFields],
    readOnlyFields: [...row.readOnlyFields],
  }));
}

/**
 * docs/product.md §5 "Menu data permission needs a unique role code per row": the rows without a role
 * and the second and later rows of a role code, by row key.
 */
export function rowErrors(
  rows: readonly DataFieldRow[],
  messages: { required: string; duplicate: string },
): RowErrors {
  const errors: RowErrors = {};
  const seen = new Set<string>();
  for (const row of rows) {
    if (!row.roleCode) errors[row.key] = messages.required;
    else if (seen.has(row.roleCode)) errors[row.key] = messages.duplicate;
    else seen.add(row.roleCode);
  }
  return errors;
}

/** Server field errors /rows/<index>/… → messages by row key. */
export function serverRowErrors(
  rows: readonly DataFieldRow[],
  errors: Record<string, unknown> | undefined,
): RowErrors {
  const result: RowErrors = {};
  for (const [field, messages] of Object.entries(errors ?? {})) {
    const index = /^rows\.(\d+)\./.exec(field)?.[1];
    const row = index === undefined ? undefined : rows[Number(index)];
    const text = Array.isArray(messages) ? messages.join('; ') : String(messages);
    if (row) result[row.key] = text;
  }
  return result;
}
