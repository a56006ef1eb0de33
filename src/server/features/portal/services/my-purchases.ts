import { sql } from 'kysely';
import type { Page } from '../../../../engine/api-types.js';
import { DEFAULT_PAGE_SIZE, parseSortExpression } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Row } from '../../../lib/db/database.js';
import {
  column,
  orderByClause,
  scopeCondition,
  selectList,
  table,
  whereClause,
} from '../../../lib/sql/toolkit.js';
import type { AuthContext } from '../../sessions/index.js';

/**
 * The purchase notices of the caller's organisation, published or not, newest first: a buyer's
 * 我的采购公告 in the portal's personal centre. A notice belongs to the organisation whose name it
 * carries as buyer (buyerName is what the portal shows as 采购单位).
 */
export async function myPurchases({
  ctx,
  auth,
  currentPage = 1,
  pageSize = DEFAULT_PAGE_SIZE,
}: {
  ctx: AppContext;
  auth: AuthContext;
  /** Whole numbers within the list bounds, as the route schema read them. */
  currentPage?: number;
  pageSize?: number;
}): Promise<Page<Row>> {
  const purchase = ctx.registry.get('purchase');
  const buyer = purchase?.fieldsByName.get('buyerName');
  const query = purchase
    ? { currentPage, pageSize, sort: parseSortExpression('-publishTime,-id') }
    : undefined;
  const empty = { records: [], total: 0, currentPage: 1, pageSize: 10 };
  if (!purchase || !buyer || !query) return empty;
  const user = ctx.registry.require('sysuser');
  const org = ctx.registry.require('sysorg');
  const orgId = user.fieldsByName.get('orgId');
  const orgName = org.fieldsByName.get('orgName');
  if (!orgId || !orgName) return { ...empty, currentPage: query.currentPage, pageSize: query.pageSize };
  const ref = (alias: string, field: { column: string }) => sql.ref(`${alias}.${field.column}`);
  const found = await sql<{ name: string | null }>`select ${ref('o', orgName)} as name
    from ${table(user)} u join ${table(org)} o on ${ref('o', org.key)} = ${ref('u', orgId)}
    where ${ref('u', user.key)} = ${auth.userId} and u.tenant_code = ${auth.tenantCode}`.execute(ctx.db);
  const name = found.rows[0]?.name;
  if (!name) return { ...empty, currentPage: query.currentPage, pageSize: query.pageSize };
  const where = whereClause([
    ...scopeCondition(purchase, {
      userId: auth.userId,
      username: auth.username,
      tenantCode: auth.tenantCode,
    }),
    sql`${column(buyer)} = ${name}`,
  ]);
  const [count, rows] = await Promise.all([
    sql<{ total: number }>`select count(*)::int as total from ${table(purchase)} ${where}`.execute(ctx.db),
    sql<Row>`select ${selectList(purchase)} from ${table(purchase)} ${where}
      ${orderByClause({ entity: purchase, sort: query.sort })} limit ${query.pageSize}
      offset ${(query.currentPage - 1) * query.pageSize}`.execute(ctx.db),
  ]);
  return {
    records: rows.rows,
    total: count.rows[0]?.total ?? 0,
    currentPage: query.currentPage,
    pageSize: query.pageSize,
  };
}
