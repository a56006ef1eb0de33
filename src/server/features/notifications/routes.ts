import type { FastifyInstance } from 'fastify';
import { entityRouteSchemas, pageSchemaOf, serializedRecordOf } from '../../../engine/index.js';
import { ok, requireAuth } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';
import { answer, flag, ids, integer, object, typed } from '../../lib/route-schema.js';
import { markNotificationsRead, myNotifications } from './services/inbox.js';

const SELF = { isSelfService: true };
const tags = ['notification'];

/**
 * The caller's own notifications (docs/product.md §7 "Notification and home", §9), read or
 * unread per user. Every signed-in user may call these.
 */
export async function notificationRoutes(app: FastifyInstance): Promise<void> {
  const notification = app.ctx.registry.require('notification');
  const base = `/api/${notification.api}`;
  const listQuery = entityRouteSchemas(notification).find((route) => route.url === `${base}/query`)?.schema
    .querystring;
  const record = serializedRecordOf(notification);
  const inboxRecord = {
    ...record,
    properties: {
      ...(record.properties as Record<string, unknown>),
      isRead: { type: 'boolean' },
      readAt: { description: 'when the caller read it (date-time), or null' },
    },
  };
  const inboxPage = pageSchemaOf(inboxRecord);
  const api = typed(app);

  api.get(
    `${base}/queryMyNotification`,
    {
      config: SELF,
      schema: {
        tags,
        summary: "The caller's notifications, with isRead and the unread count",
        description:
          "The notification list's paging, sort and filters (type, priority, title, …), plus read=true|false.",
        querystring: object({
          ...((listQuery?.properties ?? {}) as Record<string, Record<string, unknown>>),
          read: flag('true: read only; false: unread only'),
        }),
        response: answer({
          ...inboxPage,
          properties: {
            ...(inboxPage.properties as Record<string, unknown>),
            unread: {
              type: 'integer',
              description: "every unread notification of the caller (a badge's count)",
            },
          },
        }),
      },
    },
    async (request) => {
      const { read, ...params } = request.query;
      return ok(
        await myNotifications({
          ctx: app.ctx,
          auth: requireAuth(request),
          params,
          read: read === 'true' ? true : read === 'false' ? false : undefined,
          l10n: localizerFor(request),
        }),
      );
    },
  );

  api.post(
    `${base}/markNotificationRead`,
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Marks notifications of the caller as read (repeat id for several)',
        querystring: object({ id: ids(1000) }, ['id']),
        response: answer(
          object({ read: integer(0, Number.MAX_SAFE_INTEGER, { description: 'newly marked' }) }, ['read']),
        ),
      },
    },
    async (request) => {
      const marked = await markNotificationsRead({
        ctx: app.ctx,
        auth: requireAuth(request),
        ids: [...new Set(request.query.id)],
        l10n: localizerFor(request),
      });
      return ok({ read: marked });
    },
  );
}
