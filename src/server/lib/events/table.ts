import type { TableSpec } from '../../../engine/index.js';
import { ID_COLUMN, TENANT_COLUMN } from '../db/table-parts.js';

/**
 * The event outbox (lib/events/outbox.ts): one row per event, written in the transaction of the
 * change it tells of, so a change rolled back leaves none. `dispatched_at` is set by the one
 * process that took the event (FOR UPDATE SKIP LOCKED) and handed it to the webhooks and the
 * modules' subscriptions.
 */
export function eventTableSpecs(): TableSpec[] {
  return [
    {
      name: 'sys_event',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'type', type: 'text', isNullable: false },
        { name: 'entity', type: 'text', isNullable: true },
        { name: 'record_key', type: 'text', isNullable: true },
        { name: 'user_id', type: 'bigint', isNullable: true },
        { name: 'username', type: 'text', isNullable: true },
        { name: 'version', type: 'integer', isNullable: true },
        { name: 'changed', type: 'jsonb', isNullable: false, defaultSql: "'[]'::jsonb" },
        { name: 'detail', type: 'jsonb', isNullable: false, defaultSql: "'{}'::jsonb" },
        { name: 'at', type: 'timestamptz', isNullable: false, defaultSql: 'now()' },
        { name: 'dispatched_at', type: 'timestamptz', isNullable: true },
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_event_pending_idx', columns: ['dispatched_at', 'id'], isUnique: false },
        { name: 'sys_event_tenant_idx', columns: ['tenant_code', 'id'], isUnique: false },
        // The retention purge (features/events/services/retention.ts) finds a tenant's old events.
        { name: 'sys_event_tenant_at_idx', columns: ['tenant_code', 'at'], isUnique: false },
      ],
      foreignKeys: [],
    },
  ];
}
