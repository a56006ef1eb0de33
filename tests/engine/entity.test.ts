import { describe, expect, it } from 'vitest';
import { parseSortExpression, toColumnName, treeEndpointName } from '../../src/engine/index.js';
import { entityOf, widgetJson } from './fixtures.js';

describe('buildEntity', () => {
  const entity = entityOf(
    'widget',
    widgetJson({
      required: ['name', 'ownerId'],
      properties: {
        ownerId: { type: 'integer', 'x-ref': 'owner' },
        kind: { type: 'string', 'x-dict': 'widget_kind' },
        size: { type: 'string', enum: ['s', 'm', 'l'] },
        price: { type: 'number' },
        isOn: { type: 'boolean' },
        madeOn: { type: 'string', format: 'date' },
        seenAt: { type: 'string', format: 'date-time' },
        tags: { type: 'array', items: { type: 'string' } },
        colours: { type: 'array', items: { type: 'string', enum: ['red', 'blue'] } },
        labels: { type: 'array', items: { type: 'string' }, 'x-dict': 'widget_label' },
        meta: { type: 'object' },
        pin: { type: 'string', 'x-secret': true },
        note: { type: 'string', 'x-list': { filter: 'none', sorter: false } },
        code: { type: 'string', 'x-unique': true, 'x-list': { filter: 'select' } },
      },
    }),
  );
  const field = (name: string) => {
    const found = entity.fieldsByName.get(name);
    if (!found) throw new Error(`no field ${name}`);
    return found;
  };

  it('puts declared fields first, then the system fields', () => {
    expect(entity.fields.map((f) => f.name).slice(-6)).toEqual([
      'tenantCode',
      'createdAt',
      'createdBy',
      'updatedAt',
      'updatedBy',
      'version',
    ]);
    expect(entity.fields[0]?.name).toBe('id');
  });

  it('maps types to SQL and names to snake_case columns', () => {
    expect(field('id').sqlType).toBe('bigint');
    expect(field('price').sqlType).toBe('double precision');
    expect(field('isOn').sqlType).toBe('boolean');
    expect(field('madeOn').sqlType).toBe('date');
    expect(field('seenAt').sqlType).toBe('timestamptz');
    expect(field('tags').sqlType).toBe('jsonb');
    expect(field('meta').sqlType).toBe('jsonb');
    expect(field('name').sqlType).toBe('text');
    expect(field('ownerId').column).toBe('owner_id');
    expect(field('createdAt').column).toBe('created_at');
  });

  it('derives filter kinds', () => {
    const kinds = Object.fromEntries(entity.fields.map((f) => [f.name, f.filter]));
    expect(kinds).toEqual({
      id: 'number',
      name: 'text',
      ownerId: 'select',
      kind: 'select',
      size: 'select',
      price: 'number',
      isOn: 'boolean',
      madeOn: 'dateRange',
      seenAt: 'dateRange',
      tags: undefined,
      colours: 'select',
      labels: 'select',
      meta: undefined,
      pin: undefined,
      note: undefined,
      code: 'select',
      tenantCode: undefined,
      createdAt: 'dateRange',
      createdBy: 'text',
      updatedAt: 'dateRange',
      updatedBy: 'text',
      version: undefined,
    });
  });

  it('makes the scalar columns the list shows sortable, not secrets, arrays, objects, yes/no columns or sorter:false', () => {
    const unsortable = entity.fields.filter((f) => !f.isSortable).map((f) => f.name);
    // The bookkeeping columns but createdAt are hidden in the list, so not sortable (no index).
    expect(unsortable.sort()).toEqual([
      'colours',
      'createdBy',
      // A yes/no column sorts only with sorter: true (no btree kept up for two values).
      'isOn',
      'labels',
      'meta',
      'note',
      'pin',
      'tags',
      'tenantCode',
      'updatedAt',
      'updatedBy',
      'version',
    ]);
  });

  it('sorts a column hidden by default only when its schema says sorter: true', () => {
    const hidden = entityOf(
      'widget',
      widgetJson({
        entity: { defaultSort: '-rank,-updatedAt' },
        properties: {
          phone: { type: 'string', maxLength: 32, 'x-list': { visible: false } },
          region: { type: 'string', maxLength: 32, 'x-list': { visible: false, sorter: true } },
          summary: { type: 'string', maxLength: 2000 },
          shown: { type: 'string', maxLength: 2000, 'x-list': { visible: true } },
          rank: { type: 'integer', 'x-list': { visible: false } },
        },
      }),
    );
    const sortable = (name: string) => hidden.fieldsByName.get(name)?.isSortable;
    expect(sortable('phone')).toBe(false);
    expect(sortable('region')).toBe(true);
    // A long text is a hidden column unless x-list.visible says otherwise, and never sorted: a
    // btree cannot hold its values.
    expect(sortable('summary')).toBe(false);
    expect(hidden.fieldsByName.get('shown')?.isListedByDefault).toBe(true);
    expect(sortable('shown')).toBe(false);
    // The default order stays sortable, hidden or not; so does the key.
    expect(sortable('rank')).toBe(true);
    expect(sortable('id')).toBe(true);
    expect(sortable('updatedAt')).toBe(true);
    expect(sortable('createdAt')).toBe(true);
    expect(sortable('updatedBy')).toBe(false);
    // Still filterable through the API; only the filter bar's fields are in it.
    expect(hidden.fieldsByName.get('phone')?.filter).toBe('text');
    expect(hidden.fieldsByName.get('phone')?.isInFilterBar).toBe(false);
    expect(hidden.fieldsByName.get('summary')?.isInFilterBar).toBe(true);
  });

  it('flags key, generated key, required, unique, secret, ref and dict', () => {
    expect(entity.key.name).toBe('id');
    expect(entity.isKeyGenerated).toBe(true);
    expect(field('id').isKey).toBe(true);
    expect(field('name').isRequired).toBe(true);
    expect(field('ownerId').isRequired).toBe(true);
    expect(field('kind').isRequired).toBe(false);
    expect(field('code').isUnique).toBe(true);
    expect(field('pin').isSecret).toBe(true);
    expect(field('ownerId').ref).toBe('owner');
    expect(field('kind').dict).toBe('widget_kind');
    expect(field('version').isReadOnly).toBe(true);
    expect(field('version').isSystem).toBe(true);
  });

  it('is tenant-scoped unless tenant is false, and sorts by key descending by default', () => {
    expect(entity.isTenantScoped).toBe(true);
    expect(entity.defaultSort).toEqual([{ field: 'id', isDescending: true }]);
    const platform = entityOf('widget', widgetJson({ entity: { tenant: false, defaultSort: 'name,-id' } }));
    expect(platform.isTenantScoped).toBe(false);
    expect(platform.defaultSort).toEqual([
      { field: 'name', isDescending: false },
      { field: 'id', isDescending: true },
    ]);
  });

  it('does not generate a client-supplied string key', () => {
    const coded = entityOf(
      'widget',
      widgetJson({ entity: { key: 'code' }, properties: { id: undefined, code: { type: 'string' } } }),
    );
    expect(coded.isKeyGenerated).toBe(false);
    expect(coded.key.name).toBe('code');
  });
});

describe('naming', () => {
  it('turns camelCase into snake_case', () => {
    expect(toColumnName('orgParent')).toBe('org_parent');
    expect(toColumnName('id')).toBe('id');
    expect(toColumnName('aBC')).toBe('a_b_c');
  });

  it('names tree endpoints as in DESIGN.md', () => {
    expect(treeEndpointName('sysmenu')).toBe('querySysMenuTree');
    expect(treeEndpointName('sysregion')).toBe('querySysRegionTree');
    expect(treeEndpointName('category')).toBe('querySysCategoryTree');
  });

  it('parses sort expressions', () => {
    expect(parseSortExpression(' a , -b,,')).toEqual([
      { field: 'a', isDescending: false },
      { field: 'b', isDescending: true },
    ]);
    expect(parseSortExpression('')).toEqual([]);
  });
});
