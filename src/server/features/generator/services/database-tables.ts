import { sql } from 'kysely';
import {
  reverseTable,
  type EntityTable,
  type ReverseResult,
  type TableInfo,
} from '../../../../../generators/reverse.js';
import { type AdoptionOptions, type EntitySchema } from '../../../../engine/index.js';
import type { AdoptingForm, TableColumn, TableSummary } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import { FORM_TABLE } from '../../forms/index.js';
import type { Db } from '../../../lib/db/database.js';
import { AppError } from '../../../lib/errors.js';

/**
 * The reverse generator over the connected database (PGlite or PostgreSQL alike: only
 * pg_catalog is read): the tables of the current schema that are neither entities nor the
 * framework's own, and one of them as an entity schema.
 */

/**
 * Tables already adopted by a designed form that is not an entity yet (a draft): its own table
 * (x-entity.table with adopt) and the child tables of its details (x-detail.table).
 */
export async function adoptedTables(db: Db): Promise<Map<string, AdoptingForm>> {
  const result = await sql<{ id: number; form_code: string; table_name: string }>`
    select f.id, f.form_code, t.table_name
    from ${sql.table(FORM_TABLE)} f
    -- the content is kept as its JSON text (a jsonb string, for its key order) or as an object
    cross join lateral (
      select case when jsonb_typeof(f.form_content) = 'string' then (f.form_content #>> '{}')::jsonb
        else f.form_content end as content
    ) c
    cross join lateral (
      select c.content->'x-entity'->>'table' as table_name
      union all
      select p.value->'x-detail'->>'table' from jsonb_each(
        case when jsonb_typeof(c.content->'properties') = 'object' then c.content->'properties' else '{}'::jsonb end
      ) p
      where jsonb_typeof(p.value) = 'object' and jsonb_typeof(p.value->'x-detail') = 'object'
    ) t
    where jsonb_typeof(c.content) = 'object' and c.content->'x-entity'->>'adopt' = 'true' and t.table_name is not null
    order by f.id`.execute(db);
  const tables = new Map<string, AdoptingForm>();
  for (const row of result.rows)
    if (!tables.has(row.table_name))
      tables.set(row.table_name, { formId: Number(row.id), formCode: row.form_code });
  return tables;
}

/** Tables the framework owns: the entities' and the features' own (never offered for reverse generation). */
function ownTables(ctx: AppContext): Set<string> {
  return new Set(ctx.tableSpecs().map((spec) => spec.name));
}

interface ColumnRow {
  table_name: string;
  column_name: string;
  data_type: string;
  is_not_null: boolean;
  default_sql: string | null;
  is_identity: boolean;
  column_comment: string | null;
}

async function columnRows(db: Db, tableName?: string): Promise<ColumnRow[]> {
  const result = await sql<ColumnRow>`
    select c.relname as table_name, a.attname as column_name, format_type(a.atttypid, a.atttypmod) as data_type,
      a.attnotnull as is_not_null, pg_get_expr(d.adbin, d.adrelid) as default_sql,
      a.attidentity <> '' as is_identity, col_description(c.oid, a.attnum) as column_comment
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
    where n.nspname = current_schema() and c.relkind in ('r', 'p')
      and (${tableName ?? null}::text is null or c.relname = ${tableName ?? null})
    order by c.relname, a.attnum`.execute(db);
  return result.rows;
}

async function tableComments(db: Db): Promise<Map<string, string | null>> {
  const result = await sql<{ table_name: string; table_comment: string | null }>`
    select c.relname as table_name, obj_description(c.oid, 'pg_class') as table_comment
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p')`.execute(db);
  return new Map(result.rows.map((row) => [row.table_name, row.table_comment]));
}

/** GET generator/reverse/tables: the tables that are not entities yet, with their comments. */
export async function listTables(ctx: AppContext): Promise<TableSummary[]> {
  const own = ownTables(ctx);
  const comments = await tableComments(ctx.db);
  const adopted = await adoptedTables(ctx.db);
  const byTable = new Map<string, TableColumn[]>();
  for (const row of await columnRows(ctx.db)) {
    if (own.has(row.table_name)) continue;
    const columns = byTable.get(row.table_name) ?? [];
    columns.push({
      columnName: row.column_name,
      dataType: row.data_type,
      isNullable: !row.is_not_null,
      columnComment: row.column_comment,
    });
    byTable.set(row.table_name, columns);
  }
  return [...byTable.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tableName, columns]) => {
      const adoptedBy = adopted.get(tableName);
      return {
        tableName,
        tableComment: comments.get(tableName) ?? null,
        columns,
        ...(adoptedBy ? { adoptedBy } : {}),
      };
    });
}

interface ConstraintRow {
  contype: string;
  columns: string[];
  ref_table: string | null;
  ref_columns: string[] | null;
  definition: string;
}

export async function describeTable(db: Db, tableName: string): Promise<TableInfo | undefined> {
  const columns = await columnRows(db, tableName);
  if (columns.length === 0) return undefined;
  const constraints = await sql<ConstraintRow>`
    select con.contype::text as contype,
      array(select a.attname::text from unnest(con.conkey) with ordinality k(num, ord)
        join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.num order by k.ord) as columns,
      rc.relname::text as ref_table,
      case when con.confrelid = 0 then null else array(select a.attname::text from unnest(con.confkey) with ordinality k(num, ord)
        join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.num order by k.ord) end as ref_columns,
      pg_get_constraintdef(con.oid) as definition
    from pg_constraint con
    join pg_class c on c.oid = con.conrelid
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_class rc on rc.oid = con.confrelid
    where n.nspname = current_schema() and c.relname = ${tableName}`.execute(db);
  const uniqueIndexes = await sql<{ columns: string[] }>`
    select array(select a.attname::text from unnest(i.indkey::int2[]) with ordinality k(num, ord)
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.num order by k.ord) as columns
    from pg_index i
    join pg_class c on c.oid = i.indrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relname = ${tableName} and i.indisunique and not i.indisprimary
      and i.indpred is null and i.indexprs is null`.execute(db);
  const comments = await tableComments(db);
  const rows = constraints.rows;
  // The sequences that may feed an integer key no default names (reverse.ts mapColumns).
  const keyColumn = rows.find((row) => row.contype === 'p')?.columns[0] ?? 'id';
  const sequenceNames = [`${tableName}_seq`, `${tableName}_${keyColumn}_seq`, `seq_${tableName}`];
  const sequences = await sql<{ name: string }>`
    select c.relname::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'S' and c.relname in (${sql.join(sequenceNames)})`.execute(
    db,
  );
  const unique = [
    ...uniqueIndexes.rows.map((row) => row.columns),
    ...rows.filter((row) => row.contype === 'u').map((row) => row.columns),
  ]
    .map((cols) => cols.filter((col) => col !== 'tenant_code'))
    .filter((cols) => cols.length === 1)
    .map((cols) => cols[0] ?? '');
  return {
    name: tableName,
    comment: comments.get(tableName) ?? null,
    columns: columns.map((row) => ({
      name: row.column_name,
      type: row.data_type,
      isNotNull: row.is_not_null,
      defaultSql: row.default_sql,
      isIdentity: row.is_identity,
      comment: row.column_comment,
    })),
    primaryKey: rows.find((row) => row.contype === 'p')?.columns ?? [],
    uniqueColumns: [...new Set(unique)],
    foreignKeys: rows
      .filter(
        (row) =>
          row.contype === 'f' && row.columns.length === 1 && row.ref_table && row.ref_columns?.length === 1,
      )
      .map((row) => ({
        column: row.columns[0] ?? '',
        refTable: row.ref_table ?? '',
        refColumn: row.ref_columns?.[0] ?? '',
      })),
    checks: rows
      .filter((row) => row.contype === 'c' && row.columns.length === 1)
      .map((row) => ({ column: row.columns[0] ?? '', definition: row.definition })),
    sequences: sequences.rows.map((row) => row.name),
  };
}

/**
 * The tables whose foreign key refers to a table's primary key (one column to one column), that
 * are neither the framework's nor adopted already by a draft: the candidates for its details.
 */
export async function referencingTables(ctx: AppContext, tableName: string): Promise<TableInfo[]> {
  const result = await sql<{ table_name: string }>`
    select distinct c.relname::text as table_name
    from pg_constraint con
    join pg_class c on c.oid = con.conrelid
    join pg_namespace n on n.oid = c.relnamespace
    join pg_class p on p.oid = con.confrelid
    join pg_constraint pk on pk.conrelid = p.oid and pk.contype = 'p'
    where con.contype = 'f' and n.nspname = current_schema() and p.relname = ${tableName}
      and p.relnamespace = n.oid and c.oid <> p.oid
      and cardinality(con.conkey) = 1 and con.confkey = pk.conkey
    order by 1`.execute(ctx.db);
  const own = ownTables(ctx);
  const adopted = await adoptedTables(ctx.db);
  const children: TableInfo[] = [];
  for (const row of result.rows) {
    if (own.has(row.table_name) || adopted.has(row.table_name)) continue;
    const child = await describeTable(ctx.db, row.table_name);
    if (child) children.push(child);
  }
  return children;
}

/**
 * POST generator/reverse/schema?tableName=: the entity schema of one table that is not an entity
 * yet, with the tables referring to it as its details (x-detail, adopted as they are).
 */
export async function tableSchema(ctx: AppContext, tableName: string): Promise<EntitySchema> {
  return (await reverseSchema(ctx, tableName)).schema;
}

/**
 * The reverse generation of one table, with the child tables chosen as its details (none unless
 * named: a foreign key makes a reference, a sub-table is the admin's choice) and, adopting through
 * the preview, its conventions and secrets.
 */
export async function reverseSchema(
  ctx: AppContext,
  tableName: string,
  options: {
    details?: readonly string[];
    adoption?: { options: AdoptionOptions; secrets: readonly string[] };
  } = {},
): Promise<ReverseResult> {
  if (ownTables(ctx).has(tableName))
    throw new AppError('validation', {}, [
      { field: '/tableName', message: `${tableName} already is an entity or a framework table` },
    ]);
  const table = await describeTable(ctx.db, tableName);
  if (!table) throw new AppError('notFound');
  const entityTables = new Map<string, EntityTable>(
    ctx.registry.all.map((entity) => [
      entity.table,
      { entity: entity.name, keyColumn: entity.key.column, isIntegerKey: entity.key.type === 'integer' },
    ]),
  );
  const chosen = new Set(options.details ?? []);
  const children =
    chosen.size === 0
      ? []
      : (await referencingTables(ctx, tableName)).filter((child) => chosen.has(child.name));
  try {
    return reverseTable(table, entityTables, children, options.adoption);
  } catch (error) {
    throw new AppError('validation', {}, [
      { field: '/tableName', message: error instanceof Error ? error.message : String(error) },
    ]);
  }
}
