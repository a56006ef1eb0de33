import { parseSortExpression } from './entity.js';
import { DECIMAL_TEXT, decimalOf, INT64_TEXT, isInt64 } from './decimal.js';
import { decodeCursor, listFingerprint, orderTerms, type Cursor } from './list-page.js';
import { englishTranslate, typeWord, type Translate } from './messages.js';
import { EntityInputError, type EntityDef, type FieldDef, type FieldError, type SortTerm } from './types.js';

export const MAX_PAGE_SIZE = 10_000;
export const DEFAULT_PAGE_SIZE = 20;

export type Filter =
  | { field: FieldDef; op: 'contains'; value: string }
  | { field: FieldDef; op: 'in'; values: (string | number | boolean)[] }
  | { field: FieldDef; op: 'range'; from?: string; to?: string }
  | { field: FieldDef; op: 'hasItem'; value: string | number | boolean };

export interface ListQuery {
  currentPage: number;
  pageSize: number;
  sort: SortTerm[];
  filters: Filter[];
  /** The position after a row of an earlier page of the same list (`after`), if given. */
  cursor?: Cursor;
  /** Identifies the list's filters and order, which a cursor must match to be used. */
  fingerprint: string;
  /** `totalExact=true`: count every row, under a time limit, even above the estimate threshold. */
  wantsExactTotal: boolean;
}

/** Query parameters as a query string parser gives them: a repeated name becomes an array. */
export type RawParams = Record<string, unknown>;

const PAGING = new Set(['currentPage', 'pageSize', 'sort', 'after', 'totalExact']);

/**
 * A structured value as text, iteratively (no JSON.stringify: an export body may nest deep
 * enough to overflow a recursive walk). No client sends one as a filter; its text only has to be
 * something the filter parser can judge.
 */
function structuredText(value: object): string {
  const parts: string[] = [];
  const pending: unknown[] = [value];
  while (pending.length > 0 && parts.length < 1000) {
    const item = pending.pop();
    if (typeof item === 'object' && item !== null)
      for (const child of Object.values(item)) pending.push(child);
    else parts.push(String(item));
  }
  return `[${parts.join(',')}]`;
}

function asStrings(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : [raw];
  return list
    .filter((item) => item !== undefined && item !== null)
    .map((item) =>
      typeof item === 'string' ? item.trim() : typeof item === 'object' ? structuredText(item) : String(item),
    )
    .filter((item) => item.length > 0);
}

function coerceScalar(type: string, text: string): string | number | boolean | undefined {
  if (type === 'integer') return /^-?\d{1,15}$/.test(text) ? Number(text) : undefined;
  if (type === 'number') {
    const value = Number(text);
    return text !== '' && Number.isFinite(value) ? value : undefined;
  }
  if (type === 'boolean') {
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
    return undefined;
  }
  return text;
}

const DATE_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/;

/**
 * A date or date-time PostgreSQL can cast: the pattern alone lets 2024-02-30, month 13, hour 25
 * or offset +16:00 through, and the cast in SQL would then fail the whole query.
 */
export function isValidDateText(text: string): boolean {
  const match = DATE_PATTERN.exec(text);
  if (!match) return false;
  const part = (index: number): number => Number(match[index] ?? 0);
  const [year, month, day] = [part(1), part(2), part(3)];
  const isLeap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (year < 1 || daysInMonth === undefined || day < 1 || day > daysInMonth) return false;
  return part(4) <= 23 && part(5) <= 59 && part(6) <= 59 && part(7) <= 15 && part(8) <= 59;
}

function parseFilter(field: FieldDef, texts: string[], translate: Translate): Filter | FieldError {
  const pointer = `/${field.name}`;
  const invalid = (key: string, params: Record<string, unknown> = {}): FieldError => ({
    field: pointer,
    message: translate(key, params),
  });
  if (field.filter === 'dateRange') {
    if (texts.length !== 1) return invalid('validation.invalid');
    const parts = (texts[0] ?? '').split(',').map((part) => part.trim());
    const [from = '', to = ''] = parts;
    if (
      parts.length > 2 ||
      (from && !isValidDateText(from)) ||
      (to && !isValidDateText(to)) ||
      (!from && !to)
    ) {
      return invalid('validation.format', { format: 'date' });
    }
    return { field, op: 'range', ...(from ? { from } : {}), ...(to ? { to } : {}) };
  }
  if (field.type === 'array') {
    const itemType = field.schema.items?.type ?? 'string';
    if (texts.length !== 1) return invalid('validation.invalid');
    const value = coerceScalar(itemType, texts[0] ?? '');
    return value === undefined
      ? invalid('validation.type', { type: typeWord(itemType, translate) })
      : { field, op: 'hasItem', value };
  }
  if (field.filter === 'text') {
    if (texts.length !== 1) return invalid('validation.invalid');
    return { field, op: 'contains', value: texts[0] ?? '' };
  }
  const values: (string | number | boolean)[] = [];
  // Exact numbers are compared as text the database reads as numeric or bigint: never a float.
  const exact = decimalOf(field.schema) ? DECIMAL_TEXT : isInt64(field.schema) ? INT64_TEXT : undefined;
  if (exact) {
    for (const text of texts) {
      if (!exact.test(text))
        return invalid(exact === DECIMAL_TEXT ? 'validation.decimal' : 'validation.int64');
      values.push(text);
    }
    return { field, op: 'in', values };
  }
  for (const text of texts) {
    const value = coerceScalar(field.type, text);
    if (value === undefined) return invalid('validation.type', { type: typeWord(field.type, translate) });
    values.push(value);
  }
  return { field, op: 'in', values };
}

/**
 * Reads paging, sort and filters from query parameters (or an export body). Every name must be
 * a filterable field of the entity; anything else is a 400 naming it, before any SQL is built.
 */
export function parseListQuery(
  entity: EntityDef,
  params: RawParams,
  translate: Translate = englishTranslate,
): ListQuery {
  const errors: FieldError[] = [];
  const intParam = (name: string, fallback: number, max: number): number => {
    const texts = asStrings(params[name]);
    if (texts.length === 0) return fallback;
    const text = texts[0] ?? '';
    const value = /^-?\d+$/.test(text) ? Number(text) : NaN;
    // The message says which rule broke: "at most 10000" is no help for pageSize=0 or pageSize=ten.
    let message: string | undefined;
    if (texts.length > 1 || Number.isNaN(value))
      message = translate('validation.type', { type: typeWord('integer', translate) });
    else if (value < 1) message = translate('validation.minimum', { limit: 1 });
    else if (value > max) message = translate('validation.maximum', { limit: max });
    if (message !== undefined) {
      errors.push({ field: `/${name}`, message });
      return fallback;
    }
    return value;
  };
  const currentPage = intParam('currentPage', 1, 1_000_000_000);
  const pageSize = intParam('pageSize', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);

  let sort = entity.defaultSort;
  const sortTexts = asStrings(params.sort);
  if (sortTexts.length > 0) {
    sort = parseSortExpression(sortTexts.join(','));
    for (const term of sort) {
      const field = entity.fieldsByName.get(term.field);
      if (!field || !field.isSortable) {
        errors.push({ field: '/sort', message: translate('errors.unknownSortField', { field: term.field }) });
      }
    }
  }

  const flag = asStrings(params.totalExact);
  const wantsExactTotal = flag.length === 1 && (flag[0] === 'true' || flag[0] === '1');
  if (flag.length > 1 || (flag.length === 1 && !['true', 'false', '1', '0'].includes(flag[0] ?? ''))) {
    errors.push({
      field: '/totalExact',
      message: translate('validation.type', { type: typeWord('boolean', translate) }),
    });
  }

  const filters: Filter[] = [];
  const filterParams: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(params)) {
    if (PAGING.has(name)) continue;
    const field = entity.fieldsByName.get(name);
    if (!field || !field.filter) {
      errors.push({ field: `/${name}`, message: translate('errors.unknownFilterField', { field: name }) });
      continue;
    }
    const texts = asStrings(raw);
    if (texts.length === 0) continue;
    filterParams[name] = texts;
    if (texts.some((text) => text.includes('\u0000'))) {
      errors.push({ field: `/${name}`, message: translate('validation.invalid', {}) });
      continue;
    }
    const parsed = parseFilter(field, texts, translate);
    if ('op' in parsed) filters.push(parsed);
    else errors.push(parsed);
  }
  let cursor: Cursor | undefined;
  const afterTexts = asStrings(params.after);
  if (afterTexts.length > 0 && errors.length === 0) {
    cursor =
      afterTexts.length === 1
        ? decodeCursor(afterTexts[0] ?? '', orderTerms(entity, sort).length)
        : undefined;
    if (!cursor) errors.push({ field: '/after', message: translate('validation.invalid', {}) });
  }
  if (errors.length > 0) throw new EntityInputError(errors);
  return {
    currentPage,
    pageSize,
    sort,
    filters,
    ...(cursor ? { cursor } : {}),
    fingerprint: listFingerprint(entity, sort, filterParams),
    wantsExactTotal,
  };
}
