import { compile } from 'json-schema-to-typescript';
import {
  buildEntity,
  checkEntitySchema,
  columnFields,
  decimalOf,
  decimalPattern,
  detailFields,
  detailTableSpec,
  entityTableSpec,
  entityTableSpecs,
  hasRecycleBin,
  INT64_PATTERN,
  listColumns,
  listFilters,
  treeEndpointName,
  isInt64,
  planTableMigration,
  SchemaFileError,
  type DetailDef,
  type EntityDef,
  type EntitySchema,
  type FieldDef,
} from '../src/engine/index.js';
import { camelCase, kebabCase, pascalCase, plural, tsTypeOf, wordsOf } from './engine.js';
import { patternSample } from './pattern-sample.js';

/**
 * The data every template sees for one entity: names in each case, the fields with their
 * TypeScript, SQL and form shapes, the DDL and the TypeScript types. Everything a template needs
 * is computed here, so templates stay plain text with no logic of their own beyond if/each.
 */

export interface GeneratorInput {
  /** Entity name (as a schemas/ file name: sysregion) and its schema. */
  name: string;
  schema: unknown;
}

export interface GeneratorOptions {
  serviceName: string;
  packageName: string;
  /** From a generated file's folder to the project's src/ (for imports of project code). */
  srcRoot: string;
  /**
   * The schema of an entity a field references (x-ref), by its name: the generated service checks
   * a reference against that entity's table and scope. Unknown: the reference is not checked.
   */
  schemaOf?: (name: string) => unknown;
  /**
   * Where the list shows a record's detail rows (x-detail), the peer's three master-detail layouts:
   * 'form' only in the record's form (the default), 'inner' also in a row expanded inside the list,
   * 'tab' also in tabs below the list for the row clicked. The form edits them in every layout.
   */
  detailLayout?: DetailLayout;
}

export type DetailLayout = 'form' | 'inner' | 'tab';
export const DETAIL_LAYOUTS: readonly DetailLayout[] = ['form', 'inner', 'tab'];

/**
 * A reference (x-ref) the generated service checks, as the engine does (crud checkReferences):
 * the value names a record of the referenced entity in the caller's scope (its tenant, not in its
 * recycle bin, not soft-deleted), else 400 naming the field.
 */
export interface ReferenceModel {
  field: string;
  /** The referenced entity, its table and key column. */
  entity: string;
  table: string;
  key: string;
  isTenantScoped: boolean;
  hasRecycleBin: boolean;
  /** An adopted table's own tenant column and its value per tenant. */
  tenantColumn?: { column: string; byTenant: Record<string, unknown>; value?: unknown };
  /** An adopted table's own soft-delete column and the value of a live row. */
  softDelete?: { column: string; active: unknown };
}

export interface FieldModel {
  name: string;
  column: string;
  title: string;
  /** TypeScript type of the value in records. */
  tsType: string;
  /** How the value comes back from the database: string, number, boolean, time, json. */
  dbKind: 'string' | 'number' | 'boolean' | 'time' | 'json';
  /** The select/insert type of its Kysely column. */
  columnType: string;
  isRequired: boolean;
  isKey: boolean;
  isReadOnly: boolean;
  isSystem: boolean;
  isEditable: boolean;
  isListed: boolean;
  /** antd control of the generated form: input, number, switch, date, json. */
  control: 'input' | 'number' | 'switch' | 'date' | 'json' | 'select';
  options: string[];
  maxLength?: number;
  /** A TypeScript literal of a valid sample value (the generated test writes it). */
  sample: string;
  /** A second sample, for the generated test's update. */
  otherSample: string;
  jsonSchema: string;
  /** The converter of the generated service from the column's value: text, whole, flag, time, day, json. */
  converter: 'text' | 'whole' | 'flag' | 'time' | 'day' | 'json';
  format?: string;
  /** x-unique: no two records of the caller's scope hold the same value (the service checks it). */
  isUnique: boolean;
  /** A dictionary (x-dict) whose labels the list and form show. */
  dict?: string;
  /** Another entity (x-ref) whose label the list and form show. */
  ref?: string;
  /** The filter bar's kind of filter, when the engine's list offers one (x-filter / x-list). */
  filter?: 'text' | 'select' | 'dateRange' | 'number' | 'boolean';
  /** The engine's list sorts by it (a btree list index serves it). */
  isSortable: boolean;
  /** The field's title per language (x-ui.titles, else its title), for the module's i18n keys. */
  titles: { zh: string; tw: string; en: string };
  /**
   * A reference to another record of the same table that is not a tree's parent: the generated
   * test's sample leaves it out (no record exists for it to name before the first add).
   */
  isLeftOutOfSample?: boolean;
}

/**
 * Which rows are the caller's and how a delete is kept, as the engine serves the entity
 * (src/server/lib/sql/toolkit.ts scopeCondition and insertColumns).
 */
export interface ScopeModel {
  /** tenant_code = the caller's tenant (x-entity.tenant not false). */
  tenantColumn?: string;
  /** tenant_code is written on insert (the engine's own column, present also on a tenant-less table). */
  writesTenantCode: boolean;
  /** An adopted table's own tenant column (x-entity.adoption.tenantColumn): its value per tenant. */
  adoptedTenant?: { column: string; byTenant: string; value: string; tsType: string };
  /** An adopted table's own soft-delete column (x-entity.adoption.softDelete). */
  adoptedSoftDelete?: { column: string; deleted: string; active: string; tsType: string };
  /** The engine's recycle bin (x-entity.softDelete): deleted_at / deleted_by. */
  hasRecycleBin: boolean;
  /** Any condition at all (else the scope is every row). */
  hasConditions: boolean;
}

/** The bookkeeping columns the table keeps (the engine's, an adopted table's own, or none). */
export interface BookkeepingModel {
  createdAt?: string;
  createdBy?: string;
  updatedAt?: string;
  updatedBy?: string;
  version?: string;
}

/**
 * A detail (x-detail) field: its rows live in a child table keyed by parent_id and ordered by seq,
 * or, adopted (x-detail.parentColumn), in an existing table under its own column names.
 */
export interface DetailModel {
  /** The parent's field holding the rows (lines). */
  name: string;
  title: string;
  /** The child table. */
  table: string;
  /** The child table's column holding the parent's key (parent_id, or x-detail.parentColumn). */
  parentColumn: string;
  /** The column numbering the rows (seq), or null: an adopted table whose rows keep key order. */
  seqColumn: string | null;
  /** The child table's own generated key (id, or x-detail.key). */
  keyColumn: string;
  /** The column the rows are read in order of: seqColumn, else keyColumn. */
  orderColumn: string;
  /**
   * An existing table (x-detail.parentColumn): no tenant_code, never created or altered by the
   * module's DDL, its rows deleted by the service before their parent (its own foreign key may
   * not cascade).
   */
  isAdopted: boolean;
  /**
   * Adopted only: a TypeScript literal of the statements creating a stand-in for the existing
   * table (the columns the module uses, a foreign key to the parent that does not cascade), which
   * the generated test runs, since the module's schema.sql does not create it.
   */
  standInDdl?: string;
  /** Names of the row's types and tables: <Entity><Field> (BizorderLines). */
  pascal: string;
  /** The row's type in types.ts: <Entity><Field>Row. */
  rowType: string;
  fields: FieldModel[];
  /** Which value converters its rows need. */
  uses: Partial<Record<FieldModel['converter'], boolean>>;
  /** A TypeScript literal of sample rows (the generated test writes them), and of other rows. */
  sample: string;
  otherSample: string;
  maxItems?: number;
  /** The references (x-ref) of its rows, checked row by row (TypeScript literal of ReferenceModel[]). */
  references: string;
  hasReferences: boolean;
  /** The first row of the samples, as a TypeScript literal. */
  firstRow: string;
  /** The rows' columns as the list shows them (ListColumn[] literal) for the inner and tab layouts. */
  listColumns: string;
}

export interface EntityModel {
  name: string;
  pascal: string;
  camel: string;
  kebab: string;
  pluralCamel: string;
  title: string;
  table: string;
  api: string;
  serviceName: string;
  packageName: string;
  srcRoot: string;
  isTenantScoped: boolean;
  isTree: boolean;
  tree?: {
    parent: string;
    parentColumn: string;
    root: string;
    rootValue: string;
    tsType: string;
    /** The label's column: unique among a node's siblings (the peer's validateNameUnique). */
    labelColumn: string;
    labelName: string;
    /**
     * Literal properties for the test's child and for its would-be sibling of the child's label:
     * the label and every other x-unique field take the third sample (the root holds the first,
     * or the second once changed), the sibling's other unique fields the fourth, so only the
     * sibling's label clashes.
     */
    childValues: string;
    siblingValues: string;
  };
  key: FieldModel;
  isKeyGenerated: boolean;
  fields: FieldModel[];
  editableFields: FieldModel[];
  listedFields: FieldModel[];
  requiredInputs: string[];
  label: string;
  /** TypeScript types from json-schema-to-typescript: <Pascal> (record) and <Pascal>Input. */
  types: string;
  ddl: string;
  /** JSON Schemas of the record and of the input, for routes and the OpenAPI fragment. */
  recordSchema: string;
  inputSchema: string;
  menuCode: string;
  menuPath: string;
  menuComponent: string;
  /** The menu's sys_menu.menu_meta as JSON: the entity's titles per language (x-ui.titles), as a published form's menu has them. */
  menuMeta: string;
  urlPattern: string;
  tenantCode: string;
  /** Which value converters the service needs (its own fields and its detail rows'). */
  uses: Partial<Record<FieldModel['converter'], boolean>>;
  /** Detail (x-detail) fields, each with its child table; their rows come with a read by key. */
  details: DetailModel[];
  hasDetails: boolean;
  /** A field the generated test changes (the first editable one that is not the key). */
  updateField?: FieldModel;
  /** A required input the generated test leaves out to see the route refuse it. */
  requiredField?: string;
  /** The record has the engine's version field: an update sends it back (optimistic locking). */
  hasVersion: boolean;
  /** The module's name (defineModule): <package>-<entity>, lower-case letters, digits and -. */
  moduleName: string;
  /** The menu's per-action buttons, each granted to roles on its own. */
  buttons: string[];
  /** The URL grant of each action of the engine's API (sys_url rows, granted to roles in 权限管理). */
  urlGrants: { url: string; description: string }[];
  /** An editable field of the entity is its tenant_code column (sys_tenant's own code): the service does not set it. */
  ownsTenantColumn: boolean;
  /** The antd components the generated form uses, sorted (no unused import). */
  formComponents: string;
  /** An existing table (x-entity.adopt): schema.sql never creates or alters it. */
  isAdopted: boolean;
  scope: ScopeModel;
  bookkeeping: BookkeepingModel;
  /** Time bookkeeping columns written by the service (an adopted table's may have no default). */
  writesTimes: boolean;
  /** Fields no two records may share (x-unique, and a key the client supplies). */
  uniqueFields: FieldModel[];
  /** Adopted main table: statements making a stand-in for the generated test (schema.sql has none). */
  standInDdl?: string;
  /** The list's filters (the engine's filter bar), sortable columns and default order. */
  filterFields: FieldModel[];
  /** The filters the generated service applies itself (scalar columns: json and arrays are the engine's). */
  serviceFilters: FieldModel[];
  hasTextFilter: boolean;
  /** The default order's columns (x-entity.defaultSort, else the key descending). */
  defaultOrder: { column: string; direction: 'asc' | 'desc' }[];
  defaultSort: string;
  /** i18n messages of the module per language: entity title and field titles (x-ui.titles). */
  messages: string;
  /** Field kinds the list shows (for its imports). */
  hasDateFilter: boolean;
  /** The engine's list columns and filter bar for the entity, as TypeScript literals (the list's own). */
  listColumns: string;
  listFilters: string;
  /** Detail (x-detail) field names: the list never shows them; the engine's form edits them. */
  labelField: FieldModel;
  /** The references (x-ref) of the record's own fields the service checks (a tree's parent is checkTree's). */
  references: string;
  hasReferences: boolean;
  /** References of the record's fields or of its detail rows (the service imports sql). */
  checksReferences: boolean;
  /** References the generator could not resolve (no schema of their entity): not checked. */
  uncheckedReferences: string[];
  /**
   * For the generated test: statements making a stand-in table of each referenced entity (other
   * than this one) holding the records the samples name, and an input naming a record that does
   * not exist with the field the refusal names.
   */
  referenceStandIns?: string;
  refusedReference?: { input: string; field: string };
  /** The master-detail layout (GeneratorOptions.detailLayout) when the entity has detail rows. */
  detailLayout: DetailLayout;
  /** The list expands a row into its detail rows (layout inner; not a tree, whose rows expand into children). */
  hasInnerDetails: boolean;
  /** The list shows the clicked row's detail rows in tabs below it (layout tab). */
  hasTabDetails: boolean;
}

/** The antd components a form of these fields (and detail rows) renders. */
function formComponentsOf(fields: FieldModel[], details: DetailModel[]): string {
  const used = new Set(['Form', 'Modal']);
  if (details.length > 0) for (const name of ['Button', 'Card', 'Space']) used.add(name);
  const control: Record<FieldModel['control'], string | undefined> = {
    input: 'Input',
    date: 'Input',
    number: 'InputNumber',
    switch: 'Switch',
    select: 'Select',
    json: undefined,
  };
  for (const field of [...fields, ...details.flatMap((detail) => detail.fields)]) {
    const name = control[field.control];
    if (name) used.add(name);
  }
  return [...used].sort().join(', ');
}

function dbKindOf(field: FieldDef): FieldModel['dbKind'] {
  if (field.sqlType === 'timestamptz' || field.sqlType === 'date') return 'time';
  if (field.sqlType === 'jsonb') return 'json';
  if (field.type === 'integer' || field.type === 'number') return 'number';
  if (field.type === 'boolean') return 'boolean';
  return 'string';
}

function converterOf(field: FieldDef, kind: FieldModel['dbKind']): FieldModel['converter'] {
  if (kind === 'time') return field.sqlType === 'date' ? 'day' : 'time';
  if (kind === 'json') return 'json';
  if (kind === 'number') return 'whole';
  if (kind === 'boolean') return 'flag';
  return 'text';
}

/**
 * A field's JSON Schema without the x- hints (route validators and OpenAPI take plain JSON
 * Schema). An exact number (format decimal or int64) is its digits as a pattern: a host's ajv
 * knows no such format.
 */
function plainSchema(schema: FieldDef['schema']): Record<string, unknown> {
  const plain = Object.fromEntries(Object.entries(schema).filter(([key]) => !key.startsWith('x-')));
  const decimal = decimalOf(schema);
  if (!decimal && !isInt64(schema)) return plain;
  const { format: _format, ...rest } = plain;
  return { ...rest, pattern: decimal ? decimalPattern(decimal) : INT64_PATTERN };
}

function columnTypeOf(field: FieldDef, kind: FieldModel['dbKind']): string {
  switch (kind) {
    case 'number':
      return 'number | string | bigint | null';
    case 'boolean':
      return 'boolean | null';
    case 'time':
      return 'Date | string | null';
    case 'json':
      return 'unknown';
    default:
      return field.sqlType === 'text' ? 'string | null' : 'string | null';
  }
}

function controlOf(field: FieldDef): FieldModel['control'] {
  if (field.schema.enum) return 'select';
  if (field.type === 'integer' || field.type === 'number') return 'number';
  if (field.type === 'boolean') return 'switch';
  if (field.type === 'array' || field.type === 'object') return 'json';
  if (field.schema.format === 'date' || field.schema.format === 'date-time') return 'date';
  return 'input';
}

/** Which of a field's samples: 0 the test's record, 1 its change, 2 and 3 a tree's child and would-be sibling. */
type Variant = 0 | 1 | 2 | 3;

function sampleOf(field: FieldDef, variant: Variant): unknown {
  const schema = field.schema;
  if (schema.enum && schema.enum.length > 0) return schema.enum[Math.min(variant, schema.enum.length - 1)];
  if (schema.default !== undefined && variant === 0 && field.type !== 'string') return schema.default;
  switch (field.type) {
    case 'integer':
      return Math.max(schema.minimum ?? 0, 1) + variant;
    case 'number':
      return Math.max(schema.minimum ?? 0, 1) + variant + 0.5;
    case 'boolean':
      return variant === 0;
    case 'array':
      return arraySample(field, variant);
    case 'object':
      return {};
    case 'string': {
      if (schema.format === 'date') return ['2024-01-02', '2024-03-04', '2024-05-06', '2024-07-08'][variant];
      if (schema.format === 'date-time')
        return [
          '2024-01-02T03:04:05.000Z',
          '2024-03-04T05:06:07.000Z',
          '2024-05-06T07:08:09.000Z',
          '2024-07-08T09:10:11.000Z',
        ][variant];
      if (schema.format === 'email') return `sample${variant}@example.com`;
      if (schema.format === 'uri' || schema.format === 'url') return `https://example.com/${WORDS[variant]}`;
      if (isInt64(schema)) return variant === 0 ? '1859123456789012345' : String(variant + 1);
      const decimal = decimalOf(schema);
      if (decimal)
        return decimal.scale > 0 ? `${12 + variant}.${'5'.repeat(decimal.scale)}` : `${12 + variant}`;
      return stringSample(field, variant);
    }
  }
}

/** As many items as the array must hold (minItems), each a sample of its items' schema. */
function arraySample(field: FieldDef, variant: Variant): unknown[] {
  const count = field.schema.minItems ?? 0;
  const items = field.schema.items as FieldDef['schema'] | undefined;
  if (count === 0 || !items || Array.isArray(items)) return [];
  if (items.enum && items.enum.length > 0) return items.enum.slice(0, count);
  return Array.from({ length: count }, (_, index) => {
    if (items.type === 'integer' || items.type === 'number') return index + 1;
    if (items.type === 'boolean') return index % 2 === 0;
    return (
      `${stringSample({ ...field, schema: items }, variant)}`.slice(
        0,
        Math.max(1, (items.maxLength ?? 40) - 2),
      ) + (index > 0 ? String(index) : '')
    );
  });
}

/**
 * A text that fits the field's length and pattern: the field's own examples (one per variant) or
 * default (the first variant) when they fit, else a few stock shapes, else one built from the
 * pattern (issue 35: `^\+[1-9][0-9]{0,3}$` matches none of the stock shapes).
 */
function stringSample(field: FieldDef, variant: Variant): string {
  const { minLength = 0, maxLength = 40, pattern } = field.schema;
  const digits = '12345678901234567890123456'.slice(variant, variant + 22);
  const bases = [
    `${'abcd'[variant]}${field.column.replace(/_/g, '')}`,
    digits,
    `${'ABCD'[variant]}${digits}`,
    WORDS[variant],
  ];
  const longest = Math.min(maxLength, 24);
  const lengths = [Math.min(longest, 12)];
  for (let length = Math.max(minLength, 1); length <= longest; length += 1) lengths.push(length);
  const candidates = bases.flatMap((base) =>
    lengths.map((length) => base.padEnd(length, base.slice(-1) || 'x').slice(0, length)),
  );
  let matcher: RegExp | undefined;
  try {
    matcher = pattern ? new RegExp(pattern, 'u') : undefined;
  } catch {
    matcher = undefined;
  }
  const fits = (text: string): boolean =>
    text.length >= minLength && text.length <= maxLength && (!matcher || matcher.test(text));
  const { examples } = field.schema as { examples?: unknown };
  const listed: unknown[] = Array.isArray(examples) ? examples : [];
  const own = [listed[variant], variant === 0 ? field.schema.default : undefined];
  // A pattern open at its end (a prefix such as `^(https?://|/)`) gets a readable tail.
  const derived = pattern === undefined ? undefined : patternSample(pattern, variant);
  const fromPattern = [`${derived}example.com/${WORDS[variant]}`, derived].find(
    (text) => derived !== undefined && text !== undefined && fits(text),
  );
  return (
    own.find((value): value is string => typeof value === 'string' && fits(value)) ??
    candidates.find(fits) ??
    fromPattern ??
    candidates[0] ??
    'x'
  );
}

/** The stock words of the samples, by variant. */
const WORDS = ['sample', 'other', 'third', 'fourth'] as const;

/** A schema without x- hints at any depth (the rows of a detail field carry x-ref, x-dict …). */
function withoutHints(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutHints);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !key.startsWith('x-'))
      .map(([key, value]) => [key, key === 'enum' || key === 'default' ? value : withoutHints(value)]),
  );
}

/** A field's schema without its title (json-schema-to-typescript makes types of titles) and hints. */
function describedSchema(field: FieldDef): Record<string, unknown> {
  const { title, ...rest } = field.schema;
  const plain = plainSchema(rest);
  if (field.detail && plain.items !== undefined) plain.items = withoutHints(plain.items);
  return { ...plain, description: title ?? field.name };
}

/**
 * A schema json-schema-to-typescript turns into a plain interface (titles would become types).
 * `rowTypes` names the row type of each detail field (types.ts declares them on their own); the
 * route schemas keep the rows' own schema instead.
 */
function typeSchemaOf(
  fields: FieldDef[],
  required: string[],
  title: string,
  rowTypes?: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const properties = Object.fromEntries(
    fields.map((field) => {
      const described = describedSchema(field);
      const rowType = rowTypes?.get(field.name);
      if (rowType === undefined) return [field.name, described];
      return [field.name, { type: 'array', tsType: `${rowType}[]`, description: described.description }];
    }),
  );
  return { title, type: 'object', properties, required, additionalProperties: false };
}

/**
 * Names json-schema-to-typescript is given instead of ours: it re-cases a title by rules of its
 * own (yudaodemo01contact → Yudaodemo01Contact), so each type is compiled under a placeholder and
 * renamed to the one name every template uses (pascalCase of the entity, model.pascal).
 */
const PLACEHOLDER = 'EcobidGeneratedType';

async function compileNamed(schema: Record<string, unknown>, name: string, index: number): Promise<string> {
  const placeholder = `${PLACEHOLDER}${index}`;
  const compiled = await compile(
    { ...(freeObjectsTyped(schema) as Record<string, unknown>), title: placeholder },
    placeholder,
    TYPE_OPTIONS,
  );
  return compiled.replace(new RegExp(`\\b${placeholder}\\b`, 'g'), name).trim();
}

/**
 * An object of free keys (no properties) typed Record<string, unknown>: json-schema-to-typescript
 * would write `{}`, which the project's lint refuses (no-empty-object-type).
 */
function freeObjectsTyped(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(freeObjectsTyped);
  if (typeof schema !== 'object' || schema === null) return schema;
  const typed = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === 'enum' || key === 'default' ? value : freeObjectsTyped(value),
    ]),
  );
  if (typed.type === 'object' && typed.properties === undefined && typed.tsType === undefined)
    typed.tsType = 'Record<string, unknown>';
  return typed;
}

const TYPE_OPTIONS = {
  bannerComment: '',
  format: true,
  style: { singleQuote: true, printWidth: 110, semi: true },
  additionalProperties: false,
  declareExternallyReferenced: true,
};

async function typesOf(
  entity: EntityDef,
  pascal: string,
  editable: FieldDef[],
  inputRequired: string[],
  details: DetailModel[],
): Promise<string> {
  const rowTypes = new Map(details.map((detail) => [detail.name, detail.rowType]));
  // Detail rows come with a read by key, not with a list: optional in the record.
  const recordRequired = entity.fields
    .filter((field) => (field.isRequired || field.isKey) && !field.detail)
    .map((f) => f.name);
  const record = await compileNamed(typeSchemaOf(entity.fields, recordRequired, pascal, rowTypes), pascal, 0);
  const input = await compileNamed(
    typeSchemaOf(editable, inputRequired, `${pascal}Input`, rowTypes),
    `${pascal}Input`,
    1,
  );
  const rows: string[] = [];
  for (const [index, field] of detailFields(entity).entries()) {
    const rowType = rowTypes.get(field.name) ?? `${pascal}Row`;
    const items = field.detail.fields;
    rows.push(
      await compileNamed(
        typeSchemaOf(
          items,
          items.filter((item) => item.isRequired).map((item) => item.name),
          rowType,
        ),
        rowType,
        index + 2,
      ),
    );
  }
  return `${[record, input, ...rows].join('\n\n')}\n`;
}

const literal = (value: unknown): string => JSON.stringify(value);

/**
 * The statements creating a stand-in for an adopted child table, for the generated test: the
 * columns the engine would read and write, and a foreign key to the parent without cascade (the
 * existing table's may not cascade either, so the service must delete the rows first).
 */
function standInDdl(entity: EntityDef, detail: DetailDef): string[] {
  const spec = detailTableSpec(entity, detail);
  return planTableMigration(
    {
      name: spec.name,
      columns: spec.columns,
      primaryKey: spec.primaryKey,
      indexes: [],
      foreignKeys: spec.foreignKeys.map((foreignKey) => ({ ...foreignKey, onDelete: 'restrict' as const })),
    },
    undefined,
  ).statements;
}

/**
 * The statements making a stand-in for an adopted main table, for the generated test: the
 * columns the engine reads and writes, and the table's own tenant and soft-delete columns.
 */
function adoptedStandIn(entity: EntityDef, scope: ScopeModel): string[] {
  const spec = entityTableSpec(entity);
  const convention = (tsType: string): 'text' | 'integer' | 'boolean' =>
    tsType === 'number' ? 'integer' : tsType === 'boolean' ? 'boolean' : 'text';
  if (scope.adoptedTenant)
    spec.columns.push({
      name: scope.adoptedTenant.column,
      type: convention(scope.adoptedTenant.tsType),
      isNullable: true,
    });
  if (scope.adoptedSoftDelete)
    spec.columns.push({
      name: scope.adoptedSoftDelete.column,
      type: convention(scope.adoptedSoftDelete.tsType),
      isNullable: false,
    });
  return planTableMigration({ ...spec, indexes: [], foreignKeys: [] }, undefined).statements;
}

/** The module's i18n texts: <menu code>.title and .fields.<field> in zh, tw and en. */
function messagesOf(
  entity: EntityDef,
  fields: FieldModel[],
  details: DetailModel[],
  menuCode: string,
): Record<'zh' | 'tw' | 'en', Record<string, unknown>> {
  const title = titlesOf(entity.name, entity.title, entity.schema['x-ui']?.titles);
  // A detail field's title (its rows' titles are the engine form's: entities.<name>.fields…).
  const detailTitles = details.map((detail) => {
    const field = entity.fieldsByName.get(detail.name);
    return [detail.name, titlesOf(detail.name, field?.schema.title, field?.schema['x-ui']?.titles)] as const;
  });
  const all = [...fields.map((field) => [field.name, field.titles] as const), ...detailTitles];
  const of = (language: 'zh' | 'tw' | 'en') => ({
    [menuCode]: {
      title: title[language],
      fields: Object.fromEntries(all.map(([name, titles]) => [name, titles[language]])),
    },
  });
  return { zh: of('zh'), tw: of('tw'), en: of('en') };
}

/** A value no record holds, of the field's type: the generated test's reference to nothing. */
function missingValueOf(field: FieldDef): unknown {
  return field.type === 'integer' || field.type === 'number' ? 987654321 : 'nosuchrecord';
}

/**
 * The references (x-ref) among fields, each resolved to its entity's table and scope; a tree's
 * own parent is left to checkTree. Those whose entity has no known schema are returned apart.
 */
function referencesOf(
  fields: readonly FieldDef[],
  schemaOf: ((name: string) => unknown) | undefined,
  treeParent: string | undefined,
): { references: ReferenceModel[]; unresolved: string[]; targets: Map<string, EntityDef> } {
  const references: ReferenceModel[] = [];
  const unresolved: string[] = [];
  const targets = new Map<string, EntityDef>();
  for (const field of fields) {
    if (!field.ref || field.name === treeParent) continue;
    const schema = schemaOf?.(field.ref);
    let target: EntityDef | undefined;
    if (schema !== undefined && schema !== null)
      try {
        target = buildEntity(field.ref, schema as EntitySchema);
      } catch {
        target = undefined;
      }
    if (!target) {
      unresolved.push(`${field.name} (${field.ref})`);
      continue;
    }
    targets.set(field.name, target);
    const options = target.schema['x-entity'];
    const adoption = options.adopt === true ? options.adoption : undefined;
    const reference: ReferenceModel = {
      field: field.name,
      entity: target.name,
      table: target.table,
      key: target.key.column,
      isTenantScoped: target.isTenantScoped,
      hasRecycleBin: hasRecycleBin(target),
    };
    if (adoption?.tenantColumn)
      reference.tenantColumn = {
        column: adoption.tenantColumn.column,
        byTenant: adoption.tenantColumn.byTenant ?? {},
        ...(adoption.tenantColumn.value === undefined ? {} : { value: adoption.tenantColumn.value }),
      };
    if (adoption?.softDelete)
      reference.softDelete = { column: adoption.softDelete.column, active: adoption.softDelete.active };
    references.push(reference);
  }
  return { references, unresolved, targets };
}

/** A SQL literal of a sample value (numbers as they are, text quoted). */
function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return `'${String(value).replace(/'/g, "''")}'`;
}

/**
 * For the generated test: a stand-in table per referenced table (its key and scope columns) and
 * the records the samples name, in the default tenant, live.
 */
function referenceStandIns(
  uses: { reference: ReferenceModel; field: FieldDef }[],
  ownTables: ReadonlySet<string>,
): string[] {
  const statements: string[] = [];
  const byTable = new Map<string, { reference: ReferenceModel; field: FieldDef }[]>();
  for (const use of uses) {
    if (ownTables.has(use.reference.table)) continue;
    byTable.set(use.reference.table, [...(byTable.get(use.reference.table) ?? []), use]);
  }
  const sqlTypeOf = (value: unknown): string =>
    typeof value === 'number' ? 'bigint' : typeof value === 'boolean' ? 'boolean' : 'text';
  for (const [table, list] of byTable) {
    const first = list[0];
    if (!first) continue;
    const { reference } = first;
    const keyType = first.field.type === 'integer' || first.field.type === 'number' ? 'bigint' : 'text';
    const columns = [`${reference.key} ${keyType} primary key`];
    const values = (key: unknown): string[] => {
      const row = [sqlLiteral(key)];
      if (reference.isTenantScoped) row.push(`'default'`);
      if (reference.hasRecycleBin) row.push('null');
      if (reference.softDelete) row.push(sqlLiteral(reference.softDelete.active));
      if (reference.tenantColumn)
        row.push(sqlLiteral(reference.tenantColumn.byTenant.default ?? reference.tenantColumn.value ?? null));
      return row;
    };
    if (reference.isTenantScoped) columns.push('tenant_code text');
    if (reference.hasRecycleBin) columns.push('deleted_at timestamptz');
    if (reference.softDelete)
      columns.push(`${reference.softDelete.column} ${sqlTypeOf(reference.softDelete.active)}`);
    if (reference.tenantColumn)
      columns.push(
        `${reference.tenantColumn.column} ${sqlTypeOf(
          reference.tenantColumn.value ?? Object.values(reference.tenantColumn.byTenant)[0],
        )}`,
      );
    statements.push(`create table if not exists ${table} (${columns.join(', ')})`);
    const keys = new Set<string>();
    for (const { field } of list)
      for (const variant of [0, 1] as const) {
        const key = sampleOf(field, variant);
        if (keys.has(JSON.stringify(key))) continue;
        keys.add(JSON.stringify(key));
        statements.push(`insert into ${table} values (${values(key).join(', ')})`);
      }
  }
  return statements;
}

/** Checks one entity schema with the engine (the same rules as schemas/) and builds its model. */
export async function entityModel(input: GeneratorInput, options: GeneratorOptions): Promise<EntityModel> {
  const problems = checkEntitySchema(`${input.name}.schema.json`, input.name, input.schema);
  if (problems.length > 0) throw new SchemaFileError(problems);
  const entity = buildEntity(input.name, input.schema as EntitySchema);
  const pascal = pascalCase(entity.name);
  const fields: FieldModel[] = columnFields(entity).map(fieldModelOf);
  const detailReferences: ({ name: string; fields: FieldDef[] } & ReturnType<typeof referencesOf>)[] = [];
  const details: DetailModel[] = detailFields(entity).map((field) => {
    const rows = field.detail.fields.map(fieldModelOf);
    const rowReferences = referencesOf(field.detail.fields, options.schemaOf, undefined);
    const rowOf = (variant: 0 | 1): string =>
      `{ ${rows.map((row) => `${row.name}: ${variant === 0 ? row.sample : row.otherSample}`).join(', ')} }`;
    const { parentColumn, seqColumn, keyColumn, isAdopted } = field.detail;
    const detail: DetailModel = {
      name: field.name,
      title: field.schema.title ?? field.name,
      table: field.detail.table,
      parentColumn,
      seqColumn,
      keyColumn,
      orderColumn: seqColumn ?? keyColumn,
      isAdopted,
      pascal: `${pascal}${pascalCase(field.name)}`,
      rowType: `${pascal}${pascalCase(field.name)}Row`,
      fields: rows,
      uses: Object.fromEntries(rows.map((row) => [row.converter, true])),
      sample: `[${rowOf(0)}, ${rowOf(1)}]`,
      otherSample: `[${rowOf(1)}]`,
      references: literal(rowReferences.references),
      hasReferences: rowReferences.references.length > 0,
      firstRow: rowOf(0),
      listColumns: JSON.stringify(
        field.detail.fields.map((row) => ({
          field: row.name,
          titleKeys: [`entities.${entity.name}.details.${field.name}.${row.name}`],
          fallbackTitle: row.schema.title ?? row.name,
          isSortable: false,
          isVisible: true,
          ...(row.dict ? { dict: row.dict } : {}),
          ...(row.ref ? { ref: row.ref } : {}),
          ...(row.schema.format ? { format: row.schema.format } : {}),
        })),
        null,
        2,
      ),
    };
    detailReferences.push({ name: field.name, fields: field.detail.fields, ...rowReferences });
    if (field.schema.maxItems !== undefined) detail.maxItems = field.schema.maxItems;
    if (isAdopted) detail.standInDdl = literal(standInDdl(entity, field.detail));
    return detail;
  });
  const editable = entity.fields.filter((field) => !field.isSystem && !field.isReadOnly);
  const requiredInputs = editable.filter((field) => field.isRequired).map((field) => field.name);
  // An adopted child table exists already: the module's DDL never creates or alters it.
  // Only a table that does not exist is created (if not exists), with the engine's own types.
  const ddl = entityTableSpecs(entity)
    .flatMap((spec, index) =>
      spec.isKeptAsIs === true
        ? [
            `-- ${spec.name} is adopted (x-detail.parentColumn): an existing table, never created or altered here.`,
          ]
        : index === 0 && entity.schema['x-entity'].adopt === true
          ? [`-- ${spec.name} is adopted (x-entity.adopt): an existing table, never created or altered here.`]
          : planTableMigration(spec, undefined).statements.map(
              (statement) => `${statement.replace(/^create table /, 'create table if not exists ')};`,
            ),
    )
    .join('\n\n');
  const key = fields.find((field) => field.isKey);
  if (!key) throw new Error(`${entity.name}: no key`);
  const entityOptions = entity.schema['x-entity'];
  const isAdopted = entityOptions.adopt === true;
  const adoption = isAdopted ? entityOptions.adoption : undefined;
  const systemColumn = (name: string): string | undefined =>
    entity.fieldsByName.get(name)?.isSystem === true ? entity.fieldsByName.get(name)?.column : undefined;
  const bookkeeping: BookkeepingModel = {};
  for (const name of ['createdAt', 'createdBy', 'updatedAt', 'updatedBy', 'version'] as const) {
    const column = systemColumn(name);
    if (column !== undefined) bookkeeping[name] = column;
  }
  const conventionType = (value: unknown): string => (typeof value === 'string' ? 'string' : typeof value);
  const scope: ScopeModel = {
    writesTenantCode:
      systemColumn('tenantCode') !== undefined &&
      !fields.some((field) => field.isEditable && field.column === 'tenant_code'),
    hasRecycleBin: hasRecycleBin(entity),
    hasConditions: false,
  };
  if (entity.isTenantScoped) scope.tenantColumn = 'tenant_code';
  if (adoption?.tenantColumn)
    scope.adoptedTenant = {
      column: adoption.tenantColumn.column,
      byTenant: literal(adoption.tenantColumn.byTenant ?? {}),
      value: adoption.tenantColumn.value === undefined ? 'undefined' : literal(adoption.tenantColumn.value),
      tsType: conventionType(
        adoption.tenantColumn.value ?? Object.values(adoption.tenantColumn.byTenant ?? {})[0],
      ),
    };
  if (adoption?.softDelete)
    scope.adoptedSoftDelete = {
      column: adoption.softDelete.column,
      deleted: literal(adoption.softDelete.deleted),
      active: literal(adoption.softDelete.active),
      tsType: conventionType(adoption.softDelete.active),
    };
  scope.hasConditions =
    scope.tenantColumn !== undefined ||
    scope.adoptedTenant !== undefined ||
    scope.adoptedSoftDelete !== undefined ||
    scope.hasRecycleBin;
  const menuCode = `${options.packageName}_${entity.name}`.replace(/[^A-Za-z0-9_]/g, '_');
  const titles = entity.schema['x-ui']?.titles;
  const menuTitles = titles && Object.keys(titles).length > 0 ? titles : undefined;
  const recordSchema = typeSchemaOf(entity.fields, [], pascal);
  const inputSchema = typeSchemaOf(editable, requiredInputs, `${pascal}Input`);
  const uses = Object.fromEntries(
    [...fields, ...details.flatMap((detail) => detail.fields)].map((field) => [field.converter, true]),
  );
  const model: EntityModel = {
    name: entity.name,
    pascal,
    camel: camelCase(entity.name),
    kebab: kebabCase(entity.name),
    pluralCamel: plural(camelCase(entity.name)),
    title: entity.title,
    table: entity.table,
    api: entity.api,
    serviceName: options.serviceName,
    packageName: options.packageName,
    srcRoot: options.srcRoot,
    isTenantScoped: entity.isTenantScoped,
    isTree: entity.tree !== undefined,
    key,
    isKeyGenerated: entity.isKeyGenerated,
    fields,
    editableFields: fields.filter((field) => field.isEditable),
    listedFields: fields.filter((field) => field.isListed && !field.isSystem),
    requiredInputs,
    label: entity.label,
    types: await typesOf(entity, pascal, editable, requiredInputs, details),
    ddl,
    recordSchema: JSON.stringify(recordSchema, null, 2),
    inputSchema: JSON.stringify(inputSchema, null, 2),
    menuCode,
    menuPath: `/${options.packageName}/${entity.name}`,
    // The folder the module is written to (src/modules/<package>/<entity kebab>/): the back-office
    // mounts the module's list at this component (src/admin/lib/generated-pages.ts).
    menuComponent: `${options.packageName}/${kebabCase(entity.name)}`,
    menuMeta: JSON.stringify(menuTitles ? { titles: menuTitles } : {}),
    urlPattern: `/api/${options.serviceName}/${entity.name}/**`,
    tenantCode: 'default',
    uses,
    details,
    hasDetails: details.length > 0,
    hasVersion: fields.some((field) => field.name === 'version'),
    moduleName: `${kebabCase(options.packageName)}-${kebabCase(entity.name)}`.slice(0, 64),
    buttons: ['add', 'update', 'delete', 'export'],
    urlGrants: [
      { url: `/api/${entity.api}/query`, description: `${entity.title} · query` },
      ...(entity.tree
        ? [
            {
              url: `/api/${entity.api}/${treeEndpointName(entity.name)}`,
              description: `${entity.title} · tree`,
            },
          ]
        : []),
      { url: `/api/${entity.api}/add`, description: `${entity.title} · add` },
      { url: `/api/${entity.api}/import`, description: `${entity.title} · add (import)` },
      { url: `/api/${entity.api}/update`, description: `${entity.title} · update` },
      { url: `/api/${entity.api}/delete`, description: `${entity.title} · delete` },
      { url: `/api/${entity.api}/export`, description: `${entity.title} · export` },
    ],
    ownsTenantColumn: fields.some((field) => field.isEditable && field.column === 'tenant_code'),
    formComponents: formComponentsOf(
      fields.filter((field) => field.isEditable),
      details,
    ),
    isAdopted,
    scope,
    bookkeeping,
    writesTimes: isAdopted,
    uniqueFields: fields.filter(
      (field) => field.isUnique || (field.isKey && !entity.isKeyGenerated && field.isEditable),
    ),
    filterFields: fields.filter((field) => field.filter !== undefined),
    serviceFilters: fields.filter((field) => field.filter !== undefined && field.dbKind !== 'json'),
    hasTextFilter: fields.some((field) => field.filter === 'text' && field.dbKind !== 'json'),
    defaultOrder: entity.defaultSort.flatMap((term) => {
      const column = entity.fieldsByName.get(term.field)?.column;
      return column === undefined
        ? []
        : [{ column, direction: term.isDescending ? ('desc' as const) : ('asc' as const) }];
    }),
    defaultSort: entity.defaultSort.map((term) => `${term.isDescending ? '-' : ''}${term.field}`).join(','),
    messages: JSON.stringify(messagesOf(entity, fields, details, menuCode)),
    hasDateFilter: fields.some((field) => field.filter === 'dateRange'),
    // The engine's texts first (locales), then the module's own (admin.tsx messages, from the schema's titles).
    listColumns: JSON.stringify(
      listColumns(entity)
        .filter((column) => column.isVisible)
        .map((column) => ({
          ...column,
          titleKeys: [...column.titleKeys, `${menuCode}.fields.${column.field}`],
        })),
      null,
      2,
    ),
    listFilters: JSON.stringify(
      listFilters(entity).map((filter) => ({
        ...filter,
        titleKeys: [...filter.titleKeys, `${menuCode}.fields.${filter.field}`],
      })),
      null,
      2,
    ),
    labelField: fields.find((field) => field.name === entity.label) ?? key,
    references: '[]',
    hasReferences: false,
    checksReferences: false,
    uncheckedReferences: [],
    detailLayout: details.length > 0 ? (options.detailLayout ?? 'form') : 'form',
    hasInnerDetails: details.length > 0 && options.detailLayout === 'inner' && entity.tree === undefined,
    hasTabDetails: details.length > 0 && options.detailLayout === 'tab',
  };
  if (isAdopted) model.standInDdl = literal(adoptedStandIn(entity, scope));
  // References (x-ref): the record's own fields (a tree's parent is checkTree's) and its detail rows'.
  const own = referencesOf(columnFields(entity), options.schemaOf, entity.tree?.parent);
  for (const field of fields)
    if (field.ref === entity.name && field.name !== entity.tree?.parent) field.isLeftOutOfSample = true;
  model.references = literal(own.references);
  model.hasReferences = own.references.length > 0;
  model.checksReferences =
    own.references.length > 0 || detailReferences.some((detail) => detail.references.length > 0);
  model.uncheckedReferences = [
    ...own.unresolved,
    ...detailReferences.flatMap((detail) => detail.unresolved.map((name) => `${detail.name}.${name}`)),
  ];
  const fieldNamed = (list: readonly FieldDef[], name: string): FieldDef | undefined =>
    list.find((field) => field.name === name);
  const referenceUses = [
    ...own.references.flatMap((reference) => {
      const field = fieldNamed(columnFields(entity), reference.field);
      return field && reference.entity !== entity.name ? [{ reference, field }] : [];
    }),
    ...detailReferences.flatMap((detail) =>
      detail.references.flatMap((reference) => {
        const field = fieldNamed(detail.fields, reference.field);
        return field ? [{ reference, field }] : [];
      }),
    ),
  ];
  const ownTables = new Set([entity.table, ...details.map((detail) => detail.table)]);
  const standIns = referenceStandIns(referenceUses, ownTables);
  if (standIns.length > 0) model.referenceStandIns = literal(standIns);
  // The generated test's refusal: the first checked reference names a record that does not exist.
  const firstOwn = referenceUses.find((use) => own.references.includes(use.reference));
  const firstRow = detailReferences.find((detail) => detail.references.length > 0);
  if (firstOwn)
    model.refusedReference = {
      input: `{ ...sample, ${firstOwn.field.name}: ${literal(missingValueOf(firstOwn.field))} }`,
      field: `/${firstOwn.field.name}`,
    };
  else if (firstRow) {
    const reference = firstRow.references[0];
    const field = reference ? fieldNamed(firstRow.fields, reference.field) : undefined;
    const detail = details.find((item) => item.name === firstRow.name);
    if (reference && field && detail)
      model.refusedReference = {
        input: `{ ...sample, ${detail.name}: [{ ...${detail.firstRow}, ${field.name}: ${literal(missingValueOf(field))} }] }`,
        field: `/${detail.name}/0/${field.name}`,
      };
  }
  // Not a tree's parent: a change of it must name an existing node.
  const updateField = model.editableFields.find(
    (field) =>
      !field.isKey &&
      field.control !== 'json' &&
      field.name !== entity.tree?.parent &&
      field.isLeftOutOfSample !== true,
  );
  if (updateField) model.updateField = updateField;
  // A required input with a default is filled in by the route's validation, not refused.
  const withoutDefault = requiredInputs.filter(
    (name) => entity.fieldsByName.get(name)?.schema.default === undefined,
  );
  const requiredField = withoutDefault.find((name) => name !== entity.key.name) ?? withoutDefault[0];
  if (requiredField) model.requiredField = requiredField;
  if (entity.tree) {
    const parent = entity.fieldsByName.get(entity.tree.parent);
    if (parent)
      model.tree = {
        labelColumn: model.labelField.column,
        labelName: model.labelField.name,
        ...treeValues(entity, parent, model.labelField.name),
        parent: parent.name,
        parentColumn: parent.column,
        root: String(entity.tree.root),
        rootValue: literal(parent.type === 'string' ? String(entity.tree.root) : Number(entity.tree.root)),
        tsType: tsTypeOf(parent.type),
      };
  }
  return model;
}

/** The tree test's child and would-be sibling: see EntityModel.tree.childValues. */
function treeValues(
  entity: ReturnType<typeof buildEntity>,
  parent: FieldDef,
  labelName: string,
): { childValues: string; siblingValues: string } {
  const unique = columnFields(entity).filter(
    (field) =>
      field.name !== labelName &&
      field.name !== parent.name &&
      field.name !== entity.key.name &&
      field.isUnique,
  );
  const label = entity.fieldsByName.get(labelName);
  const values = (variant: Variant): string =>
    [
      ...unique.map((field) => `${field.name}: ${literal(sampleOf(field, variant))}`),
      ...(label ? [`${label.name}: ${literal(sampleOf(label, 2))}`] : []),
    ].join(', ');
  return { childValues: values(2), siblingValues: values(3) };
}

/** One field as the templates see it (an entity's own, or a column of a detail row). */
function fieldModelOf(field: FieldDef): FieldModel {
  const dbKind = dbKindOf(field);
  const isEditable = !field.isSystem && !field.isReadOnly;
  const model: FieldModel = {
    name: field.name,
    column: field.column,
    title: field.schema.title ?? field.name,
    tsType: field.schema.enum ? field.schema.enum.map(literal).join(' | ') : tsTypeOf(field.type),
    dbKind,
    columnType: columnTypeOf(field, dbKind),
    isRequired: field.isRequired,
    isKey: field.isKey,
    isReadOnly: field.isReadOnly,
    isSystem: field.isSystem,
    isEditable,
    isListed: !field.isSecret && field.schema['x-list']?.visible !== false && field.type !== 'object',
    control: controlOf(field),
    options: (field.schema.enum ?? []).map(String),
    sample: literal(sampleOf(field, 0)),
    otherSample: literal(sampleOf(field, 1)),
    jsonSchema: JSON.stringify(plainSchema(field.schema)),
    converter: converterOf(field, dbKind),
    isUnique: field.isUnique,
    isSortable: field.isSortable,
    titles: titlesOf(field.name, field.schema.title, field.schema['x-ui']?.titles),
  };
  if (field.schema.format !== undefined) model.format = field.schema.format;
  if (field.schema.maxLength !== undefined) model.maxLength = field.schema.maxLength;
  if (field.dict !== undefined) model.dict = field.dict;
  if (field.ref !== undefined) model.ref = field.ref;
  if (field.filter !== undefined && field.isInFilterBar) model.filter = field.filter;
  return model;
}

/** A title per language: x-ui.titles, else the schema's title (Chinese for zh and tw, English when it is). */
export function titlesOf(
  name: string,
  title: string | undefined,
  titles: { zh?: string; tw?: string; en?: string } | undefined,
): { zh: string; tw: string; en: string } {
  const own = title ?? name;
  const isAscii = /^[\x20-\x7e]*$/.test(own);
  const words = wordsOf(name).join(' ');
  const english = titles?.en ?? (isAscii ? own : words.charAt(0).toUpperCase() + words.slice(1));
  const chinese = titles?.zh ?? (isAscii ? english : own);
  return { zh: chinese, tw: titles?.tw ?? chinese, en: english };
}
