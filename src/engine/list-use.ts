import type { FieldSchema } from './types.js';

/** Text longer than this many characters is a column hidden by default (a summary, a body). */
export const LONG_TEXT_COLUMN = 500;

/**
 * Text longer than this many characters gets no btree list index, so it is not sortable: a btree
 * entry holds at most 2,704 bytes, so a long value (rich text, a description) could not be stored
 * at all, and no list sorts or matches such a field whole; its "contains" filter keeps its
 * trigram index.
 */
export const LONG_TEXT_LENGTH = 512;

/** What the generated list offers on one field, as its schema alone decides. */
export interface ListUse {
  /** Shown as a column by default (x-list.visible, else the default rule). */
  isListed: boolean;
  /** Can be ordered at all: a scalar, not a secret, not a long text. */
  isOrderable: boolean;
  /**
   * Sortable: an orderable column shown by default, or one whose x-list says sorter true. The
   * entity adds its key, its default order's fields and its tree's sequence (buildEntity). A
   * yes/no column is sortable only when its x-list says sorter true: two values are no order to
   * page through, and its btree would be one more index kept up on every write.
   */
  isSortable: boolean;
}

/**
 * The list's use of a field: what the engine indexes it for (entity.ts, ddl.ts listIndexes), and
 * what the form designer's property panel shows as the defaults of its list switches. Pure and
 * import-free, so the designer's bundle takes it alone.
 */
export function listUseOf(name: string, schema: FieldSchema, isSystem: boolean): ListUse {
  const hints = schema['x-list'];
  const isPlain = schema['x-secret'] !== true && schema.type !== 'object';
  const isLong = schema.type === 'string' && (schema.maxLength ?? 0) > LONG_TEXT_COLUMN;
  // Of the bookkeeping columns only createdAt is shown by default.
  const isListed = hints?.visible ?? (isPlain && (isSystem ? name === 'createdAt' : !isLong));
  const isOrderable =
    isPlain &&
    schema.type !== 'array' &&
    !(schema.type === 'string' && (schema.maxLength ?? 0) > LONG_TEXT_LENGTH);
  return {
    isListed,
    isOrderable,
    isSortable:
      isOrderable &&
      (hints?.sorter === true || (hints?.sorter !== false && isListed && schema.type !== 'boolean')),
  };
}
