import type { ColumnSpec, TableSpec } from '../../../engine/index.js';

/**
 * Designed forms (services/forms): the current draft of each form and every version saved or
 * published, with who and when. A published form's entity table is made by the engine's DDL
 * from the published content, like a schema file's.
 */

const id: ColumnSpec = { name: 'id', type: 'bigint', isNullable: false, isIdentity: true };
const text = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'text', isNullable });
const stamp = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'timestamptz', isNullable });

export const FORM_TABLE = 'sys_form';
export const FORM_VERSION_TABLE = 'sys_form_version';

export function formTableSpecs(): TableSpec[] {
  return [
    {
      name: FORM_TABLE,
      columns: [
        id,
        text('tenant_code', false),
        text('form_code', false),
        text('form_name', false),
        text('form_description'),
        { name: 'form_content', type: 'jsonb', isNullable: false },
        { name: 'status', type: 'text', isNullable: false },
        { name: 'version', type: 'integer', isNullable: false, defaultSql: '1' },
        // The content live in the registry while published (the draft may have moved on).
        { name: 'published_content', type: 'jsonb', isNullable: true },
        { name: 'published_version', type: 'integer', isNullable: true },
        { name: 'menu_id', type: 'bigint', isNullable: true },
        { name: 'created_at', type: 'timestamptz', isNullable: false, defaultSql: 'now()' },
        text('created_by'),
        stamp('updated_at'),
        text('updated_by'),
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_form_code_uq', columns: ['form_code'], isUnique: true }],
      foreignKeys: [],
    },
    {
      name: FORM_VERSION_TABLE,
      columns: [
        id,
        { name: 'form_id', type: 'bigint', isNullable: false },
        { name: 'version', type: 'integer', isNullable: false },
        // save | publish | unpublish
        text('action', false),
        { name: 'form_content', type: 'jsonb', isNullable: false },
        { name: 'created_at', type: 'timestamptz', isNullable: false, defaultSql: 'now()' },
        text('created_by'),
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'sys_form_version_form_idx', columns: ['form_id', 'version'], isUnique: false }],
      foreignKeys: [
        {
          name: 'sys_form_version_form_fk',
          columns: ['form_id'],
          refTable: FORM_TABLE,
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    },
  ];
}
