import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EntityInputError, type RawParams } from '../../../engine/index.js';
import { ok, queryOf, requireAuth } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';
import { markNotificationsRead, myNotifications } from './services/inbox.js';

const SELF = { config: { isSelfService: true } };

/** id=… repeated, each once: the route schema (plugins/route-schema-manifest.ts) has checked them as ids. */
function idsOf(request: FastifyRequest): number[] {
  const raw = queryOf(request).id;
  return [...new Set((Array.isArray(raw) ? raw : [raw]).map(Number))];
}

/**
 * The caller's own notifications (SPEC §7 "Notification", §9), read or unread per user. Every
 * signed-in user may call these.
 */
export async function notificationRoutes(app: FastifyInstance): Promise<void> {
  const base = `/api/${app.ctx.registry.require('notification').api}`;

  /**
   * GET queryMyNotification: currentPage, pageSize, sort and the notification list's filters
   * (type, priority, title, …), plus read=true|false. data: {records (each with isRead and
   * readAt), total, currentPage, pageSize, unread (all unread of the caller, for a badge)}.
   */
  app.get(`${base}/queryMyNotification`, SELF, async (request) => {
    const l10n = localizerFor(request);
    const { read, ...params } = queryOf(request) as RawParams;
    const readText = Array.isArray(read) ? read[0] : read;
    if (readText !== undefined && readText !== '' && readText !== 'true' && readText !== 'false') {
      throw new EntityInputError([
        { field: '/read', message: l10n.t('validation.type', { type: 'boolean' }) },
      ]);
    }
    const isRead = readText === 'true' ? true : readText === 'false' ? false : undefined;
    return ok(
      await myNotifications({ ctx: app.ctx, auth: requireAuth(request), params, read: isRead, l10n }),
    );
  });

  /** POST markNotificationRead?id=… (repeat id for several). data: {read: how many were newly marked}. */
  app.post(`${base}/markNotificationRead`, SELF, async (request) => {
    const auth = requireAuth(request);
    const ids = idsOf(request);
    const marked = await markNotificationsRead({ ctx: app.ctx, auth, ids, l10n: localizerFor(request) });
    return ok({ read: marked });
  });
}
