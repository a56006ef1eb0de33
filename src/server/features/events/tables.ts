import type { ColumnSpec, TableSpec } from '../../../engine/index.js';
import { CREATED_AT_COLUMN, ID_COLUMN, TENANT_COLUMN } from '../../lib/db/table-parts.js';

const text = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'text', isNullable });
const at = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'timestamptz', isNullable });
const int = (name: string): ColumnSpec => ({ name, type: 'integer', isNullable: false, defaultSql: '0' });
const jsonb = (name: string, empty: '[]' | '{}'): ColumnSpec => ({
  name,
  type: 'jsonb',
  isNullable: false,
  defaultSql: empty === '[]' ? "'[]'::jsonb" : "'{}'::jsonb",
});

/**
 * Webhooks of a tenant (the secret is kept to sign with; the API never answers it) and their
 * deliveries: one row per event and webhook, taken by one process at a time (a lease claimed
 * with FOR UPDATE SKIP LOCKED), retried until it succeeds or its retry time is over.
 */
export function webhookTableSpecs(): TableSpec[] {
  return [
    {
      name: 'sys_webhook',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        text('name', false),
        text('url', false),
        jsonb('event_types', '[]'),
        jsonb('entities', '[]'),
        jsonb('condition', '{}'),
        text('secret', false),
        { name: 'is_enabled', type: 'boolean', isNullable: false, defaultSql: 'true' },
        int('failures'),
        text('disabled_reason'),
        text('created_by', false),
        CREATED_AT_COLUMN,
        at('updated_at'),
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_webhook_tenant_idx', columns: ['tenant_code', 'id'], isUnique: false }],
      foreignKeys: [],
    },
    {
      name: 'sys_webhook_delivery',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'webhook_id', type: 'bigint', isNullable: false },
        { name: 'event_id', type: 'bigint', isNullable: false },
        text('event_type', false),
        text('status', false),
        int('attempts'),
        at('next_at', false),
        at('lease_until'),
        at('last_at'),
        { name: 'last_status', type: 'integer', isNullable: true },
        text('last_answer'),
        text('last_error'),
        CREATED_AT_COLUMN,
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_webhook_delivery_due_idx', columns: ['status', 'next_at'], isUnique: false },
        { name: 'sys_webhook_delivery_hook_idx', columns: ['webhook_id', 'id'], isUnique: false },
        // The retention purge finds a tenant's old deliveries, and an event's deliveries.
        { name: 'sys_webhook_delivery_age_idx', columns: ['tenant_code', 'created_at'], isUnique: false },
        { name: 'sys_webhook_delivery_event_idx', columns: ['event_id'], isUnique: false },
      ],
      foreignKeys: [
        {
          name: 'sys_webhook_delivery_webhook_id_fk',
          columns: ['webhook_id'],
          refTable: 'sys_webhook',
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    },
  ];
}
