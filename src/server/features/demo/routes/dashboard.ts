import type { FastifyInstance } from 'fastify';
import { actorOf, ok } from '../../../lib/http.js';
import { answer, arrayOf, integer, nullable, object, typed } from '../../../lib/route-schema.js';
import { readDashboard } from '../services/dashboard.js';

const DEFAULT_DAYS = 30;

// The answer's parts (engine/api-types.ts Dashboard, which the demo pages read).
const COUNT = integer(0);
const STRING = { type: 'string' };
const NAMED_COUNTS = arrayOf(object({ name: STRING, count: COUNT }, ['name', 'count']));
/** Money as exact digits (a numeric sum in SQL, never a float): "1234.50". */
const YUAN = { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$', description: 'yuan, exact decimal digits' };
const TIME = { type: 'string', format: 'date-time' };

const DASHBOARD = object(
  {
    totals: object(
      {
        users: COUNT,
        activeUsers: COUNT,
        orgs: COUNT,
        notices: COUNT,
        purchases: COUNT,
        budget: YUAN,
        online: integer(0, Number.MAX_SAFE_INTEGER, { description: 'users signed in now' }),
      },
      ['users', 'activeUsers', 'orgs', 'notices', 'purchases', 'budget', 'online'],
    ),
    signIns: arrayOf(
      object({ day: { type: 'string', description: 'YYYY-MM-DD' }, signIns: COUNT, users: COUNT }, [
        'day',
        'signIns',
        'users',
      ]),
    ),
    notices: arrayOf(object({ day: { type: 'string' }, count: COUNT }, ['day', 'count'])),
    noticesByCategory: NAMED_COUNTS,
    purchasesByMonth: arrayOf(
      object({ month: { type: 'string', description: 'YYYY-MM' }, count: COUNT, budget: YUAN }, [
        'month',
        'count',
        'budget',
      ]),
    ),
    purchasesByCategory: arrayOf(
      object({ name: STRING, count: COUNT, budget: YUAN }, ['name', 'count', 'budget']),
    ),
    purchasesByRegion: NAMED_COUNTS,
    purchasesByProvince: NAMED_COUNTS,
    usersByOrg: NAMED_COUNTS,
    usersByStatus: NAMED_COUNTS,
    recentPurchases: arrayOf(
      object(
        {
          id: integer(),
          title: { type: 'string' },
          buyerName: { type: ['string', 'null'] },
          region: { type: ['string', 'null'] },
          budget: nullable(YUAN),
          publishTime: { type: ['string', 'null'], format: 'date-time' },
        },
        ['id', 'title', 'buyerName', 'region', 'budget', 'publishTime'],
      ),
    ),
    generatedAt: TIME,
  },
  [
    'totals',
    'signIns',
    'notices',
    'noticesByCategory',
    'purchasesByMonth',
    'purchasesByCategory',
    'purchasesByRegion',
    'purchasesByProvince',
    'usersByOrg',
    'usersByStatus',
    'recentPurchases',
    'generatedAt',
  ],
);

/**
 * The figures of the demo chart pages and big screens, from the caller's tenant:
 * read-only, granted by URL like every admin call (the demo roles hold /api/demo/**).
 */
export async function demoDashboardRoutes(app: FastifyInstance): Promise<void> {
  typed(app).get(
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
        response: answer(DASHBOARD),
      },
    },
    async (request) =>
      ok(
        await readDashboard({
          ctx: app.ctx,
          tenantCode: actorOf(request).tenantCode,
          days: request.query.days ?? DEFAULT_DAYS,
          offset: request.query.utcOffset ?? 0,
        }),
      ),
  );
}
