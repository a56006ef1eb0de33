import { compile } from 'json-schema-to-typescript';
import {
  buildEntity,
  checkEntitySchema,
  columnFields,
  decimalOf,
  decimalPattern,
  detailFields,
  detailTableSpec,
  entityTableSpecs,
  INT64_PATTERN,
  isInt64,
  planTableMigration,
  SchemaFileError,
  type DetailDef,
  type EntityDef,
  type EntitySchema,
  type FieldDef,
} from '../src/engine/index.js';
import { camelCase, kebabCase, pascalCase, plural, tsTypeOf } from './engine.js';

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
  tree?: { parent: string; parentColumn: string; root: string; rootValue: string; tsType: string };
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

function sampleOf(field: FieldDef, variant: 0 | 1): unknown {
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
      return [];
    case 'object':
      return {};
    case 'string': {
      if (schema.format === 'date') return variant === 0 ? '2024-01-02' : '2024-03-04';
      if (schema.format === 'date-time')
        return variant === 0 ? '2024-01-02T03:04:05.000Z' : '2024-03-04T05:06:07.000Z';
      if (schema.format === 'email') return `sample${variant}@example.com`;
      if (isInt64(schema)) return variant === 0 ? '1859123456789012345' : '2';
      const decimal = decimalOf(schema);
      if (decimal)
        return decimal.scale > 0 ? `${12 + variant}.${'5'.repeat(decimal.scale)}` : `${12 + variant}`;
      return stringSample(field, variant);
    }
  }
}

/** A text that fits the field's length and pattern, tried from a few shapes. */
function stringSample(field: FieldDef, variant: 0 | 1): string {
  const { minLength = 0, maxLength = 40, pattern } = field.schema;
  const digits = variant === 0 ? '1234567890123456789012' : '2345678901234567890123';
  const bases = [
    `${variant === 0 ? 'a' : 'b'}${field.column.replace(/_/g, '')}`,
    digits,
    `${variant === 0 ? 'A' : 'B'}${digits}`,
    variant === 0 ? 'sample' : 'other',
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
  return candidates.find(fits) ?? candidates[0] ?? 'x';
}

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

async function typesOf(
  entity: EntityDef,
  pascal: string,
  editable: FieldDef[],
  inputRequired: string[],
  details: DetailModel[],
): Promise<string> {
  const options = {
    bannerComment: '',
    format: true,
    style: { singleQuote: true, printWidth: 110, semi: true },
    additionalProperties: false,
    declareExternallyReferenced: true,
  };
  const rowTypes = new Map(details.map((detail) => [detail.name, detail.rowType]));
  // Detail rows come with a read by key, not with a list: optional in the record.
  const recordRequired = entity.fields
    .filter((field) => (field.isRequired || field.isKey) && !field.detail)
    .map((f) => f.name);
  const record = await compile(
    typeSchemaOf(entity.fields, recordRequired, pascal, rowTypes),
    pascal,
    options,
  );
  const input = await compile(
    typeSchemaOf(editable, inputRequired, `${pascal}Input`, rowTypes),
    `${pascal}Input`,
    options,
  );
  const rows: string[] = [];
  for (const field of detailFields(entity)) {
    const rowType = rowTypes.get(field.name) ?? `${pascal}Row`;
    const items = field.detail.fields;
    rows.push(
      (
        await compile(
          typeSchemaOf(
            items,
            items.filter((item) => item.isRequired).map((item) => item.name),
            rowType,
          ),
          rowType,
          options,
        )
      ).trim(),
    );
  }
  return `${[record.trim(), input.trim(), ...rows].join('\n\n')}\n`;
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

/** Checks one entity schema with the engine (the same rules as schemas/) and builds its model. */
export async function entityModel(input: GeneratorInput, options: GeneratorOptions): Promise<EntityModel> {
  const problems = checkEntitySchema(`${input.name}.schema.json`, input.name, input.schema);
  if (problems.length > 0) throw new SchemaFileError(problems);
  const entity = buildEntity(input.name, input.schema as EntitySchema);
  const pascal = pascalCase(entity.name);
  const fields: FieldModel[] = columnFields(entity).map(fieldModelOf);
  const details: DetailModel[] = detailFields(entity).map((field) => {
    const rows = field.detail.fields.map(fieldModelOf);
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
    };
    if (field.schema.maxItems !== undefined) detail.maxItems = field.schema.maxItems;
    if (isAdopted) detail.standInDdl = literal(standInDdl(entity, field.detail));
    return detail;
  });
  const editable = entity.fields.filter((field) => !field.isSystem && !field.isReadOnly);
  const requiredInputs = editable.filter((field) => field.isRequired).map((field) => field.name);
  // An adopted child table exists already: the module's DDL never creates or alters it.
  const ddl = entityTableSpecs(entity)
    .flatMap((spec) =>
      spec.isKeptAsIs === true
        ? [
            `-- ${spec.name} is adopted (x-detail.parentColumn): an existing table, never created or altered here.`,
          ]
        : planTableMigration(spec, undefined).statements.map((statement) => `${statement};`),
    )
    .join('\n\n');
  const key = fields.find((field) => field.isKey);
  if (!key) throw new Error(`${entity.name}: no key`);
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
  };
  const updateField = model.editableFields.find((field) => !field.isKey && field.control !== 'json');
  if (updateField) model.updateField = updateField;
  const requiredField = requiredInputs.find((name) => name !== entity.key.name) ?? requiredInputs[0];
  if (requiredField) model.requiredField = requiredField;
  if (entity.tree) {
    const parent = entity.fieldsByName.get(entity.tree.parent);
    if (parent)
      model.tree = {
        parent: parent.name,
        parentColumn: parent.column,
        root: String(entity.tree.root),
        rootValue: literal(parent.type === 'string' ? String(entity.tree.root) : Number(entity.tree.root)),
        tsType: tsTypeOf(parent.type),
      };
  }
  return model;
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
  };
  if (field.schema.format !== undefined) model.format = field.schema.format;
  if (field.schema.maxLength !== undefined) model.maxLength = field.schema.maxLength;
  return model;
}
