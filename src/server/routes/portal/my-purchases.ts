import type { FastifyInstance } from 'fastify';
import type { RawParams } from '../../../engine/index.js';
import { ok, queryOf, requireAuth } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';
import { myPurchases } from '../../services/portal/my-purchases.js';

/**
 * GET /api/notification/purchase/queryMyPurchase (currentPage, pageSize): the purchase notices of
 * the caller's organisation, for the portal's personal centre; every signed-in user may ask.
 */
export async function myPurchaseRoutes(app: FastifyInstance): Promise<void> {
  const purchase = app.ctx.registry.get('purchase');
  if (!purchase) return;
  app.get(`/api/${purchase.api}/queryMyPurchase`, { config: { isSelfService: true } }, async (request) =>
    ok(
      await myPurchases({
        ctx: app.ctx,
        auth: requireAuth(request),
        params: queryOf(request) as RawParams,
        t: localizerFor(request).t,
      }),
    ),
  );
}
