import type { FastifyInstance } from 'fastify';
import { MAX_PAGE_SIZE, pageSchemaOf, serializedRecordOf } from '../../../../engine/index.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { answer, object, optionalInteger, typed } from '../../../lib/route-schema.js';
import { myPurchases } from '../services/my-purchases.js';

/**
 * GET /api/notification/purchase/queryMyPurchase (currentPage, pageSize): the purchase notices of
 * the caller's organisation, for the portal's personal centre; every signed-in user may ask.
 */
export async function myPurchaseRoutes(app: FastifyInstance): Promise<void> {
  const purchase = app.ctx.registry.get('purchase');
  if (!purchase) return;
  typed(app).get(
    `/api/${purchase.api}/queryMyPurchase`,
    {
      config: { isSelfService: true },
      schema: {
        tags: ['portal'],
        summary: "Purchase notices of the caller's organisation, published or not, newest first",
        // Empty text is "not given": page 1 of 20 rows.
        querystring: object({
          currentPage: optionalInteger(1, 1_000_000_000),
          pageSize: optionalInteger(1, MAX_PAGE_SIZE),
        }),
        response: answer(pageSchemaOf(serializedRecordOf(purchase))),
      },
    },
    async (request) =>
      ok(
        await myPurchases({
          ctx: app.ctx,
          auth: requireAuth(request),
          currentPage: request.query.currentPage ?? undefined,
          pageSize: request.query.pageSize ?? undefined,
        }),
      ),
  );
}
