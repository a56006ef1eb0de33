import type { ColumnSpec, TableSpec } from '../../../engine/index.js';

/**
 * Monitoring rows (services/monitor): request logs kept for the log search until the retention
 * param prunes them, metric samples of every server process for the dashboard, and each live
 * process's route table and slow statements.
 */
const id: ColumnSpec = { name: 'id', type: 'bigint', isNullable: false, isIdentity: true };
const at: ColumnSpec = { name: 'at', type: 'timestamptz', isNullable: false, defaultSql: 'now()' };
const text = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'text', isNullable });

export function monitorTableSpecs(): TableSpec[] {
  return [
    {
      name: 'sys_request_log',
      columns: [
        id,
        at,
        text('level', false),
        text('instance', false),
        text('request_id', false),
        text('tenant_code'),
        { name: 'user_id', type: 'bigint', isNullable: true },
        text('username'),
        text('method', false),
        text('route'),
        text('path', false),
        { name: 'status', type: 'integer', isNullable: false },
        { name: 'duration_ms', type: 'integer', isNullable: false },
        text('message'),
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_request_log_at_idx', columns: ['at'], isUnique: false },
        { name: 'sys_request_log_request_idx', columns: ['request_id'], isUnique: false },
      ],
      foreignKeys: [],
    },
    {
      name: 'sys_metric_sample',
      columns: [id, at, text('instance', false), { name: 'data', type: 'jsonb', isNullable: false }],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_metric_sample_at_idx', columns: ['at'], isUnique: false }],
      foreignKeys: [],
    },
    {
      // One row per server process: its route table and slow statements (features/monitor/services/instances.ts).
      name: 'sys_metric_instance',
      columns: [
        text('instance', false),
        at,
        { name: 'routes', type: 'jsonb', isNullable: false },
        { name: 'slow', type: 'jsonb', isNullable: false },
      ],
      primaryKey: ['instance'],
      indexes: [],
      foreignKeys: [],
    },
  ];
}
