import { sql, type RawBuilder } from 'kysely';
import {
  chooseCount,
  choosePageRead,
  DEFAULT_COUNT_TIMEOUT_MS,
  DEFAULT_EXACT_COUNT_LIMIT,
  encodeCursor,
  englishTranslate,
  orderTerms,
  planRows,
  type CountPolicy,
  type EntityDef,
  type ListQuery,
  type OrderTerm,
  withVirtualFields,
} from '../../../../engine/index.js';
import type { Db, Row } from '../../../lib/db/database.js';
import {
  column,
  orderBySql,
  selectList,
  table,
  whereClause,
  type Condition,
} from '../../../lib/sql/toolkit.js';

/**
 * One page of a list at any table size: the page by offset, by keyset after a cursor, or by an
 * index-only offset for a deep page; the count exact when cheap (or asked for, under a time
 * limit), otherwise the planner's estimate.
 */
export interface ListPage {
  rows: Row[];
  total: number;
  totalExact: boolean;
  /** The exact count was asked for and gave up at the time limit; `total` is the estimate. */
  countTimedOut?: boolean;
  /** Position after the last row, for the next page (only when the page is full). */
  cursor?: string;
}

export const DEFAULT_COUNT_POLICY: CountPolicy = {
  exactLimit: DEFAULT_EXACT_COUNT_LIMIT,
  timeoutMs: DEFAULT_COUNT_TIMEOUT_MS,
};

const CURSOR_COLUMN = '__cursor_';
const KEY_COLUMN = '__key_';
const TOTAL_COLUMN = '__total_';
const QUERY_CANCELED = '57014';
/** PostgreSQL's own default of max_parallel_workers_per_gather. */
const PARALLEL_COUNT_WORKERS = 2;

const isQueryCanceled = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === QUERY_CANCELED;

/** A cursor value back to its column's type (it travels as the text the database printed). */
function typed(term: OrderTerm, value: string): RawBuilder<unknown> {
  // An adopted bit(1) column (read as a boolean) compares with bits.
  if (term.field.schema['x-column']?.type === 'bit') return sql`cast(${value} as bit(1))`;
  return sql`cast(${value} as ${sql.raw(term.field.sqlType)})`;
}

/**
 * Rows after the cursor in the list's order. When every term has one direction and no empty
 * values (the common case: a date, then the key) it is one row comparison an index range scan
 * serves; otherwise the expanded form, with a bound on the first term for the index.
 */
function afterCursor(terms: OrderTerm[], values: (string | null)[]): Condition {
  const [first] = terms;
  const isSimple =
    first !== undefined &&
    terms.every(
      (term, index) => !term.isNullable && term.isDescending === first.isDescending && values[index] !== null,
    );
  if (isSimple) {
    const columns = sql.join(terms.map((term) => column(term.field)));
    const bounds = sql.join(terms.map((term, index) => typed(term, values[index] ?? '')));
    return first.isDescending ? sql`(${columns}) < (${bounds})` : sql`(${columns}) > (${bounds})`;
  }
  const branches: Condition[] = [];
  terms.forEach((term, index) => {
    const value = values[index] ?? null;
    const ref = column(term.field);
    let after: Condition | undefined;
    if (term.isDescending) {
      // Descending puts empty values last: nothing comes after one; after a value come smaller ones and empties.
      if (value !== null)
        after = term.isNullable
          ? sql`(${ref} < ${typed(term, value)} or ${ref} is null)`
          : sql`${ref} < ${typed(term, value)}`;
    } else {
      after = value === null ? sql`${ref} is not null` : sql`${ref} > ${typed(term, value)}`;
    }
    if (!after) return;
    const equal = terms.slice(0, index).map((earlier, position) => {
      const earlierValue = values[position] ?? null;
      return earlierValue === null
        ? sql`${column(earlier.field)} is null`
        : sql`${column(earlier.field)} = ${typed(earlier, earlierValue)}`;
    });
    branches.push(sql.join([...equal, after], sql` and `));
  });
  const expanded = branches.length === 0 ? sql`false` : sql`(${sql.join(branches, sql` or `)})`;
  const firstValue = values[0] ?? null;
  if (first && firstValue !== null && (!first.isDescending || !first.isNullable)) {
    const ref = column(first.field);
    const bound = first.isDescending
      ? sql`${ref} <= ${typed(first, firstValue)}`
      : sql`${ref} >= ${typed(first, firstValue)}`;
    return sql`${bound} and ${expanded}`;
  }
  return expanded;
}

/** The planner's estimate of the rows a filter selects: no rows are read. */
async function estimateRows(db: Db, entity: EntityDef, where: RawBuilder<unknown>): Promise<number> {
  const result = await sql<
    Record<string, unknown>
  >`explain (format json) select 1 from ${table(entity)} ${where}`.execute(db);
  const first = result.rows[0];
  return planRows(first ? Object.values(first)[0] : undefined);
}

const COUNT_CHUNK = 50_000;

/** count(*) in chunks of the key order, checking the time between chunks: undefined when it gave up. */
async function countInChunks(
  db: Db,
  entity: EntityDef,
  conditions: Condition[],
  timeoutMs: number,
): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  const key = column(entity.key);
  let total = 0;
  let last: unknown;
  for (;;) {
    const where = whereClause(last === undefined ? conditions : [...conditions, sql`${key} > ${last}`]);
    const chunk = await sql<{ rows: number; last: unknown }>`select count(*)::int as rows, max(k) as last
      from (select ${key} as k from ${table(entity)} ${where} order by ${key} limit ${COUNT_CHUNK}) as chunk`.execute(
      db,
    );
    const rows = chunk.rows[0]?.rows ?? 0;
    total += rows;
    if (rows < COUNT_CHUNK) return total;
    last = chunk.rows[0]?.last;
    if (Date.now() > deadline) return undefined;
  }
}

async function plainCount(db: Db, entity: EntityDef, where: RawBuilder<unknown>): Promise<number> {
  const result = await sql<{
    total: number;
  }>`select count(*)::int as total from ${table(entity)} ${where}`.execute(db);
  return result.rows[0]?.total ?? 0;
}

/** count(*) of at most `limit` + 1 matches: more than `limit` when the result is limit + 1. */
async function cappedCount(
  db: Db,
  entity: EntityDef,
  where: RawBuilder<unknown>,
  limit: number,
): Promise<number> {
  const result = await sql<{ total: number }>`select count(*)::int as total
    from (select 1 from ${table(entity)} ${where} limit ${limit + 1}) as matched`.execute(db);
  return result.rows[0]?.total ?? 0;
}

/** count(*) under a statement timeout: undefined when it gave up. */
async function exactCount(
  db: Db,
  entity: EntityDef,
  where: RawBuilder<unknown>,
  timeoutMs: number,
): Promise<number | undefined> {
  try {
    return await db.transaction().execute(async (trx) => {
      await sql.raw(`set local statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`).execute(trx);
      // One user waits for this count alone: PostgreSQL's default parallel workers shorten it
      // (the app's connections start without them, database.ts).
      await sql.raw(`set local max_parallel_workers_per_gather = ${PARALLEL_COUNT_WORKERS}`).execute(trx);
      const result = await sql<{
        total: number;
      }>`select count(*)::int as total from ${table(entity)} ${where}`.execute(trx);
      return result.rows[0]?.total ?? 0;
    });
  } catch (error) {
    if (isQueryCanceled(error)) return undefined;
    throw error;
  }
}

/** The most matches a "contains" page counts when the planner expects more than the exact-count threshold. */
const CONTAINS_PROBE_LIMIT = 10_000;

/**
 * A page of the matches of `where` together with their count, in one visit of at most `limit` + 1
 * matches; undefined when there are more. The matches are gathered first (a materialised step, so
 * the planner takes the filter's own index and cannot walk the order's index over the whole table
 * to feed a count), then ordered.
 */
async function readCountedPage(
  db: Db,
  entity: EntityDef,
  terms: OrderTerm[],
  where: RawBuilder<unknown>,
  select: RawBuilder<unknown>,
  pageSize: number,
  offset: number,
  limit: number,
): Promise<{ rows: Row[]; total: number } | undefined> {
  const key = column(entity.key);
  const carried = new Map(
    [entity.key, ...terms.map((term) => term.field)].map((field) => [field.column, field]),
  );
  const result = await sql<Row>`with matched as materialized (
      select ${sql.join([...carried.values()].map((field) => column(field)))}
      from ${table(entity)} ${where} limit ${limit + 1}
    ), page as (
      select ${sql.ref(`matched.${entity.key.column}`)} as ${sql.id(KEY_COLUMN)}
      from matched ${orderBySql(terms, 'matched')} limit ${pageSize} offset ${offset}
    )
    select ${select}, (select count(*) from matched) as ${sql.id(TOTAL_COLUMN)}
    from ${table(entity)} where ${key} in (select ${sql.ref(KEY_COLUMN)} from page) ${orderBySql(terms, entity.table)}`.execute(
    db,
  );
  if (result.rows.length === 0 && offset === 0) return { rows: [], total: 0 };
  if (result.rows.length === 0) {
    // Past the last match: count them on their own, within the same limit.
    const counted = await sql<{ total: number }>`select count(*)::int as total
      from (select 1 from ${table(entity)} ${where} limit ${limit + 1}) as matched`.execute(db);
    const total = counted.rows[0]?.total ?? 0;
    return total > limit ? undefined : { rows: [], total };
  }
  const total = Number(result.rows[0]?.[TOTAL_COLUMN]);
  return total > limit ? undefined : { rows: result.rows, total };
}

export async function readListPage({
  db,
  entity,
  query,
  conditions,
  policy = DEFAULT_COUNT_POLICY,
}: {
  db: Db;
  entity: EntityDef;
  query: ListQuery;
  conditions: Condition[];
  policy?: CountPolicy | undefined;
}): Promise<ListPage> {
  const terms = orderTerms(entity, query.sort);
  const read = choosePageRead(query.currentPage, query.pageSize, query.cursor, query.fingerprint);
  const where = whereClause(conditions);
  const order = orderBySql(terms, entity.table);
  // The order terms as text, for the next page's cursor: text keeps a timestamp's microseconds.
  const cursorColumns = sql.join(
    terms.map((term, index) => sql`${column(term.field)}::text as ${sql.id(`${CURSOR_COLUMN}${index}`)}`),
  );
  const select = sql`${selectList(entity)}, ${cursorColumns}`;
  let pageQuery: RawBuilder<Row>;
  if (read.kind === 'keyset') {
    const keyset = whereClause([...conditions, afterCursor(terms, read.cursor.values)]);
    pageQuery = sql<Row>`select ${select} from ${table(entity)} ${keyset} ${order} limit ${query.pageSize} offset ${read.offset}`;
  } else if (read.kind === 'deferred') {
    // The skipped rows are walked on an index (the order's columns and the key), not fetched.
    const key = column(entity.key);
    pageQuery = sql<Row>`select ${select} from ${table(entity)} where ${key} in (
        select ${key} from ${table(entity)} ${where} ${order} limit ${query.pageSize} offset ${read.offset}
      ) ${order}`;
  } else {
    pageQuery = sql<Row>`select ${select} from ${table(entity)} ${where} ${order} limit ${query.pageSize} offset ${read.offset}`;
  }
  let estimate: number;
  let page: { rows: Row[] };
  let countedInPage: number | undefined;
  if (
    read.kind === 'offset' &&
    !query.wantsExactTotal &&
    query.filters.some((filter) => filter.op === 'contains')
  ) {
    // A "contains" filter is served by a trigram index, which keeps no order: the page visits
    // every matching row anyway, so the same visit counts them. The planner's estimate of a short
    // pattern is loose (4,000 matches of "1234" among 10,000,000 users were estimated at 101,010),
    // so above the threshold a few matches are still looked for before the estimate is taken.
    estimate = await estimateRows(db, entity, where);
    const limit = Math.min(
      chooseCount(estimate, policy, false) === 'exact'
        ? policy.exactLimit
        : Math.min(policy.exactLimit, CONTAINS_PROBE_LIMIT),
      policy.visitLimit ?? Number.POSITIVE_INFINITY,
    );
    const counted = await readCountedPage(
      db,
      entity,
      terms,
      where,
      select,
      query.pageSize,
      read.offset,
      limit,
    );
    if (counted) {
      page = counted;
      countedInPage = counted.total;
    } else {
      // More matches than the visit may count: the page on the order's index, and an estimate.
      estimate = Math.max(estimate, limit + 1);
      page = await pageQuery.execute(db);
    }
  } else {
    [estimate, page] = await Promise.all([estimateRows(db, entity, where), pageQuery.execute(db)]);
  }

  const rowsBefore = read.kind === 'keyset' ? read.cursor.rowsBefore + read.offset : read.offset;
  const rows = page.rows.map((row) => {
    const record: Row = {};
    for (const [name, value] of Object.entries(row))
      if (!name.startsWith(CURSOR_COLUMN) && name !== TOTAL_COLUMN) record[name] = value;
    // Virtual computed fields (x-computed, not stored) are computed from the row read.
    return withVirtualFields(entity.schema, record, englishTranslate);
  });
  const last = page.rows.at(-1);
  const cursor =
    last && page.rows.length === query.pageSize
      ? encodeCursor({
          query: query.fingerprint,
          rowsBefore: rowsBefore + page.rows.length,
          values: terms.map((_term, index) => {
            const value = last[`${CURSOR_COLUMN}${index}`];
            return value === null || value === undefined ? null : String(value);
          }),
        })
      : undefined;
  const withCursor = <T extends object>(answer: T): T & { cursor?: string } =>
    cursor ? { ...answer, cursor } : answer;

  // A page that is not full, reached from the start, counts itself.
  if (page.rows.length < query.pageSize && (page.rows.length > 0 || rowsBefore === 0)) {
    return withCursor({ rows, total: rowsBefore + page.rows.length, totalExact: true });
  }
  if (countedInPage !== undefined) return withCursor({ rows, total: countedInPage, totalExact: true });
  if (chooseCount(estimate, policy, query.wantsExactTotal) === 'estimate') {
    // An estimate below what the user has already paged through would look wrong.
    return withCursor({ rows, total: Math.max(estimate, rowsBefore + page.rows.length), totalExact: false });
  }
  // Below the threshold the count is cheap and runs plainly (a row scope's at most visitLimit
  // rows, then the estimate stands); the one asked for runs under the time limit.
  if (!query.wantsExactTotal && policy.visitLimit !== undefined) {
    // A scope the planner expects to hold more rows than the limit is estimated without a visit
    // (a condition on a column outside the owner index would read each row from the table).
    if (estimate > policy.visitLimit)
      return withCursor({
        rows,
        total: Math.max(estimate, rowsBefore + page.rows.length),
        totalExact: false,
      });
    const capped = await cappedCount(db, entity, where, policy.visitLimit);
    if (capped <= policy.visitLimit) return withCursor({ rows, total: capped, totalExact: true });
    return withCursor({
      rows,
      total: Math.max(estimate, capped, rowsBefore + page.rows.length),
      totalExact: false,
    });
  }
  const total = !query.wantsExactTotal
    ? await plainCount(db, entity, where)
    : policy.hasStatementTimeout === false
      ? await countInChunks(db, entity, conditions, policy.timeoutMs)
      : await exactCount(db, entity, where, policy.timeoutMs);
  if (total === undefined) {
    return withCursor({
      rows,
      total: Math.max(estimate, rowsBefore + page.rows.length),
      totalExact: false,
      ...(query.wantsExactTotal ? { countTimedOut: true } : {}),
    });
  }
  return withCursor({ rows, total, totalExact: true });
}
