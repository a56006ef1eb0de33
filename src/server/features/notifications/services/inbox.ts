import { sql, type RawBuilder } from 'kysely';
import { parseListQuery, type EntityDef, type Page, type RawParams } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Row } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import {
  column,
  filterCondition,
  orderByClause,
  selectList,
  table,
  whereClause,
  type Condition,
} from '../../../lib/sql/toolkit.js';
import { entityTitle } from '../../../lib/titles.js';
import type { AuthContext } from '../../sessions/index.js';

function fieldRef(entity: EntityDef, name: string): RawBuilder<unknown> {
  const field = entity.fieldsByName.get(name);
  if (!field) throw new Error(`the ${entity.name} schema has no field ${name}`);
  return column(field);
}

/**
 * The notifications a user may read: those of their tenant whose recipients (publishObject) are
 * empty (everyone) or name them, published (publishTime not in the future) and within their
 * period (startTime, endTime; an empty bound is open).
 */
function mine(entity: EntityDef, auth: AuthContext): Condition[] {
  const recipients = fieldRef(entity, 'publishObject');
  return [
    ...current(entity, auth.tenantCode),
    sql`(${recipients} is null or jsonb_array_length(${recipients}) = 0
      or ${recipients} @> ${JSON.stringify([auth.userId])}::jsonb)`,
  ];
}

/** The tenant's notifications that are published and within their period now, whoever they are to. */
function current(entity: EntityDef, tenantCode: string): Condition[] {
  return [
    sql`tenant_code = ${tenantCode}`,
    sql`(${fieldRef(entity, 'publishTime')} is null or ${fieldRef(entity, 'publishTime')} <= now())`,
    sql`(${fieldRef(entity, 'startTime')} is null or ${fieldRef(entity, 'startTime')} <= now())`,
    sql`(${fieldRef(entity, 'endTime')} is null or ${fieldRef(entity, 'endTime')} >= now())`,
  ];
}

const idColumn = (entity: EntityDef): RawBuilder<unknown> => sql.ref(`${entity.table}.${entity.key.column}`);

/** When the user read a notification (kept per user in sys_notification_read), null if not. */
const readAt = (entity: EntityDef, userId: number): RawBuilder<unknown> =>
  sql`(select r.created_at from sys_notification_read r where r.notification_id = ${idColumn(entity)} and r.user_id = ${userId})`;

export type InboxPage = Page<Row & { isRead: boolean }> & { unread: number };

/**
 * A page of the caller's own notifications by the notification list's filters and sort; read
 * narrows to read (true) or unread (false) ones. unread counts all the caller's unread ones.
 */
export async function myNotifications({
  ctx,
  auth,
  params,
  read,
  l10n,
}: {
  ctx: AppContext;
  auth: AuthContext;
  params: RawParams;
  read: boolean | undefined;
  l10n: Localizer;
}): Promise<InboxPage> {
  const entity = ctx.registry.require('notification');
  const query = parseListQuery(entity, params, l10n.t);
  const visible = mine(entity, auth);
  const conditions = [...visible, ...query.filters.map(filterCondition)];
  if (read === true) conditions.push(sql`${readAt(entity, auth.userId)} is not null`);
  if (read === false) conditions.push(sql`${readAt(entity, auth.userId)} is null`);
  const where = whereClause(conditions);
  const [count, unread, page] = await Promise.all([
    sql<{ total: number }>`select count(*)::int as total from ${table(entity)} ${where}`.execute(ctx.db),
    sql<{ total: number }>`select count(*)::int as total from ${table(entity)}
      ${whereClause([...visible, sql`${readAt(entity, auth.userId)} is null`])}`.execute(ctx.db),
    sql<Row>`select ${selectList(entity)}, ${readAt(entity, auth.userId)} as "readAt" from ${table(entity)} ${where}
      ${orderByClause({ entity, sort: query.sort })} limit ${query.pageSize} offset ${(query.currentPage - 1) * query.pageSize}`.execute(
      ctx.db,
    ),
  ]);
  return {
    records: page.rows.map((row) => ({ ...row, isRead: row.readAt !== null && row.readAt !== undefined })),
    total: count.rows[0]?.total ?? 0,
    currentPage: query.currentPage,
    pageSize: query.pageSize,
    unread: unread.rows[0]?.total ?? 0,
  };
}

/**
 * Marks notifications of the caller as read; marking one twice keeps the first time. An id that
 * is not one of the caller's notifications is a 404 and marks nothing. Answers how many were
 * newly marked.
 */
export async function markNotificationsRead({
  ctx,
  auth,
  ids,
  l10n,
}: {
  ctx: AppContext;
  auth: AuthContext;
  ids: number[];
  l10n: Localizer;
}): Promise<number> {
  const entity = ctx.registry.require('notification');
  const id = idColumn(entity);
  return inTransaction(ctx.db, async (trx) => {
    const found = await sql<{ id: number }>`select ${id} as id from ${table(entity)}
      ${whereClause([sql`${id} in (${sql.join(ids)})`, ...mine(entity, auth)])}`.execute(trx);
    const visible = new Set(found.rows.map((row) => Number(row.id)));
    const missing = ids.find((item) => !visible.has(item));
    if (missing !== undefined) {
      throw new AppError('notFound', { entity: entityTitle(l10n, entity), key: String(missing) });
    }
    const inserted = await sql`insert into sys_notification_read (tenant_code, notification_id, user_id)
      values ${sql.join(ids.map((item) => sql`(${auth.tenantCode}, ${item}, ${auth.userId})`))}
      on conflict (notification_id, user_id) do nothing`.execute(trx);
    return Number(inserted.numAffectedRows ?? 0);
  });
}

/**
 * Who a notification is in the inbox of, now (the live-update stream tells a session of a notice
 * it received: features/events): `users` its recipients' ids, or null for everyone of the tenant;
 * undefined when it is no one's now (gone, not yet published, out of its period).
 */
export async function noticeAudience({
  ctx,
  tenantCode,
  id,
}: {
  ctx: AppContext;
  tenantCode: string;
  id: string;
}): Promise<{ users: number[] | null } | undefined> {
  const entity = ctx.registry.require('notification');
  const key = Number(id);
  if (!Number.isSafeInteger(key)) return undefined;
  const recipients = fieldRef(entity, 'publishObject');
  const found = await sql<{ recipients: unknown }>`select ${recipients} as recipients from ${table(entity)}
    ${whereClause([sql`${idColumn(entity)} = ${key}`, ...current(entity, tenantCode)])}`.execute(ctx.db);
  const row = found.rows[0];
  if (!row) return undefined;
  const users = Array.isArray(row.recipients) ? row.recipients.map(Number) : [];
  return { users: users.length === 0 ? null : users };
}
