import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql, type RawBuilder } from 'kysely';
import { EntityInputError, parseListQuery, type EntityDef, type RawParams } from '../../engine/index.js';
import {
  column,
  filterCondition,
  orderByClause,
  selectList,
  table,
  whereClause,
  type Condition,
} from '../lib/sql/toolkit.js';
import { entityTitle } from '../lib/titles.js';
import type { Row } from '../lib/db/database.js';
import { AppError } from '../lib/errors.js';
import { ok, queryOf, requireAuth } from '../lib/http.js';
import { localizerFor } from '../lib/i18n.js';

const SELF = { config: { isSelfService: true } };

function fieldRef(entity: EntityDef, name: string): RawBuilder<unknown> {
  const field = entity.fieldsByName.get(name);
  if (!field) throw new Error(`the ${entity.name} schema has no field ${name}`);
  return column(field);
}

/**
 * The caller's own notifications (SPEC §7 "Notification", §9): those of their tenant whose
 * recipients (publishObject) are empty (everyone) or name them, published (publishTime not in the
 * future) and within their period (startTime, endTime; an empty bound is open). Whether the caller
 * has read one is kept per user in sys_notification_read. Every signed-in user may call these.
 */
export async function notificationRoutes(app: FastifyInstance): Promise<void> {
  const entity = app.ctx.registry.require('notification');
  const base = `/api/${entity.api}`;
  const id = sql.ref(`${entity.table}.${entity.key.column}`);

  const mine = (userId: number, tenantCode: string): Condition[] => [
    sql`tenant_code = ${tenantCode}`,
    sql`(${fieldRef(entity, 'publishObject')} is null or jsonb_array_length(${fieldRef(entity, 'publishObject')}) = 0
      or ${fieldRef(entity, 'publishObject')} @> ${JSON.stringify([userId])}::jsonb)`,
    sql`(${fieldRef(entity, 'publishTime')} is null or ${fieldRef(entity, 'publishTime')} <= now())`,
    sql`(${fieldRef(entity, 'startTime')} is null or ${fieldRef(entity, 'startTime')} <= now())`,
    sql`(${fieldRef(entity, 'endTime')} is null or ${fieldRef(entity, 'endTime')} >= now())`,
  ];
  const readAt = (userId: number): RawBuilder<unknown> =>
    sql`(select r.created_at from sys_notification_read r where r.notification_id = ${id} and r.user_id = ${userId})`;

  /**
   * GET queryMyNotification: currentPage, pageSize, sort and the notification list's filters
   * (type, priority, title, …), plus read=true|false. data: {records (each with isRead and
   * readAt), total, currentPage, pageSize, unread (all unread of the caller, for a badge)}.
   */
  app.get(`${base}/queryMyNotification`, SELF, async (request) => {
    const auth = requireAuth(request);
    const l10n = localizerFor(request);
    const { read, ...params } = queryOf(request) as RawParams;
    const readText = Array.isArray(read) ? read[0] : read;
    if (readText !== undefined && readText !== '' && readText !== 'true' && readText !== 'false') {
      throw new EntityInputError([
        { field: '/read', message: l10n.t('validation.type', { type: 'boolean' }) },
      ]);
    }
    const query = parseListQuery(entity, params, l10n.t);
    const visible = mine(auth.userId, auth.tenantCode);
    const conditions = [...visible, ...query.filters.map(filterCondition)];
    if (readText === 'true') conditions.push(sql`${readAt(auth.userId)} is not null`);
    if (readText === 'false') conditions.push(sql`${readAt(auth.userId)} is null`);
    const where = whereClause(conditions);
    const [count, unread, page] = await Promise.all([
      sql<{ total: number }>`select count(*)::int as total from ${table(entity)} ${where}`.execute(
        app.ctx.db,
      ),
      sql<{ total: number }>`select count(*)::int as total from ${table(entity)}
        ${whereClause([...visible, sql`${readAt(auth.userId)} is null`])}`.execute(app.ctx.db),
      sql<Row>`select ${selectList(entity)}, ${readAt(auth.userId)} as "readAt" from ${table(entity)} ${where}
        ${orderByClause(entity, query.sort)} limit ${query.pageSize} offset ${(query.currentPage - 1) * query.pageSize}`.execute(
        app.ctx.db,
      ),
    ]);
    return ok({
      records: page.rows.map((row) => ({ ...row, isRead: row.readAt !== null && row.readAt !== undefined })),
      total: count.rows[0]?.total ?? 0,
      currentPage: query.currentPage,
      pageSize: query.pageSize,
      unread: unread.rows[0]?.total ?? 0,
    });
  });

  const idsOf = (request: FastifyRequest): number[] => {
    const raw = queryOf(request).id;
    const texts = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((item) =>
      String(item).trim(),
    );
    const t = localizerFor(request).t;
    if (texts.length === 0) throw new EntityInputError([{ field: '/id', message: t('validation.required') }]);
    if (texts.length > 1000)
      throw new EntityInputError([{ field: '/id', message: t('validation.maxItems', { limit: 1000 }) }]);
    if (!texts.every((text) => /^\d{1,15}$/.test(text)))
      throw new EntityInputError([{ field: '/id', message: t('validation.type', { type: 'integer' }) }]);
    return [...new Set(texts.map(Number))];
  };

  /**
   * POST markNotificationRead?id=… (repeat id for several): marks notifications of the caller as
   * read; marking one twice keeps the first time. An id that is not one of the caller's
   * notifications is a 404 and marks nothing. data: {read: how many were newly marked}.
   */
  app.post(`${base}/markNotificationRead`, SELF, async (request) => {
    const auth = requireAuth(request);
    const ids = idsOf(request);
    const marked = await app.ctx.db.transaction().execute(async (trx) => {
      const found = await sql<{ id: number }>`select ${id} as id from ${table(entity)}
        ${whereClause([sql`${id} in (${sql.join(ids)})`, ...mine(auth.userId, auth.tenantCode)])}`.execute(
        trx,
      );
      const visible = new Set(found.rows.map((row) => Number(row.id)));
      const missing = ids.find((item) => !visible.has(item));
      if (missing !== undefined) {
        throw new AppError('notFound', {
          entity: entityTitle(localizerFor(request), entity),
          key: String(missing),
        });
      }
      const inserted = await sql`insert into sys_notification_read (tenant_code, notification_id, user_id)
        values ${sql.join(ids.map((item) => sql`(${auth.tenantCode}, ${item}, ${auth.userId})`))}
        on conflict (notification_id, user_id) do nothing`.execute(trx);
      return Number(inserted.numAffectedRows ?? 0);
    });
    return ok({ read: marked });
  });
}
