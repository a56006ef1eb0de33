import type { FastifyInstance } from 'fastify';
import { actorOf, numberParam, ok } from '../../../lib/http.js';
import { answer, integer, object } from '../../../lib/route-schema.js';
import { readDashboard } from '../services/dashboard.js';

const DEFAULT_DAYS = 30;

/**
 * The figures of the demo chart pages and big screens, from the caller's tenant:
 * read-only, granted by URL like every admin call (the demo roles hold /api/demo/**).
 */
export async function demoDashboardRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/api/demo/dashboard',
    {
      schema: {
        tags: ['demo'],
        summary:
          'Sign-ins, notices, purchases and users by organisation of the caller’s tenant (demo charts and big screens)',
        querystring: object({
          days: integer(1, 92, { description: 'days of the daily series (default 30)' }),
          utcOffset: integer(-12 * 60, 14 * 60, { description: 'minutes east of UTC of the caller' }),
        }),
        response: answer(),
      },
    },
    async (request) =>
      ok(
        await readDashboard({
          ctx: app.ctx,
          tenantCode: actorOf(request).tenantCode,
          days: numberParam(request, 'days') ?? DEFAULT_DAYS,
          offset: numberParam(request, 'utcOffset') ?? 0,
        }),
      ),
  );
}
