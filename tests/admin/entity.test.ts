import { describe, expect, it } from 'vitest';
import { cellText, entityTitle, titleOf } from '../../src/admin/entity/labels.js';
import { filtersOf } from '../../src/admin/entity/filters.js';
import type { Translate } from '../../src/admin/i18n.js';
import { compileEntities, listColumns, listFilters } from '../../src/engine/index.js';
import { realSources } from '../engine/fixtures.js';

const TEXTS: Record<string, string> = {
  'entities.sysuser.title': '用户',
  'entities.sysuser.fields.username': '用户名',
  'admin.crud.yes': '是',
  'admin.crud.no': '否',
};
const t: Translate = (key, options) =>
  TEXTS[key] ?? (typeof options?.defaultValue === 'string' ? options.defaultValue : key);

const user = compileEntities(realSources()).find((entity) => entity.name === 'sysuser');
if (!user) throw new Error('no sysuser');
const column = (field: string) => {
  const found = listColumns(user).find((item) => item.field === field);
  if (!found) throw new Error(`no column ${field}`);
  return found;
};

describe('list cells of the generated screen', () => {
  it('show dictionary and reference values by their labels, unknown ones as they are', () => {
    const labels = new Map([['1', '正常']]);
    const lookup = (value: unknown) => labels.get(String(value));
    expect(cellText(column('status'), '1', t, lookup)).toBe('正常');
    expect(cellText(column('status'), '9', t, lookup)).toBe('9');
    expect(cellText(column('roleId'), 3, t, () => '采购商')).toBe('采购商');
  });

  it('show dates as YYYY-MM-DD HH:mm:ss, booleans as yes/no, empty and dash as they are', () => {
    const createdAt = column('createdAt');
    expect(cellText(createdAt, '2026-11-21T08:05:09', t)).toBe('2026-11-21 08:05:09');
    expect(cellText(createdAt, '-', t)).toBe('-');
    expect(cellText(createdAt, null, t)).toBe('');
    expect(cellText({}, true, t)).toBe('是');
    expect(cellText({}, false, t)).toBe('否');
    expect(cellText({ format: 'date' }, '2026-11-21', t)).toBe('2026-11-21');
    expect(cellText({}, ['a', 'b'], t)).toBe('a, b');
  });

  it('take titles from the locale, else the schema', () => {
    expect(entityTitle(t, 'sysuser', 'User')).toBe('用户');
    expect(entityTitle(t, 'supplier', 'Supplier')).toBe('Supplier');
    expect(titleOf(t, column('username').titleKeys, 'User name')).toBe('用户名');
  });
});

describe('the filter bar of the generated screen', () => {
  const filters = listFilters(user);

  it('asks the server for text that contains, exact values and date ranges', () => {
    const from = new Date('2026-11-01T00:00:00Z');
    const to = new Date('2026-11-21T00:00:00Z');
    expect(
      filtersOf(filters, { username: '  zhang ', status: '1', roleId: 2, createdAt: [from, to] }),
    ).toEqual([
      { field: 'username', operator: 'contains', value: 'zhang' },
      { field: 'status', operator: 'eq', value: '1' },
      { field: 'roleId', operator: 'eq', value: 2 },
      { field: 'createdAt', operator: 'between', value: [from, to] },
    ]);
  });

  it('leaves out what the user left empty and fields that are not filters', () => {
    expect(filtersOf(filters, { username: '', status: undefined, createdAt: [], password: 'x' })).toEqual([]);
  });
});
