import type { BaseRecord } from '@refinedev/core';
import { describe, expect, it } from 'vitest';
import { isUnloaded, withLevels } from '../../src/admin/entity/lazy-tree.js';

/** The tree list's rows when a large tree comes one level at a time (issue 20, trees at scale). */
describe('withLevels', () => {
  const top: BaseRecord[] = [
    { id: 1, orgName: 'A', hasChildren: true },
    { id: 2, orgName: 'B', hasChildren: false },
  ];

  it('gives an unloaded node an empty child list (the table shows its expand button), a leaf none', () => {
    const rows = withLevels(top, new Map(), 'id');
    expect(rows).toEqual([
      { id: 1, orgName: 'A', hasChildren: true, children: [] },
      { id: 2, orgName: 'B', hasChildren: false },
    ]);
  });

  it('puts loaded levels in place, at any depth, without changing the answer it was given', () => {
    const levels = new Map<string, BaseRecord[]>([
      ['1', [{ id: 3, orgName: 'A1', hasChildren: true }]],
      ['3', [{ id: 4, orgName: 'A1a', hasChildren: false }]],
    ]);
    const rows = withLevels(top, levels, 'id');
    expect(rows[0]).toEqual({
      id: 1,
      orgName: 'A',
      hasChildren: true,
      children: [
        {
          id: 3,
          orgName: 'A1',
          hasChildren: true,
          children: [{ id: 4, orgName: 'A1a', hasChildren: false }],
        },
      ],
    });
    expect(top[0]).toEqual({ id: 1, orgName: 'A', hasChildren: true });
  });

  it('leaves a whole tree (children given, no hasChildren) as it came', () => {
    const whole: BaseRecord[] = [{ id: 1, children: [{ id: 2 }] }, { id: 3 }];
    expect(withLevels(whole, new Map(), 'id')).toEqual(whole);
    expect(whole.some(isUnloaded)).toBe(false);
  });
});
