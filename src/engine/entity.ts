import {
  checkEntitySchema,
  detailColumns,
  detailTableName,
  SchemaFileError,
  type SchemaProblem,
} from './meta.js';
import { listUseOf } from './list-use.js';
import { APPROVAL_FIELDS, APPROVAL_STATUS } from './approval.js';
import { isVirtual } from './rules.js';
import { decimalOf, isInt64, numericType } from './decimal.js';
import { toColumnName } from './naming.js';
import type {
  BookkeepingField,
  DetailDef,
  EntityDef,
  EntitySchema,
  FieldDef,
  FieldSchema,
  FilterKind,
  SortTerm,
  SqlType,
} from './types.js';

/**
 * The bookkeeping columns every entity gets. Only createdAt is a column of the list shown by
 * default (and in its filter bar); the others are hidden, so not sortable unless a schema
 * declares the field itself with x-list.sorter true: each sortable field costs a list index kept
 * up on every write.
 */
const SYSTEM_FIELDS: Record<string, FieldSchema> = {
  tenantCode: { type: 'string', title: 'Tenant', readOnly: true },
  createdAt: { type: 'string', format: 'date-time', title: 'Created at', readOnly: true },
  createdBy: { type: 'string', title: 'Created by', readOnly: true },
  updatedAt: { type: 'string', format: 'date-time', title: 'Updated at', readOnly: true },
  updatedBy: { type: 'string', title: 'Updated by', readOnly: true },
  version: { type: 'integer', title: 'Version', readOnly: true },
};

function sqlTypeOf(schema: FieldSchema): SqlType {
  switch (schema.type) {
    case 'integer':
      return 'bigint';
    case 'number':
      return 'double precision';
    case 'boolean':
      return 'boolean';
    case 'array':
    case 'object':
      return 'jsonb';
    case 'string': {
      const decimal = decimalOf(schema);
      if (decimal) return numericType(decimal);
      if (isInt64(schema)) return 'bigint';
      if (schema.format === 'date-time') return 'timestamptz';
      if (schema.format === 'date') return 'date';
      return 'text';
    }
  }
}

function filterKindOf(schema: FieldSchema, isSecret: boolean): FilterKind | undefined {
  const hinted = schema['x-list']?.filter;
  if (isSecret || hinted === 'none' || schema.type === 'object') return undefined;
  if (hinted) return hinted;
  if (schema['x-dict'] || schema['x-ref'] || schema.enum) return 'select';
  if (schema.type === 'array') return schema.items?.enum || schema['x-dict'] ? 'select' : undefined;
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'integer' || schema.type === 'number') return 'number';
  if (decimalOf(schema) || isInt64(schema)) return 'number';
  if (schema.format === 'date-time' || schema.format === 'date') return 'dateRange';
  return 'text';
}

function buildField(name: string, schema: FieldSchema, entity: EntitySchema, isSystem: boolean): FieldDef {
  const isSecret = schema['x-secret'] === true;
  const isKey = entity['x-entity'].key === name;
  const hints = schema['x-list'];
  const hinted = hints?.filter;
  const filter =
    isSystem && !['createdAt', 'updatedAt', 'createdBy', 'updatedBy', APPROVAL_STATUS].includes(name)
      ? undefined
      : filterKindOf(schema, isSecret);
  const use = listUseOf(name, schema, isSystem);
  const field: FieldDef = {
    name,
    column: toColumnName(name),
    schema,
    type: schema.type,
    sqlType: sqlTypeOf(schema),
    isKey,
    // A value the server fills (x-auto) is the server's alone, like a generated key.
    isReadOnly:
      schema.readOnly === true || schema['x-auto'] !== undefined || schema['x-computed'] !== undefined,
    isSystem,
    isSecret,
    isUnique: schema['x-unique'] === true,
    isRequired: (entity.required ?? []).includes(name),
    isInFilterBar: false,
    isListedByDefault: use.isListed,
    isOrderable: use.isOrderable,
    // The list sorts by the columns it shows; a column hidden by default sorts only when its
    // schema says so (x-list.sorter true). See buildEntity for the fields always sortable.
    isSortable: use.isSortable,
  };
  if (schema['x-detail']) {
    field.detail = buildDetail(name, schema, entity);
    field.isSortable = false;
    return field;
  }
  if (hinted !== 'none' && filter) {
    field.filter = filter;
    // The generated list's filter bar (forms.ts listFilters): a filter the schema names, or a
    // shown field's that is not bookkeeping, and createdAt. Only these may get a list index
    // (ddl.ts listIndexes); the API still accepts a filter on any field with one, unindexed.
    field.isInFilterBar =
      !isKey && (hinted !== undefined || (hints?.visible !== false && !isSystem) || name === 'createdAt');
  }
  if (schema['x-ref']) field.ref = schema['x-ref'];
  if (schema['x-dict']) field.dict = schema['x-dict'];
  if (schema['x-auto']) field.auto = schema['x-auto'];
  if (schema['x-computed']) {
    field.computed = schema['x-computed'];
    // A virtual computed field has no column: nothing to filter or sort by.
    if (isVirtual(schema)) {
      delete field.filter;
      field.isInFilterBar = false;
      field.isSortable = false;
      field.isOrderable = false;
    }
  }
  const zone = entity['x-entity'].timeZone;
  if (zone !== undefined && schema['x-column']?.type === 'timestamp') field.timeZone = zone;
  return field;
}

/** The child table of a detail field and its row's fields (built like the parent's, no key of their own). */
function buildDetail(name: string, schema: FieldSchema, entity: EntitySchema): DetailDef {
  const items = schema.items;
  const row: EntitySchema = {
    ...entity,
    required: items?.required ?? [],
    properties: items?.properties ?? {},
    // No item property is the row's key: rows are keyed by the child table's own id.
    'x-entity': { ...entity['x-entity'], key: '' },
  };
  const fields = Object.entries(row.properties).map(([field, fieldSchema]) =>
    buildField(field, fieldSchema, row, false),
  );
  return {
    field: name,
    table: detailTableName(entity['x-entity'].table, name, schema),
    ...detailColumns(schema),
    fields,
    fieldsByName: new Map(fields.map((field) => [field.name, field])),
  };
}

/**
 * The column of a bookkeeping field on an adopted table (x-entity.adoption): the table's own
 * (create_time …), null when the table keeps none (the field is left out), undefined when the
 * engine's own column applies (any other entity; tenantCode of a table with tenant_code).
 */
function adoptedSystemColumn(schema: EntitySchema, field: string): string | null | undefined {
  const adoption = schema['x-entity'].adoption;
  if (schema['x-entity'].adopt !== true || adoption === undefined) return undefined;
  // The engine's tenant_code only on a table that has it (x-entity.tenant, from the reverse).
  if (field === 'tenantCode') return schema['x-entity'].tenant === false ? null : undefined;
  return adoption.bookkeeping?.[field as BookkeepingField] ?? null;
}

/** Parses "a,-b" into sort terms; the caller checks that the fields exist. */
export function parseSortExpression(expression: string): SortTerm[] {
  return expression
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) =>
      part.startsWith('-')
        ? { field: part.slice(1), isDescending: true }
        : { field: part, isDescending: false },
    );
}

/** Derives everything the framework needs from one schema that already passed checkEntitySchema. */
export function buildEntity(name: string, schema: EntitySchema): EntityDef {
  const options = schema['x-entity'];
  const declared = Object.entries(schema.properties).map(([field, fieldSchema]) =>
    buildField(field, fieldSchema, schema, false),
  );
  // An entity approved by a process (x-entity.workflow) also gets its approval fields.
  const systemFields = options.workflow ? { ...APPROVAL_FIELDS, ...SYSTEM_FIELDS } : SYSTEM_FIELDS;
  const system = Object.entries(systemFields)
    .filter(([field]) => !Object.hasOwn(schema.properties, field))
    .flatMap(([field, fieldSchema]) => {
      // An adopted table's own time column holding its zone's wall clock: converted like a field's.
      const isWallClock =
        options.adopt === true && (options.adoption?.wallClock ?? []).some((name) => name === field);
      const built = buildField(
        field,
        isWallClock ? { ...fieldSchema, 'x-column': { type: 'timestamp' } } : fieldSchema,
        schema,
        true,
      );
      const adopted = adoptedSystemColumn(schema, field);
      if (adopted === null) return [];
      if (adopted !== undefined) built.column = adopted;
      return [built];
    });
  const fields = [...declared, ...system];
  const fieldsByName = new Map(fields.map((field) => [field.name, field]));
  const key = fieldsByName.get(options.key);
  if (!key) throw new Error(`${name}: key ${options.key} is not a field`);
  const entity: EntityDef = {
    name,
    title: schema.title,
    schema,
    api: options.api,
    table: options.table,
    key,
    isKeyGenerated: key.isReadOnly,
    label: options.label,
    isTenantScoped: options.tenant !== false,
    isPlatformAdminOnly: options.platformAdmin === true,
    fields,
    fieldsByName,
    defaultSort: options.defaultSort
      ? parseSortExpression(options.defaultSort)
      : [{ field: key.name, isDescending: true }],
  };
  if (options.tree) entity.tree = options.tree;
  if (options.menu) entity.menu = options.menu;
  // The key breaks every tie and pages by keyset, the default order is the list's first one and
  // a tree lists children in sequence order: each is sorted by, and indexed, whatever the column.
  const ordered = [key.name, ...entity.defaultSort.map((term) => term.field)];
  if (options.tree?.sequence) ordered.push(options.tree.sequence);
  for (const name of ordered) {
    const field = fieldsByName.get(name);
    if (field && !field.detail && field.isOrderable) field.isSortable = true;
  }
  return entity;
}

export interface SchemaSource {
  /** Shown in error messages, e.g. schemas/sysuser.schema.json. */
  file: string;
  /** Entity name: the file name without .schema.json. */
  name: string;
  json: unknown;
}

/** Checks and builds a whole set of schemas; any problem in any file throws one SchemaFileError listing all. */
export function compileEntities(sources: SchemaSource[]): EntityDef[] {
  const problems: SchemaProblem[] = [];
  const valid: { source: SchemaSource; schema: EntitySchema }[] = [];
  for (const source of sources) {
    const found = checkEntitySchema(source.file, source.name, source.json);
    problems.push(...found);
    if (found.length === 0) valid.push({ source, schema: source.json as EntitySchema });
  }
  const byName = new Map(valid.map((v) => [v.source.name, v]));
  const apis = new Map<string, string>();
  const tables = new Map<string, string>();
  for (const { source, schema } of valid) {
    const options = schema['x-entity'];
    const clash = (seen: Map<string, string>, value: string, pointer: string, what: string): void => {
      const other = seen.get(value);
      if (other)
        problems.push({
          file: source.file,
          pointer,
          message: `${what} "${value}" is already used by ${other}`,
        });
      seen.set(value, source.file);
    };
    clash(apis, options.api, '/x-entity/api', 'api');
    clash(tables, options.table, '/x-entity/table', 'table');
    const checked: [string, FieldSchema][] = [];
    for (const [field, property] of Object.entries(schema.properties)) {
      checked.push([`/properties/${field}`, property]);
      if (!property['x-detail']) continue;
      const childTable = detailTableName(options.table, field, property);
      clash(tables, childTable, `/properties/${field}/x-detail`, 'table');
      for (const [name, column] of Object.entries(property.items?.properties ?? {}))
        checked.push([`/properties/${field}/items/properties/${name}`, column]);
    }
    for (const [pointer, property] of checked) {
      const target = property['x-ref'];
      if (!target) continue;
      const targetSchema = byName.get(target)?.schema;
      if (!targetSchema) {
        problems.push({
          file: source.file,
          pointer: `${pointer}/x-ref`,
          message: `no entity named "${target}"`,
        });
        continue;
      }
      const targetKey = targetSchema.properties[targetSchema['x-entity'].key];
      if (targetKey && targetKey.type !== property.type) {
        problems.push({
          file: source.file,
          pointer,
          message: `refers to ${target} whose key is ${targetKey.type}, but is ${property.type}`,
        });
      }
    }
  }
  if (problems.length > 0) throw new SchemaFileError(problems);
  return valid.map(({ source, schema }) => buildEntity(source.name, schema));
}
