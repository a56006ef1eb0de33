import { sql } from 'kysely';
import { parseListQuery, type EntityDef, type RawParams } from '../../../engine/index.js';
import type { Row } from '../../lib/db/database.js';
import type { CrudRequest } from './crud.js';
import { rejectHiddenParams, withoutHidden } from '../permissions/data-fields.js';
import {
  filterCondition,
  orderByClause,
  scopeCondition,
  selectList,
  table,
  whereClause,
} from '../../lib/sql/toolkit.js';

export type TreeNode = Row & { children?: TreeNode[] };

/** Nests rows under their parents; a node whose parent is the root or not among the rows is top-level. */
export function buildTree(entity: EntityDef, rows: Row[]): TreeNode[] {
  const tree = entity.tree;
  if (!tree) return rows;
  const nodes = new Map<unknown, TreeNode>(rows.map((row) => [row[entity.key.name], { ...row }]));
  const roots: TreeNode[] = [];
  for (const node of nodes.values()) {
    const parentKey = node[tree.parent];
    const parent = parentKey === tree.root ? undefined : nodes.get(parentKey);
    if (parent && parent !== node) (parent.children ??= []).push(node);
    else roots.push(node);
  }
  return roots;
}

/** The whole tree (of the caller's tenant), optionally filtered, siblings in sequence order. */
export async function queryTree(request: CrudRequest, params: RawParams): Promise<TreeNode[]> {
  const { entity } = request;
  const { currentPage: _page, pageSize: _size, ...filters } = params;
  const sortField = entity.tree?.sequence;
  rejectHiddenParams(filters, request.hiddenFields, request.l10n);
  const query = parseListQuery(
    entity,
    { ...filters, ...(sortField && !filters.sort ? { sort: sortField } : {}) },
    request.l10n.t,
  );
  const where = whereClause([
    ...scopeCondition(entity, request.actor),
    ...query.filters.map(filterCondition),
  ]);
  const result =
    await sql<Row>`select ${selectList(entity)} from ${table(entity)} ${where} ${orderByClause(entity, query.sort)}`.execute(
      request.db,
    );
  return buildTree(
    entity,
    request.hiddenFields?.size
      ? result.rows.map((row) => withoutHidden(row, request.hiddenFields))
      : result.rows,
  );
}
