import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { ok, queryOf, requireAuth } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';
import { signInsPerDay } from '../../services/accounts/sign-ins.js';

const DEFAULT_DAYS = 14;
const MAX_DAYS = 92;
/** Time-zone offsets in minutes east of UTC run from -12:00 to +14:00. */
const MIN_OFFSET = -12 * 60;
const MAX_OFFSET = 14 * 60;

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
    return ok(await signInsPerDay({ ctx: app.ctx, tenantCode: auth.tenantCode, days, offset }));
  });
}
