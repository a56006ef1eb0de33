import type { FastifyInstance } from 'fastify';
import { ok, requireAuth } from '../../../lib/http.js';
import { answer, arrayOf, integer, object, typed } from '../../../lib/route-schema.js';
import { signInsPerDay } from '../services/sign-ins.js';

const DEFAULT_DAYS = 14;

/** A day of sign-ins (engine SignInDay). */
const SIGN_IN_DAY = object(
  {
    day: { type: 'string', description: "the calendar day in the caller's time zone, YYYY-MM-DD" },
    signIns: { type: 'integer', description: 'sign-ins that day' },
    users: { type: 'integer', description: 'different users who signed in that day' },
  },
  ['day', 'signIns', 'users'],
);

/**
 * Sign-ins per day of the caller's tenant, from the sign-in entries of the audit log (which
 * outlive sessions and deleted users). The days are the caller's: utcOffset is the browser's
 * offset in minutes east of UTC (480 in China), so "today" ends at the caller's midnight.
 */
export async function signInRoutes(app: FastifyInstance): Promise<void> {
  typed(app).get(
    '/api/admin/sysuser/querySignInsPerDay',
    {
      schema: {
        tags: ['sysuser'],
        summary: "Sign-ins per day of the caller's tenant",
        querystring: object({
          days: integer(1, 92, { description: `how many days (default ${DEFAULT_DAYS})` }),
          // time-zone offsets run from -12:00 to +14:00
          utcOffset: integer(-12 * 60, 14 * 60, {
            description: 'minutes east of UTC of the caller (480 in China)',
          }),
        }),
        response: answer(arrayOf(SIGN_IN_DAY, { description: 'the days in order, the last one today' })),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const { days = DEFAULT_DAYS, utcOffset: offset = 0 } = request.query;
      return ok(await signInsPerDay({ ctx: app.ctx, tenantCode: auth.tenantCode, days, offset }));
    },
  );
}
