import { sql } from 'kysely';
import { parseListQuery, type RawParams } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import type { OutboxEvent } from '../../../lib/events/index.js';
import { column, filterCondition, table, whereClause } from '../../../lib/sql/toolkit.js';
import { eventOf, type EventRow } from './event-rows.js';
import { EVENT_CHANNEL } from './live-feed.js';

/**
 * Events one dispatch takes at most (the next goes on). Their ids go out in one notification:
 * 200 ids of at most 19 digits stay below PostgreSQL's 8000 bytes of payload.
 */
export const DISPATCH_BATCH = 200;

interface HookFilter {
  id: number;
  tenant_code: string;
  event_types: string[];
  entities: string[];
  condition: RawParams;
}

/**
 * Whether a record event's record, as it is now, meets a webhook's condition (the list filters'
 * vocabulary: the query parameters of the entity's list). A record no longer there meets none.
 */
async function meetsCondition(
  ctx: AppContext,
  trx: Db,
  hook: HookFilter,
  event: OutboxEvent,
): Promise<boolean> {
  if (Object.keys(hook.condition).length === 0) return true;
  const entity = event.entity === null ? undefined : ctx.registry.get(event.entity);
  if (!entity || event.key === null) return false;
  let filters;
  try {
    filters = parseListQuery(entity, hook.condition).filters;
  } catch {
    // A condition the entity no longer accepts (a field removed since) meets nothing.
    return false;
  }
  const key = entity.key.type === 'integer' ? Number(event.key) : event.key;
  const conditions = [sql`${column(entity.key)} = ${key}`, ...filters.map(filterCondition)];
  if (entity.isTenantScoped) conditions.push(sql`tenant_code = ${event.tenant}`);
  const found = await sql`select 1 from ${table(entity)} ${whereClause(conditions)} limit 1`.execute(trx);
  return found.rows.length > 0;
}

const matches = (hook: HookFilter, event: OutboxEvent): boolean =>
  hook.tenant_code === event.tenant &&
  (hook.event_types.length === 0 || hook.event_types.includes(event.type)) &&
  (hook.entities.length === 0 || (event.entity !== null && hook.entities.includes(event.entity)));

/** Whether the outbox holds events not yet dispatched (one index probe, outside any transaction). */
export async function hasPendingEvents(ctx: AppContext): Promise<boolean> {
  const found = await sql`select 1 from sys_event where dispatched_at is null limit 1`.execute(ctx.db);
  return found.rows.length > 0;
}

/**
 * Takes the events not yet dispatched (FOR UPDATE SKIP LOCKED: of several processes exactly one
 * takes each), makes one delivery per event and matching enabled webhook in the same
 * transaction and tells every process's live feed of them as it commits (one notification on
 * EVENT_CHANNEL for the whole batch, live-feed.ts); after it committed, hands the events to the
 * modules' subscriptions. Answers how many events it took.
 */
export async function dispatchEvents(
  ctx: AppContext,
  onError: (error: unknown, module: string) => void,
): Promise<number> {
  const taken = await inTransaction(ctx.db, async (trx) => {
    const rows = await sql<EventRow>`update sys_event set dispatched_at = now()
      where id in (select id from sys_event where dispatched_at is null order by id limit ${DISPATCH_BATCH}
        for update skip locked)
      returning id, tenant_code, type, entity, record_key, user_id, username, version, changed, detail, at`.execute(
      trx,
    );
    if (rows.rows.length === 0) return [];
    const events = rows.rows.map(eventOf).sort((a, b) => a.id - b.id);
    // Sent at commit, so the events are there to read when a process hears them.
    await sql`select pg_notify(${EVENT_CHANNEL}, ${events.map((event) => event.id).join(',')})`.execute(trx);
    const tenants = [...new Set(events.map((event) => event.tenant))];
    const hooks =
      await sql<HookFilter>`select id, tenant_code, event_types, entities, condition from sys_webhook
      where is_enabled and tenant_code in (${sql.join(tenants)})`.execute(trx);
    const deliveries: { hook: HookFilter; event: OutboxEvent }[] = [];
    for (const event of events)
      for (const hook of hooks.rows)
        if (matches(hook, event) && (await meetsCondition(ctx, trx, hook, event)))
          deliveries.push({ hook, event });
    if (deliveries.length > 0)
      await sql`insert into sys_webhook_delivery (tenant_code, webhook_id, event_id, event_type, status, next_at)
        values ${sql.join(
          deliveries.map(
            ({ hook, event }) =>
              sql`(${event.tenant}, ${hook.id}, ${event.id}, ${event.type}, 'pending', now())`,
          ),
        )}`.execute(trx);
    return events;
  });
  for (const event of taken)
    for (const { module, subscription } of ctx.modules.subscribersOf(event)) {
      try {
        await subscription.handle(event);
      } catch (error) {
        onError(error, module);
      }
    }
  return taken.length;
}
