/** Pure helpers for the checkable menu trees of the role screens. */

export interface IdNode {
  id: number;
  children?: IdNode[];
}

/**
 * Granted ids → the keys to tick in a cascading tree: a node is ticked when it and all of its
 * descendants are granted (a granted parent with an ungranted child shows half-ticked).
 */
export function tickedIds(nodes: readonly IdNode[], granted: ReadonlySet<number>): number[] {
  const ticked: number[] = [];
  const visit = (node: IdNode): boolean => {
    const children = node.children ?? [];
    // every child is visited, so a fully granted child inside a partial parent still counts
    const results = children.map(visit);
    const isWhole = granted.has(node.id) && results.every(Boolean);
    if (isWhole) ticked.push(node.id);
    return isWhole;
  };
  nodes.forEach(visit);
  return ticked;
}

/** Ticked ids plus all their ancestors: what a role is granted when its leaves are ticked. */
export function withAncestors(nodes: readonly IdNode[], ticked: ReadonlySet<number>): number[] {
  const result = new Set<number>();
  const visit = (node: IdNode, path: number[]): void => {
    if (ticked.has(node.id)) for (const id of [...path, node.id]) result.add(id);
    for (const child of node.children ?? []) visit(child, [...path, node.id]);
  };
  for (const node of nodes) visit(node, []);
  return [...result].sort((a, b) => a - b);
}
