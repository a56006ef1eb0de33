import type { FieldSchema } from './types.js';

/**
 * The bookkeeping columns of a detail's child table (no dependencies: the form designer uses
 * them too).
 */

/** Columns every detail table has besides the item's own (see DetailDef). */
export const DETAIL_COLUMNS = ['id', 'parent_id', 'seq', 'tenant_code'] as const;

/** The bookkeeping columns of a detail's child table: the defaults, or an adopted table's own (x-detail.parentColumn). */
export interface DetailColumns {
  parentColumn: string;
  seqColumn: string | null;
  keyColumn: string;
  isAdopted: boolean;
}

export function detailColumns(property: FieldSchema): DetailColumns {
  const options = property['x-detail'] ?? {};
  if (options.parentColumn === undefined)
    return { parentColumn: 'parent_id', seqColumn: 'seq', keyColumn: 'id', isAdopted: false };
  return {
    parentColumn: options.parentColumn,
    seqColumn: options.seq === undefined ? 'seq' : options.seq,
    keyColumn: options.key ?? 'id',
    isAdopted: true,
  };
}

/** The columns an item property of a detail cannot map to: its child table's bookkeeping ones. */
export function reservedDetailColumns(property: FieldSchema): string[] {
  const columns = detailColumns(property);
  if (!columns.isAdopted) return [...DETAIL_COLUMNS];
  return [columns.keyColumn, columns.parentColumn, ...(columns.seqColumn ? [columns.seqColumn] : [])];
}
