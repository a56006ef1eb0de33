import { describe, expect, it } from 'vitest';
import { buildTree } from '../../src/engine/tree.js';

interface Item {
  id: number;
  parent: number;
  name: string;
}

const shape = { key: (item: Item) => item.id, parent: (item: Item) => item.parent, root: 0 };

describe('buildTree', () => {
  it('nests items under their parents in the order given, leaves without children', () => {
    const items: Item[] = [
      { id: 1, parent: 0, name: 'a' },
      { id: 2, parent: 1, name: 'a1' },
      { id: 3, parent: 0, name: 'b' },
      { id: 4, parent: 1, name: 'a2' },
      { id: 5, parent: 4, name: 'a2x' },
    ];
    expect(buildTree(items, shape)).toEqual([
      {
        id: 1,
        parent: 0,
        name: 'a',
        children: [
          { id: 2, parent: 1, name: 'a1' },
          { id: 4, parent: 1, name: 'a2', children: [{ id: 5, parent: 4, name: 'a2x' }] },
        ],
      },
      { id: 3, parent: 0, name: 'b' },
    ]);
  });

  it('keeps an item whose parent is missing or itself at the top, and leaves the input untouched', () => {
    const items: Item[] = [
      { id: 7, parent: 99, name: 'orphan' },
      { id: 8, parent: 8, name: 'self' },
      { id: 9, parent: 7, name: 'child' },
    ];
    const tree = buildTree(items, shape);
    expect(tree.map((node) => node.name)).toEqual(['orphan', 'self']);
    expect(tree[0]?.children?.map((node) => node.name)).toEqual(['child']);
    expect(items[0]).toEqual({ id: 7, parent: 99, name: 'orphan' });
  });

  it('treats every item as top-level when none is a parent of another', () => {
    expect(buildTree([{ id: 'x', up: null }], { key: (i) => i.id, parent: (i) => i.up, root: null })).toEqual(
      [{ id: 'x', up: null }],
    );
  });
});
