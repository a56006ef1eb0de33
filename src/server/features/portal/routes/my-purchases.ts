import type { FastifyInstance } from 'fastify';
import { numberParam, ok, requireAuth } from '../../../lib/http.js';
import { myPurchases } from '../services/my-purchases.js';

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
        // Whole numbers within the list bounds: the route schema (plugins/route-schema-manifest.ts) read them.
        currentPage: numberParam(request, 'currentPage'),
        pageSize: numberParam(request, 'pageSize'),
      }),
    ),
  );
}
