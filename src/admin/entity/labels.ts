import type { ListColumn } from '../../engine/index.js';
import type { Titles } from '../../engine/types.js';
import { DECIMAL_TEXT, groupDecimal } from '../../engine/decimal.js';
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

/**
 * A designed form's name in the user's language (the form list, the publish dialog, the version
 * history, the process modeler's form picker): its title in that language (标题（简体）…, the
 * content's x-ui.titles), else its stored name (the English title), else its code.
 */
export function formTitle(
  form: { formName?: string | null | undefined; formCode?: string | null | undefined; formContent?: unknown },
  language: keyof Titles,
): string {
  const content = form.formContent;
  const titles =
    content !== null && typeof content === 'object'
      ? (content as { 'x-ui'?: { titles?: Titles } })['x-ui']?.titles
      : undefined;
  return titles?.[language] || form.formName || form.formCode || '';
}

/** Labels of a dictionary's values and of a referenced entity's records, by value. */
export type LabelLookup = (value: unknown) => string | undefined;

/** Zh, tw and en group digits alike: 12,860,000. */
const AMOUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** An amount with thousands separators and its unit (x-list format amount, unit yuan: 12,860,000 元). */
export function amountText(value: number, unit: string | undefined, t: Translate): string {
  const number = AMOUNT.format(value);
  return unit ? `${number} ${t(`units.${unit}`, { defaultValue: unit })}` : number;
}

/**
 * The text of a list cell: dictionary and reference labels, dates as YYYY-MM-DD HH:mm:ss,
 * booleans as yes/no, amounts grouped with their unit; an empty value or a dash as is.
 */
export function cellText(
  column: Pick<ListColumn, 'dict' | 'ref' | 'format' | 'display' | 'unit'>,
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
  // A decimal's exact text, grouped by thousands without going through a float.
  if (column.format === 'decimal' && typeof value === 'string' && DECIMAL_TEXT.test(value)) {
    const grouped = groupDecimal(value);
    return column.unit ? `${grouped} ${t(`units.${column.unit}`, { defaultValue: column.unit })}` : grouped;
  }
  // numeric columns may arrive as text (PostgreSQL numeric)
  if (column.display === 'amount' && (typeof value === 'number' || typeof value === 'string')) {
    const number = Number(value);
    if (String(value).trim() !== '' && Number.isFinite(number)) return amountText(number, column.unit, t);
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
