import type { TableSpec } from '../../../engine/index.js';
import { ID_COLUMN, TENANT_COLUMN, CREATED_AT_COLUMN } from '../../lib/db/table-parts.js';
import type { EntityRegistry } from '../../lib/registry.js';

/** Sessions: one row per sign-in (token and refresh token hashes, roles, expiry). */
export function sessionTableSpecs(registry: EntityRegistry): TableSpec[] {
  const table = (name: string): string => registry.require(name).table;
  return [
    {
      name: 'sys_session',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'token_hash', type: 'text', isNullable: false },
        { name: 'refresh_hash', type: 'text', isNullable: true },
        { name: 'user_id', type: 'bigint', isNullable: false },
        { name: 'username', type: 'text', isNullable: false },
        { name: 'roles', type: 'jsonb', isNullable: false, defaultSql: "'[]'::jsonb" },
        { name: 'client_code', type: 'text', isNullable: false },
        { name: 'scope', type: 'text', isNullable: true },
        { name: 'expires_at', type: 'timestamptz', isNullable: false },
        { name: 'refresh_expires_at', type: 'timestamptz', isNullable: true },
        { name: 'revoked_at', type: 'timestamptz', isNullable: true },
        { name: 'last_seen_at', type: 'timestamptz', isNullable: false, defaultSql: 'now()' },
        { name: 'ip', type: 'text', isNullable: true },
        { name: 'user_agent', type: 'text', isNullable: true },
        // the sign-in this session continues (refresh rotations and renewals keep it): what was
        // opened with the sign-in (an OpenID provider's session) is found from any later session
        { name: 'origin_id', type: 'bigint', isNullable: true },
        CREATED_AT_COLUMN,
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_session_token_uq', columns: ['token_hash'], isUnique: true },
        { name: 'sys_session_refresh_uq', columns: ['refresh_hash'], isUnique: true },
        { name: 'sys_session_user_idx', columns: ['user_id'], isUnique: false },
      ],
      foreignKeys: [
        {
          name: 'sys_session_user_id_fk',
          columns: ['user_id'],
          refTable: table('sysuser'),
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    },
  ];
}
