import { sql } from 'kysely';
import { EntityInputError, parseListQuery, type RawParams } from '../../../../engine/index.js';
import type { WebhookDelivery, WebhookView } from '../../../../engine/api-types.js';
import { writeAudit } from '../../../lib/audit.js';
import type { RequestAuth } from '../../../lib/auth.js';
import { BUDGETS } from '../../../lib/budgets.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import { EVENT_TYPES } from '../../../lib/events/index.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { isHostAllowed, type AddressGuard } from '../../../lib/address-guard.js';

/** The audit log's entity name for webhooks. */
const AUDIT_ENTITY = 'syswebhook';

export interface WebhookInput {
  name?: string;
  url?: string;
  eventTypes?: string[];
  entities?: string[];
  condition?: Record<string, unknown>;
  secret?: string;
  isEnabled?: boolean;
}

interface WebhookRow {
  id: number | string;
  name: string;
  url: string;
  event_types: string[];
  entities: string[];
  condition: Record<string, string | string[]>;
  is_enabled: boolean;
  disabled_reason: string | null;
  failures: number;
  created_by: string;
  created_at: Date;
}

const actorOf = (auth: RequestAuth): Actor => ({
  userId: auth.userId,
  username: auth.username,
  tenantCode: auth.tenantCode,
});

const invalid = (field: string, message: string): AppError =>
  new AppError('validation', {}, [{ field, message }]);

const viewOf = (row: WebhookRow): WebhookView => ({
  id: Number(row.id),
  name: row.name,
  url: row.url,
  eventTypes: row.event_types,
  entities: row.entities,
  condition: row.condition,
  isEnabled: row.is_enabled,
  disabledReason: row.disabled_reason,
  failures: row.failures,
  createdBy: row.created_by,
  createdAt: new Date(row.created_at).toISOString(),
});

const COLUMNS = sql`id, name, url, event_types, entities, condition, is_enabled, disabled_reason, failures,
  created_by, created_at`;

/**
 * Checks a webhook's input against what it becomes (`current` on an update): an http(s) URL
 * whose host the SSRF guard allows, known event types and entities, and a condition (the list
 * filters of the one entity it names) the entity accepts. 400 naming the field otherwise.
 */
async function checked(
  ctx: AppContext,
  guard: AddressGuard,
  l10n: Localizer,
  input: WebhookInput,
  current?: WebhookView,
): Promise<Required<Omit<WebhookInput, 'secret'>>> {
  const name = (input.name ?? current?.name ?? '').trim();
  if (name === '') throw invalid('/name', l10n.t('validation.required'));
  const url = (input.url ?? current?.url ?? '').trim();
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw invalid('/url', l10n.t('webhooks.problems.url'));
  }
  if (!['http:', 'https:'].includes(target.protocol) || target.username !== '' || target.password !== '')
    throw invalid('/url', l10n.t('webhooks.problems.url'));
  if (!(await isHostAllowed(guard, target.hostname)))
    throw invalid('/url', l10n.t('webhooks.problems.address', { host: target.hostname }));
  const eventTypes = [...new Set(input.eventTypes ?? current?.eventTypes ?? [])];
  const unknownType = eventTypes.find((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknownType !== undefined)
    throw invalid('/eventTypes', l10n.t('webhooks.problems.eventType', { type: unknownType }));
  const entities = [...new Set(input.entities ?? current?.entities ?? [])];
  const unknownEntity = entities.find((entity) => !ctx.registry.get(entity));
  if (unknownEntity !== undefined)
    throw invalid('/entities', l10n.t('webhooks.problems.entity', { entity: unknownEntity }));
  const condition = input.condition ?? current?.condition ?? {};
  if (Object.keys(condition).length > 0) {
    const entity = entities.length === 1 ? ctx.registry.get(entities[0] ?? '') : undefined;
    if (!entity) throw invalid('/condition', l10n.t('webhooks.problems.conditionEntity'));
    const paging = ['currentPage', 'pageSize', 'sort', 'totalExact', 'after'];
    const named = Object.keys(condition).find((key) => paging.includes(key));
    if (named !== undefined)
      throw invalid(`/condition/${named}`, l10n.t('errors.unknownFilterField', { field: named }));
    try {
      parseListQuery(entity, condition as RawParams, l10n.t);
    } catch (error) {
      if (!(error instanceof EntityInputError)) throw error;
      throw new AppError(
        'validation',
        {},
        error.errors.map((item) => ({ field: `/condition${item.field}`, message: item.message })),
      );
    }
  }
  return {
    name,
    url: target.toString(),
    eventTypes,
    entities,
    condition,
    isEnabled: input.isEnabled ?? current?.isEnabled ?? true,
  };
}

function checkedSecret(l10n: Localizer, secret: string | undefined, isRequired: boolean): string | undefined {
  if (secret === undefined) {
    if (isRequired) throw invalid('/secret', l10n.t('validation.required'));
    return undefined;
  }
  if (secret.length < 16) throw invalid('/secret', l10n.t('validation.minLength', { limit: 16 }));
  return secret;
}

export async function listWebhooks(ctx: AppContext, tenantCode: string): Promise<WebhookView[]> {
  const rows = await sql<WebhookRow>`select ${COLUMNS} from sys_webhook where tenant_code = ${tenantCode}
    order by id`.execute(ctx.db);
  return rows.rows.map(viewOf);
}

/** The webhook of the tenant, or a 404. */
async function ownWebhook(
  ctx: AppContext,
  auth: RequestAuth,
  l10n: Localizer,
  id: number,
): Promise<WebhookView> {
  const rows = await sql<WebhookRow>`select ${COLUMNS} from sys_webhook
    where id = ${id} and tenant_code = ${auth.tenantCode}`.execute(ctx.db);
  const row = rows.rows[0];
  if (!row) throw new AppError('notFound', { entity: l10n.t('menus.syswebhook'), key: String(id) });
  return viewOf(row);
}

export async function addWebhook({
  ctx,
  guard,
  auth,
  l10n,
  input,
}: {
  ctx: AppContext;
  guard: AddressGuard;
  auth: RequestAuth;
  l10n: Localizer;
  input: WebhookInput;
}): Promise<WebhookView> {
  const values = await checked(ctx, guard, l10n, input);
  const secret = checkedSecret(l10n, input.secret, true) ?? '';
  return inTransaction(ctx.db, async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`ecobid_webhooks:${auth.tenantCode}`}))`.execute(trx);
    const count = await sql<{ n: number }>`select count(*)::int as n from sys_webhook
      where tenant_code = ${auth.tenantCode}`.execute(trx);
    if ((count.rows[0]?.n ?? 0) >= BUDGETS.webhooks.perTenant)
      throw invalid('/name', l10n.t('webhooks.problems.tooMany', { limit: BUDGETS.webhooks.perTenant }));
    const rows =
      await sql<WebhookRow>`insert into sys_webhook (tenant_code, name, url, event_types, entities, condition,
        secret, is_enabled, created_by)
      values (${auth.tenantCode}, ${values.name}, ${values.url}, ${JSON.stringify(values.eventTypes)}::jsonb,
        ${JSON.stringify(values.entities)}::jsonb, ${JSON.stringify(values.condition)}::jsonb, ${secret},
        ${values.isEnabled}, ${auth.username})
      returning ${COLUMNS}`.execute(trx);
    const row = rows.rows[0];
    if (!row) throw new Error('insert into sys_webhook returned nothing');
    const view = viewOf(row);
    await writeAudit({
      trx,
      actor: actorOf(auth),
      entries: [
        { entity: AUDIT_ENTITY, recordKey: view.id, action: 'add', before: null, after: { ...view } },
      ],
    });
    return view;
  });
}

export async function updateWebhook({
  ctx,
  guard,
  auth,
  l10n,
  id,
  input,
}: {
  ctx: AppContext;
  guard: AddressGuard;
  auth: RequestAuth;
  l10n: Localizer;
  id: number;
  input: WebhookInput;
}): Promise<WebhookView> {
  const current = await ownWebhook(ctx, auth, l10n, id);
  const values = await checked(ctx, guard, l10n, input, current);
  const secret = checkedSecret(l10n, input.secret, false);
  return inTransaction(ctx.db, async (trx) => {
    // Enabled again by hand: its count of failures starts over.
    const isReenabled = values.isEnabled && !current.isEnabled;
    const rows = await sql<WebhookRow>`update sys_webhook set name = ${values.name}, url = ${values.url},
        event_types = ${JSON.stringify(values.eventTypes)}::jsonb, entities = ${JSON.stringify(values.entities)}::jsonb,
        condition = ${JSON.stringify(values.condition)}::jsonb, is_enabled = ${values.isEnabled},
        secret = coalesce(${secret ?? null}, secret), updated_at = now(),
        failures = ${isReenabled ? sql`0` : sql`failures`},
        disabled_reason = ${values.isEnabled ? null : sql`disabled_reason`}
      where id = ${id} and tenant_code = ${auth.tenantCode} returning ${COLUMNS}`.execute(trx);
    const row = rows.rows[0];
    if (!row) throw new AppError('notFound', { entity: l10n.t('menus.syswebhook'), key: String(id) });
    const view = viewOf(row);
    await writeAudit({
      trx,
      actor: actorOf(auth),
      entries: [
        {
          entity: AUDIT_ENTITY,
          recordKey: id,
          action: 'update',
          before: { ...current },
          // The secret's value is never logged: only that it was changed.
          after: { ...view, ...(secret === undefined ? {} : { secretChanged: true }) },
        },
      ],
    });
    return view;
  });
}

export async function deleteWebhooks({
  ctx,
  auth,
  l10n,
  ids,
}: {
  ctx: AppContext;
  auth: RequestAuth;
  l10n: Localizer;
  ids: number[];
}): Promise<number> {
  return inTransaction(ctx.db, async (trx) => {
    const rows = await sql<WebhookRow>`delete from sys_webhook where tenant_code = ${auth.tenantCode}
      and id in (${sql.join(ids)}) returning ${COLUMNS}`.execute(trx);
    const gone = new Set(rows.rows.map((row) => Number(row.id)));
    const missing = ids.find((id) => !gone.has(id));
    if (missing !== undefined)
      throw new AppError('notFound', { entity: l10n.t('menus.syswebhook'), key: String(missing) });
    await writeAudit({
      trx,
      actor: actorOf(auth),
      entries: rows.rows.map((row) => ({
        entity: AUDIT_ENTITY,
        recordKey: Number(row.id),
        action: 'delete' as const,
        before: { ...viewOf(row) },
        after: null,
      })),
    });
    return rows.rows.length;
  });
}

interface DeliveryRow {
  id: number | string;
  event_id: number | string;
  event_type: string;
  entity: string | null;
  record_key: string | null;
  status: WebhookDelivery['status'];
  attempts: number;
  next_at: Date;
  last_at: Date | null;
  last_status: number | null;
  last_answer: string | null;
  last_error: string | null;
  created_at: Date;
}

const iso = (value: Date | null): string | null => (value === null ? null : new Date(value).toISOString());

/** The deliveries of a webhook of the tenant, newest first. */
export async function webhookDeliveries({
  ctx,
  auth,
  l10n,
  id,
  currentPage,
  pageSize,
}: {
  ctx: AppContext;
  auth: RequestAuth;
  l10n: Localizer;
  id: number;
  currentPage: number;
  pageSize: number;
}): Promise<{ records: WebhookDelivery[]; total: number; currentPage: number; pageSize: number }> {
  await ownWebhook(ctx, auth, l10n, id);
  const [rows, count] = await Promise.all([
    sql<DeliveryRow>`select d.id, d.event_id, d.event_type, e.entity, e.record_key, d.status, d.attempts, d.next_at,
        d.last_at, d.last_status, d.last_answer, d.last_error, d.created_at
      from sys_webhook_delivery d left join sys_event e on e.id = d.event_id
      where d.webhook_id = ${id} and d.tenant_code = ${auth.tenantCode}
      order by d.id desc limit ${pageSize} offset ${(currentPage - 1) * pageSize}`.execute(ctx.db),
    sql<{ n: number }>`select count(*)::int as n from sys_webhook_delivery
      where webhook_id = ${id} and tenant_code = ${auth.tenantCode}`.execute(ctx.db),
  ]);
  return {
    records: rows.rows.map((row) => ({
      id: Number(row.id),
      eventId: Number(row.event_id),
      eventType: row.event_type,
      entity: row.entity,
      recordKey: row.record_key,
      status: row.status,
      attempts: row.attempts,
      nextAt: new Date(row.next_at).toISOString(),
      lastAt: iso(row.last_at),
      lastStatus: row.last_status,
      lastAnswer: row.last_answer,
      lastError: row.last_error,
      createdAt: new Date(row.created_at).toISOString(),
    })),
    total: count.rows[0]?.n ?? 0,
    currentPage,
    pageSize,
  };
}

/** 重发: the event of a delivery of the tenant is sent again, as a new delivery due now. */
export async function redeliver({
  ctx,
  auth,
  l10n,
  deliveryId,
}: {
  ctx: AppContext;
  auth: RequestAuth;
  l10n: Localizer;
  deliveryId: number;
}): Promise<{ id: number }> {
  const rows = await sql<{
    id: number | string;
  }>`insert into sys_webhook_delivery (tenant_code, webhook_id, event_id,
      event_type, status, next_at)
    select tenant_code, webhook_id, event_id, event_type, 'pending', now() from sys_webhook_delivery
    where id = ${deliveryId} and tenant_code = ${auth.tenantCode} returning id`.execute(ctx.db);
  const row = rows.rows[0];
  if (!row) throw new AppError('notFound', { entity: l10n.t('webhooks.delivery'), key: String(deliveryId) });
  return { id: Number(row.id) };
}
