import type { ColumnSpec, TableSpec } from '../../../engine/index.js';
import { CREATED_AT_COLUMN, ID_COLUMN, TENANT_COLUMN } from '../../lib/db/table-parts.js';
import type { EntityRegistry } from '../../lib/registry.js';

const text = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'text', isNullable });
const at = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'timestamptz', isNullable });
const flag = (name: string, value: boolean): ColumnSpec => ({
  name,
  type: 'boolean',
  isNullable: false,
  defaultSql: value ? 'true' : 'false',
});

/**
 * OpenID Connect: a tenant's providers, the users linked to a provider's subject, and the
 * sign-in flows under way (state, nonce and PKCE verifier until the provider answers, then a
 * one-time ticket the sign-in page redeems for the session).
 */
export function oidcTableSpecs(registry: EntityRegistry): TableSpec[] {
  const userTable = registry.require('sysuser').table;
  return [
    {
      name: 'sys_oidc_provider',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        text('name', false),
        text('issuer', false),
        text('client_id', false),
        text('client_secret'),
        text('scopes', false),
        { name: 'claims', type: 'jsonb', isNullable: false, defaultSql: "'{}'::jsonb" },
        { name: 'new_user_roles', type: 'jsonb', isNullable: false, defaultSql: "'[]'::jsonb" },
        { name: 'new_user_org_id', type: 'bigint', isNullable: true },
        flag('create_users', false),
        flag('allow_private_network', false),
        flag('enabled', true),
        { name: 'sequence', type: 'integer', isNullable: false, defaultSql: '0' },
        text('created_by', false),
        CREATED_AT_COLUMN,
        at('updated_at'),
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_oidc_provider_tenant_idx', columns: ['tenant_code'], isUnique: false }],
      foreignKeys: [],
    },
    {
      name: 'sys_oidc_link',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'provider_id', type: 'bigint', isNullable: false },
        { name: 'user_id', type: 'bigint', isNullable: false },
        text('subject', false),
        CREATED_AT_COLUMN,
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_oidc_link_subject_uq', columns: ['provider_id', 'subject'], isUnique: true },
        { name: 'sys_oidc_link_user_uq', columns: ['provider_id', 'user_id'], isUnique: true },
        { name: 'sys_oidc_link_user_idx', columns: ['user_id'], isUnique: false },
      ],
      foreignKeys: [
        {
          name: 'sys_oidc_link_provider_fk',
          columns: ['provider_id'],
          refTable: 'sys_oidc_provider',
          refColumns: ['id'],
          onDelete: 'cascade',
        },
        {
          name: 'sys_oidc_link_user_fk',
          columns: ['user_id'],
          refTable: userTable,
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    },
    {
      name: 'sys_oidc_flow',
      columns: [
        ID_COLUMN,
        TENANT_COLUMN,
        { name: 'provider_id', type: 'bigint', isNullable: false },
        text('state_hash', false),
        text('browser_hash', false),
        text('nonce', false),
        text('code_verifier'),
        text('redirect_uri', false),
        text('app', false),
        text('return_to'),
        { name: 'link_user_id', type: 'bigint', isNullable: true },
        text('ticket_hash'),
        { name: 'user_id', type: 'bigint', isNullable: true },
        text('id_token'),
        { name: 'session_id', type: 'bigint', isNullable: true },
        at('expires_at', false),
        CREATED_AT_COLUMN,
      ],
      primaryKey: ['id'],
      indexes: [
        { name: 'sys_oidc_flow_state_uq', columns: ['state_hash'], isUnique: true },
        { name: 'sys_oidc_flow_ticket_uq', columns: ['ticket_hash'], isUnique: true },
        { name: 'sys_oidc_flow_session_idx', columns: ['session_id'], isUnique: false },
      ],
      foreignKeys: [
        {
          name: 'sys_oidc_flow_provider_fk',
          columns: ['provider_id'],
          refTable: 'sys_oidc_provider',
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    },
  ];
}
