import type { FastifyInstance } from 'fastify';
import { numberParam, ok, requireAuth } from '../../../lib/http.js';
import { signInsPerDay } from '../services/sign-ins.js';

const DEFAULT_DAYS = 14;

/**
 * Sign-ins per day of the caller's tenant, from the sign-in entries of the audit log (which
 * outlive sessions and deleted users). The days are the caller's: utcOffset is the browser's
 * offset in minutes east of UTC (480 in China), so "today" ends at the caller's midnight.
 */
export async function signInRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/admin/sysuser/querySignInsPerDay', async (request) => {
    const auth = requireAuth(request);
    // whole numbers in range by the route schema (plugins/route-schema-manifest.ts), or the defaults
    const days = numberParam(request, 'days') ?? DEFAULT_DAYS;
    const offset = numberParam(request, 'utcOffset') ?? 0;
    return ok(await signInsPerDay({ ctx: app.ctx, tenantCode: auth.tenantCode, days, offset }));
  });
}
