import { sql, type RawBuilder } from 'kysely';
import type { EntityDef, FieldDef, Filter, OrderTerm, SortTerm } from '../../../engine/index.js';
import { decimalOf, isInt64, orderTerms, readableFields } from '../../../engine/index.js';
import type { Db } from '../db/database.js';

/**
 * SQL fragments of the generated CRUD. Identifiers come only from entity definitions (checked
 * against SQL_IDENTIFIER when the schema was loaded) and are quoted by Kysely; every value is a
 * bound parameter.
 */
export type Condition = RawBuilder<unknown>;

export interface Actor {
  userId: number | null;
  username: string;
  tenantCode: string;
}

export const column = (field: FieldDef): RawBuilder<unknown> => sql.ref(field.column);
export const table = (entity: EntityDef): RawBuilder<unknown> => sql.table(entity.table);

/**
 * A column as the API reads it. Exact numbers come back as text, whatever the driver's parsers
 * do with numeric and bigint: a decimal at its scale (round to at least its scale only pads: the
 * digits a column holds beyond it are kept), a 64-bit integer as its digits.
 */
export function readColumn(field: FieldDef, ref: RawBuilder<unknown> = column(field)): RawBuilder<unknown> {
  const decimal = decimalOf(field.schema);
  if (decimal) return sql`round(${ref}, greatest(scale(${ref}), ${sql.lit(decimal.scale)}))::text`;
  if (isInt64(field.schema)) return sql`${ref}::text`;
  return ref;
}

/** The select list of every read: readable fields under their API names. */
export function selectList(entity: EntityDef): RawBuilder<unknown> {
  return sql.join(readableFields(entity).map((field) => sql`${readColumn(field)} as ${sql.id(field.name)}`));
}

export function scopeCondition(entity: EntityDef, actor: Actor): Condition[] {
  return entity.isTenantScoped ? [sql`tenant_code = ${actor.tenantCode}`] : [];
}

export function whereClause(conditions: Condition[]): RawBuilder<unknown> {
  return conditions.length === 0 ? sql`` : sql`where ${sql.join(conditions, sql` and `)}`;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export function filterCondition(filter: Filter): Condition {
  const ref = column(filter.field);
  switch (filter.op) {
    case 'contains':
      // A uuid column (adopted table) has no ilike: compared as its text.
      return filter.field.schema.format === 'uuid'
        ? sql`${ref}::text ilike ${`%${escapeLike(filter.value)}%`}`
        : sql`${ref} ilike ${`%${escapeLike(filter.value)}%`}`;
    case 'in':
      return filter.values.length === 1
        ? sql`${ref} = ${filter.values[0]}`
        : sql`${ref} in (${sql.join(filter.values)})`;
    case 'hasItem':
      return sql`${ref} @> ${JSON.stringify([filter.value])}::jsonb`;
    case 'range': {
      const parts: Condition[] = [];
      const isDateColumn = filter.field.sqlType === 'date';
      const cast = isDateColumn ? sql`date` : sql`timestamptz`;
      if (filter.from) parts.push(sql`${ref} >= cast(${filter.from} as ${cast})`);
      if (filter.to) {
        // A day as the upper bound includes the whole day.
        parts.push(
          DATE_ONLY.test(filter.to) && !isDateColumn
            ? sql`${ref} < cast(${filter.to} as date) + 1`
            : sql`${ref} <= cast(${filter.to} as ${cast})`,
        );
      }
      return sql.join(parts, sql` and `);
    }
  }
}

/**
 * The order of a list (the engine's order terms: the sort, then the key in the direction of the
 * last term, so one index scan serves it); `tableAlias` qualifies the columns (a table in a
 * join). Empty values sort as the smallest: first ascending, last descending.
 */
export function orderByClause({
  entity,
  sort,
  tableAlias,
}: {
  entity: EntityDef;
  sort: SortTerm[];
  tableAlias?: string;
}): RawBuilder<unknown> {
  return orderBySql(orderTerms(entity, sort), tableAlias);
}

export function orderBySql(terms: OrderTerm[], alias?: string): RawBuilder<unknown> {
  const parts = terms.map(({ field, isDescending, isNullable }) => {
    const ref = alias === undefined ? column(field) : sql.ref(`${alias}.${field.column}`);
    // A column that is never empty needs no NULLS clause, which lets any index on it serve it.
    if (!isNullable) return sql`${ref} ${isDescending ? sql`desc` : sql`asc`}`;
    return sql`${ref} ${isDescending ? sql`desc nulls last` : sql`asc nulls first`}`;
  });
  return sql`order by ${sql.join(parts)}`;
}

/** A JavaScript value as the column takes it: JSON columns get JSON text. */
export function toDbValue(field: FieldDef, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field.sqlType === 'jsonb') return sql`${JSON.stringify(value)}::jsonb`;
  return value;
}

/** Columns and values of an insert: the given fields plus the bookkeeping columns. */
export function insertRow({
  entity,
  values,
  fields,
  actor,
}: {
  entity: EntityDef;
  values: Record<string, unknown>;
  fields: FieldDef[];
  actor: Actor;
}): { columns: RawBuilder<unknown>[]; params: unknown[] } {
  const columns = fields.map(column);
  const params = fields.map((field) => toDbValue(field, values[field.name]));
  // The tenant entity owns tenant_code as its own field; every other row gets the caller's tenant.
  if (entity.fieldsByName.get('tenantCode')?.isSystem !== false) {
    columns.push(sql.ref('tenant_code'));
    params.push(actor.tenantCode);
  }
  columns.push(sql.ref('created_by'), sql.ref('updated_by'));
  params.push(actor.username, actor.username);
  return { columns, params };
}

/**
 * The ids among `ids` of rows of `tableName` (a table the server itself declares, never a
 * client's name) that belong to the tenant: what a route checks before it acts on ids a client
 * sent, so that another tenant's id answers as a missing one.
 */
export async function tenantIds({
  db,
  tableName,
  tenantCode,
  ids,
}: {
  db: Db;
  tableName: 'sys_session' | 'wf_model';
  tenantCode: string;
  ids: number[];
}): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await sql<{ id: number }>`select id from ${sql.table(tableName)}
    where tenant_code = ${tenantCode} and id in (${sql.join(ids)})`.execute(db);
  return found.rows.map((row) => row.id);
}
