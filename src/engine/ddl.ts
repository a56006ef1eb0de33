import { APPROVAL_INSTANCE, APPROVAL_STATUS } from './approval.js';
import { columnFields, detailFields } from './columns.js';
import { quoteIdentifier } from './naming.js';
import type { ColumnKind, DetailDef, EntityDef, FieldDef, SortTerm, SqlType } from './types.js';

/** A table as the framework wants it: derived from an entity schema, or declared for a core table. */
export interface ColumnSpec {
  name: string;
  type: SqlType;
  isNullable: boolean;
  isIdentity?: boolean;
  /**
   * An adopted column's own type the engine converts values for (x-column.type): accepted
   * besides the adoptable ones (information_schema's data_type: bit, ARRAY, time without time zone).
   */
  keptType?: string;
  /** One of a few constant SQL defaults; never built from input. */
  defaultSql?: 'now()' | '0' | '1' | 'false' | 'true' | "''" | "'[]'::jsonb" | "'{}'::jsonb" | "'draft'";
}

export interface IndexSpec {
  name: string;
  columns: string[];
  isUnique: boolean;
  /**
   * Serves list filters and sorts (absent: a unique or lookup index). `btree` columns listed in
   * `nullsFirst` sort their empty values first, as the list's ascending order does; `trigram`
   * serves "contains" (ILIKE '%x%') and needs pg_trgm; `jsonb` serves array "has item" (@>).
   */
  list?: { method: 'btree'; nullsFirst: string[]; descending?: string[] } | { method: 'trigram' | 'jsonb' };
  /** A partial index's condition: one of the engine's constant ones, never built from input. */
  where?: typeof LIVE_ROWS | typeof BINNED_ROWS;
}

/** The columns a soft-delete entity's table keeps its recycle bin in (x-entity.softDelete). */
export const DELETED_AT_COLUMN = 'deleted_at';
export const DELETED_BY_COLUMN = 'deleted_by';
const LIVE_ROWS = 'deleted_at is null';
const BINNED_ROWS = 'deleted_at is not null';

/** Whether deleting a record of the entity moves it to its recycle bin (x-entity.softDelete). */
export function hasRecycleBin(entity: EntityDef): boolean {
  const options = entity.schema['x-entity'];
  return options.softDelete === true && options.adopt !== true;
}

export interface ForeignKeySpec {
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: 'cascade' | 'restrict' | 'set null';
}

export interface TableSpec {
  name: string;
  columns: ColumnSpec[];
  primaryKey: string[];
  indexes: IndexSpec[];
  foreignKeys: ForeignKeySpec[];
  /**
   * An existing table adopted by an entity (x-entity.adopt, from reverse generation): compatible
   * column types are accepted, columns the entity leaves out are left alone, and only missing
   * columns and the engine's non-unique indexes are added; no unique index, foreign key, type
   * change or drop (but of the engine's own list indexes the rules no longer derive).
   */
  isAdopted?: boolean;
  /**
   * An adopted child table (x-detail.parentColumn): never altered at all. Created when missing;
   * otherwise no column, index or constraint is added, and a column the detail needs that the
   * table lacks (or has in a type that cannot serve) is a problem.
   */
  isKeptAsIs?: boolean;
  /**
   * An adopted table (x-entity.adoption): the engine's lookup and list indexes it would make,
   * offered one by one in the adoption preview (indexes holds those the admin opted into).
   */
  offeredIndexes?: IndexSpec[];
  /**
   * Names of indexes the engine made under an earlier rule and no longer wants (besides its list
   * indexes, `…_lx`): dropped at start-up when they exist. Nothing else is ever dropped.
   */
  retiredIndexes?: string[];
  /**
   * Per cent of each heap page that inserts fill (PostgreSQL's fillfactor, 10 to 100; absent:
   * 100). Below 100 for a table whose rows are updated soon after their insert, so the new row
   * version finds room on its own page and the update is HOT (no index entry written, when no
   * indexed column changes). Set on a new table and on an existing one (new pages only).
   */
  fillfactor?: number;
}

/** What the database has now, as read from information_schema and pg_indexes. */
export interface ExistingTable {
  columns: Map<string, string>;
  indexes: Set<string>;
  constraints: Set<string>;
  /** The table's fillfactor (absent: PostgreSQL's default, 100). */
  fillfactor?: number;
}

/**
 * information_schema.columns.data_type for each SqlType; a numeric column is read with its
 * precision and scale, numeric(18,2) (readExistingTables), or plain numeric without them.
 */
function informationSchemaType(type: SqlType): string {
  return type.startsWith('numeric(')
    ? type
    : INFORMATION_SCHEMA_TYPE[type as Exclude<SqlType, `numeric(${number},${number})`>];
}

const INFORMATION_SCHEMA_TYPE: Record<Exclude<SqlType, `numeric(${number},${number})`>, string> = {
  text: 'text',
  bigint: 'bigint',
  integer: 'integer',
  'double precision': 'double precision',
  boolean: 'boolean',
  jsonb: 'jsonb',
  timestamptz: 'timestamp with time zone',
  date: 'date',
};

/**
 * Types an adopted table may have where the engine would create another: the values read and
 * written are the same (the drivers give numbers for integer and numeric, text for varchar).
 */
const ADOPTABLE_TYPES: Partial<Record<SqlType, readonly string[]>> = {
  bigint: ['integer', 'smallint'],
  integer: ['smallint', 'bigint'],
  // uuid: written as text (the database casts it; a malformed one is a 400, class 22), and read
  // back as text; "contains" filters cast the column (format uuid, see filterCondition).
  text: ['character varying', 'character', 'uuid'],
  'double precision': ['numeric', 'real'],
  // An adopted decimal column of any precision is read at the schema's scale and written exactly
  // (a value the column cannot hold is the database's 4xx).
  // A timestamp without time zone holds UTC: the engine writes date-times as UTC (prepareInput)
  // and both drivers read such a column as UTC.
  timestamptz: ['timestamp without time zone'],
};

/** information_schema's data_type of an adopted column of each x-column type. */
const KEPT_TYPES: Record<ColumnKind, string> = {
  timestamp: 'timestamp without time zone',
  time: 'time without time zone',
  bit: 'bit',
  array: 'ARRAY',
};

/** Whether an existing column's type serves a wanted one (only adopted tables accept other types). */
export function isAdoptableType(wanted: SqlType, actual: string): boolean {
  if (wanted.startsWith('numeric(')) return actual === 'numeric' || actual.startsWith('numeric(');
  const plain = actual.startsWith('numeric(') ? 'numeric' : actual;
  return plain === informationSchemaType(wanted) || (ADOPTABLE_TYPES[wanted] ?? []).includes(plain);
}

/**
 * A column the schema now wants as a decimal that holds floating-point numbers (double precision
 * or real), or a decimal of another precision or scale: converted at start-up when every value
 * survives exactly (value = round(value, scale), and within the precision); otherwise start-up
 * stops naming the rows (lib/db/migrate.ts runs the check).
 */
export interface DecimalConversion {
  table: string;
  column: string;
  /** The table's key column, to name the rows whose values do not survive. */
  keyColumn: string;
  from: string;
  to: `numeric(${number},${number})`;
  precision: number;
  scale: number;
}

function decimalConversion(
  spec: TableSpec,
  column: ColumnSpec,
  actual: string,
): DecimalConversion | undefined {
  const match = /^numeric\((\d+),(\d+)\)$/.exec(column.type);
  if (!match || spec.isAdopted === true || spec.isKeptAsIs === true) return undefined;
  if (
    !['double precision', 'real', 'numeric', 'integer', 'bigint', 'smallint'].includes(actual) &&
    !actual.startsWith('numeric(')
  )
    return undefined;
  return {
    table: spec.name,
    column: column.name,
    keyColumn: spec.primaryKey[0] ?? column.name,
    from: actual,
    to: column.type as `numeric(${number},${number})`,
    precision: Number(match[1]),
    scale: Number(match[2]),
  };
}

export function indexName(
  table: string,
  columns: string[],
  suffix: 'uq' | 'idx' | 'lx' | 'trgm' | 'gin' | 'fk',
): string {
  const name = `${table}_${columns.join('_')}_${suffix}`;
  return name.length <= 63 ? name : `${name.slice(0, 54)}_${suffix}${name.length % 97}`;
}

function trigramIndexName(table: string, field: FieldDef): string {
  return indexName(table, [field.column], 'trgm');
}

function jsonbIndexName(table: string, field: FieldDef): string {
  return indexName(table, [field.column], 'gin');
}

/** The plain (tenant_code) lookup index; see entityTableSpec for when a table has it. */
function tenantIndex(table: string): IndexSpec {
  return { name: indexName(table, ['tenant_code'], 'idx'), columns: ['tenant_code'], isUnique: false };
}

/** The table of an entity: its fields, the system columns, unique and lookup indexes. */
export function entityTableSpec(entity: EntityDef): TableSpec {
  const columns: ColumnSpec[] = columnFields(entity).map((field) => {
    const column: ColumnSpec = {
      name: field.column,
      type: field.sqlType,
      isNullable: !(field.isKey || field.isSystem),
    };
    if (field.isKey && entity.isKeyGenerated) column.isIdentity = true;
    if (field.name === 'createdAt' || field.name === 'updatedAt') column.defaultSql = 'now()';
    if (field.name === 'version') {
      column.type = 'integer';
      column.defaultSql = '1';
    }
    if (field.name === 'createdBy' || field.name === 'updatedBy') column.isNullable = true;
    // Approval (x-entity.workflow): every record starts, and an existing one is added, as a draft.
    if (field.isSystem && field.name === APPROVAL_STATUS) column.defaultSql = "'draft'";
    if (field.isSystem && field.name === APPROVAL_INSTANCE) column.isNullable = true;
    const kept = field.schema['x-column']?.type;
    if (kept) column.keptType = KEPT_TYPES[kept];
    return column;
  });
  const scope = entity.isTenantScoped ? ['tenant_code'] : [];
  const indexes: IndexSpec[] = [];
  const isBinned = hasRecycleBin(entity);
  if (isBinned) {
    // Who deleted a record and when; a record outside the recycle bin has neither.
    columns.push(
      { name: DELETED_AT_COLUMN, type: 'timestamptz', isNullable: true },
      { name: DELETED_BY_COLUMN, type: 'text', isNullable: true },
    );
    indexes.push({
      name: indexName(entity.table, [...scope, DELETED_AT_COLUMN], 'idx'),
      columns: [...scope, DELETED_AT_COLUMN],
      isUnique: false,
      where: BINNED_ROWS,
    });
  }
  for (const field of columnFields(entity)) {
    if (field.isUnique) {
      const cols = [...scope, field.column];
      // With a recycle bin, a value is unique among the records outside it: a deleted record's
      // code can be used again (its restore is then refused naming the field).
      indexes.push(
        isBinned
          ? {
              name: indexName(entity.table, [field.column, 'live'], 'uq'),
              columns: cols,
              isUnique: true,
              where: LIVE_ROWS,
            }
          : { name: indexName(entity.table, [field.column], 'uq'), columns: cols, isUnique: true },
      );
    } else if (field.ref && !field.isKey) {
      indexes.push({
        name: indexName(entity.table, [field.column], 'idx'),
        columns: [field.column],
        isUnique: false,
      });
    }
  }
  indexes.push(...listIndexes(entity));
  // Every read of a tenant's rows is looked up by tenant_code. Any btree led by it serves that
  // (the list index of the key, (tenant_code, id), always is one): a plain (tenant_code) index
  // only where no other index leads with the tenant, or it is one more index kept on every write.
  if (
    entity.isTenantScoped &&
    !indexes.some((index) => index.columns[0] === 'tenant_code' && index.list?.method !== 'trigram')
  )
    indexes.unshift(tenantIndex(entity.table));
  const spec: TableSpec = {
    name: entity.table,
    columns,
    primaryKey: [entity.key.column],
    indexes,
    foreignKeys: [],
  };
  // The engine's own indexes it may have made under an earlier rule: the plain tenant index, and
  // the trigram and jsonb index of each field (a filter the filter bar no longer shows). Its
  // btree list indexes (`…_lx`) are recognised by name.
  const wanted = new Set(indexes.map((index) => index.name));
  const retired = [
    ...(entity.isTenantScoped ? [tenantIndex(entity.table).name] : []),
    // A unique index of the other kind (soft delete turned on or off since).
    ...columnFields(entity)
      .filter((field) => field.isUnique)
      .map((field) => indexName(entity.table, isBinned ? [field.column] : [field.column, 'live'], 'uq')),
    ...columnFields(entity).flatMap((field) =>
      field.type === 'array'
        ? [jsonbIndexName(entity.table, field)]
        : field.sqlType === 'text'
          ? [trigramIndexName(entity.table, field)]
          : [],
    ),
  ].filter((name) => !wanted.has(name));
  if (retired.length > 0) spec.retiredIndexes = retired;
  if (entity.schema['x-entity'].adopt === true) spec.isAdopted = true;
  const adoption = entity.schema['x-entity'].adopt === true ? entity.schema['x-entity'].adoption : undefined;
  if (adoption) {
    // Adopted through the preview: only the indexes the admin opted into; the others are offered.
    const chosen = new Set(adoption.indexes ?? []);
    spec.offeredIndexes = indexes.filter((index) => !index.isUnique);
    spec.indexes = indexes.filter((index) => !index.isUnique && chosen.has(index.name));
  }
  return spec;
}

/**
 * The child table of a detail field: its own identity key, the parent's key (deleting the parent
 * deletes its rows), the row's position, the tenant, then one column per item property. Rows are
 * read by parent in order, so (parent_id, seq) is indexed; references and dictionaries are
 * indexed like the parent's. An adopted child table (x-detail.parentColumn) has its own key,
 * parent and position columns and no tenant_code; it is created when missing, otherwise kept as
 * it is (isKeptAsIs).
 */
export function detailTableSpec(entity: EntityDef, detail: DetailDef): TableSpec {
  const { keyColumn, parentColumn, seqColumn } = detail;
  const columns: ColumnSpec[] = [
    { name: keyColumn, type: 'bigint', isNullable: false, isIdentity: true },
    { name: parentColumn, type: entity.key.sqlType, isNullable: false },
    ...(seqColumn === null ? [] : [{ name: seqColumn, type: 'integer' as const, isNullable: false }]),
    ...(detail.isAdopted ? [] : [{ name: 'tenant_code', type: 'text' as const, isNullable: false }]),
    ...detail.fields.map((field) => ({ name: field.column, type: field.sqlType, isNullable: true })),
  ];
  const order = [parentColumn, seqColumn ?? keyColumn];
  const indexes: IndexSpec[] = [
    { name: indexName(detail.table, order, 'idx'), columns: order, isUnique: false },
  ];
  for (const field of detail.fields) {
    if (field.ref)
      indexes.push({
        name: indexName(detail.table, [field.column], 'idx'),
        columns: [field.column],
        isUnique: false,
      });
  }
  const spec: TableSpec = {
    name: detail.table,
    columns,
    primaryKey: [keyColumn],
    indexes,
    foreignKeys: [
      {
        name: indexName(detail.table, [parentColumn], 'fk'),
        columns: [parentColumn],
        refTable: entity.table,
        refColumns: [entity.key.column],
        onDelete: 'cascade',
      },
    ],
  };
  if (detail.isAdopted) {
    spec.isAdopted = true;
    spec.isKeptAsIs = true;
  }
  return spec;
}

/** Every table of an entity: its own, then the child table of each detail field. */
export function entityTableSpecs(entity: EntityDef): TableSpec[] {
  return [
    entityTableSpec(entity),
    ...detailFields(entity).map((field) => detailTableSpec(entity, field.detail)),
  ];
}

/** Fields the database never leaves empty: the key and the bookkeeping columns it fills itself. */
export function isNeverNull(field: FieldDef): boolean {
  return (
    field.isKey ||
    (field.isSystem &&
      field.name !== 'createdBy' &&
      field.name !== 'updatedBy' &&
      field.name !== APPROVAL_INSTANCE)
  );
}

/**
 * The indexes serve what the generated list offers, so a page costs the same at a thousand rows
 * and at ten million, and a write keeps up no index for a list that nobody can ask for. One
 * index per sortable field (FieldDef.isSortable: the columns shown by default, x-list.sorter
 * true, the key, the default order) and per filter of the filter bar (FieldDef.isInFilterBar):
 * a btree led by tenant_code (every list is scoped by it), then the field sorted as the list
 * sorts it (empty values first ascending, so a backward scan gives descending with empty values
 * last), then the key, the tie-breaker of every order and of keyset pages; a filter that does
 * not narrow the rows much (isNarrowFilter) has none of its own. The label's "contains" filter
 * (and any whose x-list.trigram says so) gets a trigram index (hasTrigramIndex), arrays a jsonb
 * one; any other "contains" reads the tenant's rows in the list's order (issue 31: every index
 * is kept up on every row an import writes). A unique index already leads with the tenant and
 * the field, so it serves that field's equality filters; its sorts still get a list index
 * because the unique one has no key column to break ties.
 *
 * The API also accepts a filter on a field the filter bar does not show (a hidden column, who
 * wrote a row, when it changed): it works, with no index of its own (another condition or the
 * tenant's rows narrow it).
 */
export function listIndexes(entity: EntityDef): IndexSpec[] {
  const scope = entity.isTenantScoped ? ['tenant_code'] : [];
  const key = entity.key.column;
  const indexes: IndexSpec[] = [];
  for (const field of columnFields(entity)) {
    if (field.name === 'tenantCode' && entity.isTenantScoped) continue;
    const isFiltered = field.filter !== undefined && field.isInFilterBar;
    // A sorted field needs its order; an equality or range filter reads one range of the same
    // index, in key order. A "contains" filter cannot use a btree (its trigram index serves it),
    // and neither needs an equality filter on a few values (see isNarrowFilter).
    const isOrdered = field.isSortable || (isFiltered && isNarrowFilter(field));
    if (isOrdered && field.isOrderable) {
      const columns = field.isKey ? [...scope, key] : [...scope, field.column, key];
      if (columns.length > 1 || !field.isKey) {
        indexes.push({
          name: indexName(entity.table, columns, 'lx'),
          columns,
          isUnique: false,
          list: { method: 'btree', nullsFirst: isNeverNull(field) ? [] : [field.column] },
        });
      }
    }
    if (
      isFiltered &&
      field.filter === 'text' &&
      field.type === 'string' &&
      field.sqlType === 'text' &&
      hasTrigramIndex(entity, field)
    ) {
      indexes.push({
        name: trigramIndexName(entity.table, field),
        columns: [field.column],
        isUnique: false,
        list: { method: 'trigram' },
      });
    }
    if (isFiltered && field.type === 'array') {
      indexes.push({
        name: jsonbIndexName(entity.table, field),
        columns: [field.column],
        isUnique: false,
        list: { method: 'jsonb' },
      });
    }
  }
  const ownerColumns = [...scope, 'created_by', key];
  // With a recycle bin every scoped read also asks `deleted_at is null`: the index holds the live
  // rows only, so a scope's capped count is an index-only scan (no heap visit per row).
  const isLiveOnly = hasRecycleBin(entity);
  const ownerIndex = indexName(entity.table, isLiveOnly ? [...ownerColumns, 'live'] : ownerColumns, 'lx');
  if (entity.schema['x-entity'].scope && !indexes.some((index) => index.name === ownerIndex)) {
    // Row data scopes (engine/row-scope.ts): "own records" (and a record's organisation when it is
    // its creator's) is one range of this index, in key order.
    indexes.push({
      name: ownerIndex,
      columns: ownerColumns,
      isUnique: false,
      list: { method: 'btree', nullsFirst: ['created_by'] },
      ...(isLiveOnly ? { where: LIVE_ROWS } : {}),
    });
  }
  const parent = entity.tree ? entity.fieldsByName.get(entity.tree.parent) : undefined;
  if (entity.tree && parent) {
    // A tree answered one level at a time: the children of a node in sequence order, and
    // whether a node has children, are each one range of this index.
    const sequence = entity.tree.sequence ? entity.fieldsByName.get(entity.tree.sequence) : undefined;
    const ordered = [parent, ...(sequence && !sequence.isKey ? [sequence] : [])];
    const columns = [...scope, ...ordered.map((field) => field.column), key];
    indexes.push({
      name: indexName(entity.table, ['tree', ...ordered.map((field) => field.column)], 'lx'),
      columns,
      isUnique: false,
      list: {
        method: 'btree',
        nullsFirst: ordered.filter((field) => !isNeverNull(field)).map((field) => field.column),
      },
    });
  }
  const sorted = entity.defaultSort
    .map((term) => ({ term, field: entity.fieldsByName.get(term.field) }))
    .filter(
      (item): item is { term: SortTerm; field: FieldDef } => item.field !== undefined && !item.field.isKey,
    );
  if (sorted.length > 1) {
    // The default order of several fields (pinned first, then newest) is one index scan.
    const last = entity.defaultSort.at(-1);
    const columns = [...scope, ...sorted.map((item) => item.field.column), key];
    indexes.push({
      name: indexName(entity.table, ['default', ...sorted.map((item) => item.field.column)], 'lx'),
      columns,
      isUnique: false,
      list: {
        method: 'btree',
        nullsFirst: sorted.filter((item) => !isNeverNull(item.field)).map((item) => item.field.column),
        descending: [
          ...sorted.filter((item) => item.term.isDescending).map((item) => item.field.column),
          ...(last?.isDescending ? [key] : []),
        ],
      },
    });
  }
  return indexes;
}

/**
 * Whether a filter of the filter bar reads few enough rows through its own btree to be worth
 * one: a range (numbers, dates) or an equality on many values (a reference, a text given as a
 * select). Not a yes/no filter nor a select of a dictionary's or an enum's few values: each
 * value holds a large share of the rows, so the list reads them in its own order (the default
 * order's or the key's index) and skips the others, as fast as their own index would find them,
 * and every write is spared an index. Not "contains" (no btree serves it) nor an array's items.
 */
export function isNarrowFilter(field: FieldDef): boolean {
  if (field.type === 'array') return false;
  switch (field.filter) {
    case undefined:
    case 'text':
    case 'boolean':
      return false;
    case 'select':
      return field.ref !== undefined || (field.dict === undefined && field.schema.enum === undefined);
    default:
      return field.type !== 'boolean';
  }
}

/**
 * Whether a field's "contains" filter has a trigram index: its x-list.trigram, else only the
 * entity's label (x-entity.label), the text a record is looked up by. A trigram index keeps up
 * an entry per three characters of the value on every write; the other texts' "contains" reads
 * the tenant's rows in the list's order (an index of it), as short lists do anyway.
 */
export function hasTrigramIndex(entity: EntityDef, field: FieldDef): boolean {
  return field.schema['x-list']?.trigram ?? entity.label === field.name;
}

function columnSql(column: ColumnSpec): string {
  const parts = [quoteIdentifier(column.name), column.type];
  if (column.isIdentity) parts.push('generated by default as identity');
  if (!column.isNullable) parts.push('not null');
  if (column.defaultSql) parts.push(`default ${column.defaultSql}`);
  return parts.join(' ');
}

const GIN_OPERATOR_CLASS = { trigram: 'gin_trgm_ops', jsonb: 'jsonb_path_ops' } as const;

export function indexSql(table: string, index: IndexSpec, isConcurrent = false): string {
  const head = `create ${index.isUnique ? 'unique ' : ''}index ${isConcurrent ? 'concurrently ' : ''}if not exists ${quoteIdentifier(index.name)} on ${quoteIdentifier(table)}`;
  const list = index.list;
  if (list && list.method !== 'btree') {
    const [column = ''] = index.columns;
    return `${head} using gin (${quoteIdentifier(column)} ${GIN_OPERATOR_CLASS[list.method]})`;
  }
  const nullsFirst = new Set(list?.method === 'btree' ? list.nullsFirst : []);
  const descending = new Set(list?.method === 'btree' ? (list.descending ?? []) : []);
  // A descending column sorts empty values last (the list's order), which is DESC's default.
  const columns = index.columns.map((column) => {
    if (descending.has(column))
      return `${quoteIdentifier(column)} desc${nullsFirst.has(column) ? ' nulls last' : ''}`;
    return `${quoteIdentifier(column)}${nullsFirst.has(column) ? ' nulls first' : ''}`;
  });
  return `${head} (${columns.join(', ')})${index.where ? ` where ${index.where}` : ''}`;
}

/**
 * The CREATE INDEX CONCURRENTLY statement of each index of the table that a build may leave
 * invalid (every one but the unique ones, which are built in the migration's transaction), by
 * index name: what rebuilds such an index.
 */
export function rebuildableIndexes(spec: TableSpec): Map<string, string> {
  const statements = new Map<string, string>();
  for (const index of spec.indexes) {
    if (index.isUnique) continue;
    statements.set(index.name, indexSql(spec.name, index, true));
  }
  return statements;
}

function foreignKeySql(table: string, fk: ForeignKeySpec): string {
  return `alter table ${quoteIdentifier(table)} add constraint ${quoteIdentifier(fk.name)} foreign key (${fk.columns.map(quoteIdentifier).join(', ')}) references ${quoteIdentifier(fk.refTable)} (${fk.refColumns.map(quoteIdentifier).join(', ')}) on delete ${fk.onDelete}`;
}

export interface MigrationPlan {
  statements: string[];
  /**
   * List indexes of tables that already exist, with `isConcurrent`: built with CREATE INDEX
   * CONCURRENTLY outside the transaction, so a table of millions of rows keeps taking writes.
   */
  concurrentStatements?: string[];
  /** Changes that cannot be applied safely; start-up stops and shows them. */
  problems: string[];
  /** Columns to convert to a decimal once their values are checked (see DecimalConversion). */
  conversions?: DecimalConversion[];
}

/**
 * Compares a wanted table with the existing one: creates what is missing (table, columns,
 * indexes, foreign keys) and reports what it will not touch (type changes, dropped columns).
 */
export interface MigrationOptions {
  /** pg_trgm is installed: "contains" filters get their trigram indexes (otherwise none). */
  hasTrigram?: boolean;
  /** PostgreSQL: list indexes of existing tables go to `concurrentStatements`. */
  isConcurrent?: boolean;
}

/** The spec's fillfactor as a whole number from 10 to 100 (PostgreSQL's range; 100 when absent). */
function fillfactorOf(spec: TableSpec): number {
  const value = Math.round(spec.fillfactor ?? 100);
  return Number.isFinite(value) ? Math.min(100, Math.max(10, value)) : 100;
}

export function planTableMigration(
  spec: TableSpec,
  existing: ExistingTable | undefined,
  options: MigrationOptions = {},
): MigrationPlan {
  const statements: string[] = [];
  const concurrentStatements: string[] = [];
  const problems: string[] = [];
  const conversions: DecimalConversion[] = [];
  const table = quoteIdentifier(spec.name);
  if (!existing) {
    const defs = spec.columns.map(columnSql);
    defs.push(`primary key (${spec.primaryKey.map(quoteIdentifier).join(', ')})`);
    const storage = fillfactorOf(spec) === 100 ? '' : ` with (fillfactor = ${fillfactorOf(spec)})`;
    statements.push(`create table ${table} (\n  ${defs.join(',\n  ')}\n)${storage}`);
  } else {
    // Only a table that names its fillfactor gets one; any other keeps what it has.
    if (
      spec.fillfactor !== undefined &&
      spec.isAdopted !== true &&
      spec.isKeptAsIs !== true &&
      fillfactorOf(spec) !== (existing.fillfactor ?? 100)
    )
      statements.push(`alter table ${table} set (fillfactor = ${fillfactorOf(spec)})`);
    const wanted = new Set(spec.columns.map((c) => c.name));
    for (const column of spec.columns) {
      const actual = existing.columns.get(column.name);
      if (actual === undefined && spec.isKeptAsIs === true) {
        problems.push(
          `Table ${spec.name} has no column ${column.name}: it is adopted as it is and never altered. ` +
            `Name its own column in the schema (x-detail.parentColumn, seq, key) or leave the field out.`,
        );
      } else if (actual === undefined) {
        const addable = { ...column, isNullable: column.isNullable || column.defaultSql === undefined };
        statements.push(`alter table ${table} add column ${columnSql(addable)}`);
      } else if (
        spec.isAdopted === true
          ? !isAdoptableType(column.type, actual) && actual !== column.keptType
          : actual !== informationSchemaType(column.type)
      ) {
        // An adopted table belongs to another application: its column is never converted.
        if (spec.isAdopted === true) {
          problems.push(
            `Table ${spec.name}, column ${column.name}: the database has ${actual}, which the field's schema (${informationSchemaType(column.type)}${column.keptType ? `, kept as ${column.keptType}` : ''}) cannot read and write as it is. ` +
              `The table is adopted and stays as the other application has it: change the field in the schema (reverse generation gives the right one) or leave it out.`,
          );
          continue;
        }
        const conversion = decimalConversion(spec, column, actual);
        if (conversion) {
          conversions.push(conversion);
          continue;
        }
        problems.push(
          `Table ${spec.name}, column ${column.name}: the database has ${actual} but the schema wants ${informationSchemaType(column.type)}. ` +
            `Convert it yourself (alter table ${spec.name} alter column ${column.name} type ${column.type} using …) or give the field a new name.`,
        );
      }
    }
    for (const name of existing.columns.keys()) {
      // An adopted table keeps the columns its entity leaves out, untouched.
      if (!wanted.has(name) && spec.isAdopted !== true) {
        problems.push(
          `Table ${spec.name}, column ${name}: the schema no longer has this field. ` +
            `Put the field back, or drop the column yourself once its data is safe (alter table ${spec.name} drop column ${name}).`,
        );
      }
    }
  }
  // An adopted table keeps its own indexes and constraints, untouched. It gets the engine's
  // lookup and list indexes (under the engine's names, IF NOT EXISTS; on PostgreSQL built
  // concurrently, so the table keeps taking writes; dropped like any table's when the rules no
  // longer derive them), never a unique index (its rows may not be unique, and it would refuse
  // writes the table takes now) nor a foreign key.
  const isAdopting = existing !== undefined && spec.isAdopted === true;
  // A trigram or jsonb index needs the column type the engine would have made (a uuid or char
  // column has no trigram operator class); a column this plan adds has it.
  const fitsAdopted = (index: IndexSpec): boolean => {
    if (index.isUnique) return false;
    if (!index.list || index.list.method === 'btree') return true;
    const actual = existing?.columns.get(index.columns[0] ?? '');
    if (actual === undefined) return true;
    return index.list.method === 'trigram'
      ? actual === 'text' || actual === 'character varying'
      : actual === 'jsonb';
  };
  // A child table kept as it is gets nothing at all.
  const isKept = existing !== undefined && spec.isKeptAsIs === true;
  for (const index of isKept ? [] : isAdopting ? spec.indexes.filter(fitsAdopted) : spec.indexes) {
    if (existing?.indexes.has(index.name)) continue;
    if (index.list?.method === 'trigram' && options.hasTrigram !== true) continue;
    if (existing && (index.list || isAdopting) && options.isConcurrent === true)
      concurrentStatements.push(indexSql(spec.name, index, true));
    else statements.push(indexSql(spec.name, index));
  }
  for (const fk of isAdopting ? [] : spec.foreignKeys) {
    if (!existing?.constraints.has(fk.name)) statements.push(foreignKeySql(spec.name, fk));
  }
  // A list index the engine made and no longer wants (a rule changed: a column hidden, a filter
  // left out of the filter bar) is dropped, not kept up to date on every write for nothing; only
  // the engine's own names are touched: its list indexes (`…_lx`), the trigram and jsonb index
  // it names after a field, the plain tenant index it made before a list index served it. An
  // adopted table is no different: its own indexes have other names and are never touched.
  if (existing && spec.isKeptAsIs !== true) {
    const wanted = new Set(spec.indexes.map((index) => index.name));
    const retired = new Set(spec.retiredIndexes ?? []);
    for (const name of [...existing.indexes].sort()) {
      if ((/_lx\d*$/.test(name) || retired.has(name)) && !wanted.has(name))
        statements.push(`drop index if exists "${name}"`);
    }
  }
  const plan: MigrationPlan =
    options.isConcurrent === true ? { statements, concurrentStatements, problems } : { statements, problems };
  if (conversions.length > 0) plan.conversions = conversions;
  return plan;
}
