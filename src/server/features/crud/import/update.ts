import { sql } from 'kysely';
import { EntityInputError, type FieldDef } from '../../../../engine/index.js';
import type { ImportProblem } from '../../../../engine/api-types.js';
import type { Db } from '../../../lib/db/database.js';
import { AppError, ERRORS } from '../../../lib/errors.js';
import { column, scopeCondition, table, whereClause } from '../../../lib/sql/toolkit.js';
import { fieldTitle } from '../../../lib/titles.js';
import type { CrudRequest } from '../services/crud.js';
import type { SheetRow } from './read.js';

/**
 * What an import needs beyond adding: the records a sheet's rows name (updateByKey), a refused
 * update as the row's problems, and problems worded with the field's title.
 */

/** The column naming the record a row updates: the key column, or the first unique field's. */
export interface MatchColumn {
  index: number;
  field: FieldDef;
}

const WHOLE_NUMBER = /^-?\d{1,15}$/;

/**
 * The records of the caller's tenant the chunk's rows name in the match column: cell text → the
 * key and version an update body carries.
 */
export async function findExisting(
  request: CrudRequest,
  db: Db,
  match: MatchColumn,
  chunk: SheetRow[],
): Promise<Map<string, Record<string, unknown>>> {
  const { entity, actor } = request;
  const found = new Map<string, Record<string, unknown>>();
  const isNumeric = match.field.type === 'integer' || match.field.type === 'number';
  const texts = [...new Set(chunk.map(({ cells }) => cells[match.index] ?? ''))].filter(
    (text) => text !== '' && (!isNumeric || WHOLE_NUMBER.test(text)),
  );
  const version = entity.fieldsByName.get('version');
  for (let start = 0; start < texts.length; start += 1000) {
    const part = texts.slice(start, start + 1000);
    const values = isNumeric ? part.map(Number) : part;
    const rows = await sql<{ key: unknown; value: unknown; version: unknown }>`select
      ${column(entity.key)} as key, ${column(match.field)} as value,
      ${version ? column(version) : sql`null`} as version from ${table(entity)}
      ${whereClause([sql`${column(match.field)} in (${sql.join(values)})`, ...scopeCondition(entity, actor)])}`.execute(
      db,
    );
    for (const row of rows.rows) {
      const key = entity.key.type === 'integer' || entity.key.type === 'number' ? Number(row.key) : row.key;
      found.set(String(row.value), {
        [entity.key.name]: key,
        ...(version ? { version: Number(row.version) } : {}),
      });
    }
  }
  return found;
}

/** A problem of a main-sheet cell worded with its field's title ("密码：不能为空"). */
export function titledProblem(request: CrudRequest, problem: ImportProblem): ImportProblem {
  const { l10n, entity } = request;
  if (problem.sheet !== undefined || problem.row <= 1) return problem;
  const field = entity.fieldsByName.get(problem.field);
  if (!field) return problem;
  const title = fieldTitle({ l10n, entity, field });
  const format = (field.schema as { format?: string }).format;
  if (format && problem.message === l10n.t('validation.format', { format })) {
    const worded = l10n.find([`validation.field.format.${format}`]);
    if (worded) return { ...problem, message: l10n.t(`validation.field.format.${format}`, { title }) };
    return { ...problem, message: l10n.t('validation.field.correct', { title }) };
  }
  return { ...problem, message: l10n.t('import.cellProblem', { field: title, message: problem.message }) };
}

/** The problems of a row whose update the service refused; undefined for a failure of the server. */
export function problemsOfFailure(
  request: CrudRequest,
  row: number,
  error: unknown,
): ImportProblem[] | undefined {
  const fieldOf = (pointer: string): string => pointer.replace(/^\//, '').split('/')[0] ?? '';
  if (error instanceof EntityInputError)
    return error.errors.map((item) =>
      titledProblem(request, { row, field: fieldOf(item.field), message: item.message }),
    );
  if (!(error instanceof AppError) || error.status >= 500) return undefined;
  if (error.errors && error.errors.length > 0)
    return error.errors.map((item) =>
      titledProblem(request, { row, field: fieldOf(item.field), message: item.message }),
    );
  return [{ row, field: '', message: request.l10n.t(`errors.${ERRORS[error.code].key}`, error.params) }];
}
