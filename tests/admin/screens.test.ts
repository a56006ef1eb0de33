import { describe, expect, it } from 'vitest';
import { fieldsSent, isShownField, withFieldRights } from '../../src/admin/entity/field-rights.js';
import {
  fromStored,
  rowErrors,
  serverRowErrors,
  withList,
} from '../../src/admin/features/rbac/datafields/rows.js';
import { browserOf } from '../../src/admin/features/sessions/userAgent.js';
import { tickedIds, withAncestors } from '../../src/admin/features/rbac/role/menuTree.js';

// authority (1) > sysrole (2), sysurl (3); admin (4) > sysuser (5); workbench (6)
const tree = [
  {
    id: 1,
    children: [{ id: 2 }, { id: 3 }],
  },
  { id: 4, children: [{ id: 5 }] },
  { id: 6 },
];

describe('role menu tree', () => {
  it('ticks a parent only when all of its descendants are granted', () => {
    expect(tickedIds(tree, new Set([1, 2, 4, 5, 6])).sort()).toEqual([2, 4, 5, 6]);
    expect(tickedIds(tree, new Set([1, 2, 3])).sort()).toEqual([1, 2, 3]);
  });

  it('grants the ticked menus with their ancestors', () => {
    expect(withAncestors(tree, new Set([3, 6]))).toEqual([1, 3, 6]);
    expect(withAncestors(tree, new Set([]))).toEqual([]);
  });

  it('reads back what it saves', () => {
    const granted = withAncestors(tree, new Set([2, 5]));
    expect(tickedIds(tree, new Set(granted)).sort()).toEqual([2, 4, 5]);
  });
});

describe('data-field rows', () => {
  const messages = { required: 'required', duplicate: 'duplicate' };
  const rows = fromStored([
    { id: 7, roleCode: 'ROLE_A', menuCode: 'sysorg', dataFields: ['orgType'], readOnlyFields: ['orgName'] },
    { id: 8, roleCode: 'ROLE_B', menuCode: 'sysorg', dataFields: [], readOnlyFields: [] },
  ]);

  it('needs a role on every row and one row per role code (SPEC §5)', () => {
    expect(rowErrors(rows, messages)).toEqual({});
    const edited = [
      ...rows,
      { key: 'new-1', id: undefined, roleCode: 'ROLE_A', dataFields: [], readOnlyFields: [] },
    ];
    expect(rowErrors(edited, messages)).toEqual({ 'new-1': 'duplicate' });
    const empty = [
      ...rows,
      { key: 'new-2', id: undefined, roleCode: undefined, dataFields: [], readOnlyFields: [] },
    ];
    expect(rowErrors(empty, messages)).toEqual({ 'new-2': 'required' });
  });

  it('keeps a field in one list at most: hidden, read-only, or neither (visible)', () => {
    const [row = { dataFields: [], readOnlyFields: [] }] = rows;
    expect(row.readOnlyFields).toEqual(['orgName']);
    const hidden = withList(row, 'dataFields', ['orgType', 'orgName']);
    expect(hidden).toEqual({ dataFields: ['orgType', 'orgName'], readOnlyFields: [] });
    expect(withList(hidden, 'readOnlyFields', ['orgType'])).toEqual({
      dataFields: ['orgName'],
      readOnlyFields: ['orgType'],
    });
  });

  it('puts the server field errors on their rows', () => {
    expect(serverRowErrors(rows, { 'rows.1.roleCode': ['ROLE_B already exists'] })).toEqual({
      'stored-8': 'ROLE_B already exists',
    });
  });
});

describe('online users', () => {
  it('names the browser and system of a user agent', () => {
    expect(
      browserOf(
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
      ),
    ).toBe('Headless Chrome 156 · Linux');
    expect(
      browserOf(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 Edg/120.0',
      ),
    ).toBe('Edge 120 · Windows');
    expect(browserOf('node')).toBe('node');
  });
});

describe('field rights on the generated form', () => {
  const rights = { hidden: ['paramValue'], readOnly: ['paramName'] };

  it('shows a read-only field disabled and a hidden one not at all, and sends no hidden value', () => {
    const ui = withFieldRights<Record<string, unknown>>(
      { 'ui:order': ['paramName', 'paramKey', 'paramValue', '*'], paramName: { 'ui:widget': 'text' } },
      rights,
    ) as Record<string, Record<string, unknown>>;
    expect(ui.paramName).toEqual({ 'ui:widget': 'text', 'ui:disabled': true, 'ui:readonly': true });
    expect(ui.paramValue).toEqual({ 'ui:widget': 'hidden' });
    expect(ui.paramKey).toBeUndefined();
    expect(fieldsSent({ paramName: 'a', paramKey: 'b', paramValue: 'default' }, rights)).toEqual({
      paramName: 'a',
      paramKey: 'b',
    });
    expect(isShownField(rights, 'paramValue')).toBe(false);
    expect(isShownField(rights, 'paramName')).toBe(true);
    expect(isShownField(undefined, 'paramValue')).toBe(true);
  });
});
