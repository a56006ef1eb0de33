import type { TableSpec } from '../../../engine/index.js';
import { ID_COLUMN, TENANT_COLUMN, CREATED_AT_COLUMN } from '../../lib/db/table-parts.js';

/** Uploaded files and the netdisc's folders and shares. */
export function fileTableSpecs(): TableSpec[] {
  return [
    {
      // Uploaded files (services/files): the object's key in the file storage (never derived from
      // the client's name), the name shown and sent back on download, and what the bytes are.
      // No foreign key to the owner: a removed user's files stay until someone deletes them.
      name: 'sys_file',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'owner_id', type: 'bigint', isNullable: false },
        { name: 'owner_name', type: 'text', isNullable: false },
        { name: 'file_use', type: 'text', isNullable: false },
        { name: 'original_filename', type: 'text', isNullable: false },
        { name: 'size_bytes', type: 'bigint', isNullable: false },
        { name: 'content_type', type: 'text', isNullable: false },
        { name: 'file_type', type: 'text', isNullable: false },
        { name: 'sha256', type: 'text', isNullable: false },
        { name: 'storage_key', type: 'text', isNullable: false },
        CREATED_AT_COLUMN,
        // Netdisc (features/files/services/netdisc.ts): a file of the owner's netdisc, in a folder or at
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
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'owner_id', type: 'bigint', isNullable: false },
        { name: 'parent_id', type: 'bigint', isNullable: true },
        { name: 'name', type: 'text', isNullable: false },
        { name: 'deleted_at', type: 'timestamptz', isNullable: true },
        { name: 'trash_root', type: 'boolean', isNullable: false, defaultSql: 'false' },
        CREATED_AT_COLUMN,
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
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'item_type', type: 'text', isNullable: false },
        { name: 'item_id', type: 'bigint', isNullable: false },
        { name: 'target_type', type: 'text', isNullable: false },
        { name: 'target_id', type: 'bigint', isNullable: false },
        CREATED_AT_COLUMN,
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
  ];
}
