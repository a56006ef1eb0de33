import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { SIGN_IN_ACTION } from '../../lib/audit.js';
import { AppError } from '../../lib/errors.js';
import { ok, queryOf, requireAuth } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';

const DEFAULT_DAYS = 14;
const MAX_DAYS = 92;
/** Time-zone offsets in minutes east of UTC run from -12:00 to +14:00. */
const MIN_OFFSET = -12 * 60;
const MAX_OFFSET = 14 * 60;
const DAY_MS = 86_400_000;

export interface SignInDay {
  /** The calendar day in the caller's time zone, YYYY-MM-DD. */
  day: string;
  /** Sign-ins that day. */
  signIns: number;
  /** Different users who signed in that day. */
  users: number;
}

function intParam(request: FastifyRequest, name: string, fallback: number, min: number, max: number): number {
  const raw = queryOf(request)[name];
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text === '') return fallback;
  const value = /^[+-]?\d{1,6}$/.test(text) ? Number(text) : NaN;
  if (Number.isNaN(value) || value < min || value > max) {
    const t = localizerFor(request).t;
    throw new AppError('validation', {}, [
      {
        field: `/${name}`,
        message: Number.isNaN(value)
          ? t('validation.type', { type: 'integer' })
          : t(value < min ? 'validation.minimum' : 'validation.maximum', { limit: value < min ? min : max }),
      },
    ]);
  }
  return value;
}

/** YYYY-MM-DD of a UTC instant shifted by offset minutes (the wall-clock day there). */
const dayOf = (instantMs: number, offsetMinutes: number): string =>
  new Date(instantMs + offsetMinutes * 60_000).toISOString().slice(0, 10);

/**
 * Sign-ins per day of the caller's tenant, from the sign-in entries of the audit log (which
 * outlive sessions and deleted users). The days are the caller's: utcOffset is the browser's
 * offset in minutes east of UTC (480 in China), so "today" ends at the caller's midnight.
 */
export async function signInRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/admin/sysuser/querySignInsPerDay', async (request) => {
    const auth = requireAuth(request);
    const days = intParam(request, 'days', DEFAULT_DAYS, 1, MAX_DAYS);
    const offset = intParam(request, 'utcOffset', 0, MIN_OFFSET, MAX_OFFSET);
    const now = Date.now();
    // Midnight at the start of the first day, in the caller's time zone, as a UTC instant.
    const todayStart = Date.parse(`${dayOf(now, offset)}T00:00:00Z`) - offset * 60_000;
    const from = new Date(todayStart - (days - 1) * DAY_MS);
    const result = await sql<{ day: string; sign_ins: number; users: number }>`
      select to_char((a.at at time zone 'UTC') + make_interval(mins => ${offset}), 'YYYY-MM-DD') as day,
        count(*)::int as sign_ins, count(distinct a.user_id)::int as users
      from sys_audit_log a
      where a.tenant_code = ${auth.tenantCode} and a.action = ${SIGN_IN_ACTION} and a.at >= ${from}
      group by 1`.execute(app.ctx.db);
    const byDay = new Map(result.rows.map((row) => [row.day, row]));
    const list: SignInDay[] = Array.from({ length: days }, (_unused, index) => {
      const day = dayOf(from.getTime() + index * DAY_MS + 12 * 3_600_000, offset);
      const row = byDay.get(day);
      return { day, signIns: row?.sign_ins ?? 0, users: row?.users ?? 0 };
    });
    return ok(list);
  });
}
