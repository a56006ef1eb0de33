import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../../lib/db/database.js';

/** Paged lists of the workflow calls: the usual {records, total, totalExact, currentPage, pageSize}. */

export interface PageParams {
  currentPage?: number | undefined;
  pageSize?: number | undefined;
}

export interface Paged<T = Record<string, unknown>> {
  records: T[];
  total: number;
  totalExact: boolean;
  currentPage: number;
  pageSize: number;
}

/** A text to find inside another with ILIKE: its wildcards taken literally. */
export const containing = (value: string): string => `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of a select (written without order) in the given order, and the count of all rows. */
export async function pageOf<T = Record<string, unknown>>({
  db,
  select,
  order,
  params,
}: {
  db: Db;
  select: RawBuilder<unknown>;
  order: RawBuilder<unknown>;
  params: PageParams;
}): Promise<Paged<T>> {
  const currentPage = params.currentPage ?? 1;
  const pageSize = params.pageSize ?? 10;
  const [count, page] = await Promise.all([
    sql<{ total: number }>`select count(*)::int as total from (${select}) q`.execute(db),
    sql<T>`select * from (${select}) q order by ${order} limit ${pageSize} offset ${(currentPage - 1) * pageSize}`.execute(
      db,
    ),
  ]);
  return { records: page.rows, total: count.rows[0]?.total ?? 0, totalExact: true, currentPage, pageSize };
}

export const optional = (value: string | number | boolean | undefined): string | number | boolean | null =>
  value ?? null;

/** A filter that holds when its value is not given (absent or empty). */
export const when = (
  value: string | number | boolean | undefined,
  condition: RawBuilder<unknown>,
): RawBuilder<unknown> => (value === undefined || value === '' ? sql`true` : condition);
