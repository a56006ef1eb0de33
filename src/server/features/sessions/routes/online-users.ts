import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, integer, object, separatedIds, text, typed } from '../../../lib/route-schema.js';
import { assertAllFound, assertOwnRecords } from '../../rbac/index.js';
import { isUsernameTaken } from '../../accounts/index.js';
import { forceLogout, onlineSessions, tenantSessionIds, touchSession } from '../services/online.js';

const tags = ['sysuser'];

const dateTime = (description: string) => ({ type: 'string', format: 'date-time', description });
const nullableDateTime = (description: string) => ({
  type: ['string', 'null'],
  format: 'date-time',
  description,
});

/** A live session as the online-user list shows it (engine OnlineSession). */
const ONLINE_SESSION = object(
  {
    id: { type: 'integer', description: 'the session' },
    userId: { type: 'integer' },
    username: { type: 'string' },
    nickname: { type: ['string', 'null'] },
    clientCode: { type: 'string' },
    ip: { type: ['string', 'null'] },
    userAgent: { type: ['string', 'null'] },
    loginAt: dateTime('when the session was opened'),
    lastSeenAt: nullableDateTime('the last request, to the minute'),
    expiresAt: dateTime('when the access token expires'),
    isCurrent: { type: 'boolean', description: "the caller's own session" },
  },
  [
    'id',
    'userId',
    'username',
    'nickname',
    'clientCode',
    'ip',
    'userAgent',
    'loginAt',
    'lastSeenAt',
    'expiresAt',
    'isCurrent',
  ],
);

/** Online users of the tenant (live sessions), forced logout, session registration, user-name check. */
export async function onlineRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);

  api.post(
    '/api/admin/sysuser/registerNewSession',
    {
      config: { isSelfService: true },
      schema: {
        tags,
        summary: "The caller's session announces itself",
        response: answer(
          object(
            {
              sessionId: { type: 'integer' },
              lastSeenAt: nullableDateTime('now'),
              expiresAt: nullableDateTime('when the access token expires'),
            },
            ['sessionId', 'lastSeenAt', 'expiresAt'],
          ),
        ),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const userAgent = request.headers['user-agent'] ?? null;
      return ok(await touchSession({ ctx, auth, ip: request.ip, userAgent }));
    },
  );

  /** Live sessions of the caller's tenant, most recently seen first (ROLE_ADMIN). */
  api.get(
    '/api/admin/sysuser/queryOnlineSysUser',
    {
      schema: {
        tags,
        summary: 'Live sessions of the tenant (the 在线用户 menu)',
        querystring: object({
          currentPage: integer(1, 1_000_000),
          pageSize: integer(1, 500),
          username: text(128, { description: 'contains' }),
        }),
        response: answer(
          object(
            {
              records: { type: 'array', items: ONLINE_SESSION },
              total: { type: 'integer' },
              currentPage: { type: 'integer' },
              pageSize: { type: 'integer' },
            },
            ['records', 'total', 'currentPage', 'pageSize'],
          ),
        ),
      },
    },
    async (request) => {
      // who may list them is the permission policy's (the URL or the 在线用户 menu, permission hook)
      const auth = requireAuth(request);
      const { currentPage = 1, pageSize = 20 } = request.query;
      const username = request.query.username?.trim() ?? '';
      return ok(await onlineSessions({ ctx, auth, currentPage, pageSize, username }));
    },
  );

  /**
   * Forced logout (ROLE_ADMIN): ends sessions of the tenant by session id (`id`, repeatable) or
   * every session of users (`userId`, repeatable).
   */
  api.post(
    '/api/admin/sysuser/forceLogout',
    {
      schema: {
        tags,
        summary: "Ends sessions by id or every session of users (the 在线用户 menu's kickout button)",
        querystring: object({
          id: separatedIds(1000, 'session ids'),
          userId: separatedIds(1000, 'user ids'),
        }),
        response: answer(
          object({ revoked: { type: 'integer', description: 'sessions ended' } }, ['revoked']),
        ),
      },
    },
    async (request) => {
      // the 在线用户 menu's kickout button, or a URL grant (permission hook)
      const auth = requireAuth(request);
      const { id: sessionIds = [], userId: userIds = [] } = request.query;
      if (sessionIds.length === 0 && userIds.length === 0) {
        throw new AppError('validation', {}, [
          { field: '/id', message: localizerFor(request).t('validation.required') },
        ]);
      }
      // another tenant's session or user is one this tenant does not have: 404, nothing ends
      const l10n = localizerFor(request);
      assertAllFound({
        ids: sessionIds,
        found: await tenantSessionIds({ ctx, tenantCode: auth.tenantCode, ids: sessionIds }),
        subject: l10n.t('menus.onlinesysuser'),
      });
      await assertOwnRecords({
        db: ctx.db,
        entity: ctx.registry.require('sysuser'),
        tenantCode: auth.tenantCode,
        keys: userIds,
        l10n,
      });
      return ok({ revoked: await forceLogout({ ctx, tenantCode: auth.tenantCode, sessionIds, userIds }) });
    },
  );

  /** Is a user name taken in the caller's tenant? (for the user form) */
  api.get(
    '/api/admin/sysuser/queryUsername',
    {
      schema: {
        tags,
        summary: "Is a user name taken in the caller's tenant?",
        querystring: object({ username: text(128) }, ['username']),
        response: answer(
          object({ username: { type: 'string' }, isTaken: { type: 'boolean' } }, ['username', 'isTaken']),
        ),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const username = request.query.username.trim();
      if (username === '') {
        throw new AppError('validation', {}, [
          { field: '/username', message: localizerFor(request).t('validation.required') },
        ]);
      }
      return ok({ username, isTaken: await isUsernameTaken({ ctx, tenantCode: auth.tenantCode, username }) });
    },
  );
}
