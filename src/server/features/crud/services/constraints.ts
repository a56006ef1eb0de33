import { sql } from 'kysely';
import { detailFields, type EntityDef, type FieldError } from '../../../../engine/index.js';
import type { Db } from '../../../lib/db/database.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import { entityTitle } from '../../../lib/titles.js';

/**
 * A write the database refused on one of its own integrity constraints (an adopted table's CHECK,
 * NOT NULL, foreign key or unique index the schema does not carry, or a race the checks lost):
 * answered as a 4xx naming the field, never a 500. PostgreSQL and PGlite report the same SQLSTATE
 * (23514 check, 23502 not null, 23503 foreign key, 23505 unique) with the table and the
 * constraint (or, for NOT NULL, the column); the constraint's columns are read from the catalogue.
 */

interface ConstraintFailure {
  code: string;
  table?: string;
  column?: string;
  constraint?: string;
}

function failureOf(error: unknown): ConstraintFailure | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, table, column, constraint } = error as Record<string, unknown>;
  if (typeof code !== 'string') return undefined;
  const text = (value: unknown): string | undefined =>
    typeof value === 'string' && value ? value : undefined;
  const failure: ConstraintFailure = { code };
  const [t, c, k] = [text(table), text(column), text(constraint)];
  if (t !== undefined) failure.table = t;
  if (c !== undefined) failure.column = c;
  if (k !== undefined) failure.constraint = k;
  return failure;
}

/** The columns of a table's constraint or unique index, in its order. */
async function constraintColumns(db: Db, table: string, constraint: string): Promise<string[]> {
  const result = await sql<{ name: string }>`
    select a.attname::text as name
    from pg_class t
    join pg_namespace n on n.oid = t.relnamespace and n.nspname = current_schema()
    cross join lateral (
      select con.conkey as keys from pg_constraint con where con.conrelid = t.oid and con.conname = ${constraint}
      union all
      select i.indkey::int2[] from pg_index i join pg_class ic on ic.oid = i.indexrelid
      where i.indrelid = t.oid and ic.relname = ${constraint}
      limit 1
    ) k
    cross join lateral unnest(k.keys) with ordinality u(num, ord)
    join pg_attribute a on a.attrelid = t.oid and a.attnum = u.num
    where t.relname = ${table}
    order by u.ord`.execute(db);
  return result.rows.map((row) => row.name);
}

/** The pointer of a column of the entity's table or of one of its detail tables. */
function pointerOf(entity: EntityDef, table: string | undefined, column: string): string | undefined {
  if (table === undefined || table === entity.table) {
    const field = entity.fields.find((candidate) => !candidate.detail && candidate.column === column);
    if (field) return `/${field.name}`;
  }
  for (const detail of detailFields(entity)) {
    if (detail.detail.table !== table) continue;
    const inRow = detail.detail.fields.find((candidate) => candidate.column === column);
    return inRow ? `/${detail.name}` : undefined;
  }
  return undefined;
}

/**
 * The catalogue's error for a constraint the database refused on a write of the entity (after
 * the rollback: the catalogue is read with `db`), or undefined when it is not one.
 */
export async function constraintError({
  db,
  entity,
  l10n,
  error,
}: {
  db: Db;
  entity: EntityDef;
  l10n: Localizer;
  error: unknown;
}): Promise<AppError | undefined> {
  const failure = failureOf(error);
  if (!failure || !/^23/.test(failure.code)) return undefined;
  const table = failure.table ?? entity.table;
  const columns =
    failure.column !== undefined
      ? [failure.column]
      : failure.constraint !== undefined
        ? await constraintColumns(db, table, failure.constraint)
        : [];
  const named = (message: string): FieldError[] => {
    const pointers = [
      ...new Set(
        columns
          .filter((column) => column !== 'tenant_code')
          .map((column) => pointerOf(entity, table, column))
          .filter((pointer): pointer is string => pointer !== undefined),
      ),
    ];
    return (pointers.length > 0 ? pointers : ['/']).map((field) => ({ field, message }));
  };
  switch (failure.code) {
    case '23502':
      return new AppError('validation', {}, named(l10n.t('validation.required')));
    case '23514':
      return new AppError(
        'validation',
        {},
        named(l10n.t('validation.constraint', { rule: failure.constraint ?? '' })),
      );
    case '23503': {
      // The row written refers to a missing one (its own column), or a row of another table
      // still refers to the one changed or deleted.
      if (table === entity.table || detailFields(entity).some((field) => field.detail.table === table))
        return new AppError('validation', {}, named(l10n.t('validation.refMissing')));
      const by = table;
      return new AppError('referenced', { by }, [
        { field: `/${entity.key.name}`, message: l10n.t('errors.referenced', { by }) },
      ]);
    }
    case '23505': {
      const value = entityTitle(l10n, entity);
      return new AppError('uniqueClash', { value }, named(l10n.t('errors.uniqueClash', { value })));
    }
    default:
      return undefined;
  }
}
