import type { ListColumn } from '../../engine/index.js';
import { formatDateTime } from '../../web/format.js';
import type { Translate } from '../i18n.js';

/** The first translation found among the keys, else the schema's own title. */
export function titleOf(t: Translate, keys: readonly string[], fallback: string): string {
  for (const key of keys) {
    const text = t(key, { defaultValue: '' });
    if (text) return text;
  }
  return fallback;
}

/** An entity's title: entities.<name>.title, else the schema's title. */
export function entityTitle(t: Translate, name: string, fallback: string): string {
  return titleOf(t, [`entities.${name}.title`], fallback);
}

/** Labels of a dictionary's values and of a referenced entity's records, by value. */
export type LabelLookup = (value: unknown) => string | undefined;

/**
 * The text of a list cell: dictionary and reference labels, dates as YYYY-MM-DD HH:mm:ss,
 * booleans as yes/no; an empty value or a dash as is.
 */
export function cellText(
  column: Pick<ListColumn, 'dict' | 'ref' | 'format'>,
  value: unknown,
  t: Translate,
  label?: LabelLookup,
): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((item) => cellText(column, item, t, label)).join(', ');
  if ((column.dict || column.ref) && label) return label(value) ?? String(value);
  if (column.format === 'date') return String(value).slice(0, 10);
  if (column.format === 'date-time') return formatDateTime(typeof value === 'number' ? value : String(value));
  if (typeof value === 'boolean') return t(value ? 'admin.crud.yes' : 'admin.crud.no');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
