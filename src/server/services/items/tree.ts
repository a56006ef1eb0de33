import { sql } from 'kysely';
import { parseListQuery, type EntityDef, type RawParams } from '../../../engine/index.js';
import { buildTree as nest, type TreeNode as Nested } from '../../../engine/tree.js';
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
