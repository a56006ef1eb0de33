import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { Actor } from '../sql/toolkit.js';
import type { EventInput, EventType } from './types.js';

/**
 * Writes events to the outbox in the caller's transaction: they exist if and only if the change
 * commits. The tenant and the actor are the transaction's actor's.
 */
export async function recordEvents({
  trx,
  actor,
  events,
}: {
  trx: Db;
  actor: Actor;
  events: readonly EventInput[];
}): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map(
    (event) =>
      sql`(${actor.tenantCode}, ${event.type}, ${event.entity ?? null}, ${
        event.key === undefined || event.key === null ? null : String(event.key)
      }, ${actor.userId}::bigint, ${actor.username}, ${event.version ?? null}::integer, ${JSON.stringify(
        event.changed ?? [],
      )}::jsonb, ${JSON.stringify(event.detail ?? {})}::jsonb)`,
  );
  await sql`insert into sys_event (tenant_code, type, entity, record_key, user_id, username, version, changed, detail)
    values ${sql.join(rows)}`.execute(trx);
}

/**
 * An outbox insert to put into another statement (a part of its `with`): one event per row of
 * `from` (a part of the same statement, or a table with its condition), keyed by `key`. The
 * detail is `detail`, or `detailOf`: a jsonb expression over `from`'s columns.
 */
export function eventInsert({
  actor,
  type,
  entity,
  key,
  from,
  detail = {},
  detailOf,
}: {
  actor: Actor;
  type: EventType;
  entity: string;
  key: RawBuilder<unknown>;
  from: RawBuilder<unknown>;
  detail?: EventInput['detail'];
  detailOf?: RawBuilder<unknown>;
}): RawBuilder<unknown> {
  return sql`insert into sys_event (tenant_code, type, entity, record_key, user_id, username, detail)
    select ${actor.tenantCode}, ${type}, ${entity}, (${key})::text, ${actor.userId}::bigint, ${actor.username},
      ${detailOf ?? sql`${JSON.stringify(detail ?? {})}::jsonb`} from ${from}`;
}

/** Audit actions that are record events (the rest, signIn, are told by their own types). */
const RECORD_EVENTS: Record<string, EventType> = {
  add: 'record.added',
  update: 'record.changed',
  delete: 'record.deleted',
  restore: 'record.restored',
  purge: 'record.purged',
  signIn: 'user.signedIn',
};

const sameValue = (a: unknown, b: unknown): boolean =>
  a === b || JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Bookkeeping the database sets on every write: not a change a receiver asked for. */
export const BOOKKEEPING_FIELDS: readonly string[] = [
  'tenantCode',
  'createdAt',
  'createdBy',
  'updatedAt',
  'updatedBy',
  'version',
];
const BOOKKEEPING = new Set(BOOKKEEPING_FIELDS);

/** The names of the fields an audited change assigned (every field of an add, none of a delete). */
export function changedFields(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): string[] {
  if (!after) return [];
  return Object.keys(after).filter(
    (name) => !BOOKKEEPING.has(name) && (before === null || !sameValue(before[name], after[name])),
  );
}

/** The event an audit entry tells of, or undefined when it is none. */
export function eventOfAudit(entry: {
  entity: string;
  recordKey: unknown;
  action: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}): EventInput | undefined {
  const type = RECORD_EVENTS[entry.action];
  if (!type) return undefined;
  const version = (entry.after ?? entry.before)?.version;
  return {
    type,
    entity: entry.entity,
    key: entry.recordKey,
    version: typeof version === 'number' ? version : null,
    changed: type === 'user.signedIn' ? [] : changedFields(entry.before, entry.after),
  };
}
