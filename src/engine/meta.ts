import { APPROVAL_INSTANCE, APPROVAL_STATUS } from './approval.js';
import { compareDecimal } from './decimal.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import metaSchema from '../../schemas/_meta/entity.schema.json' with { type: 'json' };
import { createAjv } from './ajv.js';
import { holdsFileIds } from './file-fields.js';
import { ruleSchemaProblems } from './rules.js';
import { SQL_IDENTIFIER, toColumnName } from './naming.js';
import { detailColumns, reservedDetailColumns } from './detail-columns.js';
import type { EntitySchema, FieldSchema, LayoutItem } from './types.js';

export {
  DETAIL_COLUMNS,
  detailColumns,
  reservedDetailColumns,
  type DetailColumns,
} from './detail-columns.js';

/** A problem found in a schema file: the file, the JSON pointer inside it and what is wrong. */
export interface SchemaProblem {
  file: string;
  pointer: string;
  message: string;
}

export class SchemaFileError extends Error {
  readonly problems: SchemaProblem[];
  constructor(problems: SchemaProblem[]) {
    super(
      `Invalid entity schema:\n${problems.map((p) => `  ${p.file} at ${p.pointer || '/'}: ${p.message}`).join('\n')}`,
    );
    this.name = 'SchemaFileError';
    this.problems = problems;
  }
}

/** Fields the framework adds to every entity; a schema may not declare them. */
export const SYSTEM_FIELD_NAMES = [
  'tenantCode',
  'createdAt',
  'createdBy',
  'updatedAt',
  'updatedBy',
  'version',
] as const;

let compiledMeta: ValidateFunction | undefined;
/** Custom form widgets registered by modules (server lib/modules): x-ui.widget accepts them too. */
let customWidgets: readonly string[] = [];

/** Lets x-ui.widget name these custom widgets beside the built-in ones (a module's `widgets`). */
export function acceptWidgets(widgets: readonly string[]): void {
  const added = widgets.filter((widget) => !customWidgets.includes(widget));
  if (added.length === 0) return;
  customWidgets = [...customWidgets, ...added];
  compiledMeta = undefined;
}

/** The meta-schema with the custom widgets listed in x-ui.widget's enum. */
export function currentMetaSchema(): typeof metaSchema {
  if (customWidgets.length === 0) return metaSchema;
  const copy = structuredClone(metaSchema);
  const widget = copy.definitions.field.properties['x-ui'].properties.widget;
  widget.enum = [...widget.enum, ...customWidgets];
  return copy;
}

function metaValidator(): ValidateFunction {
  compiledMeta ??= createAjv({ useDefaults: false }).compile(currentMetaSchema());
  return compiledMeta;
}

/** A name as one segment of a JSON pointer (RFC 6901). */
function pointerSegment(name: unknown): string {
  return String(name).replace(/~/g, '~0').replace(/\//g, '~1');
}

function describeMetaError(error: ErrorObject): { pointer: string; message: string } {
  const params = error.params as Record<string, unknown>;
  // A bad field name: point at the field itself, not at "properties" (ajv reports it twice).
  const propertyName = error.keyword === 'propertyNames' ? params.propertyName : error.propertyName;
  if (propertyName !== undefined) {
    return {
      pointer: `${error.instancePath}/${pointerSegment(propertyName)}`,
      message: 'is not a valid field name (letters and digits, starting with a lower-case letter)',
    };
  }
  if (error.keyword === 'additionalProperties') {
    return {
      pointer: `${error.instancePath}/${pointerSegment(params.additionalProperty)}`,
      message: `unknown keyword "${String(params.additionalProperty)}"`,
    };
  }
  if (error.keyword === 'required') {
    return { pointer: error.instancePath, message: `missing "${String(params.missingProperty)}"` };
  }
  if (error.keyword === 'enum') {
    return {
      pointer: error.instancePath,
      message: `must be one of ${JSON.stringify(params.allowedValues)}`,
    };
  }
  return { pointer: error.instancePath, message: error.message ?? error.keyword };
}

/** Which filter kinds make sense for which fields (a text filter on a number would be an ilike on bigint). */
function filterFits(kind: string, property: FieldSchema): boolean {
  const isDate = property.format === 'date' || property.format === 'date-time';
  const isExact = property.format === 'decimal' || property.format === 'int64';
  switch (kind) {
    case 'text':
      return property.type === 'string' && !isDate && !isExact;
    case 'number':
      return property.type === 'integer' || property.type === 'number' || isExact;
    case 'boolean':
      return property.type === 'boolean';
    case 'dateRange':
      return property.type === 'string' && isDate;
    case 'select':
      return property.type !== 'object';
    default:
      return false;
  }
}

function isTypeCompatibleKey(parent: FieldSchema, key: FieldSchema): boolean {
  return parent.type === key.type;
}

/** Checks one schema file on its own: the meta-schema, then the rules a meta-schema cannot say. */
/** Whether the runtime knows an IANA time zone (Asia/Shanghai, UTC). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function checkEntitySchema(file: string, name: string, json: unknown): SchemaProblem[] {
  return checkEntitySchemaWith(metaValidator(), file, name, json);
}

/**
 * checkEntitySchema with a given meta-schema validator: the browser (form designer) has no
 * eval, so it passes the one the server compiled for it (validators.js, entity_meta).
 */
export function checkEntitySchemaWith(
  validate: ValidateFunction | (((json: unknown) => boolean) & { errors?: ErrorObject[] | null }),
  file: string,
  name: string,
  json: unknown,
): SchemaProblem[] {
  if (!validate(json)) {
    const seen = new Set<string>();
    const problems: SchemaProblem[] = [];
    for (const error of validate.errors ?? []) {
      const { pointer, message } = describeMetaError(error);
      const id = `${pointer}|${message}`;
      if (!seen.has(id)) problems.push({ file, pointer, message });
      seen.add(id);
    }
    return problems;
  }
  const schema = json as EntitySchema;
  const problems: SchemaProblem[] = [];
  const problem = (pointer: string, message: string): void => {
    problems.push({ file, pointer, message });
  };
  const options = schema['x-entity'];
  const properties = schema.properties;
  const has = (field: string): boolean => Object.hasOwn(properties, field);

  if (!/^[a-z][a-z0-9]*$/.test(name))
    problem('', `file name "${name}" must be lower-case letters and digits`);
  if (schema.$id !== undefined && schema.$id !== name) problem('/$id', `must equal the file name "${name}"`);
  if (!SQL_IDENTIFIER.test(options.table)) problem('/x-entity/table', 'is not a valid table name');
  if (options.timeZone !== undefined && !isTimeZone(options.timeZone))
    problem('/x-entity/timeZone', `"${options.timeZone}" is not a known time zone`);
  for (const system of SYSTEM_FIELD_NAMES) {
    // A platform-wide entity may own the tenant code as its own field (the tenant entity does).
    const isOwnTenantCode = system === 'tenantCode' && options.tenant === false;
    if (has(system) && !isOwnTenantCode)
      problem(`/properties/${system}`, `"${system}" is added by the framework and cannot be declared`);
  }
  for (const [index, field] of (schema.required ?? []).entries()) {
    if (!has(field)) problem(`/required/${index}`, `"${field}" is not a property`);
  }
  const key = properties[options.key];
  if (!key) problem('/x-entity/key', `"${options.key}" is not a property`);
  else if (key.readOnly === true && key.type !== 'integer') {
    problem(`/properties/${options.key}`, 'a generated (readOnly) key must be an integer');
  } else if (!['integer', 'string'].includes(key.type)) {
    problem(`/properties/${options.key}`, 'a key must be an integer or a string');
  }
  if (!has(options.label)) problem('/x-entity/label', `"${options.label}" is not a property`);
  if (options.adoption !== undefined) {
    // The convention columns of an adopted table are the engine's to fill: no field writes them too.
    if (options.adopt !== true) problem('/x-entity/adoption', 'needs "adopt": true');
    const columns = new Set(Object.keys(properties).map(toColumnName));
    const conventions: [string, string | undefined][] = [
      ...Object.entries(options.adoption.bookkeeping ?? {}).map(
        ([field, column]): [string, string | undefined] => [`bookkeeping/${field}`, column],
      ),
      ['softDelete/column', options.adoption.softDelete?.column],
      ['tenantColumn/column', options.adoption.tenantColumn?.column],
    ];
    for (const [at, column] of conventions)
      if (column !== undefined && columns.has(column))
        problem(`/x-entity/adoption/${at}`, `column ${column} is also a property's: leave the property out`);
  }
  if (options.softDelete === true && options.adopt === true)
    problem(
      '/x-entity/softDelete',
      'an adopted table keeps its own soft-delete column (adoption.softDelete)',
    );
  for (const reserved of ['deletedAt', 'deletedBy'])
    if (options.softDelete === true && has(reserved))
      problem(`/properties/${reserved}`, `"${reserved}" is kept by the recycle bin (x-entity.softDelete)`);
  const workflow = options.workflow;
  if (workflow !== undefined) {
    if (options.adopt === true)
      problem('/x-entity/workflow', 'an adopted table gets no approval columns: not with adopt');
    for (const reserved of [APPROVAL_STATUS, APPROVAL_INSTANCE])
      if (has(reserved))
        problem(`/properties/${reserved}`, `"${reserved}" is kept by the approval (x-entity.workflow)`);
    for (const [task, fields] of Object.entries(workflow.edit ?? {}))
      for (const [index, field] of fields.entries()) {
        const property = properties[field];
        if (!property) problem(`/x-entity/workflow/edit/${task}/${index}`, `"${field}" is not a property`);
        else if (field === options.key || property.readOnly === true)
          problem(`/x-entity/workflow/edit/${task}/${index}`, `"${field}" is read-only: no task edits it`);
      }
  }
  const scopeOrg = options.scope?.org;
  if (scopeOrg !== undefined) {
    const org = properties[scopeOrg];
    if (!org) problem('/x-entity/scope/org', `"${scopeOrg}" is not a property`);
    else if (org.type !== 'integer')
      problem(`/properties/${scopeOrg}`, 'an organisation field must be an integer');
  }
  if (options.tree) {
    const parent = properties[options.tree.parent];
    if (!parent) problem('/x-entity/tree/parent', `"${options.tree.parent}" is not a property`);
    else if (key && !isTypeCompatibleKey(parent, key)) {
      problem(`/properties/${options.tree.parent}`, `must have the key's type (${key.type})`);
    } else if (parent['x-ref'] !== name) {
      problem(`/properties/${options.tree.parent}`, `a tree parent must have "x-ref": "${name}"`);
    }
    if (options.tree.sequence !== undefined && !has(options.tree.sequence)) {
      problem('/x-entity/tree/sequence', `"${options.tree.sequence}" is not a property`);
    }
    if (key && typeof options.tree.root !== (key.type === 'integer' ? 'number' : 'string')) {
      problem('/x-entity/tree/root', `must be a ${key.type} like the key`);
    }
  }
  if (options.defaultSort !== undefined) {
    for (const term of options.defaultSort.split(',')) {
      const field = term.replace(/^-/, '');
      const property = properties[field];
      const isSystem = (SYSTEM_FIELD_NAMES as readonly string[]).includes(field);
      if (!property && !isSystem) problem('/x-entity/defaultSort', `"${field}" is not a property`);
      else if (
        property &&
        (property['x-secret'] || property.type === 'array' || property.type === 'object')
      ) {
        problem('/x-entity/defaultSort', `cannot sort by "${field}"`);
      }
    }
  }
  const checkProperty = (field: string, property: FieldSchema, pointer: string): void => {
    if (!SQL_IDENTIFIER.test(toColumnName(field))) {
      problem(pointer, `its column name "${toColumnName(field)}" is longer than 63 characters`);
    }
    if (property['x-secret'] && property.type !== 'string') problem(pointer, 'x-secret needs a string field');
    const kept = property['x-column'];
    if (kept) {
      if (options.adopt !== true)
        problem(`${pointer}/x-column`, 'x-column needs an adopted table (x-entity.adopt)');
      const fits: Record<string, boolean> = {
        timestamp: property.type === 'string' && property.format === 'date-time',
        time: property.type === 'string' && property.format === undefined,
        bit: property.type === 'boolean',
        array: property.type === 'array' && property.items?.type !== 'object',
      };
      if (kept.type !== undefined && fits[kept.type] !== true)
        problem(
          `${pointer}/x-column/type`,
          `a ${kept.type} column does not fit a ${property.format ?? property.type} field`,
        );
      if (kept.default === 'now' && kept.type !== 'timestamp')
        problem(`${pointer}/x-column/default`, 'now needs a timestamp column');
      if (typeof kept.default === 'object' && (field !== options.key || property.type !== 'integer'))
        problem(`${pointer}/x-column/default`, 'a sequence feeds the integer key only');
    }
    const decimal = property['x-decimal'];
    if ((property.format === 'decimal' || property.format === 'int64') && property.type !== 'string')
      problem(
        `${pointer}/format`,
        `format ${property.format} needs type string (exact numbers travel as text)`,
      );
    if (decimal && property.format !== 'decimal')
      problem(`${pointer}/x-decimal`, 'x-decimal needs format decimal');
    if (decimal && decimal.scale > decimal.precision)
      problem(`${pointer}/x-decimal/scale`, 'the scale cannot exceed the precision');
    if (
      decimal &&
      decimal.minimum !== undefined &&
      decimal.maximum !== undefined &&
      compareDecimal(decimal.minimum, decimal.maximum) > 0
    )
      problem(`${pointer}/x-decimal/minimum`, 'the minimum is above the maximum');
    if ((property.format === 'decimal' || property.format === 'int64') && property['x-secret'])
      problem(`${pointer}/x-secret`, `a ${property.format} field cannot be a secret`);
    const filterHint = property['x-list']?.filter;
    if (filterHint && filterHint !== 'none' && !filterFits(filterHint, property)) {
      problem(
        `${pointer}/x-list/filter`,
        `a "${filterHint}" filter does not fit a ${property.format ?? property.type} field`,
      );
    }
    const auto = property['x-auto'];
    if (auto === 'actor' && (property.type !== 'string' || property.format !== undefined)) {
      problem(`${pointer}/x-auto`, 'x-auto "actor" needs a plain string field');
    }
    if (
      auto === 'now' &&
      (property.type !== 'string' || !['date', 'date-time'].includes(property.format ?? ''))
    ) {
      problem(`${pointer}/x-auto`, 'x-auto "now" needs a date or date-time string field');
    }
    if (auto && (field === options.key || property['x-secret'] || property['x-ref'] || property['x-dict'])) {
      problem(`${pointer}/x-auto`, 'x-auto cannot fill a key, a secret, a reference or a dictionary value');
    }
    if (
      property['x-ui']?.widget === 'recipients' &&
      (property.type !== 'array' || property.items?.type !== 'integer')
    ) {
      problem(`${pointer}/x-ui/widget`, 'the recipients widget needs an array of integer user ids');
    }
    const widget = property['x-ui']?.widget;
    if (widget === 'upload' && !holdsFileIds(property)) {
      problem(`${pointer}/x-ui/widget`, 'the upload widget needs an integer or an array of integer file ids');
    }
    if (widget === 'image' && property.type !== 'string' && !holdsFileIds(property)) {
      problem(
        `${pointer}/x-ui/widget`,
        'the image widget needs file ids (integer or array of integers) or a URL string',
      );
    }
    if (widget === 'richtext' && property.type !== 'string') {
      problem(`${pointer}/x-ui/widget`, 'the richtext widget needs a string field');
    }
    if (property['x-unique'] && (property.type === 'array' || property.type === 'object')) {
      problem(pointer, 'x-unique needs a scalar field');
    }
    if (property['x-ref'] && !['integer', 'string'].includes(property.type)) {
      problem(pointer, 'x-ref needs an integer or string field');
    }
    if (property['x-dict'] && property.type === 'object')
      problem(pointer, 'x-dict cannot describe an object');
    if (property.type === 'array' && !property.items) problem(pointer, 'an array field needs "items"');
    if (property.type !== 'array' && property.items)
      problem(`${pointer}/items`, 'only array fields have items');
    if (property.items?.type === 'object' && !property['x-detail'])
      problem(`${pointer}/items`, 'an array of objects is a detail: it needs "x-detail"');
    if (property.items?.type !== 'object' && property.items?.properties)
      problem(`${pointer}/items/properties`, 'only object items have properties');
  };
  for (const [field, property] of Object.entries(properties)) {
    const pointer = `/properties/${field}`;
    checkProperty(field, property, pointer);
    if (property['x-detail']) checkDetail(field, property, pointer);
  }
  function checkDetail(field: string, property: FieldSchema, pointer: string): void {
    const items = property.items;
    if (property.type !== 'array' || items?.type !== 'object' || !items.properties) {
      problem(`${pointer}/x-detail`, 'x-detail needs an array whose items are objects with properties');
      return;
    }
    const table = detailTableName(options.table, field, property);
    if (!SQL_IDENTIFIER.test(table)) problem(`${pointer}/x-detail`, `"${table}" is not a valid table name`);
    for (const keyword of ['x-ref', 'x-dict', 'x-unique', 'x-secret', 'x-auto', 'enum', 'default'] as const) {
      if (property[keyword] !== undefined)
        problem(`${pointer}/${keyword}`, `a detail field cannot have ${keyword}`);
    }
    for (const [index, name] of (items.required ?? []).entries()) {
      if (!Object.hasOwn(items.properties, name))
        problem(`${pointer}/items/required/${index}`, `"${name}" is not a property`);
    }
    const detailOptions = property['x-detail'] ?? {};
    if (detailOptions.parentColumn === undefined) {
      for (const keyword of ['seq', 'key'] as const)
        if (detailOptions[keyword] !== undefined)
          problem(`${pointer}/x-detail/${keyword}`, `${keyword} needs parentColumn (an adopted child table)`);
    } else {
      const columns = detailColumns(property);
      const named = [columns.keyColumn, columns.parentColumn, columns.seqColumn].filter(
        (column): column is string => column !== null,
      );
      if (new Set(named).size !== named.length)
        problem(`${pointer}/x-detail`, 'parentColumn, seq and key must be different columns');
    }
    const reserved = reservedDetailColumns(property);
    for (const [name, column] of Object.entries(items.properties)) {
      const at = `${pointer}/items/properties/${name}`;
      if (reserved.includes(toColumnName(name)))
        problem(
          at,
          detailOptions.parentColumn === undefined
            ? `"${name}" is a column of every detail table and cannot be declared`
            : `"${name}" is the child table's ${toColumnName(name) === detailColumns(property).parentColumn ? 'parent' : 'key or position'} column and cannot be declared`,
        );
      if (column['x-detail'] || column.items?.type === 'object') {
        problem(at, 'a detail row cannot hold another detail');
        continue;
      }
      for (const keyword of ['x-unique', 'x-secret', 'x-auto', 'x-computed', 'readOnly'] as const) {
        if (column[keyword] !== undefined)
          problem(`${at}/${keyword}`, `a detail column cannot have ${keyword}`);
      }
      const widget = column['x-ui']?.widget;
      if (widget === 'upload' || widget === 'image' || widget === 'richtext' || widget === 'recipients')
        problem(`${at}/x-ui/widget`, `the ${widget} widget is not available in a detail row`);
      checkProperty(name, column, at);
    }
  }
  checkLayout(schema, problem);
  return problems;
}

/** A designed form's layout (root x-ui.items) and visibility conditions name existing fields once. */
function checkLayout(schema: EntitySchema, problem: (pointer: string, message: string) => void): void {
  const has = (field: string): boolean => Object.hasOwn(schema.properties, field);
  const placed = new Set<string>();
  const visit = (items: readonly LayoutItem[], pointer: string): void => {
    items.forEach((item, index) => {
      const at = `${pointer}/${index}`;
      if (typeof item === 'string') {
        if (!has(item)) problem(at, `"${item}" is not a property`);
        else if (placed.has(item)) problem(at, `"${item}" is placed twice`);
        placed.add(item);
      } else if (item.kind === 'grid') {
        item.columns.forEach((column, n) => visit(column.items, `${at}/columns/${n}/items`));
      } else if (item.kind === 'group') {
        visit(item.items, `${at}/items`);
      }
    });
  };
  visit(schema['x-ui']?.items ?? [], '/x-ui/items');
  // Computed fields and cross-field rules: each expression read, within its budget, over known fields.
  for (const found of ruleSchemaProblems(schema)) problem(found.pointer, found.message);
  const key = schema['x-entity'].key;
  if (schema.properties[key]?.['x-computed'] !== undefined)
    problem(`/properties/${key}/x-computed`, 'the key cannot be computed');
  (schema.allOf ?? []).forEach((condition, index) => {
    const pointer = `/allOf/${index}`;
    const [other] = Object.keys(condition.if.properties);
    if (other === undefined || !has(other)) problem(`${pointer}/if`, `"${other ?? ''}" is not a property`);
    if (condition.if.required[0] !== other) problem(`${pointer}/if/required`, `must name "${other ?? ''}"`);
    const hidden = Object.keys(condition.else.properties);
    for (const field of [...hidden, ...(condition.then?.required ?? [])]) {
      if (!has(field)) problem(pointer, `"${field}" is not a property`);
      else if (field === other) problem(pointer, `"${field}" cannot depend on itself`);
    }
    for (const field of condition.then?.required ?? []) {
      if (!hidden.includes(field)) problem(`${pointer}/then`, `"${field}" is not hidden by this condition`);
      if (schema.required?.includes(field)) problem(`${pointer}/then`, `"${field}" is required always`);
    }
  });
}

/** The child table of a detail field: x-detail.table, or <parent table>_<field in snake_case>. */
export function detailTableName(parentTable: string, field: string, property: FieldSchema): string {
  return property['x-detail']?.table ?? `${parentTable}_${toColumnName(field)}`;
}
