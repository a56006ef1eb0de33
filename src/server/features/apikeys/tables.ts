import type { ColumnSpec, TableSpec } from '../../../engine/index.js';
import { CREATED_AT_COLUMN, ID_COLUMN, TENANT_COLUMN } from '../../lib/db/table-parts.js';
import type { EntityRegistry } from '../../lib/registry.js';

const text = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'text', isNullable });
const at = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'timestamptz', isNullable });

/**
 * API keys (one row per key: its hash, never the key) and their use log (one row per call made
 * with a key: the audit of every use).
 */
export function apiKeyTableSpecs(registry: EntityRegistry): TableSpec[] {
  const userTable = registry.require('sysuser').table;
  return [
    {
      name: 'sys_api_key',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        text('name', false),
        text('prefix', false),
        text('key_hash', false),
        { name: 'user_id', type: 'bigint', isNullable: false },
        { name: 'roles', type: 'jsonb', isNullable: false, defaultSql: "'[]'::jsonb" },
        { name: 'allow_list', type: 'jsonb', isNullable: false, defaultSql: "'[]'::jsonb" },
        { name: 'rate_per_minute', type: 'integer', isNullable: false },
        at('expires_at', false),
        at('revoked_at'),
        text('revoked_by'),
        at('last_used_at'),
        text('last_used_ip'),
        text('created_by', false),
        CREATED_AT_COLUMN,
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_api_key_hash_uq', columns: ['key_hash'], isUnique: true },
        { name: 'sys_api_key_prefix_uq', columns: ['prefix'], isUnique: true },
        { name: 'sys_api_key_tenant_idx', columns: ['tenant_code'], isUnique: false },
        { name: 'sys_api_key_user_idx', columns: ['user_id'], isUnique: false },
      ],
      foreignKeys: [
        {
          name: 'sys_api_key_user_id_fk',
          columns: ['user_id'],
          refTable: userTable,
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    },
    {
      name: 'sys_api_key_use',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'key_id', type: 'bigint', isNullable: false },
        text('method', false),
        text('path', false),
        { name: 'status', type: 'integer', isNullable: false },
        text('ip'),
        CREATED_AT_COLUMN,
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_api_key_use_key_idx', columns: ['key_id', 'id'], isUnique: false }],
      foreignKeys: [
        {
          name: 'sys_api_key_use_key_id_fk',
          columns: ['key_id'],
          refTable: 'sys_api_key',
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    },
  ];
}
