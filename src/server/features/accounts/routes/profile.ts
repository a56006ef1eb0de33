import type { FastifyInstance } from 'fastify';
import { OWN_PROFILE_FIELDS, serializedRecordOf } from '../../../../engine/index.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import {
  answer,
  anyJson,
  integerOrText,
  MAX_KEY,
  nullable,
  object,
  typed,
} from '../../../lib/route-schema.js';
import { updateOwnProfile } from '../services/profile.js';

/** updateSysUserDetail: the caller edits their own profile (a new mobile needs its SMS code). */
export async function profileRoutes(app: FastifyInstance): Promise<void> {
  const user = app.ctx.registry.require('sysuser');
  // The service checks the fields by the user schema and names any it does not let the caller edit.
  const editable = Object.fromEntries(
    OWN_PROFILE_FIELDS.map((name) => [name, anyJson({ description: 'checked by the user schema' })]),
  );
  typed(app).put(
    '/api/account/sysuserdetail/updateSysUserDetail',
    {
      config: { isSelfService: true },
      schema: {
        tags: ['account'],
        summary: 'The caller edits their own profile (a new mobile needs its SMS code)',
        body: object(
          {
            // The caller's own key, checked (403 for another one), never written; a form may send its digits.
            id: nullable(integerOrText(0, MAX_KEY)),
            version: anyJson({ description: 'the version the form read: a stale one is refused (409)' }),
            username: anyJson({ description: "the caller's own, checked, never written" }),
            smsCaptcha: anyJson({ description: 'the SMS code sent to a new mobile number' }),
            ...editable,
          },
          [],
          { description: 'Fields of the user form the caller may edit, id and version' },
        ),
        response: answer(serializedRecordOf(user)),
      },
    },
    async (request) =>
      ok(
        await updateOwnProfile({
          ctx: app.ctx,
          auth: requireAuth(request),
          input: request.body,
          l10n: localizerFor(request),
        }),
      ),
  );
}
