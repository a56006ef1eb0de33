import type { FastifyInstance } from 'fastify';
import { containsNul, EntityInputError, type FieldError } from '../../../engine/index.js';
import { AppError } from '../../lib/errors.js';
import { ok, queryOf, requireAuth } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';
import { changeOwnPassword } from '../../services/accounts/password.js';
import { currentAuthority } from '../../services/permissions/authority.js';
import { identityRoutes } from './identity.js';
import { notificationRoutes } from '../notifications.js';
import { fieldRule } from '../../lib/input.js';

const SELF = { config: { isSelfService: true } };

/** Account endpoints every signed-in user needs for themselves (SPEC §7 "Sign-in and account"). */
export async function accountRoutes(app: FastifyInstance): Promise<void> {
  await app.register(identityRoutes);
  await app.register(notificationRoutes);
  /**
   * The caller's menus, paths and buttons; also the menu-for-user call of SPEC §7 (username and
   * userId, when sent, must be the caller's own: 403 otherwise). parentId narrows the tree to one
   * top-level menu, postCode to the roles of one of the caller's posts.
   */
  const postCodeRule = fieldRule(app.ctx, 'syspost', 'postCode');
  app.post('/api/account/sysuserdetail/queryCurrentAuthority', SELF, async (request) => {
    const auth = requireAuth(request);
    const t = localizerFor(request).t;
    const query = queryOf(request);
    const text = (name: string): string => {
      const raw = query[name];
      return typeof raw === 'string' ? raw.trim() : '';
    };
    const parentId = text('parentId');
    const errors: FieldError[] = [];
    for (const [name, value] of [
      ['parentId', parentId],
      ['userId', text('userId')],
    ] as const) {
      if (value !== '' && !/^\d{1,15}$/.test(value))
        errors.push({ field: `/${name}`, message: t('validation.type', { type: 'integer' }) });
    }
    const postCode = text('postCode');
    // the post schema's own rule; PostgreSQL text cannot hold NUL, which no schema can say
    if (containsNul(postCode)) errors.push({ field: '/postCode', message: t('validation.invalid') });
    else if (postCode !== '') errors.push(...postCodeRule(postCode, '/postCode', t));
    if (errors.length > 0) throw new EntityInputError(errors);
    const username = text('username');
    const userId = text('userId');
    if ((username !== '' && username !== auth.username) || (userId !== '' && Number(userId) !== auth.userId))
      throw new AppError('forbidden');
    return ok(
      await currentAuthority(app.ctx, auth, {
        ...(parentId === '' ? {} : { parentId: Number(parentId) }),
        ...(postCode === '' ? {} : { postCode }),
      }),
    );
  });

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
  app.put('/api/account/sysuserdetail/updatePassword', SELF, async (request) => {
    const auth = requireAuth(request);
    const l10n = localizerFor(request);
    const query = queryOf(request);
    const current = typeof query.password === 'string' ? query.password : '';
    const newPassword =
      typeof query.newPassword === 'string' && query.newPassword !== '' ? query.newPassword : undefined;
    const id = typeof query.id === 'string' && query.id.trim() !== '' ? Number(query.id) : auth.userId;
    if (id !== auth.userId) throw new AppError('forbidden');
    const errors: FieldError[] = current
      ? []
      : [{ field: '/password', message: l10n.t('validation.required') }];
    errors.push(...newPasswordRule(newPassword ?? '', '/newPassword', l10n.t));
    if (errors.length > 0 || newPassword === undefined) throw new EntityInputError(errors);
    await changeOwnPassword({ ctx: app.ctx, auth, current, newPassword, t: l10n.t });
    return ok(null);
  });
}
