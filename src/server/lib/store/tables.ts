import type { TableSpec } from '../../../engine/index.js';
import { ID_COLUMN, TENANT_COLUMN, CREATED_AT_COLUMN } from '../db/table-parts.js';

/** The database store's own tables (lib/store/database.ts): one-time codes and counters. */
export function sharedStoreTableSpecs(): TableSpec[] {
  return [
    {
      // One-time codes: SMS codes (target = mobile), character captchas (target = captcha id) and
      // password-reset codes (target = user id). Only a salted hash of the code is kept.
      name: 'sys_verification_code',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'purpose', type: 'text', isNullable: false },
        { name: 'target', type: 'text', isNullable: false },
        { name: 'code_hash', type: 'text', isNullable: false },
        { name: 'attempts', type: 'integer', isNullable: false, defaultSql: '0' },
        { name: 'expires_at', type: 'timestamptz', isNullable: false },
        { name: 'verified_at', type: 'timestamptz', isNullable: true },
        { name: 'used_at', type: 'timestamptz', isNullable: true },
        { name: 'ip', type: 'text', isNullable: true },
        CREATED_AT_COLUMN,
      ],
      primaryKey: ['id'],
      indexes: [
        {
          name: 'sys_verification_code_target_idx',
          columns: ['purpose', 'target', 'tenant_code'],
          isUnique: false,
        },
      ],
      foreignKeys: [],
    },
    {
      // Counters shared by every server process: rate limits per address and route, failed
      // sign-ins per user (with the lock they lead to).
      name: 'sys_counter',
      columns: [
        ID_COLUMN,
        { name: 'counter_key', type: 'text', isNullable: false },
        { name: 'hits', type: 'integer', isNullable: false, defaultSql: '0' },
        { name: 'window_ends_at', type: 'timestamptz', isNullable: false },
        { name: 'locked_until', type: 'timestamptz', isNullable: true },
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_counter_key_uq', columns: ['counter_key'], isUnique: true }],
      foreignKeys: [],
    },
  ];
}
