import type { FastifyInstance } from 'fastify';
import { containsNul, EntityInputError, type FieldError } from '../../../../engine/index.js';
import { AppError } from '../../../lib/errors.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { changeOwnPassword } from '../services/password.js';
import { currentAuthority } from '../../rbac/index.js';
import { identityRoutes } from './identity.js';
import { assertField, fieldRule } from '../../../lib/input.js';

const SELF = { config: { isSelfService: true } };

/** Whole numbers as the route schema (plugins/route-schema-manifest.ts) read them: null when sent empty. */
type WholeNumberParam = number | null | undefined;

interface AuthorityQuery {
  parentId?: WholeNumberParam;
  userId?: WholeNumberParam;
  username?: string;
  postCode?: string;
}

interface PasswordQuery {
  password?: string;
  newPassword?: string;
  id?: WholeNumberParam;
}

/** Account endpoints every signed-in user needs for themselves (SPEC §7 "Sign-in and account"). */
export async function accountRoutes(app: FastifyInstance): Promise<void> {
  await app.register(identityRoutes);
  /**
   * The caller's menus, paths and buttons; also the menu-for-user call of SPEC §7 (username and
   * userId, when sent, must be the caller's own: 403 otherwise). parentId narrows the tree to one
   * top-level menu, postCode to the roles of one of the caller's posts.
   */
  const postCodeRule = fieldRule(app.ctx, 'syspost', 'postCode');
  app.post<{ Querystring: AuthorityQuery }>(
    '/api/account/sysuserdetail/queryCurrentAuthority',
    SELF,
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
        await currentAuthority(app.ctx, auth, {
          ...(parentId == null ? {} : { parentId }),
          ...(postCode === '' ? {} : { postCode }),
        }),
      );
    },
  );

  /** The roles of the session (roles), those acted in now (currentRoles, RoleCode header) and the first of them. */
  app.post('/api/account/sysuserdetail/queryRoleInfo', SELF, async (request) => {
    const auth = requireAuth(request);
    return ok({ roles: auth.heldRoles, currentRoles: auth.roles, currentRole: auth.roles[0] ?? null });
  });

  const newPasswordRule = fieldRule(app.ctx, 'sysuser', 'password');

  /**
   * Changes the caller's own password (query: password = the current one, newPassword, id).
   * The new password obeys the user schema's rules; every other session of the user ends.
   */
  app.put<{ Querystring: PasswordQuery }>(
    '/api/account/sysuserdetail/updatePassword',
    SELF,
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
      await changeOwnPassword({ ctx: app.ctx, auth, current, newPassword, t: l10n.t });
      return ok(null);
    },
  );
}
