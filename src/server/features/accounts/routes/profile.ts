import type { FastifyInstance } from 'fastify';
import { EntityInputError } from '../../../../engine/index.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { updateOwnProfile } from '../services/profile.js';

/** updateSysUserDetail: the caller edits their own profile (a new mobile needs its SMS code). */
export async function profileRoutes(app: FastifyInstance): Promise<void> {
  app.put(
    '/api/account/sysuserdetail/updateSysUserDetail',
    { config: { isSelfService: true } },
    async (request) => {
      const l10n = localizerFor(request);
      const body = request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new EntityInputError([{ field: '/', message: l10n.t('validation.type', { type: 'object' }) }]);
      }
      const input = body as Record<string, unknown>;
      return ok(await updateOwnProfile({ ctx: app.ctx, auth: requireAuth(request), input, l10n }));
    },
  );
}
