import type { FieldDef, FieldSchema } from './types.js';

/**
 * Fields that hold uploaded files (x-ui widget `upload` or `image`): the ids of sys_file rows,
 * one (an integer field) or several (an array of integers). The server checks that each id is a
 * file the caller may see; lists show the files' names or thumbnails, exports their names. An
 * `image` widget on a string field keeps the picture's public address instead (an image URL
 * field such as a carousel picture's).
 */

/** What the files of a field are for: the upload's `use` (pictures are checked as images). */
export type FileFieldUse = 'image' | 'attachment';

/** Whether a schema holds file ids: an integer, or an array of integers. */
export function holdsFileIds(schema: Pick<FieldSchema, 'type' | 'items'>): boolean {
  return schema.type === 'integer' || (schema.type === 'array' && schema.items?.type === 'integer');
}

/** The use of a field holding file ids, undefined for any other field. */
export function fileFieldUse(field: Pick<FieldDef, 'schema'>): FileFieldUse | undefined {
  const widget = field.schema['x-ui']?.widget;
  if (widget !== 'upload' && widget !== 'image') return undefined;
  if (!holdsFileIds(field.schema)) return undefined;
  return widget === 'image' ? 'image' : 'attachment';
}

/** The file ids of a value of a file field (none for an empty one). */
export function fileIdsOf(value: unknown): number[] {
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  return items.filter((item): item is number => typeof item === 'number' && Number.isInteger(item));
}
