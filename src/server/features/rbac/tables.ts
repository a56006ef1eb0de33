import type { TableSpec } from '../../../engine/index.js';
import { ID_COLUMN, TENANT_COLUMN, CREATED_AT_COLUMN, linkTable } from '../../lib/db/table-parts.js';
import type { EntityRegistry } from '../../lib/registry.js';

/** Who holds which role, and what a role is granted: URLs, menus, buttons, posts, hidden and read-only data fields. */
export function rbacTableSpecs(registry: EntityRegistry): TableSpec[] {
  const table = (name: string): string => registry.require(name).table;
  return [
    linkTable('sys_role_user', ['role_id', table('sysrole')], ['user_id', table('sysuser')]),
    linkTable('sys_role_menu', ['role_id', table('sysrole')], ['menu_id', table('sysmenu')]),
    linkTable('sys_role_url', ['role_id', table('sysrole')], ['url_id', table('sysurl')]),
    // The roles a post works in: holding the post lets a user narrow their menus to these roles.
    linkTable('sys_role_post', ['role_id', table('sysrole')], ['post_id', table('syspost')]),
    {
      name: 'sys_role_button',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'role_id', type: 'bigint', isNullable: false },
        { name: 'menu_id', type: 'bigint', isNullable: false },
        { name: 'button', type: 'text', isNullable: false },
        CREATED_AT_COLUMN,
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_role_button_uq', columns: ['role_id', 'menu_id', 'button'], isUnique: true }],
      foreignKeys: [
        {
          name: 'sys_role_button_role_id_fk',
          columns: ['role_id'],
          refTable: table('sysrole'),
          refColumns: ['id'],
          onDelete: 'cascade',
        },
        {
          name: 'sys_role_button_menu_id_fk',
          columns: ['menu_id'],
          refTable: table('sysmenu'),
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    },
    {
      name: 'sys_data_permission',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'role_code', type: 'text', isNullable: false },
        { name: 'menu_code', type: 'text', isNullable: false },
        { name: 'data_fields', type: 'jsonb', isNullable: false, defaultSql: "'[]'::jsonb" },
        // The fields the role sees but may not change (added later: an existing table gains the
        // column, every row read-only nothing; permissions/field-rights.ts).
        { name: 'read_only_fields', type: 'jsonb', isNullable: false, defaultSql: "'[]'::jsonb" },
        CREATED_AT_COLUMN,
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
    // Row data scopes per role and entity (permissions/row-scope.ts): no row is "all".
    {
      name: 'sys_data_scope',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'role_code', type: 'text', isNullable: false },
        { name: 'menu_code', type: 'text', isNullable: false },
        { name: 'scope', type: 'text', isNullable: false },
        { name: 'org_ids', type: 'jsonb', isNullable: false, defaultSql: "'[]'::jsonb" },
        { name: 'condition', type: 'text', isNullable: true },
        CREATED_AT_COLUMN,
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_data_scope_uq', columns: ['tenant_code', 'role_code', 'menu_code'], isUnique: true },
      ],
      foreignKeys: [],
    },
  ];
}
