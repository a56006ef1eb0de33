import type { TableSpec } from '../../../engine/index.js';
import { generatorTableSpecs } from './generator-tables.js';
import { monitorTableSpecs } from './monitor-tables.js';
import { workflowTableSpecs } from './workflow-tables.js';

const id = { name: 'id', type: 'bigint', isNullable: false, isIdentity: true } as const;
const tenant = { name: 'tenant_code', type: 'text', isNullable: false } as const;
const createdAt = {
  name: 'created_at',
  type: 'timestamptz',
  isNullable: false,
  defaultSql: 'now()',
} as const;

function link(table: string, left: [string, string], right: [string, string]): TableSpec {
  return {
    name: table,
    columns: [
      id,
      tenant,
      { name: left[0], type: 'bigint', isNullable: false },
      { name: right[0], type: 'bigint', isNullable: false },
      createdAt,
    ],
    primaryKey: ['id'],
    indexes: [
      { name: `${table}_uq`, columns: [left[0], right[0]], isUnique: true },
      { name: `${table}_${right[0]}_idx`, columns: [right[0]], isUnique: false },
    ],
    foreignKeys: [
      {
        name: `${table}_${left[0]}_fk`,
        columns: [left[0]],
        refTable: left[1],
        refColumns: ['id'],
        onDelete: 'cascade',
      },
      {
        name: `${table}_${right[0]}_fk`,
        columns: [right[0]],
        refTable: right[1],
        refColumns: ['id'],
        onDelete: 'cascade',
      },
    ],
  };
}

/**
 * Tables that are not entities: role assignments, per-role data-field permissions, read marks of
 * notifications, sessions, uploaded files and the audit log. They refer to the role, user, menu, url, post and
 * notification entities, whose tables come first.
 */
export function coreTableSpecs(tables: {
  role: string;
  user: string;
  menu: string;
  url: string;
  post: string;
  notification: string;
}): TableSpec[] {
  return [
    link('sys_role_user', ['role_id', tables.role], ['user_id', tables.user]),
    link('sys_role_menu', ['role_id', tables.role], ['menu_id', tables.menu]),
    link('sys_role_url', ['role_id', tables.role], ['url_id', tables.url]),
    // The roles a post works in: holding the post lets a user narrow their menus to these roles.
    link('sys_role_post', ['role_id', tables.role], ['post_id', tables.post]),
    // One row per user and notification read; created_at is when it was read.
    link('sys_notification_read', ['notification_id', tables.notification], ['user_id', tables.user]),
    {
      name: 'sys_role_button',
      columns: [
        id,
        tenant,
        { name: 'role_id', type: 'bigint', isNullable: false },
        { name: 'menu_id', type: 'bigint', isNullable: false },
        { name: 'button', type: 'text', isNullable: false },
        createdAt,
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_role_button_uq', columns: ['role_id', 'menu_id', 'button'], isUnique: true }],
      foreignKeys: [
        {
          name: 'sys_role_button_role_id_fk',
          columns: ['role_id'],
          refTable: tables.role,
          refColumns: ['id'],
          onDelete: 'cascade',
        },
        {
          name: 'sys_role_button_menu_id_fk',
          columns: ['menu_id'],
          refTable: tables.menu,
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    },
    {
      name: 'sys_data_permission',
      columns: [
        id,
        tenant,
        { name: 'role_code', type: 'text', isNullable: false },
        { name: 'menu_code', type: 'text', isNullable: false },
        { name: 'data_fields', type: 'jsonb', isNullable: false, defaultSql: "'[]'::jsonb" },
        createdAt,
      ],
      primaryKey: ['id'],
      indexes: [
        {
          name: 'sys_data_permission_uq',
          columns: ['tenant_code', 'role_code', 'menu_code'],
          isUnique: true,
        },
      ],
      foreignKeys: [],
    },
    {
      name: 'sys_session',
      columns: [
        id,
        tenant,
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
        createdAt,
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
          refTable: tables.user,
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    },
    {
      // One-time codes: SMS codes (target = mobile), character captchas (target = captcha id) and
      // password-reset codes (target = user id). Only a salted hash of the code is kept.
      name: 'sys_verification_code',
      columns: [
        id,
        tenant,
        { name: 'purpose', type: 'text', isNullable: false },
        { name: 'target', type: 'text', isNullable: false },
        { name: 'code_hash', type: 'text', isNullable: false },
        { name: 'attempts', type: 'integer', isNullable: false, defaultSql: '0' },
        { name: 'expires_at', type: 'timestamptz', isNullable: false },
        { name: 'verified_at', type: 'timestamptz', isNullable: true },
        { name: 'used_at', type: 'timestamptz', isNullable: true },
        { name: 'ip', type: 'text', isNullable: true },
        createdAt,
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
        id,
        { name: 'counter_key', type: 'text', isNullable: false },
        { name: 'hits', type: 'integer', isNullable: false, defaultSql: '0' },
        { name: 'window_ends_at', type: 'timestamptz', isNullable: false },
        { name: 'locked_until', type: 'timestamptz', isNullable: true },
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_counter_key_uq', columns: ['counter_key'], isUnique: true }],
      foreignKeys: [],
    },
    {
      // Uploaded files (services/files): the object's key in the file storage (never derived from
      // the client's name), the name shown and sent back on download, and what the bytes are.
      // No foreign key to the owner: a removed user's files stay until someone deletes them.
      name: 'sys_file',
      columns: [
        id,
        tenant,
        { name: 'owner_id', type: 'bigint', isNullable: false },
        { name: 'owner_name', type: 'text', isNullable: false },
        { name: 'file_use', type: 'text', isNullable: false },
        { name: 'original_filename', type: 'text', isNullable: false },
        { name: 'size_bytes', type: 'bigint', isNullable: false },
        { name: 'content_type', type: 'text', isNullable: false },
        { name: 'file_type', type: 'text', isNullable: false },
        { name: 'sha256', type: 'text', isNullable: false },
        { name: 'storage_key', type: 'text', isNullable: false },
        createdAt,
        // Netdisc (services/files/netdisc.ts): a file of the owner's netdisc, in a folder or at
        // its root (folder_id null); deleted_at set while in the recycle bin, trash_root on the
        // item the user deleted (the others went with its folder).
        { name: 'is_netdisc', type: 'boolean', isNullable: false, defaultSql: 'false' },
        { name: 'folder_id', type: 'bigint', isNullable: true },
        { name: 'deleted_at', type: 'timestamptz', isNullable: true },
        { name: 'trash_root', type: 'boolean', isNullable: false, defaultSql: 'false' },
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_file_storage_key_uq', columns: ['storage_key'], isUnique: true },
        { name: 'sys_file_tenant_idx', columns: ['tenant_code', 'created_at'], isUnique: false },
        { name: 'sys_file_owner_idx', columns: ['owner_id'], isUnique: false },
        { name: 'sys_file_folder_idx', columns: ['folder_id'], isUnique: false },
      ],
      foreignKeys: [],
    },
    {
      // Netdisc folders: each user's own tree (parent_id null at the root); deleted_at and
      // trash_root as in sys_file. Purging a folder removes its rows and files in one transaction.
      name: 'sys_netdisc_folder',
      columns: [
        id,
        tenant,
        { name: 'owner_id', type: 'bigint', isNullable: false },
        { name: 'parent_id', type: 'bigint', isNullable: true },
        { name: 'name', type: 'text', isNullable: false },
        { name: 'deleted_at', type: 'timestamptz', isNullable: true },
        { name: 'trash_root', type: 'boolean', isNullable: false, defaultSql: 'false' },
        createdAt,
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_netdisc_folder_owner_idx', columns: ['tenant_code', 'owner_id'], isUnique: false },
        { name: 'sys_netdisc_folder_parent_idx', columns: ['parent_id'], isUnique: false },
      ],
      foreignKeys: [],
    },
    {
      // Read-only shares of a netdisc file or folder (item_type file/folder) with a user, a role
      // or an organisation (target_type user/role/org); a shared folder shares all it holds.
      name: 'sys_netdisc_share',
      columns: [
        id,
        tenant,
        { name: 'item_type', type: 'text', isNullable: false },
        { name: 'item_id', type: 'bigint', isNullable: false },
        { name: 'target_type', type: 'text', isNullable: false },
        { name: 'target_id', type: 'bigint', isNullable: false },
        createdAt,
      ],
      primaryKey: ['id'],
      indexes: [
        {
          name: 'sys_netdisc_share_uq',
          columns: ['item_type', 'item_id', 'target_type', 'target_id'],
          isUnique: true,
        },
        { name: 'sys_netdisc_share_target_idx', columns: ['target_type', 'target_id'], isUnique: false },
      ],
      foreignKeys: [],
    },
    {
      name: 'sys_audit_log',
      columns: [
        id,
        tenant,
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
    ...workflowTableSpecs(),
    ...generatorTableSpecs(),
    ...monitorTableSpecs(),
  ];
}

/** The core tables of an app, with the tables of the entities they refer to taken from its registry. */
export function coreTableSpecsOf(registry: { require(name: string): { table: string } }): TableSpec[] {
  const table = (name: string): string => registry.require(name).table;
  return coreTableSpecs({
    role: table('sysrole'),
    user: table('sysuser'),
    menu: table('sysmenu'),
    url: table('sysurl'),
    post: table('syspost'),
    notification: table('notification'),
  });
}
