import { sql } from 'kysely';
import type { EntityDef, FieldDef } from '../../../../engine/index.js';
import type { Db } from '../../../lib/db/database.js';
import type { EntityRegistry } from '../../../lib/registry.js';
import type { Localizer } from '../../../lib/i18n.js';
import { dictionaryItems, dictionaryTable } from '../../../lib/dictionaries.js';
import { column, scopeCondition, table, whereClause, type Actor } from '../../../lib/sql/toolkit.js';
import { zonedDate } from '../../../lib/time-zone.js';

/**
 * Turning a sheet's cell text into the values the API takes: dictionary labels to their values,
 * reference labels to the target's key, numbers, flags and lists from their text. What cannot
 * be read stays text, so the entity's own validator names the problem as the API would.
 */

/** Cells may list several values (multi-select dictionaries, tag lists) with any of these. */
const LIST_SEPARATOR = /\s*[,，、;；]\s*/;
const QUERY_CHUNK = 1000;

const fold = (text: string): string => text.trim().toLowerCase();

/** A dictionary's items: value → label in the caller's language, and every spelling → value. */
export interface DictionaryLookup {
  labels: Map<string, string>;
  values: Map<string, string>;
}

export async function loadDictionary({
  db,
  registry,
  l10n,
  actor,
  dictType,
}: {
  db: Db;
  registry: EntityRegistry;
  l10n: Localizer;
  actor: Actor;
  dictType: string;
}): Promise<DictionaryLookup> {
  const lookup: DictionaryLookup = { labels: new Map(), values: new Map() };
  const dict = dictionaryTable(registry);
  if (!dict) return lookup;
  const rows = await dictionaryItems({ db, dict, dictType, actor });
  for (const row of rows) {
    const label = l10n.find([`dicts.${dictType}.${row.value}`]) ?? row.name ?? row.value;
    lookup.labels.set(row.value, label);
    // A label never hides a value: values are registered after every label.
    if (row.name) lookup.values.set(fold(row.name), row.value);
    lookup.values.set(fold(label), row.value);
  }
  for (const row of rows) lookup.values.set(fold(row.value), row.value);
  return lookup;
}

/** Text → key of a reference field's target, by label (unique) or by the key itself. */
export type ReferenceLookup = Map<string, unknown>;

/**
 * The keys of the target records named in a column: a label that is unique among the target's
 * visible records, or a key. A label shared by two records is not taken (the key must be used).
 */
export async function loadReferences({
  db,
  target,
  actor,
  texts,
}: {
  db: Db;
  target: EntityDef;
  actor: Actor;
  texts: Iterable<string>;
}): Promise<ReferenceLookup> {
  const found: ReferenceLookup = new Map();
  const all = [...new Set(texts)].filter((text) => text !== '');
  const labelField = target.fieldsByName.get(target.label);
  const isNumericKey = target.key.type === 'integer' || target.key.type === 'number';
  for (let start = 0; start < all.length; start += QUERY_CHUNK) {
    const chunk = all.slice(start, start + QUERY_CHUNK);
    if (labelField && labelField !== target.key && labelField.sqlType === 'text') {
      const rows = await sql<{ key: unknown; label: string }>`select ${column(target.key)} as key,
        ${column(labelField)} as label from ${table(target)}
        ${whereClause([sql`${column(labelField)} in (${sql.join(chunk)})`, ...scopeCondition(target, actor)])}`.execute(
        db,
      );
      const seen = new Map<string, number>();
      for (const row of rows.rows) seen.set(row.label, (seen.get(row.label) ?? 0) + 1);
      for (const row of rows.rows) if (seen.get(row.label) === 1) found.set(row.label, row.key);
    }
    const keyTexts = chunk.filter((text) => !found.has(text) && (!isNumericKey || /^-?\d{1,15}$/.test(text)));
    if (keyTexts.length === 0) continue;
    const keys = isNumericKey ? keyTexts.map(Number) : keyTexts;
    const rows = await sql<{ key: unknown }>`select ${column(target.key)} as key from ${table(target)}
      ${whereClause([sql`${column(target.key)} in (${sql.join(keys)})`, ...scopeCondition(target, actor)])}`.execute(
      db,
    );
    for (const row of rows.rows) found.set(String(row.key), isNumericKey ? Number(row.key) : row.key);
  }
  return found;
}

/** What a cell of one column becomes. */
export interface ColumnReader {
  field: FieldDef;
  dictionary?: DictionaryLookup;
  references?: ReferenceLookup;
  /** The keys the references resolved to. */
  knownKeys?: Set<unknown>;
  /** The tree root value a parent column may hold without a record (e.g. 0). */
  root?: unknown;
  yes: Set<string>;
  no: Set<string>;
  /** The importer's time zone: wall-clock times are read in it (as the export writes them); the server's when undefined. */
  timeZone?: string;
}

const DATE_TIME_TEXT = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?$/;
const DATE_TEXT = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/;

function scalar(reader: ColumnReader, text: string, type: string, format: string | undefined): unknown {
  if (reader.dictionary) {
    const value = reader.dictionary.values.get(fold(text));
    if (value === undefined) return text;
    // Dictionary values are text; a whole-number field stores them as numbers (user types).
    return type === 'integer' || type === 'number' ? Number(value) : value;
  }
  if (reader.references) {
    if (reader.root !== undefined && text === String(reader.root)) return reader.root;
    return reader.references.get(text) ?? text;
  }
  // Exact numbers stay text: digits as the cell holds them (a number cell's exact <v>, or text
  // with thousands separators), checked by the entity's validator (too many fraction digits is
  // a problem of the row, never rounded).
  if (format === 'decimal' || format === 'int64') return text.replace(/[,\s]/g, '');
  switch (type) {
    case 'integer':
    case 'number': {
      const number = Number(text.replace(/,/g, ''));
      return text !== '' && Number.isFinite(number) ? number : text;
    }
    case 'boolean': {
      const folded = fold(text);
      if (reader.yes.has(folded)) return true;
      if (reader.no.has(folded)) return false;
      return text;
    }
    default:
      break;
  }
  if (format === 'date-time') {
    // Wall-clock text as the export writes it, read in the importer's time zone (else the server's).
    const zone = reader.timeZone;
    const match = DATE_TIME_TEXT.exec(text);
    if (match) {
      const [, y, mo, d, h, mi, s] = match;
      const parts = [Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s ?? 0)] as const;
      const date = zone
        ? zonedDate(zone, ...parts)
        : new Date(parts[0], parts[1] - 1, parts[2], parts[3], parts[4], parts[5]);
      if (!Number.isNaN(date.getTime())) return date.toISOString();
    }
    const day = DATE_TEXT.exec(text);
    if (day) {
      const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
      return (zone ? zonedDate(zone, year, month, date) : new Date(year, month - 1, date)).toISOString();
    }
  }
  if (format === 'date') {
    const day = DATE_TEXT.exec(text) ?? /^(\d{4})[-/](\d{1,2})[-/](\d{1,2}) 00:00(?::00)?$/.exec(text);
    if (day) return `${day[1]}-${(day[2] ?? '').padStart(2, '0')}-${(day[3] ?? '').padStart(2, '0')}`;
  }
  return text;
}

/** A cell's text as a value of its field; undefined for an empty cell (the field is left out). */
export function readCell(reader: ColumnReader, text: string): unknown {
  if (text === '') return undefined;
  const { field } = reader;
  const schema = field.schema as { items?: { type?: string; format?: string }; format?: string };
  if (field.type === 'array') {
    const itemType = schema.items?.type ?? 'string';
    return text
      .split(LIST_SEPARATOR)
      .filter((item) => item !== '')
      .map((item) => scalar(reader, item, itemType, schema.items?.format));
  }
  if (field.type === 'object') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return scalar(reader, text, field.type, schema.format);
}
