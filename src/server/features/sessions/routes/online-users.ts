import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestAuth } from '../../../lib/auth.js';
import { AppError } from '../../../lib/errors.js';
import { numberParam, ok, queryOf, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { assertAdmin } from '../../rbac/index.js';
import { isUsernameTaken } from '../../accounts/index.js';
import { forceLogout, onlineSessions, touchSession } from '../services/online.js';

/** The caller, when the permission policy counts them as an administrator (403 otherwise). */
function requireAdmin(request: FastifyRequest): RequestAuth {
  const auth = requireAuth(request);
  assertAdmin(auth);
  return auth;
}

/**
 * Ids of a repeated or comma-separated parameter: its route schema (plugins/route-schema-manifest.ts,
 * separatedIds) split the text and read the numbers.
 */
function idsOf(request: FastifyRequest, name: string): number[] {
  const raw = queryOf(request)[name];
  return Array.isArray(raw) ? raw.filter((value): value is number => typeof value === 'number') : [];
}

/** Online users of the tenant (live sessions), forced logout, session registration, user-name check. */
export async function onlineRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;

  app.post('/api/admin/sysuser/registerNewSession', { config: { isSelfService: true } }, async (request) => {
    const auth = requireAuth(request);
    const userAgent = request.headers['user-agent'] ?? null;
    return ok(await touchSession({ ctx, auth, ip: request.ip, userAgent }));
  });

  /** Live sessions of the caller's tenant, most recently seen first (ROLE_ADMIN). */
  app.get('/api/admin/sysuser/queryOnlineSysUser', async (request) => {
    const auth = requireAdmin(request);
    const currentPage = numberParam(request, 'currentPage') ?? 1;
    const pageSize = numberParam(request, 'pageSize') ?? 20;
    const raw = queryOf(request).username;
    const username = typeof raw === 'string' ? raw.trim() : '';
    return ok(await onlineSessions({ ctx, auth, currentPage, pageSize, username }));
  });

  /**
   * Forced logout (ROLE_ADMIN): ends sessions of the tenant by session id (`id`, repeatable) or
   * every session of users (`userId`, repeatable).
   */
  app.post('/api/admin/sysuser/forceLogout', async (request) => {
    const auth = requireAdmin(request);
    const sessionIds = idsOf(request, 'id');
    const userIds = idsOf(request, 'userId');
    if (sessionIds.length === 0 && userIds.length === 0) {
      throw new AppError('validation', {}, [
        { field: '/id', message: localizerFor(request).t('validation.required') },
      ]);
    }
    return ok({ revoked: await forceLogout({ ctx, tenantCode: auth.tenantCode, sessionIds, userIds }) });
  });

  /** Is a user name taken in the caller's tenant? (for the user form) */
  app.get('/api/admin/sysuser/queryUsername', async (request) => {
    const auth = requireAuth(request);
    const raw = queryOf(request).username;
    const username = typeof raw === 'string' ? raw.trim() : '';
    if (username === '') {
      throw new AppError('validation', {}, [
        { field: '/username', message: localizerFor(request).t('validation.required') },
      ]);
    }
    return ok({ username, isTaken: await isUsernameTaken({ ctx, tenantCode: auth.tenantCode, username }) });
  });
}
