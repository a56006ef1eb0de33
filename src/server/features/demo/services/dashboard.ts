import { sql } from 'kysely';
import type { EntityDef, FieldDef } from '../../../../engine/index.js';
import type { Dashboard, NamedCount } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import { column, scopeCondition, table } from '../../../lib/sql/toolkit.js';
import { signInsPerDay } from '../../accounts/index.js';
import { countsByProvince } from './provinces.js';

/**
 * The figures of the demo chart pages and big screens: sign-ins, notices, purchases
 * and users by organisation of one tenant, read from the real tables. Read-only; every query is
 * scoped to the caller's tenant, and identifiers come from the entity definitions only.
 */

export type { Dashboard, NamedCount };

export interface DashboardInput {
  ctx: AppContext;
  tenantCode: string;
  /** Days of the daily series (sign-ins, notices). */
  days: number;
  /** The caller's minutes east of UTC: days and months are theirs. */
  offset: number;
}

const TOP = 10;
const MONTHS = 12;

function field(entity: EntityDef, name: string): FieldDef {
  const found = entity.fieldsByName.get(name);
  if (!found) throw new Error(`${entity.name} has no field ${name}`);
  return found;
}

/** The tenant's records, those in a recycle bin left out (lib/sql/toolkit.ts). */
const scoped = (entity: EntityDef, tenantCode: string) =>
  sql.join([sql`true`, ...scopeCondition(entity, { userId: null, username: '', tenantCode })], sql` and `);

/** The wall-clock day of a timestamp column in the caller's time zone. */
const localDay = (ref: ReturnType<typeof column>, offset: number, format: string) =>
  sql`to_char((${ref} at time zone 'UTC') + make_interval(mins => ${offset}), ${format})`;

async function count(ctx: AppContext, entity: EntityDef, tenantCode: string): Promise<number> {
  const result = await sql<{ n: number }>`select count(*)::int as n from ${table(entity)}
    where ${scoped(entity, tenantCode)}`.execute(ctx.db);
  return Number(result.rows[0]?.n ?? 0);
}

/** Counts of a text column's values, largest first, the rest beyond TOP left out; empty as ''. */
async function countsBy(
  ctx: AppContext,
  entity: EntityDef,
  by: FieldDef,
  tenantCode: string,
): Promise<NamedCount[]> {
  const result = await sql<{
    name: string | null;
    n: number;
  }>`select ${column(by)} as name, count(*)::int as n
    from ${table(entity)} where ${scoped(entity, tenantCode)}
    group by 1 order by 2 desc, 1 limit ${TOP}`.execute(ctx.db);
  return result.rows.map((row) => ({ name: row.name ?? '', count: Number(row.n) }));
}

/** Month keys YYYY-MM of the last MONTHS months in the caller's time zone, oldest first. */
function lastMonths(offset: number): string[] {
  const now = new Date(Date.now() + offset * 60_000);
  return Array.from({ length: MONTHS }, (_unused, index) => {
    const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (MONTHS - 1 - index), 1));
    return date.toISOString().slice(0, 7);
  });
}

export async function readDashboard({ ctx, tenantCode, days, offset }: DashboardInput): Promise<Dashboard> {
  const { registry } = ctx;
  const user = registry.require('sysuser');
  const org = registry.require('sysorg');
  const notice = registry.require('notice');
  const purchase = registry.require('purchase');
  const signIns = await signInsPerDay({ ctx, tenantCode, days, offset });
  const firstDay = signIns[0]?.day ?? '';

  const noticeTime = column(field(notice, 'publishTime'));
  const noticeRows = await sql<{
    day: string;
    n: number;
  }>`select ${localDay(noticeTime, offset, 'YYYY-MM-DD')} as day,
      count(*)::int as n from ${table(notice)}
    where ${scoped(notice, tenantCode)} and ${noticeTime} >= cast(${firstDay} as date) - 1
    group by 1`.execute(ctx.db);
  const noticesPerDay = new Map(noticeRows.rows.map((row) => [row.day, Number(row.n)]));

  const months = lastMonths(offset);
  const purchaseTime = column(field(purchase, 'publishTime'));
  const budget = column(field(purchase, 'budget'));
  const monthRows = await sql<{ month: string; n: number; budget: string }>`select
      ${localDay(purchaseTime, offset, 'YYYY-MM')} as month, count(*)::int as n, coalesce(sum(${budget}), 0)::text as budget
    from ${table(purchase)}
    where ${scoped(purchase, tenantCode)} and ${purchaseTime} >= cast(${`${months[0] ?? '1970-01'}-01`} as date) - 1
    group by 1`.execute(ctx.db);
  const perMonth = new Map(monthRows.rows.map((row) => [row.month, row]));

  const category = column(field(purchase, 'category'));
  const categoryRows = await sql<{
    name: string | null;
    n: number;
    budget: string;
  }>`select ${category} as name,
      count(*)::int as n, coalesce(sum(${budget}), 0)::text as budget
    from ${table(purchase)} where ${scoped(purchase, tenantCode)}
    group by 1 order by 2 desc, 1 limit ${TOP}`.execute(ctx.db);

  // Users per organisation, by the organisation's name (users without one are left out).
  const orgOfUser = column(field(user, 'orgId'));
  const orgName = sql.ref(`o.${field(org, 'orgName').column}`);
  const orgRows = await sql<{ name: string; n: number }>`select ${orgName} as name, count(*)::int as n
    from ${table(user)} u join ${table(org)} o on o.id = u.${orgOfUser}
    where u.tenant_code = ${tenantCode} and o.tenant_code = ${tenantCode}
    group by o.id, ${orgName} order by 2 desc, 1 limit ${TOP}`.execute(ctx.db);

  const status = column(field(user, 'status'));
  const totalsRow = await sql<{
    users: number;
    active: number;
  }>`select count(*)::int as users, (count(*) filter (where ${status} = '1'))::int as active
    from ${table(user)} where ${scoped(user, tenantCode)}`.execute(ctx.db);
  const budgetRow = await sql<{ budget: string }>`select coalesce(sum(${budget}), 0)::text as budget
    from ${table(purchase)} where ${scoped(purchase, tenantCode)}`.execute(ctx.db);
  const online = await sql<{ n: number }>`select count(distinct user_id)::int as n from sys_session
    where tenant_code = ${tenantCode} and revoked_at is null and expires_at > now()`.execute(ctx.db);

  const recent = await sql<{
    id: number;
    title: string;
    buyer: string | null;
    region: string | null;
    budget: string | null;
    at: Date | string | null;
  }>`select id, ${column(field(purchase, 'title'))} as title, ${column(field(purchase, 'buyerName'))} as buyer,
      ${column(field(purchase, 'region'))} as region, ${budget}::text as budget, ${purchaseTime} as at
    from ${table(purchase)} where ${scoped(purchase, tenantCode)}
    order by ${purchaseTime} desc nulls last, id desc limit ${TOP}`.execute(ctx.db);

  return {
    totals: {
      users: Number(totalsRow.rows[0]?.users ?? 0),
      activeUsers: Number(totalsRow.rows[0]?.active ?? 0),
      orgs: await count(ctx, org, tenantCode),
      notices: await count(ctx, notice, tenantCode),
      purchases: await count(ctx, purchase, tenantCode),
      budget: budgetRow.rows[0]?.budget ?? '0',
      online: Number(online.rows[0]?.n ?? 0),
    },
    signIns,
    notices: signIns.map(({ day }) => ({ day, count: noticesPerDay.get(day) ?? 0 })),
    noticesByCategory: await countsBy(ctx, notice, field(notice, 'category'), tenantCode),
    purchasesByMonth: months.map((month) => ({
      month,
      count: Number(perMonth.get(month)?.n ?? 0),
      budget: perMonth.get(month)?.budget ?? '0',
    })),
    purchasesByCategory: categoryRows.rows.map((row) => ({
      name: row.name ?? '',
      count: Number(row.n),
      budget: row.budget,
    })),
    purchasesByRegion: await countsBy(ctx, purchase, field(purchase, 'region'), tenantCode),
    purchasesByProvince: countsByProvince(
      (
        await sql<{ region: string | null; n: number }>`select ${column(field(purchase, 'region'))} as region,
          count(*)::int as n from ${table(purchase)} where ${scoped(purchase, tenantCode)} group by 1`.execute(
          ctx.db,
        )
      ).rows.map((row) => ({ region: row.region, count: Number(row.n) })),
    ),
    usersByOrg: orgRows.rows.map((row) => ({ name: row.name, count: Number(row.n) })),
    usersByStatus: await countsBy(ctx, user, field(user, 'status'), tenantCode),
    recentPurchases: recent.rows.map((row) => ({
      id: Number(row.id),
      title: row.title,
      buyerName: row.buyer,
      region: row.region,
      budget: row.budget,
      publishTime: row.at === null ? null : new Date(row.at).toISOString(),
    })),
    generatedAt: new Date().toISOString(),
  };
}
