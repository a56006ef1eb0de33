import { sql } from 'kysely';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { defineModule, readParam, type ModuleDefinition } from '../../../lib/modules/index.js';
import { column, table } from '../../../lib/sql/toolkit.js';

/**
 * How long the event outbox (sys_event) and the webhooks' delivery log (sys_webhook_delivery)
 * are kept: the tenant's system parameter eventRetentionDays (a whole number of days, at least 1;
 * 30 when unset), purged hourly by a job on the module API, in bounded batches.
 */
export const EVENT_RETENTION_PARAM = 'eventRetentionDays';
export const DEFAULT_EVENT_RETENTION_DAYS = 30;
/** Rows one purge statement deletes at most (each its own short transaction). */
export const PURGE_BATCH = 1_000;
/** How often the purge runs. */
export const EVENT_PURGE_EVERY_SECONDS = 60 * 60;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The tenant's eventRetentionDays param: a whole number of at least 1, else the default. */
export async function eventRetentionDaysOf(
  db: Db,
  registry: AppContext['registry'],
  tenantCode: string,
): Promise<number> {
  const text = await readParam({ trx: db, registry, tenant: tenantCode, key: EVENT_RETENTION_PARAM });
  const days = Number(text ?? '');
  return text !== undefined && Number.isInteger(days) && days >= 1 ? days : DEFAULT_EVENT_RETENTION_DAYS;
}

/**
 * Purges, per tenant, the delivery log entries older than its eventRetentionDays at `now` (a
 * delivery still pending is work to do and stays), then the events as old that were dispatched
 * and that no delivery kept in the log names (so 重发 of a logged delivery always has its
 * event). PURGE_BATCH rows a statement, until nothing is left or `signal` says the time is up.
 * Answers how many rows went, of each table.
 */
export async function purgeOldEvents({
  db,
  registry,
  now,
  signal,
  tenantCode,
  batch = PURGE_BATCH,
}: {
  db: Db;
  registry: AppContext['registry'];
  now: Date;
  signal?: AbortSignal;
  tenantCode?: string;
  batch?: number;
}): Promise<{ events: number; deliveries: number }> {
  let tenants: string[];
  if (tenantCode !== undefined) tenants = [tenantCode];
  else {
    const tenantEntity = registry.require('systenant');
    const codeField = tenantEntity.fieldsByName.get('tenantCode');
    tenants = codeField
      ? (
          await sql<{
            code: string;
          }>`select ${column(codeField)} as code from ${table(tenantEntity)}`.execute(db)
        ).rows.map((row) => row.code)
      : [];
  }
  const purged = { events: 0, deliveries: 0 };
  const isOver = (): boolean => signal?.aborted === true;
  for (const tenant of tenants) {
    const days = await eventRetentionDaysOf(db, registry, tenant);
    const cutoff = new Date(now.getTime() - days * DAY_MS);
    for (let gone = batch; gone === batch && !isOver();) {
      const deleted = await sql`delete from sys_webhook_delivery where id in (
          select id from sys_webhook_delivery where tenant_code = ${tenant} and created_at < ${cutoff}
            and status <> 'pending'
          order by created_at limit ${batch})`.execute(db);
      gone = Number(deleted.numAffectedRows ?? 0);
      purged.deliveries += gone;
    }
    for (let gone = batch; gone === batch && !isOver();) {
      const deleted = await sql`delete from sys_event where id in (
          select e.id from sys_event e where e.tenant_code = ${tenant} and e.at < ${cutoff}
            and e.dispatched_at is not null
            and not exists (select 1 from sys_webhook_delivery d where d.event_id = e.id)
          order by e.at limit ${batch})`.execute(db);
      gone = Number(deleted.numAffectedRows ?? 0);
      purged.events += gone;
    }
  }
  return purged;
}

/** The purge as a job (docs/extending.md "Jobs"): hourly, in one server process. */
export function eventRetentionModule(registry: AppContext['registry']): ModuleDefinition {
  return defineModule({
    name: 'event-retention',
    jobs: [
      {
        name: 'purge',
        everySeconds: EVENT_PURGE_EVERY_SECONDS,
        run: async ({ db, now, signal, log }) => {
          const purged = await purgeOldEvents({ db, registry, now, signal });
          if (purged.events + purged.deliveries > 0) log.info(purged, 'events and deliveries purged');
        },
      },
    ],
  });
}
