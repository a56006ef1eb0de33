import { describe, expect, it } from 'vitest';
import {
  entityTitleKey,
  exportColumns,
  fieldTitleKeys,
  listColumns,
  readableFields,
  type ListColumn,
} from '../../src/engine/index.js';
import { entityOf, widgetJson } from './fixtures.js';

const widget = entityOf(
  'widget',
  widgetJson({
    properties: {
      id: { type: 'integer', readOnly: true, 'x-list': { visible: false } },
      code: { type: 'string', title: 'Code', 'x-list': { width: 120, fixed: 'left' } },
      pin: { type: 'string', 'x-secret': true, 'x-list': { visible: true } },
      token: { type: 'string', 'x-secret': true },
      kind: { type: 'string', 'x-dict': 'widget_kind' },
      ownerId: { type: 'integer', 'x-ref': 'owner' },
      seenAt: { type: 'string', format: 'date-time' },
      meta: { type: 'object' },
      tags: { type: 'array', items: { type: 'string' } },
      summary: { type: 'string', maxLength: 500 },
      body: { type: 'string', maxLength: 501 },
      shownBody: { type: 'string', maxLength: 5000, 'x-list': { visible: true } },
      quiet: { type: 'string', 'x-list': { sorter: false } },
    },
  }),
);

function byField(columns: ListColumn[]): Map<string, ListColumn> {
  return new Map(columns.map((c) => [c.field, c]));
}

describe('readableFields', () => {
  it('returns every field but the secrets', () => {
    const names = readableFields(widget).map((f) => f.name);
    expect(names).not.toContain('pin');
    expect(names).not.toContain('token');
    expect(names).toContain('tenantCode');
    expect(names).toContain('version');
    expect(names).toHaveLength(widget.fields.length - 2);
  });
});

describe('listColumns', () => {
  const columns = listColumns(widget);
  const column = byField(columns);

  it('never lists a secret, even one hinted visible', () => {
    expect(column.has('pin')).toBe(false);
    expect(column.has('token')).toBe(false);
  });

  it('leaves out tenantCode and version, keeps the other system fields', () => {
    expect(columns.map((c) => c.field)).toEqual([
      'id',
      'name',
      'code',
      'kind',
      'ownerId',
      'seenAt',
      'meta',
      'tags',
      'summary',
      'body',
      'shownBody',
      'quiet',
      'createdAt',
      'createdBy',
      'updatedAt',
      'updatedBy',
    ]);
  });

  it('shows scalars and createdAt by default; hides objects, long texts and the other system fields', () => {
    const visible = columns.filter((c) => c.isVisible).map((c) => c.field);
    expect(visible).toEqual([
      'name',
      'code',
      'kind',
      'ownerId',
      'seenAt',
      'tags',
      'summary',
      'shownBody',
      'quiet',
      'createdAt',
    ]);
  });

  it('lets x-list.visible override the default both ways', () => {
    expect(column.get('id')?.isVisible).toBe(false);
    expect(column.get('shownBody')?.isVisible).toBe(true);
    expect(column.get('body')?.isVisible).toBe(false);
  });

  it('carries width, fixed, dictionary, reference, format and sortability', () => {
    expect(column.get('code')).toEqual({
      field: 'code',
      titleKeys: ['entities.widget.fields.code'],
      fallbackTitle: 'Code',
      width: 120,
      fixed: 'left',
      isSortable: true,
      isVisible: true,
    });
    expect(column.get('kind')?.dict).toBe('widget_kind');
    expect(column.get('ownerId')?.ref).toBe('owner');
    expect(column.get('seenAt')?.format).toBe('date-time');
    expect(column.get('quiet')?.isSortable).toBe(false);
    expect(column.get('tags')?.isSortable).toBe(false);
    expect(column.get('kind')?.fallbackTitle).toBe('kind');
  });

  it('gives system fields a common title key as fallback', () => {
    expect(column.get('createdAt')?.titleKeys).toEqual([
      'entities.widget.fields.createdAt',
      'entities._common.fields.createdAt',
    ]);
    expect(column.get('createdAt')?.fallbackTitle).toBe('Created at');
  });
});

describe('exportColumns', () => {
  const columns = exportColumns(widget);

  it('are the list columns, hidden ones included, without secrets or updatedBy', () => {
    const fields = columns.map((c) => c.field);
    expect(fields).toEqual(
      listColumns(widget)
        .map((c) => c.field)
        .filter((f) => f !== 'updatedBy'),
    );
    expect(fields).toContain('body');
    expect(fields).not.toContain('pin');
    expect(fields).not.toContain('token');
    expect(fields).not.toContain('tenantCode');
  });
});

describe('title keys', () => {
  it('follow the locale layout of DESIGN.md', () => {
    expect(entityTitleKey(widget)).toBe('entities.widget.title');
    const name = widget.fieldsByName.get('name');
    if (!name) throw new Error('no name');
    expect(fieldTitleKeys(widget, name)).toEqual(['entities.widget.fields.name']);
  });
});
