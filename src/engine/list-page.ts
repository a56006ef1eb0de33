import { isNeverNull } from './ddl.js';
import type { EntityDef, FieldDef, SortTerm } from './types.js';

/**
 * How a list page is read at any table size: which count to give (exact or the planner's
 * estimate) and where the page starts (offset for the first pages, a keyset cursor after a
 * known row, an index-only offset for a deep page reached without one). Pure: the server turns
 * the decisions into SQL.
 */

/** Below this many rows (by the planner's estimate) the count is exact. */
export const DEFAULT_EXACT_COUNT_LIMIT = 100_000;
/** The exact count a user asks for gives up after this long and says so. */
export const DEFAULT_COUNT_TIMEOUT_MS = 5_000;
/** A list under a row data scope counts at most this many rows unasked (CountPolicy.visitLimit). */
export const DEFAULT_SCOPED_COUNT_LIMIT = 10_000;
/**
 * Offsets up to this many rows are read the plain way; deeper ones find the page's keys on an
 * index first (a "deferred join"), so the rows skipped are index entries, not table rows.
 */
export const PLAIN_OFFSET_LIMIT = 2_000;

export interface CountPolicy {
  exactLimit: number;
  timeoutMs: number;
  /**
   * False on PGlite, whose statement_timeout never fires: the exact count is then taken in
   * chunks along the key and gives up between chunks once the time is up.
   */
  hasStatementTimeout?: boolean;
  /**
   * The most rows a count nobody asked for may visit (a list under a row data scope,
   * LIST_SCOPED_COUNT_LIMIT): the planner's estimate of a scope is small, so it would be counted
   * exactly, row by row, on every page. A scope estimated above the limit is not visited at all;
   * otherwise at most limit + 1 rows are counted, and past the limit the total is estimated
   * (`totalExact` false, at least limit + 1), as an unscoped large list's is; a count asked for
   * is unaffected.
   */
  visitLimit?: number;
}

export type CountPlan = 'exact' | 'estimate';

/** The exact count when it is cheap or asked for; otherwise the estimate stands. */
export function chooseCount(estimate: number, policy: CountPolicy, wantsExact: boolean): CountPlan {
  return wantsExact || estimate < policy.exactLimit ? 'exact' : 'estimate';
}

/** "Plan Rows" of EXPLAIN (FORMAT JSON), as pg (parsed) or PGlite (text) returns it. */
export function planRows(explainValue: unknown): number {
  const parsed: unknown = typeof explainValue === 'string' ? JSON.parse(explainValue) : explainValue;
  const first: unknown = Array.isArray(parsed) ? parsed[0] : undefined;
  const plan = (first as { Plan?: { 'Plan Rows'?: unknown } } | undefined)?.Plan;
  const rows = plan?.['Plan Rows'];
  return typeof rows === 'number' && Number.isFinite(rows) ? Math.max(0, Math.round(rows)) : 0;
}

// ---------------------------------------------------------------------------------------------
// Keyset cursors

/** One term of the order of a page: the sort terms, then the key unless already sorted on. */
export interface OrderTerm {
  field: FieldDef;
  isDescending: boolean;
  /** Empty values sort as the smallest: first ascending, last descending. */
  isNullable: boolean;
}

export function orderTerms(entity: EntityDef, sort: SortTerm[]): OrderTerm[] {
  const terms: OrderTerm[] = sort.map((term) => {
    const field = entity.fieldsByName.get(term.field);
    if (!field) throw new Error(`sort field ${term.field} was not checked`);
    return { field, isDescending: term.isDescending, isNullable: !isNeverNull(field) };
  });
  if (!sort.some((term) => term.field === entity.key.name)) {
    // The key follows the direction of the last term, so one index scan in one direction serves it.
    const last = sort.at(-1);
    terms.push({ field: entity.key, isDescending: last?.isDescending ?? false, isNullable: false });
  }
  return terms;
}

/**
 * The position after a row: its values of the order terms as the database prints them (text
 * keeps a timestamp's microseconds, which a JavaScript Date would lose), how many rows come
 * before that position, and a fingerprint of the filters and order it belongs to.
 */
export interface Cursor {
  query: string;
  rowsBefore: number;
  values: (string | null)[];
}

/** A short stable fingerprint of a list's filters and order: a cursor only applies to its own list. */
export function listFingerprint(
  entity: EntityDef,
  sort: SortTerm[],
  filterParams: Record<string, unknown>,
): string {
  const filters = Object.keys(filterParams)
    .sort()
    .map((name) => `${name}=${JSON.stringify(filterParams[name])}`);
  const text = [
    entity.name,
    orderTerms(entity, sort).map((t) => `${t.isDescending ? '-' : ''}${t.field.name}`),
    ...filters,
  ].join('|');
  // FNV-1a, 32 bits: collisions only make a cursor of another list look usable, and the
  // cursor's values still keep the page in order.
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}

// base64url over UTF-8 without Buffer: the engine also runs in the browser.
function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(token: string): string {
  const binary = atob(token.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(
    Uint8Array.from(binary, (char) => char.charCodeAt(0)),
  );
}

export function encodeCursor(cursor: Cursor): string {
  return toBase64Url(JSON.stringify([cursor.query, cursor.rowsBefore, cursor.values]));
}

/** The cursor of a token, or undefined when the token is not one this engine wrote. */
export function decodeCursor(token: string, termCount: number): Cursor | undefined {
  if (token.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(token));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return undefined;
  const [query, rowsBefore, values] = parsed as unknown[];
  if (typeof query !== 'string' || !Number.isSafeInteger(rowsBefore) || (rowsBefore as number) < 0)
    return undefined;
  if (!Array.isArray(values) || values.length !== termCount) return undefined;
  if (!values.every((value) => value === null || (typeof value === 'string' && !value.includes('\u0000'))))
    return undefined;
  return { query, rowsBefore: rowsBefore as number, values: values as (string | null)[] };
}

/** How the rows of a page are found. */
export type PageRead =
  | { kind: 'offset'; offset: number }
  | { kind: 'deferred'; offset: number }
  | { kind: 'keyset'; cursor: Cursor; offset: number };

/**
 * A cursor of the same list at or before the page's first row turns the page into "rows after
 * the cursor" (plus what lies between); without one, a deep offset reads keys first.
 */
export function choosePageRead(
  currentPage: number,
  pageSize: number,
  cursor: Cursor | undefined,
  fingerprint: string,
): PageRead {
  const start = (currentPage - 1) * pageSize;
  if (cursor && cursor.query === fingerprint && cursor.rowsBefore <= start && start > 0) {
    const offset = start - cursor.rowsBefore;
    if (offset <= PLAIN_OFFSET_LIMIT) return { kind: 'keyset', cursor, offset };
  }
  return start > PLAIN_OFFSET_LIMIT ? { kind: 'deferred', offset: start } : { kind: 'offset', offset: start };
}
