import { sql } from 'kysely';
import type { AppContext } from '../../../lib/context.js';
import type { DatabaseHandle } from '../../../lib/db/database.js';
import { startListener } from '../../../lib/db/listener.js';
import type { OutboxEvent } from '../../../lib/events/index.js';
import { eventOf, type EventRow } from './event-rows.js';

/**
 * Every process hears the events committed by any process: the dispatcher that takes a batch of
 * events from the outbox (dispatch.ts, exactly one process per event) announces their ids on
 * ecobid_event in the same transaction, so the notification goes out as it commits. The writers'
 * own transactions send nothing: a NOTIFY at commit takes a lock every notifying commit of the
 * database server waits for, and signals every listening connection of the database (each
 * pooled connection listens for sessions), which cost more PostgreSQL time than the workflow's
 * own statements. A process with live streams reads those events and hands them to its hub; its
 * poller looks at the outbox every LIVE_POLL_MS meanwhile (poller.ts). PostgreSQL: a connection
 * of its own listens (as forms and sessions do); the embedded database: its one connection.
 */
export const EVENT_CHANNEL = 'ecobid_event';

/**
 * Removes the outbox's notifying trigger of earlier versions (the dispatcher notifies now), once
 * per database: a start finds it gone and changes nothing.
 */
export async function removeEventTrigger(ctx: AppContext): Promise<void> {
  const found = await sql`select 1 from pg_trigger
    where tgname = 'sys_event_added_notify' and tgrelid = to_regclass('sys_event')`.execute(ctx.db);
  if (found.rows.length === 0) return;
  await ctx.db.transaction().execute(async (trx) => {
    // Two processes starting at once: one drops, the other then finds nothing to drop.
    await sql`select pg_advisory_xact_lock(hashtext('ecobid_event_trigger'))`.execute(trx);
    await sql`drop trigger if exists sys_event_added_notify on sys_event`.execute(trx);
    await sql`drop function if exists ecobid_event_added()`.execute(trx);
  });
}

export interface EventFeed {
  close(): Promise<void>;
}

/** Parses a notification's payload: ids, or none when it is not one of ours. */
function idsOf(payload: string): number[] {
  if (!/^\d+(,\d+)*$/.test(payload)) return [];
  return payload.split(',').map(Number);
}

/**
 * Hands every committed event to `deliver`, while `isWanted()` (no live stream: the ids are
 * dropped unread). Batches the ids heard in one turn into one read. `heard` is told every id as
 * it is heard, in commit order, wanted or not (the hub keeps which ids have not committed yet).
 */
export async function startEventFeed({
  ctx,
  database,
  isWanted,
  heard: onHeard,
  deliver,
  onError,
}: {
  ctx: AppContext;
  database: DatabaseHandle;
  isWanted: () => boolean;
  heard: (ids: readonly number[]) => void;
  deliver: (events: OutboxEvent[]) => Promise<void>;
  onError: (error: unknown) => void;
}): Promise<EventFeed> {
  let heard: number[] = [];
  let isScheduled = false;
  let reading: Promise<void> = Promise.resolve();
  const read = async (ids: number[]): Promise<void> => {
    const rows = await sql<EventRow>`select id, tenant_code, type, entity, record_key, user_id, username,
      version, changed, detail, at from sys_event where id in (${sql.join(ids)}) order by id`.execute(ctx.db);
    // In the order the notifications came (commit order), not by id.
    const byId = new Map(rows.rows.map((row) => [Number(row.id), eventOf(row)]));
    await deliver(ids.flatMap((id) => byId.get(id) ?? []));
  };
  const hear = (payload: string): void => {
    const ids = idsOf(payload);
    onHeard(ids);
    if (!isWanted()) return;
    heard.push(...ids);
    if (isScheduled) return;
    isScheduled = true;
    setImmediate(() => {
      isScheduled = false;
      const ids = heard;
      heard = [];
      if (ids.length === 0) return;
      reading = reading.then(() => read(ids)).catch(onError);
    });
  };
  const url = ctx.config.databaseUrl;
  if (database.kind === 'pglite' || !url) {
    await database.listen(EVENT_CHANNEL, (payload) => hear(payload));
    return { close: () => reading };
  }
  const listener = await startListener({
    url,
    channels: [EVENT_CHANNEL],
    applicationName: 'ecobid-event-listener',
    onNotification: (_channel, payload) => hear(payload),
  });
  return {
    close: async () => {
      await listener.close();
      await reading;
    },
  };
}
