import { sql } from 'kysely';
import {
  DEFAULT_TREE_LAZY_ABOVE,
  englishTranslate,
  withVirtualFields,
  type EntityDef,
  type RawParams,
  type TreeLevelNode,
} from '../../../../engine/index.js';
import { buildTree, type TreeNode } from '../../../lib/entity-tree.js';
import type { Db, Row } from '../../../lib/db/database.js';
import { readHook, type CrudRequest } from './crud.js';
import {
  filterCondition,
  orderByClause,
  scopeCondition,
  selectList,
  table,
  whereClause,
  type Condition,
} from '../../../lib/sql/toolkit.js';

export { buildTree, type TreeNode } from '../../../lib/entity-tree.js';

/**
 * A tree endpoint's answer: the whole tree (of the caller's tenant, optionally filtered,
 * siblings in sequence order) while it is small, otherwise one level.
 *
 * - `parentId` given: the children of that node (the tree's root value: the top level), each
 *   with `hasChildren`, read on the (tenant, parent, sequence, key) index.
 * - not given: the whole tree when it has at most `lazyAbove` nodes (default
 *   DEFAULT_TREE_LAZY_ABOVE; counting stops there), otherwise the top level, as with `parentId`.
 *
 * Filters apply to every level: a level shows the matching children, and `hasChildren` tells
 * whether a node has matching children.
 */
export async function queryTree(
  request: CrudRequest,
  params: RawParams,
): Promise<TreeNode[] | TreeLevelNode<Row>[]> {
  const { entity } = request;
  const { currentPage: _page, pageSize: _size, parentId, lazyAbove, ...filters } = params;
  const query = request.policy.listQuery(filters, entity.tree?.sequence);
  const conditions = [
    ...scopeCondition(entity, request.actor),
    ...(request.policy.rowConditions ?? []),
    ...query.filters.map(filterCondition),
  ];
  const tree = entity.tree;
  const parentGiven = parentId !== undefined && parentId !== null && parentId !== '';
  if (tree && (parentGiven || !(await isSmall(request.db, entity, conditions, limitOf(lazyAbove))))) {
    const order = orderByClause({ entity, sort: query.sort, tableAlias: 'node' });
    const rows = await treeLevel(request.db, entity, conditions, parentGiven ? parentId : tree.root, order);
    const shown = await shownNodes(
      request,
      rows.map(({ hasChildren: _has, ...row }) => row),
    );
    return shown.map((row, index) => ({ ...row, hasChildren: rows[index]?.hasChildren === true }));
  }
  const result =
    await sql<Row>`select ${selectList(entity)} from ${table(entity)} ${whereClause(conditions)} ${orderByClause({ entity, sort: query.sort })}`.execute(
      request.db,
    );
  return buildTree(entity, await shownNodes(request, result.rows));
}

/**
 * Nodes as a list shows its records: virtual computed fields computed, what the caller may see,
 * through the modules' afterRead; the key, parent and sequence stay, for the tree is built on them.
 */
async function shownNodes(request: CrudRequest, rows: Row[]): Promise<Row[]> {
  const { entity } = request;
  const visible = rows.map((row) =>
    request.policy.shown(withVirtualFields(entity.schema, row, englishTranslate)),
  );
  const hooked = await readHook(request, visible);
  if (hooked === visible) return visible;
  const structure = [entity.key.name, entity.tree?.parent, entity.tree?.sequence].filter(
    (name): name is string => name !== undefined,
  );
  return hooked.map((row, index) => {
    const own = visible[index] ?? {};
    const kept: Row = { ...row };
    for (const name of structure)
      if (Object.hasOwn(own, name) && !Object.hasOwn(kept, name)) kept[name] = own[name];
    return kept;
  });
}

/** lazyAbove as the route schema read it (a whole number within bounds), else the default. */
const limitOf = (lazyAbove: unknown): number =>
  typeof lazyAbove === 'number' ? lazyAbove : DEFAULT_TREE_LAZY_ABOVE;

/** At most `limit` nodes match: counted up to limit + 1 only, whatever the table's size. */
async function isSmall(db: Db, entity: EntityDef, conditions: Condition[], limit: number): Promise<boolean> {
  const counted = await sql<{ nodes: number }>`select count(*)::int as nodes
    from (select 1 from ${table(entity)} ${whereClause(conditions)} limit ${limit + 1}) as counted`.execute(
    db,
  );
  return (counted.rows[0]?.nodes ?? 0) <= limit;
}

/**
 * The children of one node, each with whether it has (matching) children. The conditions are
 * written without a table name, so inside the subquery they are the child's (SQL resolves a
 * name to the innermost table that has it); the two tables are told apart by their aliases
 * where they meet. The top level also holds nodes without a parent.
 */
async function treeLevel(
  db: Db,
  entity: EntityDef,
  conditions: Condition[],
  parentId: unknown,
  order: ReturnType<typeof orderByClause>,
): Promise<TreeLevelNode<Row>[]> {
  const tree = entity.tree;
  const parent = tree ? entity.fieldsByName.get(tree.parent) : undefined;
  if (!tree || !parent) return [];
  const parentColumn = sql.ref(parent.column);
  const isTop = parentId === tree.root || String(parentId) === String(tree.root);
  const atLevel = isTop
    ? sql`(${parentColumn} = ${tree.root} or ${parentColumn} is null)`
    : sql`${parentColumn} = ${parentId}`;
  const child = sql.ref(`child.${parent.column}`);
  const node = sql.ref(`node.${entity.key.column}`);
  const result = await sql<TreeLevelNode<Row>>`select ${selectList(entity)},
      exists (select 1 from ${table(entity)} as child
        ${whereClause([sql`${child} = ${node}`, ...conditions])}) as "hasChildren"
    from ${table(entity)} as node ${whereClause([...conditions, atLevel])} ${order}`.execute(db);
  return result.rows.map((row) => ({ ...row, hasChildren: row.hasChildren === true }));
}
