import type { FastifyInstance } from 'fastify';
import { OWN_PROFILE_FIELDS } from '../../../../engine/index.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { answer, object, typed } from '../../../lib/route-schema.js';
import { ownDetail } from '../services/own-detail.js';

/** The caller's own record as the profile form edits it (engine OwnDetail). */
const OWN_DETAIL = object(
  {
    id: { type: 'integer' },
    username: { type: 'string' },
    version: { type: 'integer', description: 'sent back with an edit, against a stale form' },
    ...Object.fromEntries(OWN_PROFILE_FIELDS.map((name) => [name, { type: ['string', 'null'] }])),
  },
  ['id', 'username', 'version'],
);

/** querySysUserDetail: the caller's own record for the profile form, for any signed-in user. */
export async function ownDetailRoutes(app: FastifyInstance): Promise<void> {
  typed(app).get(
    '/api/account/sysuserdetail/querySysUserDetail',
    {
      config: { isSelfService: true },
      schema: { tags: ['account'], summary: "The caller's own record", response: answer(OWN_DETAIL) },
    },
    async (request) => ok(await ownDetail({ ctx: app.ctx, auth: requireAuth(request) })),
  );
}
