/** The shapes of an entity schema file (see schemas/_meta/entity.schema.json) and what the engine derives from it. */

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
export type ScalarType = 'string' | 'integer' | 'number' | 'boolean';

export interface ListHints {
  visible?: boolean;
  width?: number;
  /**
   * Column can be sorted. Default: a scalar column shown by default (visible) is sortable, a
   * column hidden by default is not (true makes it sortable); the key, the fields of
   * x-entity.defaultSort and the tree's sequence always are. A sortable field gets a btree list
   * index (tenant, field, key), kept up on every write.
   */
  sorter?: boolean;
  filter?: FilterKind | 'none';
  /**
   * A "contains" filter (filter text) served by a trigram index (GIN, pg_trgm), kept up on every
   * write at several index entries per row. Default: true for the entity's label field
   * (x-entity.label, the text people look a record up by), false for any other: its "contains"
   * is then answered from the tenant's rows and the other conditions, unindexed.
   */
  trigram?: boolean;
  fixed?: 'left' | 'right';
  ellipsis?: boolean;
  /** amount: thousands separators (12,860,000). */
  format?: ListDisplay;
  /** Unit after the value, translated from units.<unit>. */
  unit?: string;
}

export type ListDisplay = 'amount';

export type Widget =
  | 'text'
  | 'textarea'
  | 'password'
  | 'select'
  | 'radio'
  | 'checkboxes'
  | 'treeSelect'
  | 'switch'
  | 'number'
  | 'date'
  | 'datetime'
  | 'icon'
  | 'image'
  | 'richtext'
  | 'upload'
  | 'json'
  | 'recipients'
  | 'hidden'
  | 'dateRange';

/** A label per language (a designed form carries its own; schema files use locales/). */
export interface Titles {
  zh?: string;
  tw?: string;
  en?: string;
}

export interface UiHints {
  widget?: Widget;
  order?: number;
  span?: number;
  placeholder?: string;
  rows?: number;
  confirm?: boolean;
  createOnly?: boolean;
  titles?: Titles;
  /** What the form says when the value does not match the pattern. */
  patternMessage?: string;
  help?: string;
}

/** A layout item of a designed form (root x-ui.items): a field by name, or a layout element. */
export type LayoutItem =
  | string
  | { kind: 'grid'; columns: { span: number; items: LayoutItem[] }[] }
  | { kind: 'group'; title?: string; titles?: Titles; items: LayoutItem[] }
  | { kind: 'divider'; title?: string; titles?: Titles }
  | { kind: 'text'; text: string; titles?: Titles };

/** Root x-ui: a designed form's layout and settings; records are validated without it. */
export interface FormUiHints {
  labelWidth?: number;
  layout?: 'horizontal' | 'vertical';
  size?: 'small' | 'middle' | 'large';
  titles?: Titles;
  items?: LayoutItem[];
}

/**
 * A visibility condition (root allOf): `field` is shown only while `other` equals a value, is
 * required then when `then` says so, and refused while hidden.
 */
export interface FieldCondition {
  if: { properties: Record<string, { const: unknown }>; required: string[] };
  then?: { required: string[] };
  else: { properties: Record<string, false> };
}

/**
 * A value the server fills when a record is created: actor = the signed-in user's name,
 * now = the time of the create. Clients never send it (it is not in create or update bodies
 * or forms; a value sent anyway is dropped like any read-only field).
 */
export type AutoValue = 'actor' | 'now';

export interface ItemSchema {
  /** object: the row of a detail (x-detail) field. */
  type: ScalarType | 'object';
  title?: string;
  /** The columns of a detail row (x-detail only); the same field vocabulary, no nested detail. */
  properties?: Record<string, FieldSchema>;
  required?: string[];
  additionalProperties?: false;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  /** format decimal: digits, scale and exact bounds (engine/decimal.ts). */
  'x-decimal'?: DecimalSpec;
}

export interface FieldSchema {
  type: FieldType;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  readOnly?: boolean;
  writeOnly?: boolean;
  items?: ItemSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  /** Entries of a free-form object field (each level). */
  maxProperties?: number;
  /** Nesting levels of a free-form object field (the field itself is one). */
  'x-maxDepth'?: number;
  /** Set by the server on create (see AutoValue); read-only for clients. */
  'x-auto'?: AutoValue;
  /** A value the server computes from the record's other fields (engine/rules.ts); read-only. */
  'x-computed'?: ComputedOptions;
  /** format decimal: digits, scale and exact bounds (engine/decimal.ts). */
  'x-decimal'?: DecimalSpec;
  'x-ref'?: string;
  'x-dict'?: string;
  /** An array of objects stored as rows of a child table (master-detail). */
  'x-detail'?: DetailOptions;
  'x-unique'?: boolean;
  'x-secret'?: boolean;
  'x-list'?: ListHints;
  'x-ui'?: UiHints;
  /** An adopted table's column kept as it is (see ColumnOptions); only with x-entity.adopt. */
  'x-column'?: ColumnOptions;
}

/**
 * How an adopted table's column keeps its values when its SQL type is not the one the engine
 * would create (reverse generation sets it): the engine converts on the way in and out, and
 * fills what the other application's database default would have filled.
 */
export interface ColumnOptions {
  /**
   * timestamp: a timestamp without time zone holding wall-clock time of the table's time zone
   * (x-entity.timeZone, else the server's DB_LOCAL_TIME_ZONE); time: a time without time zone
   * (a string HH:MM[:SS]); bit: a bit(1) read and written as a boolean; array: a PostgreSQL
   * array (text[], integer[] …) read and written as a JSON array.
   */
  type?: ColumnKind;
  /**
   * What the database fills when an add gives no value: now (CURRENT_TIMESTAMP, now(): written
   * by the engine as the time zone's wall clock), or the next value of a sequence (an id fed by a
   * sequence that no column default names).
   */
  default?: 'now' | { sequence: string };
}

export type ColumnKind = 'timestamp' | 'time' | 'bit' | 'array';

export interface DetailOptions {
  /** The child table (default <parent table>_<field in snake_case>). */
  table?: string;
  /**
   * The child table's column holding the parent's key (default parent_id). Set, the child table
   * existed before (adopted by reverse generation): the engine never alters it, writes no
   * tenant_code (its rows belong to the parent's tenant through the parent) and deletes a
   * parent's rows itself before the parent (the table's own foreign key may not cascade).
   */
  parentColumn?: string;
  /** With parentColumn: the column numbering the rows 1, 2, … (default seq); null: none, rows keep key order. */
  seq?: string | null;
  /** With parentColumn: the child table's own generated key (default id), the order of rows without seq. */
  key?: string;
}

export interface TreeOptions {
  parent: string;
  root: string | number;
  sequence?: string;
}

export interface MenuPlacement {
  parent: string;
  icon?: string;
  sequence?: number;
  /** Back-office path of the screen (default /<name>). */
  path?: string;
}

export interface EntityOptions {
  api: string;
  table: string;
  key: string;
  label: string;
  tree?: TreeOptions;
  defaultSort?: string;
  tenant?: boolean;
  platformAdmin?: boolean;
  /**
   * A delete moves records to the entity's recycle bin (deleted_at set), from which they are
   * restored or purged (features/crud/services/recycle.ts); see hasRecycleBin.
   */
  softDelete?: boolean;
  /** The table existed before the entity (see planTableMigration): adopted as it is. */
  adopt?: boolean;
  /**
   * With adopt: what the admin chose in the adoption preview (generator/reverse/adopt). Present,
   * the table gets no column and no index but those named here, and the engine's bookkeeping is
   * the table's own (or none). Absent (an entity adopted before the preview existed): the engine
   * adds its bookkeeping columns and list indexes as to any table.
   */
  adoption?: AdoptionOptions;
  /**
   * The IANA time zone (Asia/Shanghai) whose wall-clock time the table's timestamp without time
   * zone columns (x-column.type timestamp) hold; absent: the server's DB_LOCAL_TIME_ZONE.
   */
  timeZone?: string;
  menu?: MenuPlacement;
  /** Row data scopes: the field holding a record's organisation (engine/row-scope.ts). */
  scope?: { org?: string };
  /** Approval of records: the process that approves them (engine/approval.ts). */
  workflow?: WorkflowOptions;
}

/** x-entity.workflow: the process approving the entity's records and what its tasks may edit. */
export interface WorkflowOptions {
  /** The process definition key (its latest version is started). */
  process: string;
  /**
   * By task definition key (the user task's id): the fields that task's assignee may edit while
   * the record is under approval (from the task screen). A task not named edits nothing.
   */
  edit?: Record<string, string[]>;
}

/** A bookkeeping field the engine keeps on its own tables (tenantCode apart). */
export type BookkeepingField = 'createdAt' | 'createdBy' | 'updatedAt' | 'updatedBy' | 'version';

/** A value of an adopted table's own convention column (soft delete, tenant). */
export type ConventionValue = string | number | boolean;

/** How an adopted table is kept (x-entity.adoption). */
export interface AdoptionOptions {
  /**
   * The table's own column holding each bookkeeping field (create_time for createdAt, creator
   * for createdBy …); a field not named here is not kept at all. Optimistic locking needs
   * version: without it, updates are last-writer-wins, as the other application's own.
   */
  bookkeeping?: Partial<Record<BookkeepingField, string>>;
  /** The table's soft-delete column: rows holding `deleted` are hidden, a delete sets it. */
  softDelete?: { column: string; deleted: ConventionValue; active: ConventionValue };
  /**
   * The table's own tenant column: rows are those whose column holds the caller's tenant's value
   * (byTenant[tenant code], else value; neither: none), and rows added get that value.
   */
  tenantColumn?: { column: string; value?: ConventionValue; byTenant?: Record<string, ConventionValue> };
  /** The engine's list and lookup indexes the admin opted into, by name (none otherwise). */
  indexes?: string[];
  /**
   * The bookkeeping time fields whose column is a timestamp without time zone holding the wall
   * clock of the table's zone (x-entity.timeZone, else DB_LOCAL_TIME_ZONE): read and written in
   * that zone, as an x-column type timestamp field.
   */
  wallClock?: ('createdAt' | 'updatedAt')[];
}

export interface EntitySchema {
  $schema: string;
  $id?: string;
  title: string;
  description?: string;
  type: 'object';
  required?: string[];
  additionalProperties?: false;
  properties: Record<string, FieldSchema>;
  'x-entity': EntityOptions;
  'x-ui'?: FormUiHints;
  allOf?: FieldCondition[];
  /** Cross-field rules checked on every write and in the form (engine/rules.ts). */
  'x-rules'?: RecordRule[];
}

/** x-computed: the expression (engine/expressions.ts) over the record's own fields. */
export interface ComputedOptions {
  expression: string;
  /** A real column (filterable, sortable), written on every add and update; else computed on read. */
  stored?: boolean;
}

/** One x-rules entry: the expression must not be false, else the message stands under the fields. */
export interface RecordRule {
  expression: string;
  /** An i18n key (entities.purchase.rules.deadline), or the text itself (a designed form's). */
  message: string;
  /** The fields the message stands under; by default every field the expression reads. */
  fields?: string[];
}

/** How a field is stored in SQL. */
export type SqlType =
  | 'text'
  | 'bigint'
  | 'integer'
  | 'double precision'
  | 'boolean'
  | 'jsonb'
  | 'timestamptz'
  | 'date'
  /** A decimal field (format decimal): numeric(precision, scale). */
  | `numeric(${number},${number})`;

export type FilterKind = 'text' | 'select' | 'dateRange' | 'number' | 'boolean';

export interface FieldDef {
  name: string;
  column: string;
  schema: FieldSchema;
  type: FieldType;
  sqlType: SqlType;
  isKey: boolean;
  /** Generated by the database (identity key) or maintained by the framework (system fields). */
  isReadOnly: boolean;
  isSystem: boolean;
  isSecret: boolean;
  isUnique: boolean;
  isRequired: boolean;
  ref?: string;
  dict?: string;
  /** Filled by the server on create (x-auto); such a field is also read-only. */
  auto?: AutoValue;
  /** Computed by the server (x-computed); such a field is also read-only. */
  computed?: ComputedOptions;
  /**
   * Filter kind, or undefined when the field cannot be filtered. The API accepts a filter on
   * every field that has one; only the filter bar's (isInFilterBar) may have a list index.
   */
  filter?: FilterKind;
  /**
   * Shown in the generated list's filter bar: an explicit x-list.filter, or a filterable field
   * shown as a column (x-list.visible not false) that is not a bookkeeping one, and createdAt.
   * Such a filter has a list index when it narrows the rows (ddl.ts isNarrowFilter, hasTrigramIndex).
   */
  isInFilterBar: boolean;
  /** A column of the generated list shown by default (x-list.visible, else the default rule). */
  isListedByDefault: boolean;
  /**
   * Can be ordered and held by a btree at all: a scalar that is not a secret and not a long text
   * (list-use.ts). A sortable field, or an equality or range filter, has a btree only when it is.
   */
  isOrderable: boolean;
  /**
   * The list can be sorted by it: a scalar column shown by default, or one whose schema says
   * x-list.sorter true, the key, the default sort's fields and the tree's sequence. Each has a
   * btree list index; a sort on any other field is refused (400).
   */
  isSortable: boolean;
  /** A detail (x-detail) field: no column of its own, its rows live in a child table. */
  detail?: DetailDef;
  /** An adopted timestamp column's time zone (the table's x-entity.timeZone), if it names one. */
  timeZone?: string;
}

/**
 * The child table of a detail field: `id` (identity), `parent_id` (the parent's key, ON DELETE
 * CASCADE), `seq` (row order), `tenant_code` and one column per item property. An adopted one
 * (x-detail.parentColumn) names its own key, parent and (optional) position columns and has no
 * tenant_code.
 */
export interface DetailDef {
  /** The parent's field holding the rows. */
  field: string;
  table: string;
  /** The column holding the parent's key: parent_id, or x-detail.parentColumn. */
  parentColumn: string;
  /** The column numbering the rows (seq), or null: the rows are in key order. */
  seqColumn: string | null;
  /** The child table's own generated key (id). */
  keyColumn: string;
  /** The table existed before (x-detail.parentColumn): never altered, no tenant_code column. */
  isAdopted: boolean;
  /** The item's properties as fields (refs, dictionaries and formats like any field). */
  fields: FieldDef[];
  fieldsByName: ReadonlyMap<string, FieldDef>;
}

export interface SortTerm {
  field: string;
  isDescending: boolean;
}

export interface EntityDef {
  name: string;
  title: string;
  schema: EntitySchema;
  api: string;
  table: string;
  key: FieldDef;
  /** The key is generated by the database (readOnly integer). */
  isKeyGenerated: boolean;
  label: string;
  tree?: TreeOptions;
  isTenantScoped: boolean;
  /** Only the platform administrator may read or change it. */
  isPlatformAdminOnly: boolean;
  menu?: MenuPlacement;
  /** Declared fields followed by the system fields, in order. */
  fields: FieldDef[];
  fieldsByName: ReadonlyMap<string, FieldDef>;
  defaultSort: SortTerm[];
}

export interface FieldError {
  /** JSON pointer of the offending value, e.g. /username. */
  field: string;
  message: string;
}

/** Input that does not fit an entity: the server answers it with a 400 and these field errors. */
export class EntityInputError extends Error {
  readonly errors: FieldError[];
  constructor(errors: FieldError[]) {
    super(errors.map((e) => `${e.field}: ${e.message}`).join('; '));
    this.name = 'EntityInputError';
    this.errors = errors;
  }
}

/**
 * Exact numbers of the schema vocabulary, carried as strings end to end (never a JavaScript
 * number, which keeps 15-17 significant digits and no decimal fraction exactly):
 *
 * - a decimal: `{ "type": "string", "format": "decimal", "x-decimal": { "precision": 18,
 *   "scale": 2, "minimum": "0" } }`, stored as numeric(precision, scale), answered at its scale
 *   ("0.30"); more fraction digits than the scale are refused, never rounded;
 * - a 64-bit integer: `{ "type": "string", "format": "int64" }`, stored as bigint, for values
 *   beyond 2^53 (snowflake ids), answered as its digits.
 */
export interface DecimalSpec {
  precision: number;
  scale: number;
  /** Bounds, as decimal strings, compared exactly. */
  minimum?: string;
  maximum?: string;
}
