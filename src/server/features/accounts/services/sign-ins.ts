import { sql } from 'kysely';
import type { SignInDay } from '../../../../engine/index.js';
import { SIGN_IN_ACTION } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';

const DAY_MS = 86_400_000;

export type { SignInDay };

/** YYYY-MM-DD of a UTC instant shifted by offset minutes (the wall-clock day there). */
const dayOf = (instantMs: number, offsetMinutes: number): string =>
  new Date(instantMs + offsetMinutes * 60_000).toISOString().slice(0, 10);

/**
 * Sign-ins per day of a tenant, from the sign-in entries of the audit log (which outlive sessions
 * and deleted users). The days are the caller's: offset is minutes east of UTC (480 in China),
 * so "today" ends at the caller's midnight.
 */
export async function signInsPerDay({
  ctx,
  tenantCode,
  days,
  offset,
}: {
  ctx: AppContext;
  tenantCode: string;
  days: number;
  offset: number;
}): Promise<SignInDay[]> {
  const now = Date.now();
  // Midnight at the start of the first day, in the caller's time zone, as a UTC instant.
  const todayStart = Date.parse(`${dayOf(now, offset)}T00:00:00Z`) - offset * 60_000;
  const from = new Date(todayStart - (days - 1) * DAY_MS);
  const result = await sql<{ day: string; sign_ins: number; users: number }>`
    select to_char((a.at at time zone 'UTC') + make_interval(mins => ${offset}), 'YYYY-MM-DD') as day,
      count(*)::int as sign_ins, count(distinct a.user_id)::int as users
    from sys_audit_log a
    where a.tenant_code = ${tenantCode} and a.action = ${SIGN_IN_ACTION} and a.at >= ${from}
    group by 1`.execute(ctx.db);
  const byDay = new Map(result.rows.map((row) => [row.day, row]));
  const list: SignInDay[] = Array.from({ length: days }, (_unused, index) => {
    const day = dayOf(from.getTime() + index * DAY_MS + 12 * 3_600_000, offset);
    const row = byDay.get(day);
    return { day, signIns: row?.sign_ins ?? 0, users: row?.users ?? 0 };
  });
  return list;
}
