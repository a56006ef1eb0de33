import { sql, type RawBuilder } from 'kysely';
import type {
  AdoptionOptions,
  ConventionValue,
  EntityDef,
  FieldDef,
  Filter,
  OrderTerm,
  SortTerm,
} from '../../../engine/index.js';
import {
  decimalOf,
  DELETED_AT_COLUMN,
  hasRecycleBin,
  isInt64,
  isVirtualField,
  orderTerms,
  readableFields,
} from '../../../engine/index.js';
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
 * The time zone whose wall-clock time an adopted table's timestamp without time zone columns
 * hold when the table names none (x-entity.timeZone): the DB_LOCAL_TIME_ZONE setting, set once
 * at start (setLocalTimeZone), else the server's own zone.
 */
let localTimeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function setLocalTimeZone(zone: string | undefined): void {
  if (zone) localTimeZone = zone;
}

/** The zone of a field's timestamp without time zone column (x-column.type timestamp). */
export const timeZoneOf = (field: FieldDef): string => field.timeZone ?? localTimeZone;

/**
 * A column as the API reads it. Exact numbers come back as text, whatever the driver's parsers
 * do with numeric and bigint: a decimal at its scale (round to at least its scale only pads: the
 * digits a column holds beyond it are kept), a 64-bit integer as its digits. An adopted timestamp
 * without time zone is the instant its wall-clock time is in the table's zone, a bit(1) a
 * boolean; any other column as it is.
 */
export function readColumn(field: FieldDef, ref: RawBuilder<unknown> = column(field)): RawBuilder<unknown> {
  const decimal = decimalOf(field.schema);
  if (decimal) return sql`round(${ref}, greatest(scale(${ref}), ${sql.lit(decimal.scale)}))::text`;
  if (isInt64(field.schema)) return sql`${ref}::text`;
  switch (field.schema['x-column']?.type) {
    case 'timestamp':
      return sql`(${ref} at time zone cast(${timeZoneOf(field)} as text))`;
    case 'bit':
      return sql`(${ref} = B'1')`;
    default:
      return ref;
  }
}

/**
 * The fields every read selects (selectList), each under its API name: the readable fields that
 * have a column (a virtual computed field, x-computed and not stored, is computed on read).
 */
export function selectedFields(entity: EntityDef): FieldDef[] {
  return readableFields(entity).filter((field) => !isVirtualField(field));
}

/** The select list of every read: readable fields under their API names. */
export function selectList(entity: EntityDef): RawBuilder<unknown> {
  return sql.join(selectedFields(entity).map((field) => sql`${readColumn(field)} as ${sql.id(field.name)}`));
}

/**
 * The rows of the caller's tenant: tenant_code, or an adopted table's own tenant column (the
 * value chosen for the caller's tenant; none chosen, no row), without the rows an adopted table's
 * own soft-delete column marks deleted (x-entity.adoption).
 */
export function scopeCondition(entity: EntityDef, actor: Actor): Condition[] {
  const conditions = tenantRowsCondition(entity, actor);
  // A record in the entity's recycle bin is nowhere but in the bin (features/crud/services/recycle.ts).
  if (hasRecycleBin(entity)) conditions.push(sql`${sql.ref(DELETED_AT_COLUMN)} is null`);
  return conditions;
}

/** The rows of the caller's tenant, those in the recycle bin too (the bin's own reads). */
export function tenantRowsCondition(entity: EntityDef, actor: Actor): Condition[] {
  const conditions = entity.isTenantScoped ? [sql`tenant_code = ${actor.tenantCode}`] : [];
  const adoption = adoptionOf(entity);
  if (adoption?.tenantColumn) {
    const value = adoptedTenantValue(entity, actor);
    conditions.push(
      value === undefined ? sql`false` : sql`${sql.ref(adoption.tenantColumn.column)} = ${value}`,
    );
  }
  if (adoption?.softDelete)
    conditions.push(sql`${sql.ref(adoption.softDelete.column)} = ${adoption.softDelete.active}`);
  return conditions;
}

/** An adopted table's conventions (x-entity.adoption), when it was adopted through the preview. */
export function adoptionOf(entity: EntityDef): AdoptionOptions | undefined {
  const options = entity.schema['x-entity'];
  return options.adopt === true ? options.adoption : undefined;
}

/** The value an adopted table's own tenant column holds for the caller's tenant (undefined: none). */
export function adoptedTenantValue(entity: EntityDef, actor: Actor): ConventionValue | undefined {
  const tenant = adoptionOf(entity)?.tenantColumn;
  if (!tenant) return undefined;
  return (
    (tenant.byTenant && Object.hasOwn(tenant.byTenant, actor.tenantCode)
      ? tenant.byTenant[actor.tenantCode]
      : undefined) ?? tenant.value
  );
}

/**
 * The assignments every update makes besides the fields: version + 1, updated at and by (the
 * engine's columns, or an adopted table's own; those it keeps none of, nothing).
 */
export function updateBookkeeping(entity: EntityDef, actor: Actor): RawBuilder<unknown>[] {
  const assignments: RawBuilder<unknown>[] = [];
  const version = entity.fieldsByName.get('version');
  if (version?.isSystem) assignments.push(sql`${column(version)} = ${column(version)} + 1`);
  const updatedAt = entity.fieldsByName.get('updatedAt');
  if (updatedAt?.isSystem) assignments.push(sql`${column(updatedAt)} = ${nowOf(updatedAt)}`);
  const updatedBy = entity.fieldsByName.get('updatedBy');
  if (updatedBy?.isSystem) assignments.push(sql`${column(updatedBy)} = ${actor.username}`);
  return assignments;
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
      // A uuid or time column (adopted table) has no ilike: compared as its text.
      return filter.field.schema.format === 'uuid' || filter.field.schema['x-column']?.type === 'time'
        ? sql`${ref}::text ilike ${`%${escapeLike(filter.value)}%`}`
        : sql`${ref} ilike ${`%${escapeLike(filter.value)}%`}`;
    case 'in': {
      // A bit(1) column is compared as the boolean it is read as; a timestamp column holds the
      // zone's wall clock: each value converted (the column stays bare, its indexes serve).
      // Exact numbers compare as the column's own type (an index serves; '0.2' finds 0.20).
      const isKeptTime = filter.field.schema['x-column']?.type === 'timestamp';
      const left = filter.field.schema['x-column']?.type === 'bit' ? readColumn(filter.field) : ref;
      const values = isKeptTime
        ? filter.values.map((value) => toDbValue(filter.field, value))
        : filter.values;
      return values.length === 1 ? sql`${left} = ${values[0]}` : sql`${left} in (${sql.join(values)})`;
    }
    case 'hasItem':
      // An adopted PostgreSQL array (text[] …) has the item among its elements.
      return filter.field.schema['x-column']?.type === 'array'
        ? sql`${filter.value} = any(${ref})`
        : sql`${ref} @> ${JSON.stringify([filter.value])}::jsonb`;
    case 'range': {
      const parts: Condition[] = [];
      const isDateColumn = filter.field.sqlType === 'date';
      const cast = isDateColumn ? sql`date` : sql`timestamptz`;
      // A timestamp column holding a zone's wall clock is compared with the bound in that zone.
      const bound = (value: string): RawBuilder<unknown> =>
        filter.field.schema['x-column']?.type === 'timestamp'
          ? sql`(cast(${value} as timestamptz) at time zone cast(${timeZoneOf(filter.field)} as text))`
          : sql`cast(${value} as ${cast})`;
      if (filter.from) parts.push(sql`${ref} >= ${bound(filter.from)}`);
      if (filter.to) {
        // A day as the upper bound includes the whole day.
        parts.push(
          DATE_ONLY.test(filter.to) && !isDateColumn
            ? sql`${ref} < cast(${filter.to} as date) + 1`
            : sql`${ref} <= ${bound(filter.to)}`,
        );
      }
      return sql.join(parts, sql` and `);
    }
  }
}

/**
 * The order of a list (the engine's order terms: the sort, then the key in the direction of the
 * last term, so one index scan serves it); `tableAlias` names the table in a join, else the
 * columns are qualified by the table's own name. Empty values sort as the smallest: first
 * ascending, last descending.
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
  return orderBySql(orderTerms(entity, sort), tableAlias ?? entity.table);
}

/**
 * A column qualified by its table (or the table's alias). An ORDER BY name that is also an
 * output column's name sorts the output column (SQL92's rule): the select list reads a bigint or
 * numeric as text under the field's name, so a bare `order by "id"` would sort 10, 100, 9.
 */
export const qualifiedColumn = (qualifier: string, field: FieldDef): RawBuilder<unknown> =>
  sql.ref(`${qualifier}.${field.column}`);

/** ORDER BY of the terms, each column qualified by `qualifier` (the table's name or alias). */
export function orderBySql(terms: OrderTerm[], qualifier: string): RawBuilder<unknown> {
  const parts = terms.map(({ field, isDescending, isNullable }) => {
    const ref = qualifiedColumn(qualifier, field);
    // A column that is never empty needs no NULLS clause, which lets any index on it serve it.
    if (!isNullable) return sql`${ref} ${isDescending ? sql`desc` : sql`asc`}`;
    return sql`${ref} ${isDescending ? sql`desc nulls last` : sql`asc nulls first`}`;
  });
  return sql`order by ${sql.join(parts)}`;
}

/**
 * A JavaScript value as the column takes it: JSON columns get JSON text; an adopted timestamp
 * without time zone the instant's wall clock in its zone, a bit(1) 1 or 0, a PostgreSQL array
 * the array (the drivers write it as an array literal).
 */
export function toDbValue(field: FieldDef, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (field.schema['x-column']?.type) {
    case 'timestamp':
      return sql`(cast(${value} as timestamptz) at time zone cast(${timeZoneOf(field)} as text))`;
    case 'bit':
      return sql`cast(cast(cast(${value} as boolean) as integer) as bit(1))`;
    case 'array':
      return value;
    default:
      break;
  }
  if (field.sqlType === 'jsonb') return sql`${JSON.stringify(value)}::jsonb`;
  return value;
}

/**
 * What the database fills in an adopted column an add leaves out (x-column.default), where
 * its own default would not give what the other application gives: the wall clock of the
 * table's zone (CURRENT_TIMESTAMP in our session would be UTC's), the next value of a sequence
 * that no column default names.
 */
export function keptDefault(field: FieldDef): RawBuilder<unknown> | undefined {
  const fill = field.schema['x-column']?.default;
  if (fill === 'now') return sql`(now() at time zone cast(${timeZoneOf(field)} as text))`;
  if (fill && typeof fill === 'object') return sql`nextval(cast(${fill.sequence} as regclass))`;
  return undefined;
}

/**
 * The time of the write as a bookkeeping time column takes it: now(), or the wall clock of the
 * table's zone for an adopted timestamp without time zone (x-entity.adoption.wallClock).
 */
export function nowOf(field: FieldDef): RawBuilder<unknown> {
  return field.schema['x-column']?.type === 'timestamp'
    ? sql`(now() at time zone cast(${timeZoneOf(field)} as text))`
    : sql`now()`;
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
  for (const field of entity.fields) {
    const fill = fields.includes(field) || field.detail ? undefined : keptDefault(field);
    if (fill === undefined) continue;
    columns.push(column(field));
    params.push(fill);
  }
  // The tenant entity owns tenant_code as its own field; every other row gets the caller's tenant.
  // An adopted table keeps only the bookkeeping columns it has (x-entity.adoption).
  const system = (name: string): FieldDef | undefined => {
    const field = entity.fieldsByName.get(name);
    return field?.isSystem === true ? field : undefined;
  };
  const tenantCode = system('tenantCode');
  if (tenantCode) {
    columns.push(column(tenantCode));
    params.push(actor.tenantCode);
  }
  const adoption = adoptionOf(entity);
  for (const name of ['createdBy', 'updatedBy']) {
    const field = system(name);
    if (!field) continue;
    columns.push(column(field));
    params.push(actor.username);
  }
  if (adoption) {
    // The table's own time columns may have no default: the time of the write, as the engine's.
    for (const name of ['createdAt', 'updatedAt']) {
      const field = system(name);
      if (!field) continue;
      columns.push(column(field));
      params.push(nowOf(field));
    }
    if (adoption.tenantColumn) {
      columns.push(sql.ref(adoption.tenantColumn.column));
      params.push(adoptedTenantValue(entity, actor) ?? null);
    }
    if (adoption.softDelete) {
      columns.push(sql.ref(adoption.softDelete.column));
      params.push(adoption.softDelete.active);
    }
  }
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
