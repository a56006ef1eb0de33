import {
  SYSTEM_FIELD_NAMES,
  WIDE_DECIMAL,
  toColumnName,
  type AdoptionOptions,
  type BookkeepingField,
  type ConventionValue,
  type EntitySchema,
  type FieldSchema,
} from '../src/engine/index.js';
import { camelCase, wordsOf } from './engine.js';

/**
 * The reverse generator's mapping: a table as the database describes it → an entity schema.
 * Column types → JSON Schema types and formats, varchar(n) → maxLength, NOT NULL without a
 * default → required, numeric(p,s) → the bounds p and s allow, defaults, primary key →
 * x-entity.key, foreign keys to entity tables → x-ref, unique indexes → x-unique, CHECK (… IN …)
 * → enum, comments → titles. Field names are the camelCase of the columns, chosen so that the
 * engine maps them back to the same columns.
 */

export interface ColumnInfo {
  name: string;
  /** format_type(): "character varying(40)", "numeric(10,2)", "timestamp with time zone", "text[]" … */
  type: string;
  isNotNull: boolean;
  /** pg_get_expr of the default, if any. */
  defaultSql: string | null;
  isIdentity: boolean;
  comment: string | null;
}

export interface TableInfo {
  name: string;
  comment: string | null;
  columns: ColumnInfo[];
  primaryKey: string[];
  /** Single-column unique indexes or constraints (optionally led by tenant_code). */
  uniqueColumns: string[];
  foreignKeys: { column: string; refTable: string; refColumn: string }[];
  /** pg_get_constraintdef of single-column CHECK constraints. */
  checks: { column: string; definition: string }[];
  /** Sequences of the table's schema (an integer key no default names may be fed by <table>_seq). */
  sequences?: string[];
}

export interface EntityTable {
  /** Entity name and key column of a table that already is an entity. */
  entity: string;
  keyColumn: string;
  /** Its key is an integer (a bigint column referring to it stays an integer, not an int64 string). */
  isIntegerKey?: boolean;
}

const SYSTEM_COLUMNS = new Set<string>(SYSTEM_FIELD_NAMES.map(toColumnName));

const INT_BOUNDS: Record<string, [number, number] | undefined> = {
  smallint: [-32768, 32767],
  integer: [-2147483648, 2147483647],
};

/** "Region code" from region_code, when the column has no comment. */
const titleOfName = (name: string): string => {
  const words = wordsOf(name).map((word) => (word === 'id' ? 'ID' : word));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** What a table's or column's comment gives its schema: a title, per-language titles, a description. */
export interface CommentTitles {
  title: string;
  titles?: { zh?: string; en?: string };
  description?: string;
}

const HAN = /\p{Script=Han}/u;
/** Where a comment's name ends and its explanation starts: 帐号状态（0正常 1停用）, Status: 0 active … */
const EXPLANATION = /[（(：:，,；;。]|\s[-–—]\s/u;
/** An English comment longer than this, or with sentence punctuation, explains rather than names. */
const TITLE_WORDS = 6;

/**
 * Turns a comment into titles. A comment with Chinese characters is the Chinese label: its name
 * part (before a bracket, colon or comma, as in 帐号状态（0正常 1停用）) becomes the title and the
 * zh title, the English title comes from the column's name, and a longer comment is kept whole as
 * the description. An English comment that reads like a name (a few words, no sentence) is the
 * title; a sentence becomes the description, the title then coming from the name. No comment:
 * the title from the name.
 */
export function titlesOfComment(comment: string | null, name: string): CommentTitles {
  const text = (comment ?? '').replace(/\s+/g, ' ').trim();
  const fromName = titleOfName(name);
  if (!text) return { title: fromName };
  const head = text.split(EXPLANATION)[0]?.trim() ?? '';
  const isExplained = head.length > 0 && head !== text;
  if (HAN.test(text)) {
    const zh = head.length > 0 ? head : text;
    return {
      title: zh,
      titles: { zh, en: fromName },
      ...(isExplained ? { description: text } : {}),
    };
  }
  // In English only a bracket or a colon ends a name ("Status (0 active, 1 disabled)"); a comma
  // is part of a sentence.
  const named = text.split(/[(:]/)[0]?.trim() ?? '';
  const isName = text.split(' ').length <= TITLE_WORDS && !/[.!?]$/.test(text) && !isExplained;
  if (isName) return { title: text };
  const title = named && named !== text && named.split(' ').length <= TITLE_WORDS ? named : fromName;
  return { title, description: text };
}

/** A time of day as PostgreSQL reads back a time without time zone: 09:30, 09:30:00, 09:30:00.123456. */
const LOCAL_TIME_PATTERN = '^([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,6})?)?$';

function scalarOf(type: string): FieldSchema | undefined {
  const bare = type.replace(/\(.*\)/, '').trim();
  const size = /\((\d+)(?:,\s*(\d+))?\)/.exec(type);
  switch (bare) {
    case 'smallint':
    case 'integer': {
      const [minimum, maximum] = INT_BOUNDS[bare] ?? [0, 0];
      return { type: 'integer', minimum, maximum };
    }
    // A bigint may hold values beyond 2^53 (snowflake ids): a string of digits end to end. A
    // generated key or a reference to an integer key stays an integer (mapColumns).
    case 'bigint':
      return { type: 'string', format: 'int64' };
    // numeric is exact: a decimal string at the column's scale, never a float. Without a precision
    // of its own: 38 digits, 10 after the point (WIDE_DECIMAL; digits a value holds beyond the
    // scale are read back as they are, a write with more is refused).
    case 'numeric': {
      if (!size)
        return {
          type: 'string',
          format: 'decimal',
          'x-decimal': { ...WIDE_DECIMAL },
          $comment: 'numeric without precision: 38 digits, 10 after the point',
        } as FieldSchema;
      const precision = Number(size[1]);
      const scale = Number(size[2] ?? 0);
      return { type: 'string', format: 'decimal', 'x-decimal': { precision, scale } };
    }
    case 'real':
    case 'double precision':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    // bit(1): a flag (0/1), read and written as a boolean; a longer bit string has no mapping.
    case 'bit':
      return !size || Number(size[1]) === 1 ? { type: 'boolean', 'x-column': { type: 'bit' } } : undefined;
    case 'character varying':
    case 'character':
      return size ? { type: 'string', maxLength: Number(size[1]) } : { type: 'string' };
    case 'text':
      return { type: 'string' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'timestamp with time zone':
      return { type: 'string', format: 'date-time' };
    // The wall-clock time of a zone (x-entity.timeZone, else DB_LOCAL_TIME_ZONE): converted on the way.
    case 'timestamp without time zone':
      return { type: 'string', format: 'date-time', 'x-column': { type: 'timestamp' } };
    case 'time with time zone':
      return { type: 'string', format: 'time' };
    // Format "time" wants an offset (RFC 3339), which a time without time zone never reads back
    // with ('09:30:00'): the field would refuse the column's own values.
    case 'time without time zone':
      return { type: 'string', pattern: LOCAL_TIME_PATTERN, 'x-column': { type: 'time' } };
    case 'json':
    case 'jsonb':
      return { type: 'object' };
    default:
      return undefined;
  }
}

/**
 * An array's element: as a scalar column, but numbers of an array travel in JSON (the
 * engine keeps arrays as jsonb values): a numeric element is a number bounded by its precision,
 * a bigint one an integer.
 */
function arrayItemOf(type: string): FieldSchema | undefined {
  const bare = type.replace(/\(.*\)/, '').trim();
  if (bare === 'bigint') return { type: 'integer' };
  if (bare !== 'numeric') return scalarOf(type);
  const size = /\((\d+)(?:,\s*(\d+))?\)/.exec(type);
  if (!size) return { type: 'number' };
  const precision = Number(size[1]);
  const scale = Number(size[2] ?? 0);
  const limit = Number((10 ** (precision - scale) - 10 ** -scale).toFixed(scale));
  return { type: 'number', minimum: -limit, maximum: limit };
}

function fieldTypeOf(type: string): FieldSchema | undefined {
  if (type.endsWith('[]')) {
    const item = arrayItemOf(type.slice(0, -2));
    // Items the array's own elements hold as they are (no bit, no wall-clock timestamp).
    if (!item || item.type === 'object' || item.type === 'array' || item['x-column']) return undefined;
    // Each item keeps what the element type bounds: length, format, pattern, numeric range.
    const { type: itemType, maxLength, format, pattern, minimum, maximum } = item;
    return {
      type: 'array',
      'x-column': { type: 'array' },
      items: {
        type: itemType as 'string' | 'integer' | 'number' | 'boolean',
        ...(maxLength !== undefined ? { maxLength } : {}),
        ...(format !== undefined ? { format } : {}),
        ...(pattern !== undefined ? { pattern } : {}),
        ...(minimum !== undefined ? { minimum } : {}),
        ...(maximum !== undefined ? { maximum } : {}),
      },
    };
  }
  return scalarOf(type);
}

/** A constant default ('x'::text, 12, -1.5, true, '[]'::jsonb); undefined for expressions (now(), nextval…). */
function literalDefault(sqlText: string, field: FieldSchema): unknown {
  const text = sqlText.trim().replace(/^\((.*)\)$/, '$1');
  const quoted = /^'((?:[^']|'')*)'(?:::(?:[a-z ]+|"[a-z ]+")(?:\[\])?)?$/i.exec(text);
  if (quoted) {
    const value = (quoted[1] ?? '').replace(/''/g, "'");
    if (field.type === 'object' || field.type === 'array') {
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return undefined;
      }
    }
    if (field.type === 'integer' || field.type === 'number')
      return Number.isFinite(Number(value)) ? Number(value) : undefined;
    // A bit(1) default prints as '1'::"bit".
    if (field.type === 'boolean' && field['x-column']?.type === 'bit')
      return value === '1' ? true : value === '0' ? false : undefined;
    if (field.type === 'boolean') return value === 'true' ? true : value === 'false' ? false : undefined;
    return value;
  }
  if (/^-?\d+(\.\d+)?$/.test(text) && (field.type === 'integer' || field.type === 'number'))
    return Number(text);
  // An exact number's default stays its digits ('0.00', 0).
  const digits = /^'?(-?\d+(?:\.\d+)?)'?(?:::[a-z ]+(?:\(\d+(?:,\d+)?\))?)?$/i.exec(text);
  if (digits && (field.format === 'decimal' || field.format === 'int64')) return digits[1];
  if (/^(true|false)$/i.test(text) && field.type === 'boolean') return text.toLowerCase() === 'true';
  return undefined;
}

/** The values of CHECK (col IN (…)) as PostgreSQL prints it: col = ANY (ARRAY['a'::text, …]). */
export function enumOfCheck(definition: string, field: FieldSchema): unknown[] | undefined {
  const match = /=\s*ANY\s*\(+\s*ARRAY\[(.*)\]/is.exec(definition);
  if (!match) return undefined;
  const list = match[1] ?? '';
  if (field.type === 'string') {
    const values = [...list.matchAll(/'((?:[^']|'')*)'/g)].map((m) => (m[1] ?? '').replace(/''/g, "'"));
    return values.length > 0 ? values : undefined;
  }
  if (field.type === 'integer' || field.type === 'number') {
    const values = list.split(',').map((part) =>
      Number(
        part
          .replace(/::[a-z ]+/gi, '')
          .replace(/[()']/g, '')
          .trim(),
      ),
    );
    return values.length > 0 && values.every(Number.isFinite) ? values : undefined;
  }
  return undefined;
}

/**
 * The bounds of a simple CHECK on a number column as PostgreSQL prints it: CHECK ((qty > 0)),
 * CHECK (((score >= 0) AND (score <= 100))). An integer's > n is minimum n + 1; a number's strict
 * bound has no JSON Schema keyword here and is left to the database (a violation is a 400 naming
 * the field). Anything else: undefined.
 */
export function boundsOfCheck(
  definition: string,
  column: string,
  field: FieldSchema,
): { minimum?: number; maximum?: number } | undefined {
  if (field.type !== 'integer' && field.type !== 'number') return undefined;
  const body = /^CHECK\s*\((.*)\)$/is.exec(definition.trim())?.[1];
  if (body === undefined) return undefined;
  const name = column.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const bounds: { minimum?: number; maximum?: number } = {};
  const parts = body.replace(/^\((.*)\)$/s, '$1').split(/\)\s+AND\s+\(/i);
  for (const raw of parts) {
    const part = raw.replace(/^\(+|\)+$/g, '').trim();
    const match = new RegExp(
      `^"?${name}"?\\s*(>=|>|<=|<)\\s*\\(?'?(-?\\d+(?:\\.\\d+)?)'?(?:::[a-z ]+)?\\)?$`,
      'i',
    ).exec(part);
    if (!match) return undefined;
    const op = match[1] ?? '';
    const value = Number(match[2]);
    const isStrict = op === '>' || op === '<';
    if (isStrict && (field.type !== 'integer' || !Number.isInteger(value))) return undefined;
    if (op.startsWith('>'))
      bounds.minimum = Math.max(bounds.minimum ?? -Infinity, isStrict ? value + 1 : value);
    else bounds.maximum = Math.min(bounds.maximum ?? Infinity, isStrict ? value - 1 : value);
  }
  return Object.keys(bounds).length > 0 ? bounds : undefined;
}

/** A default the database computes as the time of the insert: now(), CURRENT_TIMESTAMP, LOCALTIMESTAMP … */
const NOW_DEFAULT =
  /^\(?\s*(now\(\)|current_timestamp|localtimestamp|transaction_timestamp\(\)|statement_timestamp\(\)|clock_timestamp\(\))(\(\d\))?\s*\)?(::timestamp(\(\d\))?( without time zone)?)?$/i;

export interface ReverseResult {
  name: string;
  schema: EntitySchema;
  /** Columns left out, and why; child tables that are not details, and why. */
  warnings: string[];
  /** The child tables adopted as x-detail fields. */
  details: string[];
}

/** The entity name of a table: its letters and digits (shop_order → shoporder). */
export const entityNameOf = (table: string): string => table.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A table's columns as fields: the mapping shared by an entity and the rows of its details. */
interface MappedColumns {
  properties: Record<string, FieldSchema>;
  required: string[];
  warnings: string[];
  /** Columns that must be given on insert (NOT NULL, no default, not generated) but have no field. */
  unfillable: string[];
  keyField?: string;
  label?: string;
}

function mapColumns(
  table: TableInfo,
  entityTables: ReadonlyMap<string, EntityTable>,
  options: {
    keyColumn: string;
    skip?: ReadonlySet<string>;
    isDetail?: boolean;
    /** Columns written only (x-secret): never read out, listed, exported, filtered or indexed. */
    secrets?: ReadonlySet<string>;
  },
): MappedColumns {
  const mapped: MappedColumns = { properties: {}, required: [], warnings: [], unfillable: [] };
  const { properties, required, warnings } = mapped;
  for (const column of table.columns) {
    // A key fed by <table>_seq that no default names (the other application calls nextval itself).
    const sequence =
      column.name === options.keyColumn &&
      column.defaultSql === null &&
      !column.isIdentity &&
      INTEGER_TYPES.has(column.type)
        ? [`${table.name}_seq`, `${table.name}_${column.name}_seq`, `seq_${table.name}`].find((name) =>
            table.sequences?.includes(name),
          )
        : undefined;
    const isGenerated =
      column.isIdentity || /^nextval\(/i.test(column.defaultSql ?? '') || sequence !== undefined;
    const mustBeGiven = column.isNotNull && column.defaultSql === null && !isGenerated;
    if (options.skip?.has(column.name)) continue;
    const leaveOut = (why: string): void => {
      warnings.push(`${column.name}: ${why}; left out`);
      if (mustBeGiven) mapped.unfillable.push(column.name);
    };
    if (SYSTEM_COLUMNS.has(column.name)) {
      // A detail row has no bookkeeping columns of its own (its parent has them).
      if (options.isDetail === true) leaveOut('a detail row has no bookkeeping columns');
      continue;
    }
    const name = camelCase(column.name);
    if (toColumnName(name) !== column.name) {
      leaveOut('no field name maps back to this column');
      continue;
    }
    const field = fieldTypeOf(column.type);
    if (!field) {
      leaveOut(`type ${column.type} has no JSON Schema mapping`);
      continue;
    }
    const titled = titlesOfComment(column.comment, column.name);
    field.title = titled.title;
    if (titled.description) field.description = titled.description;
    if (titled.titles) field['x-ui'] = { titles: titled.titles };
    const isKey = column.name === options.keyColumn;
    // A generated bigint (identity, serial) counts from 1 and is a number; so is a reference to
    // an entity whose key is one: the 64-bit string is for the other bigints.
    const referenced = table.foreignKeys.find((candidate) => candidate.column === column.name);
    const target = referenced ? entityTables.get(referenced.refTable) : undefined;
    if (field.format === 'int64' && (isGenerated || target?.isIntegerKey === true)) {
      delete field.format;
      field.type = 'integer';
    }
    if (isKey) {
      mapped.keyField = name;
      if (isGenerated) field.readOnly = true;
      if (sequence !== undefined) {
        field['x-column'] = { default: { sequence } };
        warnings.push(`${column.name}: filled from the sequence ${sequence}`);
      }
    }
    // A wall-clock timestamp filled with the time of the insert: the engine fills it in the zone.
    if (field['x-column']?.type === 'timestamp' && NOW_DEFAULT.test(column.defaultSql?.trim() ?? ''))
      field['x-column'] = { ...field['x-column'], default: 'now' };
    if (column.defaultSql !== null && !isGenerated) {
      const value = literalDefault(column.defaultSql, field);
      if (value !== undefined) field.default = value;
    }
    const check = table.checks.find((candidate) => candidate.column === column.name);
    const values = check ? enumOfCheck(check.definition, field) : undefined;
    if (values) field.enum = values;
    const isSecret = options.secrets?.has(column.name) === true && field.type === 'string' && !isKey;
    const bounds = check && !values ? boundsOfCheck(check.definition, column.name, field) : undefined;
    if (bounds?.minimum !== undefined) field.minimum = Math.max(field.minimum ?? -Infinity, bounds.minimum);
    if (bounds?.maximum !== undefined) field.maximum = Math.min(field.maximum ?? Infinity, bounds.maximum);
    // A detail row's columns are not unique (the rows of one parent are replaced as a whole).
    if (table.uniqueColumns.includes(column.name) && !isKey && options.isDetail !== true && !isSecret)
      field['x-unique'] = true;
    if (isSecret) {
      field['x-secret'] = true;
      delete field.default;
    }
    const foreignKey = table.foreignKeys.find((candidate) => candidate.column === column.name);
    if (foreignKey) {
      const target = entityTables.get(foreignKey.refTable);
      if (target && target.keyColumn === foreignKey.refColumn) field['x-ref'] = target.entity;
      else
        (field as FieldSchema & { $comment?: string }).$comment =
          `references ${foreignKey.refTable}(${foreignKey.refColumn})`;
    }
    if (mustBeGiven) required.push(name);
    if (!mapped.label && !isKey && field.type === 'string' && !isSecret) mapped.label = name;
    properties[name] = field;
  }
  return mapped;
}

const INTEGER_TYPES = new Set(['smallint', 'integer', 'bigint']);

/** A child table offered as a detail of an adopted table: its field, or why it is not one. */
export interface ReverseDetail {
  /** The child table. */
  table: string;
  /** The parent's field holding the rows (camelCase of the child table). */
  name: string;
  field?: FieldSchema;
  warnings: string[];
}

/**
 * A table referencing an adopted one (a foreign key to its primary key: order_line.order_id →
 * orders.id) as an x-detail field of the adopted entity: its rows are kept in the table as it is
 * (x-detail.parentColumn, seq when it has an integer "seq" column, otherwise null and the rows
 * keep the order of its key). It is not a detail when its key is not one generated column, or
 * when a column an insert must give (NOT NULL, no default) has no field.
 */
export function reverseDetail(
  parent: TableInfo,
  child: TableInfo,
  entityTables: ReadonlyMap<string, EntityTable>,
): ReverseDetail {
  const parentKey = parent.primaryKey.length === 1 ? parent.primaryKey[0] : undefined;
  const result: ReverseDetail = { table: child.name, name: camelCase(child.name), warnings: [] };
  const refusal = (why: string): ReverseDetail => ({
    ...result,
    warnings: [`${child.name}: ${why}; not a detail`],
  });
  const parentColumns = child.foreignKeys
    .filter((fk) => fk.refTable === parent.name && fk.refColumn === parentKey)
    .map((fk) => fk.column);
  const [parentColumn] = parentColumns;
  if (parentColumn === undefined) return refusal(`no foreign key to ${parent.name}(${parentKey ?? '?'})`);
  if (parentColumns.length > 1)
    result.warnings.push(
      `${child.name}: several columns refer to ${parent.name}; ${parentColumn} holds the parent`,
    );
  const keyColumn = child.primaryKey.length === 1 ? (child.primaryKey[0] ?? '') : '';
  const key = child.columns.find((column) => column.name === keyColumn);
  if (!key || !(key.isIdentity || /^nextval\(/i.test(key.defaultSql ?? '')))
    return refusal('its primary key is not one generated column (identity or serial)');
  if (key.name === parentColumn) return refusal('its primary key is its parent column');
  const seqColumn = child.columns.find(
    (column) => column.name === 'seq' && INTEGER_TYPES.has(column.type) && column.name !== parentColumn,
  );
  const skip = new Set([keyColumn, parentColumn, ...(seqColumn ? [seqColumn.name] : [])]);
  const mapped = mapColumns(child, entityTables, { keyColumn, skip, isDetail: true });
  result.warnings.push(...mapped.warnings.map((warning) => `${child.name}.${warning}`));
  if (mapped.unfillable.length > 0)
    return refusal(`${mapped.unfillable.join(', ')} must be given on insert but cannot be a field`);
  if (Object.keys(mapped.properties).length === 0) return refusal('it has no column besides its keys');
  const titled = titlesOfComment(child.comment, child.name);
  result.field = {
    type: 'array',
    title: titled.title,
    ...(titled.description ? { description: titled.description } : {}),
    ...(titled.titles ? { 'x-ui': { titles: titled.titles } } : {}),
    'x-detail': {
      table: child.name,
      parentColumn,
      seq: seqColumn ? seqColumn.name : null,
      ...(keyColumn === 'id' ? {} : { key: keyColumn }),
    },
    items: { type: 'object', required: mapped.required, properties: mapped.properties },
  };
  return result;
}

export function reverseTable(
  table: TableInfo,
  entityTables: ReadonlyMap<string, EntityTable>,
  /** Tables referencing this one chosen as its details: x-detail fields (see reverseDetail). */
  children: readonly TableInfo[] = [],
  /** Adopting through the preview: what the admin chose (x-entity.adoption, secrets). */
  adoption?: { options: AdoptionOptions; secrets: readonly string[] },
): ReverseResult {
  if (table.primaryKey.length !== 1) throw new Error(`${table.name} has no single-column primary key`);
  const keyColumn = table.primaryKey[0] ?? '';
  // The convention columns the engine keeps itself (bookkeeping, soft delete, tenant) are no fields.
  const conventionColumns = adoption ? adoptionColumns(adoption.options) : new Set<string>();
  conventionColumns.delete(keyColumn);
  const mapped = mapColumns(table, entityTables, {
    keyColumn,
    skip: conventionColumns,
    ...(adoption ? { secrets: new Set(adoption.secrets) } : {}),
  });
  const { properties, required, warnings, keyField, label } = mapped;
  if (!keyField) throw new Error(`${table.name}: its primary key ${keyColumn} cannot be a field`);
  // A column every insert must give (NOT NULL, no default) that no field can hold: every add would fail.
  if (mapped.unfillable.length > 0)
    throw new Error(
      `${table.name} cannot be adopted: ${mapped.unfillable
        .map((name) => `${name} (${table.columns.find((column) => column.name === name)?.type ?? '?'})`)
        .join(', ')} must be given on every insert (NOT NULL without a default) but has no field. ` +
        `Give the column a default in the other application's database, or let it accept NULL.`,
    );
  const details: string[] = [];
  for (const child of children) {
    const detail = reverseDetail(table, child, entityTables);
    warnings.push(...detail.warnings);
    if (!detail.field) continue;
    let name = detail.name;
    while (Object.hasOwn(properties, name)) name = `${name}Rows`;
    properties[name] = detail.field;
    details.push(child.name);
  }
  const name = entityNameOf(table.name);
  const tableTitles = titlesOfComment(table.comment, table.name);
  const schema: EntitySchema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: tableTitles.title,
    ...(tableTitles.titles ? { 'x-ui': { titles: tableTitles.titles } } : {}),
    type: 'object',
    'x-entity': {
      api: `admin/${name}`,
      table: table.name,
      key: keyField,
      label: label ?? keyField,
      tenant: table.columns.some((column) => column.name === 'tenant_code'),
      // The table exists: the engine adopts it as it is (see planTableMigration).
      adopt: true,
      ...(adoption ? { adoption: adoption.options } : {}),
    },
    required,
    additionalProperties: false,
    properties,
  };
  const description = [tableTitles.description, ...warnings].filter((part) => part !== undefined);
  if (description.length > 0) schema.description = description.join('; ');
  return { name, schema, warnings, details };
}

/** The columns an adoption's conventions hold (bookkeeping, soft delete, tenant): no fields of their own. */
export function adoptionColumns(options: AdoptionOptions): Set<string> {
  return new Set(
    [
      ...Object.values(options.bookkeeping ?? {}),
      options.softDelete?.column,
      options.tenantColumn?.column,
    ].filter((name): name is string => name !== undefined),
  );
}

/** Names the other application's bookkeeping columns go by, for each of the engine's fields. */
const BOOKKEEPING_NAMES: Record<BookkeepingField, readonly string[]> = {
  createdAt: ['create_time', 'created_at', 'gmt_create', 'create_date', 'created_time', 'create_at'],
  createdBy: ['creator', 'create_by', 'created_by', 'create_user', 'create_user_id'],
  updatedAt: ['update_time', 'updated_at', 'gmt_modified', 'update_date', 'updated_time', 'update_at'],
  updatedBy: ['updater', 'update_by', 'updated_by', 'update_user', 'update_user_id'],
  version: ['version', 'revision', 'lock_version'],
};
const SOFT_DELETE_NAMES = ['deleted', 'del_flag', 'is_deleted', 'delete_flag', 'is_del'];
const TENANT_NAMES = ['tenant_id'];
/** What a secret column is called, or says in its comment: password, secret, token, a key. */
const SECRET_NAME =
  /(pass_?word|passwd|(^|_)pwd($|_)|secret|token|(^|_)(api|access|app|private|secret|sign|encrypt|encryption|client)_?key($|_))/i;
const SECRET_COMMENT = /(password|secret|token|api key|private key|密码|密钥|秘钥|令牌|口令)/i;

const TIME_TYPES = new Set(['timestamp with time zone', 'timestamp without time zone']);
const isTextType = (type: string): boolean => /^(text|character varying|character)\b/.test(type);

/** What the preview proposes for an adopted table: each a choice the admin confirms or changes. */
export interface AdoptionProposal {
  bookkeeping: Partial<Record<BookkeepingField, string>>;
  softDelete?: { column: string; deleted: ConventionValue; active: ConventionValue };
  /** The tenant column (the value to fix it to is read from the rows by the caller). */
  tenantColumn?: { column: string; type: string; defaultValue?: ConventionValue };
  /** Columns proposed as secrets (x-secret), with why. */
  secrets: { column: string; reason: string }[];
}

/** The conventions and secrets of a table, as the adoption preview proposes them. */
export function proposeAdoption(table: TableInfo): AdoptionProposal {
  const byName = new Map(table.columns.map((column) => [column.name, column]));
  const key = table.primaryKey[0];
  const bookkeeping: Partial<Record<BookkeepingField, string>> = {};
  for (const [field, names] of Object.entries(BOOKKEEPING_NAMES) as [BookkeepingField, readonly string[]][]) {
    const column = names.map((name) => byName.get(name)).find((found) => found !== undefined);
    if (!column || column.name === key) continue;
    const fits =
      field === 'createdAt' || field === 'updatedAt'
        ? TIME_TYPES.has(column.type)
        : field === 'version'
          ? ['integer', 'bigint', 'smallint'].includes(column.type)
          : isTextType(column.type);
    if (fits) bookkeeping[field] = column.name;
  }
  const proposal: AdoptionProposal = { bookkeeping, secrets: [] };
  const softDelete = SOFT_DELETE_NAMES.map((name) => byName.get(name)).find((found) => found !== undefined);
  if (softDelete && softDelete.name !== key) {
    if (softDelete.type === 'boolean')
      proposal.softDelete = { column: softDelete.name, deleted: true, active: false };
    else if (['smallint', 'integer', 'bigint'].includes(softDelete.type))
      proposal.softDelete = { column: softDelete.name, deleted: 1, active: 0 };
    else if (isTextType(softDelete.type)) {
      // RuoYi marks a deleted row '2', JeecgBoot '1': the column's default is the live value.
      const live = softDelete.defaultSql
        ? literalDefault(softDelete.defaultSql, { type: 'string' })
        : undefined;
      proposal.softDelete = {
        column: softDelete.name,
        deleted: '1',
        active: typeof live === 'string' ? live : '0',
      };
    }
  }
  const tenant = TENANT_NAMES.map((name) => byName.get(name)).find((found) => found !== undefined);
  if (tenant && tenant.name !== key) {
    const field = fieldTypeOf(tenant.type);
    const value = tenant.defaultSql && field ? literalDefault(tenant.defaultSql, field) : undefined;
    proposal.tenantColumn = {
      column: tenant.name,
      type: tenant.type,
      ...(typeof value === 'string' || typeof value === 'number' ? { defaultValue: value } : {}),
    };
  }
  const taken = adoptionColumns({
    bookkeeping,
    ...(proposal.softDelete ? { softDelete: proposal.softDelete } : {}),
  });
  for (const column of table.columns) {
    if (column.name === key || taken.has(column.name) || !isTextType(column.type)) continue;
    if (SECRET_NAME.test(column.name))
      proposal.secrets.push({ column: column.name, reason: `name ${column.name}` });
    else if (column.comment && SECRET_COMMENT.test(column.comment))
      proposal.secrets.push({ column: column.name, reason: `comment ${column.comment}` });
  }
  return proposal;
}
