import type { ColumnSpec, TableSpec } from '../../../engine/index.js';
import { CREATED_AT_COLUMN, ID_COLUMN, TENANT_COLUMN } from '../../lib/db/table-parts.js';
import type { EntityRegistry } from '../../lib/registry.js';

const text = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'text', isNullable });
const at = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'timestamptz', isNullable });
const userId: ColumnSpec = { name: 'user_id', type: 'bigint', isNullable: false };

/**
 * Two-factor: one row per user with an authenticator (its secret, or the secret being enrolled),
 * the recovery codes (hashes only, each usable once) and the challenges of sign-ins waiting for
 * their second step (hashes of the challenge tokens).
 */
export function twoFactorTableSpecs(registry: EntityRegistry): TableSpec[] {
  const userTable = registry.require('sysuser').table;
  const userFk = (table: string) => ({
    name: `${table}_user_id_fk`,
    columns: ['user_id'],
    refTable: userTable,
    refColumns: ['id'],
    onDelete: 'cascade' as const,
  });
  return [
    {
      name: 'sys_two_factor',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        userId,
        text('secret'),
        text('pending_secret'),
        at('enabled_at'),
        // The last time step a code was accepted for: a code is good once (RFC 6238 §5.2).
        { name: 'last_step', type: 'bigint', isNullable: true },
        CREATED_AT_COLUMN,
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_two_factor_user_uq', columns: ['user_id'], isUnique: true }],
      foreignKeys: [userFk('sys_two_factor')],
    },
    {
      name: 'sys_two_factor_recovery',
      columns: [ID_COLUMN, TENANT_COLUMN, userId, text('code_hash', false), at('used_at'), CREATED_AT_COLUMN],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_two_factor_recovery_uq', columns: ['user_id', 'code_hash'], isUnique: true }],
      foreignKeys: [userFk('sys_two_factor_recovery')],
    },
    {
      name: 'sys_two_factor_challenge',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        userId,
        text('token_hash', false),
        text('kind', false),
        text('client_code', false),
        text('scope'),
        text('grant_type', false),
        at('expires_at', false),
        at('used_at'),
        CREATED_AT_COLUMN,
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_two_factor_challenge_token_uq', columns: ['token_hash'], isUnique: true },
        { name: 'sys_two_factor_challenge_user_idx', columns: ['user_id'], isUnique: false },
      ],
      foreignKeys: [userFk('sys_two_factor_challenge')],
    },
  ];
}
