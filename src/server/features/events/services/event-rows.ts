import type { EventType, OutboxEvent } from '../../../lib/events/index.js';

/** An outbox row as the database answers it. */
export interface EventRow {
  id: number | string;
  tenant_code: string;
  type: string;
  entity: string | null;
  record_key: string | null;
  user_id: number | string | null;
  username: string | null;
  version: number | null;
  changed: string[];
  detail: OutboxEvent['detail'];
  at: Date;
}

/** The event as webhooks and subscriptions receive it. */
export function eventOf(row: EventRow): OutboxEvent {
  return {
    id: Number(row.id),
    type: row.type as EventType,
    tenant: row.tenant_code,
    entity: row.entity,
    key: row.record_key,
    actor: { userId: row.user_id === null ? null : Number(row.user_id), username: row.username },
    version: row.version,
    changed: row.changed,
    detail: row.detail,
    at: new Date(row.at).toISOString(),
  };
}
