import type { TableSpec } from '../../../engine/index.js';
import { ID_COLUMN, TENANT_COLUMN } from './table-parts.js';

/** The audit log every change writes (lib/audit.ts). */
export function auditTableSpecs(): TableSpec[] {
  return [
    {
      name: 'sys_audit_log',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'entity', type: 'text', isNullable: false },
        { name: 'record_key', type: 'text', isNullable: false },
        { name: 'action', type: 'text', isNullable: false },
        { name: 'user_id', type: 'bigint', isNullable: true },
        { name: 'username', type: 'text', isNullable: true },
        { name: 'before', type: 'jsonb', isNullable: true },
        { name: 'after', type: 'jsonb', isNullable: true },
        { name: 'at', type: 'timestamptz', isNullable: false, defaultSql: 'now()' },
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_audit_log_entity_idx', columns: ['entity', 'record_key'], isUnique: false },
        // sign-ins per day (and any other action over time) without reading the whole log
        { name: 'sys_audit_log_action_idx', columns: ['tenant_code', 'action', 'at'], isUnique: false },
      ],
      foreignKeys: [],
    },
  ];
}
