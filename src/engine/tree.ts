/** A record with the records below it, as the tree endpoints answer (children only where there are some). */
export type TreeNode<T> = T & { children?: TreeNode<T>[] };

export interface TreeShape<T> {
  key: (item: T) => unknown;
  parent: (item: T) => unknown;
  /** The parent value of a top-level item (0, '', null…). */
  root?: unknown;
}

/**
 * Nests items under their parents, keeping their order among siblings. An item whose parent is the
 * root, itself, or not among the items is top-level, so a filtered list (or a tenant's part of a
 * tree) still shows every item it holds. The items are copied, never changed.
 */
export function buildTree<T extends object>(items: readonly T[], shape: TreeShape<T>): TreeNode<T>[] {
  const nodes = new Map<unknown, TreeNode<T>>();
  const order: TreeNode<T>[] = [];
  for (const item of items) {
    const node: TreeNode<T> = { ...item };
    order.push(node);
    // The first of two items with one key keeps it; the second stays top-level rather than vanish.
    if (!nodes.has(shape.key(item))) nodes.set(shape.key(item), node);
  }
  const roots: TreeNode<T>[] = [];
  for (const node of order) {
    const parentKey = shape.parent(node);
    const parent = parentKey === shape.root ? undefined : nodes.get(parentKey);
    if (parent && parent !== node) (parent.children ??= []).push(node);
    else roots.push(node);
  }
  return roots;
}

/**
 * Trees at scale: a tree endpoint answers the whole tree while it has at most this many nodes
 * (the `lazyAbove` parameter, default here), otherwise one level at a time (`parentId`), each
 * node flagged `hasChildren`, so that an organisation tree of 10,000 (or a million) nodes is
 * never read whole.
 */
export const DEFAULT_TREE_LAZY_ABOVE = 1_000;
/** The largest `lazyAbove` a client may ask for: no request reads more nodes than this at once. */
export const MAX_TREE_LAZY_ABOVE = 10_000;

/** A node of a tree answered one level at a time: its children are asked for by its key. */
export type TreeLevelNode<T> = T & { hasChildren: boolean };
