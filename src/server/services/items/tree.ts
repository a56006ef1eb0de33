import { sql } from 'kysely';
import type { RawParams } from '../../../engine/index.js';
import { buildTree, type TreeNode } from '../../lib/entity-tree.js';
import type { Row } from '../../lib/db/database.js';
import type { CrudRequest } from './crud.js';
import {
  filterCondition,
  orderByClause,
  scopeCondition,
  selectList,
  table,
  whereClause,
} from '../../lib/sql/toolkit.js';

export { buildTree, type TreeNode } from '../../lib/entity-tree.js';

/** The whole tree (of the caller's tenant), optionally filtered, siblings in sequence order. */
export async function queryTree(request: CrudRequest, params: RawParams): Promise<TreeNode[]> {
  const { entity } = request;
  const { currentPage: _page, pageSize: _size, ...filters } = params;
  const query = request.policy.listQuery(filters, entity.tree?.sequence);
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
    result.rows.map((row) => request.policy.shown(row)),
  );
}
