import type { Ajv, ValidateFunction } from 'ajv';
import type { EntityDef, FieldDef, FieldSchema } from './types.js';
import { EntityInputError, type FieldError } from './types.js';
import { englishTranslate, toFieldErrors, type Translate } from './messages.js';
import { checkRecord } from './rules.js';
import { checkDecimal, checkInt64, decimalOf, decimalPattern, INT64_PATTERN, isInt64 } from './decimal.js';

export type WriteMode = 'create' | 'update';

/** The JSON Schema a create request body must match: writable fields only, defaults applied. */
export function createSchemaOf(entity: EntityDef): Record<string, unknown> {
  const properties: Record<string, FieldSchema> = {};
  for (const field of entity.fields) {
    if (!field.isReadOnly) properties[field.name] = boundedSchema(field.schema);
  }
  return {
    type: 'object',
    properties,
    required: (entity.schema.required ?? []).filter((name) => name in properties),
    additionalProperties: false,
    // A designed form's visibility conditions: required while shown, refused while hidden.
    ...(entity.schema.allOf ? { allOf: entity.schema.allOf } : {}),
  };
}

/** The JSON Schema of an update body: any subset of the writable fields, plus the key and version. */
export function updateSchemaOf(entity: EntityDef): Record<string, unknown> {
  const properties: Record<string, FieldSchema | Record<string, unknown>> = {};
  for (const field of entity.fields) {
    if (field.isReadOnly && !field.isKey) continue;
    const { default: _ignored, readOnly: _readOnly, ...rest } = boundedSchema(field.schema);
    properties[field.name] =
      field.isKey && entity.isKeyGenerated
        ? { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }
        : rest;
  }
  properties.version = { type: 'integer', minimum: 0 };
  // An adopted table without a version column: no optimistic locking, the version is not asked.
  const hasVersion = entity.fieldsByName.has('version');
  return {
    type: 'object',
    properties,
    required: hasVersion ? [entity.key.name, 'version'] : [entity.key.name],
    additionalProperties: false,
  };
}

export interface EntityValidators {
  create: ValidateFunction;
  update: ValidateFunction;
}

export function compileValidators(ajv: Ajv, entity: EntityDef): EntityValidators {
  return { create: ajv.compile(createSchemaOf(entity)), update: ajv.compile(updateSchemaOf(entity)) };
}

export interface PreparedInput {
  /** Validated values to write (defaults applied on create). */
  values: Record<string, unknown>;
  /** Optional fields the update sets to NULL. */
  cleared: string[];
}

/**
 * PostgreSQL text cannot hold NUL characters; such input is refused instead of failing in SQL.
 * Iterative: a value nested thousands of levels deep must not overflow the stack.
 */
export function containsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return true;
    } else if (Array.isArray(item)) {
      for (const child of item) pending.push(child);
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        // Keys count too: PostgreSQL refuses \u0000 anywhere in a jsonb value.
        if (key.includes('\u0000')) return true;
        pending.push(child);
      }
    }
  }
  return false;
}

const SAFE_INTEGER = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

/** Limits of a free-form object field (x-maxDepth, maxProperties) when its schema names none. */
export const FREE_OBJECT_LIMITS = { depth: 4, properties: 100, stringLength: 2000 } as const;

/**
 * A JSON value of at most `levels` levels of objects and arrays (itself included), each object holding
 * at most `size` entries and each string at most FREE_OBJECT_LIMITS.stringLength characters, in
 * standard keywords (so the browser's precompiled validators enforce it too).
 */
function boundedJson(levels: number, size: number): Record<string, unknown> {
  const leaf = { maxLength: FREE_OBJECT_LIMITS.stringLength };
  if (levels <= 0) return { ...leaf, not: { type: ['object', 'array'] } };
  const inner = boundedJson(levels - 1, size);
  // Arrays are bounded by depth and the body limit only: maxItems would read as a tuple to type generators.
  return { ...leaf, maxProperties: size, additionalProperties: inner, items: inner };
}

/** Integers travel as JavaScript numbers and bigint columns (or jsonb arrays of ids): keep them exact. */
export function boundedSchema(schema: FieldSchema): FieldSchema {
  if (schema.type === 'array' && schema.items?.type === 'object') {
    // A detail: each row is validated with its columns' own rules, nothing else in a row.
    const properties = Object.fromEntries(
      Object.entries(schema.items.properties ?? {}).map(([name, column]) => [name, boundedSchema(column)]),
    );
    return { ...schema, items: { ...schema.items, properties, additionalProperties: false } };
  }
  if (schema.type === 'array' && schema.items?.type === 'integer')
    return { ...schema, items: { ...SAFE_INTEGER, ...schema.items } };
  if (schema.type === 'object') {
    // A free-form object (route meta and such) gets a depth and size limit.
    const size = schema.maxProperties ?? FREE_OBJECT_LIMITS.properties;
    const depth = schema['x-maxDepth'] ?? FREE_OBJECT_LIMITS.depth;
    // if/then: validators apply it, type generators leave the field's type as the schema says.
    return {
      ...schema,
      maxProperties: size,
      if: { type: 'object' },
      then: { additionalProperties: boundedJson(depth - 1, size) },
    } as FieldSchema;
  }
  // Exact numbers as text: the digits rule as a pattern, for the browser's validators too.
  const decimal = decimalOf(schema);
  if (decimal) return { pattern: decimalPattern(decimal), ...schema };
  if (isInt64(schema)) return { pattern: INT64_PATTERN, ...schema };
  if (schema.type !== 'integer') return schema;
  return { ...SAFE_INTEGER, ...schema };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Detail rows as a form sends them: an empty cell ("" or null) is a column without a value. */
function withoutEmptyCells(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((row: unknown) =>
    isPlainObject(row)
      ? Object.fromEntries(Object.entries(row).filter(([, cell]) => cell !== null && cell !== ''))
      : row,
  );
}

/**
 * Whether an empty string sent for a field is stored as it is: '' and NULL are different
 * values (a NOT NULL DEFAULT '' column of an adopted table holds ''; saving its row unchanged
 * must keep it). A plain text field keeps '' when the field is optional (and not unique: ''
 * would clash where "no value" does not), and on an adopted table always (its NOT NULL columns
 * may hold ''). A field whose '' is no value of its type (a date, a uuid, a reference, a
 * dictionary code, an enum without '', a field whose default is another value) reads '' as
 * "no value" as before.
 */
export function keepsEmptyString(entity: EntityDef, field: FieldDef): boolean {
  const schema = field.schema;
  if (field.type !== 'string' || field.isKey || field.isSecret || field.isSystem) return false;
  if (schema.format !== undefined || field.ref || field.dict || schema['x-column'] !== undefined)
    return false;
  if (schema.enum && !schema.enum.includes('')) return false;
  if (schema.minLength !== undefined && schema.minLength > 0) return false;
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test('')) return false;
  // A field with another default: '' is the form's empty input, the default applies.
  if (schema.default !== undefined && schema.default !== '') return false;
  if (entity.schema['x-entity'].adopt === true) return true;
  return !field.isRequired && !field.isUnique;
}

/**
 * Normalises and validates a write body. Read-only and system fields sent back by a client
 * are dropped; null means "no value" (cleared on update, an error on a required field), and so
 * does an empty string unless the field keeps it (keepsEmptyString: then '' is stored as
 * it is); anything unknown, mistyped or out of the schema's bounds throws an EntityInputError
 * naming the field.
 */
export function prepareInput(
  entity: EntityDef,
  validators: EntityValidators,
  body: unknown,
  mode: WriteMode,
  translate: Translate = englishTranslate,
): PreparedInput {
  if (!isPlainObject(body)) {
    throw new EntityInputError([
      {
        field: '/',
        message: translate('validation.type', { type: translate('validation.typeName.object', {}) }),
      },
    ]);
  }
  const values: Record<string, unknown> = {};
  const cleared: string[] = [];
  const errors: FieldError[] = [];
  // Keys, not entries: no pair is made per field of every row an import or a batch writes.
  for (const name of Object.keys(body)) {
    const value = body[name];
    const field = entity.fieldsByName.get(name);
    const isIdentity = field?.isKey === true || name === 'version';
    if (field && field.isReadOnly && !(mode === 'update' && isIdentity)) continue;
    const isEmpty = value === null || (value === '' && !(field && keepsEmptyString(entity, field)));
    if (containsNul(value)) {
      errors.push({ field: `/${name}`, message: translate('validation.invalid', {}) });
    } else if (!isEmpty) {
      values[name] = field?.detail ? withoutEmptyCells(value) : value;
    } else if (mode === 'update' && field?.isSecret) {
      // An empty secret on an edit form means "keep the current one".
    } else if (mode === 'update' && field && !isIdentity) {
      if (field.isRequired) errors.push({ field: `/${name}`, message: translate('validation.required', {}) });
      else cleared.push(name);
    } else if (!field) {
      values[name] = value; // unknown field: let the schema name it
    }
  }
  // Exact numbers (format decimal or int64): precision, scale and bounds compared exactly, each
  // with its own message; a value with too many fraction digits is refused, never rounded.
  // A whole JSON number is taken as its digits (exact below 2^53); a fraction never is: it has
  // been a float since JSON.parse.
  for (const name of Object.keys(values)) {
    const value = values[name];
    const schema = entity.fieldsByName.get(name)?.schema;
    if (!schema || errors.some((error) => error.field === `/${name}`)) continue;
    const decimal = decimalOf(schema);
    const exact =
      (decimal || isInt64(schema)) && typeof value === 'number' && Number.isSafeInteger(value)
        ? String(value)
        : value;
    if (exact !== value) values[name] = exact;
    const problem = decimal ? checkDecimal(exact, decimal) : isInt64(schema) ? checkInt64(exact) : undefined;
    if (problem) errors.push({ field: `/${name}`, message: translate(problem.key, problem.params) });
  }
  // The same rules in detail rows (x-detail): each cell named by its row and column.
  for (const field of entity.fields) {
    const rows = values[field.name];
    if (!field.detail || !Array.isArray(rows)) continue;
    rows.forEach((row: unknown, index) => {
      if (!isPlainObject(row)) return;
      for (const [column, cell] of Object.entries(row)) {
        const item = field.detail?.fieldsByName.get(column);
        const decimal = item ? decimalOf(item.schema) : undefined;
        const pointer = `/${field.name}/${index}/${column}`;
        if (!item || (!decimal && !isInt64(item.schema)) || errors.some((error) => error.field === pointer))
          continue;
        const exact = typeof cell === 'number' && Number.isSafeInteger(cell) ? String(cell) : cell;
        if (exact !== cell) row[column] = exact;
        const problem = decimal ? checkDecimal(exact, decimal) : checkInt64(exact);
        if (problem) errors.push({ field: pointer, message: translate(problem.key, problem.params) });
      }
    });
  }
  const validate = mode === 'create' ? validators.create : validators.update;
  if (!validate(values)) {
    // One message per field: a value refused above (NUL) must not come back as "is required".
    const flagged = new Set(errors.map((error) => error.field));
    errors.push(
      ...toFieldErrors(validate.errors ?? [], translate).filter((error) => !flagged.has(error.field)),
    );
  }
  if (errors.length > 0) throw new EntityInputError(errors);
  // Date-times are written as UTC: the same instant in a timestamptz column, and the value a
  // timestamp without time zone (an adopted table's column) keeps, where an offset would be dropped.
  for (const [name, value] of Object.entries(values)) {
    if (typeof value !== 'string' || entity.fieldsByName.get(name)?.schema.format !== 'date-time') continue;
    const instant = new Date(value);
    if (!Number.isNaN(instant.getTime())) values[name] = instant.toISOString();
  }
  // A new record's computed fields and cross-field rules (engine/rules.ts); an update's are
  // checked against the record as it will be, by the caller that reads it (crud updateRecord).
  if (mode === 'create') {
    const outcome = checkRecord(entity.schema, values, translate);
    if (outcome.errors.length > 0) throw new EntityInputError(outcome.errors);
    Object.assign(values, outcome.values);
  }
  return { values, cleared };
}

/** Who creates a record and when: what x-auto fields are filled with. */
export interface AutoContext {
  /** The signed-in user's name. */
  actor: string;
  now: Date;
}

function autoValue(field: FieldDef, context: AutoContext): unknown {
  switch (field.auto) {
    case 'actor':
      return context.actor;
    case 'now':
      return field.schema.format === 'date'
        ? context.now.toISOString().slice(0, 10)
        : context.now.toISOString();
    case undefined:
      return undefined;
  }
}

/**
 * The values the server gives the x-auto fields of a new record (publisher = the caller, publish
 * time = now). They overwrite whatever the body held: clients cannot set them.
 */
export function autoValues(entity: EntityDef, context: AutoContext): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of entity.fields) {
    if (field.auto) values[field.name] = autoValue(field, context);
  }
  return values;
}
