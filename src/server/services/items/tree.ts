import { sql } from 'kysely';
import { parseListQuery, type RawParams } from '../../../engine/index.js';
import { buildTree, type TreeNode } from '../../lib/entity-tree.js';
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

export { buildTree, type TreeNode } from '../../lib/entity-tree.js';

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
