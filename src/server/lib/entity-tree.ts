import type { EntityDef } from '../../engine/index.js';
import { buildTree as nest, type TreeNode as Nested } from '../../engine/tree.js';
import type { Row } from './db/types.js';

export type TreeNode = Nested<Row>;

/** Rows nested by the entity's parent field (x-entity.tree); an entity without one stays flat. */
export function buildTree(entity: EntityDef, rows: Row[]): TreeNode[] {
  const tree = entity.tree;
  if (!tree) return rows;
  return nest(rows, {
    key: (row) => row[entity.key.name],
    parent: (row) => row[tree.parent],
    root: tree.root,
  });
}
