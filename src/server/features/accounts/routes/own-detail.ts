import type { FastifyInstance } from 'fastify';
import { ok, requireAuth } from '../../../lib/http.js';
import { ownDetail } from '../services/own-detail.js';

/** querySysUserDetail: the caller's own record for the profile form, for any signed-in user. */
export async function ownDetailRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/api/account/sysuserdetail/querySysUserDetail',
    { config: { isSelfService: true } },
    async (request) => ok(await ownDetail({ ctx: app.ctx, auth: requireAuth(request) })),
  );
}
