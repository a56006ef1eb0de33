import type { ColumnSpec, TableSpec } from '../../../engine/index.js';

/**
 * The code generator's templates: a tenant's own version of a template item replaces
 * the built-in one of generators/templates; every saved content is kept as a numbered version.
 */
const id: ColumnSpec = { name: 'id', type: 'bigint', isNullable: false, isIdentity: true };
const tenant: ColumnSpec = { name: 'tenant_code', type: 'text', isNullable: false };
const text = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'text', isNullable });
const at = (name: string): ColumnSpec => ({
  name,
  type: 'timestamptz',
  isNullable: false,
  defaultSql: 'now()',
});

export function generatorTableSpecs(): TableSpec[] {
  return [
    {
      name: 'gen_template',
      columns: [
        id,
        tenant,
        text('template_type', false),
        text('template_item', false),
        text('template_name'),
        text('content', false),
        { name: 'version', type: 'integer', isNullable: false, defaultSql: '1' },
        at('created_at'),
        text('created_by'),
        at('updated_at'),
        text('updated_by'),
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'gen_template_item_uq', columns: ['tenant_code', 'template_item'], isUnique: true }],
      foreignKeys: [],
    },
    {
      name: 'gen_template_version',
      columns: [
        id,
        tenant,
        { name: 'template_id', type: 'bigint', isNullable: false },
        { name: 'version', type: 'integer', isNullable: false },
        text('content', false),
        at('created_at'),
        text('created_by'),
      ],
      primaryKey: ['id'],
      indexes: [{ name: 'gen_template_version_uq', columns: ['template_id', 'version'], isUnique: true }],
      foreignKeys: [
        {
          name: 'gen_template_version_template_fk',
          columns: ['template_id'],
          refTable: 'gen_template',
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    },
  ];
}
