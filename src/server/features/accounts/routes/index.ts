import type { FastifyInstance } from 'fastify';
import { containsNul, EntityInputError, type FieldError } from '../../../../engine/index.js';
import { AppError } from '../../../lib/errors.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { changeOwnPassword } from '../services/password.js';
import { currentAuthority, currentAuthoritySchema } from '../../rbac/index.js';
import { RENEWED_SESSION } from '../../sessions/index.js';
import { identityRoutes } from './identity.js';
import { assertField, fieldRule } from '../../../lib/input.js';
import { answer, MAX_KEY, object, optionalInteger, text, typed } from '../../../lib/route-schema.js';

const SELF = { isSelfService: true };
const tags = ['account'];

/** The roles of the session and those acted in now (RoleCode header). */
const ROLE_INFO = object(
  {
    roles: { type: 'array', items: { type: 'string' }, description: 'the roles of the session' },
    currentRoles: {
      type: 'array',
      items: { type: 'string' },
      description: 'the roles acted in now (RoleCode header; all of the session without it)',
    },
    currentRole: { type: ['string', 'null'], description: 'the first of currentRoles' },
  },
  ['roles', 'currentRoles', 'currentRole'],
);

/** Account endpoints every signed-in user needs for themselves (docs/product.md §7 "Sign-in and account"). */
export async function accountRoutes(app: FastifyInstance): Promise<void> {
  await app.register(identityRoutes);
  const api = typed(app);
  /**
   * The caller's menus, paths and buttons; also the menu-for-user call of docs/product.md §7
   * (username and userId, when sent, must be the caller's own: 403 otherwise). parentId narrows
   * the tree to one top-level menu, postCode to the roles of one of the caller's posts.
   */
  const postCodeRule = fieldRule({ ctx: app.ctx, entityName: 'syspost', fieldName: 'postCode' });
  api.post(
    '/api/account/sysuserdetail/queryCurrentAuthority',
    {
      config: SELF,
      schema: {
        tags,
        summary: "The caller's menus, paths and buttons",
        querystring: object({
          parentId: optionalInteger(0, MAX_KEY, { description: 'narrows the tree to one top-level menu' }),
          userId: optionalInteger(0, MAX_KEY, { description: "the caller's own id" }),
          username: text(128, { description: "the caller's own user name" }),
          postCode: text(64, { description: "narrows to the roles of one of the caller's posts" }),
        }),
        response: answer(currentAuthoritySchema(app.ctx.registry.require('sysmenu'))),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const t = localizerFor(request).t;
      const { parentId, userId } = request.query;
      const username = request.query.username?.trim() ?? '';
      const postCode = request.query.postCode?.trim() ?? '';
      // the post schema's own rule; PostgreSQL text cannot hold NUL, which no schema can say
      if (containsNul(postCode))
        throw new EntityInputError([{ field: '/postCode', message: t('validation.invalid') }]);
      if (postCode !== '') assertField(postCodeRule(postCode, '/postCode', t));
      const isSomeoneElse =
        (username !== '' && username !== auth.username) || (userId != null && userId !== auth.userId);
      if (isSomeoneElse) throw new AppError('forbidden');
      return ok(
        await currentAuthority({
          ctx: app.ctx,
          auth,
          ...(parentId == null ? {} : { parentId }),
          ...(postCode === '' ? {} : { postCode }),
        }),
      );
    },
  );

  /** The roles of the session, those acted in now (RoleCode header) and the first of them. */
  api.post(
    '/api/account/sysuserdetail/queryRoleInfo',
    {
      config: SELF,
      schema: { tags, summary: 'Roles of the session and those acted in now', response: answer(ROLE_INFO) },
    },
    async (request) => {
      const auth = requireAuth(request);
      return ok({ roles: auth.heldRoles, currentRoles: auth.roles, currentRole: auth.roles[0] ?? null });
    },
  );

  const newPasswordRule = fieldRule({ ctx: app.ctx, entityName: 'sysuser', fieldName: 'password' });

  /**
   * Changes the caller's own password (query: password = the current one, newPassword, id).
   * The new password obeys the user schema's rules; every session of the user ends, the caller's
   * too, and the answer is a fresh session for the page that made the change.
   */
  api.put(
    '/api/account/sysuserdetail/updatePassword',
    {
      config: SELF,
      schema: {
        tags,
        summary:
          "Changes the caller's own password; every session of the user ends and the caller gets a new one",
        querystring: object({
          password: text(256),
          newPassword: text(256),
          // another user's id is refused with 403, a negative one too
          id: optionalInteger(-MAX_KEY, MAX_KEY, { description: "the caller's own id" }),
        }),
        response: answer(RENEWED_SESSION),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const l10n = localizerFor(request);
      const { id } = request.query;
      const current = request.query.password ?? '';
      const newPassword = request.query.newPassword || undefined;
      if (id != null && id !== auth.userId) throw new AppError('forbidden');
      const errors: FieldError[] = current
        ? []
        : [{ field: '/password', message: l10n.t('validation.required') }];
      errors.push(...newPasswordRule(newPassword ?? '', '/newPassword', l10n.t));
      if (errors.length > 0 || newPassword === undefined) throw new EntityInputError(errors);
      return ok(
        await changeOwnPassword({
          ctx: app.ctx,
          auth,
          current,
          newPassword,
          t: l10n.t,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
        }),
      );
    },
  );
}
