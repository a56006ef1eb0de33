import type { Readable } from 'node:stream';
import { sql, type RawBuilder } from 'kysely';
import {
  APPROVAL_STATES,
  APPROVAL_STATUS,
  approvalStatusKey,
  decimalNumberFormat,
  decimalOf,
  englishTranslate,
  EntityInputError,
  isInt64,
  isVirtualField,
  exportColumns,
  type EntityDef,
  type FieldDef,
  type RawParams,
  withVirtualFields,
  workflowOf,
} from '../../../../engine/index.js';
import type { Db, Row } from '../../../lib/db/database.js';
import type { EntityRegistry } from '../../../lib/registry.js';
import type { Localizer } from '../../../lib/i18n.js';
import { dictionaryItems, dictionaryTable } from '../../../lib/dictionaries.js';
import { readHook, type CrudRequest } from '../services/crud.js';
import { fileNamesSelect } from '../services/file-fields.js';
import {
  column,
  filterCondition,
  orderByClause,
  scopeCondition,
  selectList,
  table,
  whereClause,
} from '../../../lib/sql/toolkit.js';
import { entityTitle, fieldTitle } from '../../../lib/titles.js';
import { rawRowReader, type RawRowHandler } from '../../../lib/db/raw-rows.js';
import { zoneOffset } from '../../../lib/time-zone.js';
import { computedColumn, computedWriter } from './computed-column.js';
import { detailSheets } from './detail-sheets.js';
import {
  createXlsxWriter,
  sheetText,
  type CellValue,
  type SheetRows,
  type SheetText,
} from '../../../lib/xlsx/write.js';

const BATCH = 2000;

export interface ExportFile {
  fileName: string;
  /** The file name in ASCII (the entity's name), for clients that do not read filename*. */
  asciiFileName: string;
  stream: Readable;
}

const pad = (value: number): string => String(value).padStart(2, '0');

/**
 * The display format of docs/product.md §9, YYYY-MM-DD HH:mm:ss, in the given IANA time zone (the
 * reader's, as their screen shows it), else the server's.
 */
export function formatDateTime(date: Date, zone?: string): string {
  if (zone !== undefined) {
    const seconds = Math.floor(date.getTime() / 1000);
    if (!Number.isFinite(seconds)) return String(date);
    const out = Buffer.alloc(40);
    return out.toString('latin1', 0, writeDateTime(out, seconds + zoneOffset(seconds, zone)));
  }
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** A dictionary's labels in the caller's language, by value (an export's and a report's cells). */
export async function dictionaryLabels({
  db,
  registry,
  l10n,
  dictType,
}: {
  db: Db;
  registry: EntityRegistry;
  l10n: Localizer;
  dictType: string;
}): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  const dict = dictionaryTable(registry);
  if (!dict) return labels;
  for (const row of await dictionaryItems({ db, dict, dictType }))
    labels.set(row.value, l10n.find([`dicts.${dictType}.${row.value}`]) ?? row.name ?? '');
  return labels;
}

/**
 * How one column's value becomes a cell. Every column is read in PostgreSQL's text form, so
 * both databases hand over the same thing: UTF-8 bytes, src[start, end).
 */
type FieldWriter = (rows: SheetRows, column: number, src: Buffer, start: number, end: number) => void;

/** One exported column: how to read it in SQL and how to show it in a cell. */
interface ExportColumn {
  field: FieldDef;
  /** The value as text. */
  select: RawBuilder<unknown>;
  write: FieldWriter;
}

const qualified = (alias: string, field: FieldDef): RawBuilder<unknown> =>
  sql.ref(`${alias}.${field.column}`);

/** A spare key list, kept for the next export (no new memory for every export). */
let spareKeys: { text: Buffer; ends: Int32Array } | undefined;
const KEPT_KEY_BYTES = 4 << 20;

/**
 * The ordered keys of an export on the embedded database, outside the JavaScript heap: numeric
 * keys as their text, comma-separated, ready to be cut into the array literal of each batch.
 */
class KeyList {
  count = 0;
  /** Numeric keys: key i is text[ends[i - 1] + 1, ends[i]) (ends[-1] taken as -1). */
  private text: Buffer;
  private ends: Int32Array;
  private length = 0;
  private readonly texts: string[] = [];

  constructor(private readonly isNumeric: boolean) {
    const spare = isNumeric ? spareKeys : undefined;
    if (spare) spareKeys = undefined;
    this.text = spare?.text ?? Buffer.allocUnsafe(isNumeric ? 65536 : 0);
    this.ends = spare?.ends ?? new Int32Array(isNumeric ? 8192 : 0);
  }

  /** Adds a key from its text form, src[start, end). */
  add(src: Buffer, start: number, end: number): void {
    if (!this.isNumeric) {
      this.texts.push(src.toString('utf8', start, end));
      this.count += 1;
      return;
    }
    if (this.length + end - start + 1 > this.text.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.text.length * 2, this.length + end - start + 1));
      this.text.copy(grown, 0, 0, this.length);
      this.text = grown;
    }
    if (this.count === this.ends.length) {
      const grown = new Int32Array(this.ends.length * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    const text = this.text;
    let at = this.length;
    if (this.count > 0) text[at++] = 0x2c; // ,
    for (let index = start; index < end; index += 1) text[at++] = src[index] as number;
    this.length = at;
    this.ends[this.count] = this.length;
    this.count += 1;
  }

  /** Keys [from, to) as a PostgreSQL array literal: one bound parameter, however many keys. */
  literal(from: number, to: number): string {
    if (this.isNumeric) {
      const start = from === 0 ? 0 : (this.ends[from - 1] as number) + 1;
      return `{${this.text.toString('latin1', start, this.ends[to - 1])}}`;
    }
    const items = this.texts.slice(from, to).map((key) => `"${key.replace(/["\\]/g, (c) => `\\${c}`)}"`);
    return `{${items.join(',')}}`;
  }

  /** Gives the list back for the next export. */
  release(): void {
    if (this.isNumeric && this.text.length <= KEPT_KEY_BYTES)
      spareKeys = { text: this.text, ends: this.ends };
    this.count = 0;
    this.length = 0;
  }
}

/**
 * Streams every row matching the filters and sort as an .xlsx: translated headers, dictionary
 * and reference labels, no secret fields. Values are read as text and become cell XML as bytes
 * (no JavaScript string per value), with backpressure from the client down to the database:
 * PostgreSQL through one statement on a connection of its own, whose socket is read no faster
 * than the sheet is written (the database waits on its full send buffer); the embedded database, which has one
 * connection for everyone, by reading the ordered keys first and then the rows in batches of
 * keys, so it is free between batches.
 */
export async function exportRecords(request: CrudRequest, body: unknown): Promise<ExportFile> {
  const { entity, l10n, actor, registry } = request;
  const isFilterObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  // No body means no filters; anything else that is not an object must not turn into "export everything".
  if (!isFilterObject && body !== undefined && body !== null) {
    throw new EntityInputError([
      { field: '/', message: l10n.t('validation.type', { type: l10n.t('validation.typeName.object') }) },
    ]);
  }
  const params: RawParams = isFilterObject ? { ...(body as RawParams) } : {};
  delete params.currentPage;
  delete params.pageSize;
  const query = request.policy.listQuery(params);
  const conditions = [
    ...scopeCondition(entity, actor),
    ...(request.policy.rowConditions ?? []),
    ...query.filters.map(filterCondition),
  ];
  const where = whereClause(conditions);
  const reader = rawRowReader(request.db);
  if (!reader) throw new Error('export needs a database opened by openDatabase');

  const joins: RawBuilder<unknown>[] = [];
  const columns: ExportColumn[] = [];
  const visibleColumns = exportColumns(entity).filter((col) => request.policy.isVisible(col.field));
  for (const [index, listColumn] of visibleColumns.entries()) {
    const field = entity.fieldsByName.get(listColumn.field);
    if (!field) continue;
    if (isVirtualField(field)) {
      // A virtual computed field: computed from the fields its expression reads.
      const computed = computedColumn({
        entity,
        field,
        labels: { yes: l10n.t('export.yes'), no: l10n.t('export.no') },
        displayTimestamp: (iso) => displayTimestamp(iso, request.timeZone),
      });
      if (computed) columns.push({ field, select: computed.select, write: computedWriter(computed) });
      continue;
    }
    if (field.ref) {
      // A reference shows the target's label (or the raw key when the target is gone).
      const target: EntityDef = registry.require(field.ref);
      const labelField = target.fieldsByName.get(target.label) ?? target.key;
      const joinAlias = `r${index}`;
      const scope = target.isTenantScoped
        ? sql` and ${sql.ref(`${joinAlias}.tenant_code`)} = ${actor.tenantCode}`
        : sql``;
      joins.push(
        sql`left join ${sql.table(target.table)} as ${sql.id(joinAlias)} on ${qualified(joinAlias, target.key)} = ${qualified('t', field)}${scope}`,
      );
      columns.push({
        field,
        select: sql`coalesce(${qualified(joinAlias, labelField)}::text, ${qualified('t', field)}::text)`,
        write: writeText,
      });
      continue;
    }
    const fileNames = fileNamesSelect({ field, value: qualified('t', field), tenantCode: actor.tenantCode });
    if (fileNames) {
      // A file field shows the files' names (the id when a file is gone).
      columns.push({ field, select: fileNames, write: writeText });
      continue;
    }
    columns.push({ field, select: textOf(field), write: await fieldWriter(request, field) });
  }
  // An entity with afterRead hooks: each row also carries its key, to be read as a record too.
  const throughAfterRead = request.modules.has(entity.name, 'afterRead');
  const select = columns.map((col) => col.select);
  if (throughAfterRead) select.push(sql`${qualified('t', entity.key)}::text`);
  const joined = sql.join(joins, sql` `);
  const order = orderByClause({ entity, sort: query.sort, tableAlias: 't' });

  // The embedded database: the keys in order first (read before the answer starts, so that
  // bad filters still get their 400).
  const keys = new KeyList(entity.key.sqlType === 'bigint' || entity.key.sqlType === 'integer');
  if (reader.kind === 'statement') {
    await reader.read(
      {
        select: [sql`${column(entity.key)}::text`],
        // Qualified: a bare name in ORDER BY would mean the output column (the key as text).
        rest: sql`from ${table(entity)} as k ${where} ${orderByClause({ entity, sort: query.sort, tableAlias: 'k' })}`,
      },
      (src, fields) => keys.add(src, fields[0] as number, fields[1] as number),
    );
  }
  // PostgreSQL: the statement is prepared (planned, its parameters bound) before the answer
  // starts, for the same reason.
  const rowStream =
    reader.kind === 'stream'
      ? await reader.open({
          select,
          rest: sql`from (select * from ${table(entity)} ${where}) as t ${joined} ${order}`,
        })
      : undefined;

  const title = entityTitle(l10n, entity);
  const details = detailSheets({
    db: request.db,
    registry,
    entity,
    actor,
    l10n,
    conditions,
    sort: query.sort,
    dictionaryLabels: (dictType) => dictionaryLabels({ db: request.db, registry, l10n, dictType }),
    formatDateTime: (date) => formatDateTime(date, request.timeZone),
  });
  const writer = createXlsxWriter({
    moreSheets: details.sheets,
    sheetName: title,
    headers: columns.map((col) => fieldTitle({ l10n, entity, field: col.field })),
    widths: columns.map((col) => Math.max(10, Math.round((col.field.schema['x-list']?.width ?? 120) / 7))),
    numberFormats: columns.map((col) => {
      const decimal = decimalOf(col.field.schema);
      // a decimal's number cell, stored or computed, shown at its scale
      return decimal && (col.write === writeNumber || isVirtualField(col.field))
        ? decimalNumberFormat(decimal.scale)
        : undefined;
    }),
  });
  const { rows } = writer;
  const writeRawRow: RawRowHandler = (src, fields) => {
    rows.startRow();
    for (let index = 0; index < columns.length; index += 1) {
      const start = fields[index * 2] as number;
      if (start >= 0) columns[index]?.write(rows, index, src, start, fields[index * 2 + 1] as number);
    }
    rows.endRow();
  };
  const afterRead = throughAfterRead ? new AfterReadRows(request, columns, writeRawRow) : undefined;
  const writeRow: RawRowHandler = afterRead ? afterRead.add : writeRawRow;

  /** Reads the next rows of the embedded database into the sheet; false at the end. */
  let position = 0;
  const readBatch = async (): Promise<boolean> => {
    if (reader.kind !== 'statement' || position >= keys.count) return false;
    const batchKeys = keys.literal(position, Math.min(position + BATCH, keys.count));
    position += BATCH;
    const keyType = sql.raw(entity.key.sqlType);
    await reader.read(
      {
        select,
        rest: sql`from ${table(entity)} as t ${joined}
          where ${qualified('t', entity.key)} = any(cast(${batchKeys} as ${keyType}[])) ${order}`,
      },
      writeRow,
    );
    await afterRead?.flush(rows);
    return position < keys.count;
  };

  const produce = async (): Promise<void> => {
    if (rowStream) {
      // Rows come as the database sends them; the socket waits while deflate is behind, and
      // the statement is given up when the client went away.
      // A batch held for afterRead is written before more is read; a hook's failure gives the
      // statement up and is what the export fails with.
      let held: { failure: unknown } | undefined;
      const read = rowStream.read(writeRow, () => {
        if (writer.stream.destroyed || held) return false;
        if (afterRead && afterRead.count >= BATCH)
          return afterRead.flush(rows).then(
            () => writer.backlog(),
            (failure: unknown) => {
              held = { failure };
            },
          );
        return writer.backlog() ?? true;
      });
      await read.catch((error: unknown) => {
        throw held ? held.failure : error;
      });
      if (held) throw held.failure;
      if (writer.stream.destroyed) return;
      await afterRead?.flush(rows);
    }
    for (let hasMore = !rowStream; hasMore;) {
      hasMore = await readBatch();
      await writer.flush();
      if (writer.stream.destroyed) return; // the client went away
      // Let the response stream and other requests run between batches (PGlite never yields by itself).
      await new Promise((resolve) => setImmediate(resolve));
    }
    await details.write(writer);
    await writer.end();
  };
  produce()
    .then(() => rowStream?.close())
    .catch(async (error: unknown) => {
      await rowStream?.close();
      writer.stream.destroy(error instanceof Error ? error : new Error(String(error)));
    })
    .finally(() => keys.release());

  const stamp = formatDateTime(new Date(), request.timeZone).replace(/[-: ]/g, '');
  // named as the reader calls the list (用户管理-…, Users-…), the internal name as the ASCII fallback
  return {
    fileName: `${title.replace(/[\\/:*?"<>|]/g, '_')}-${stamp}.xlsx`,
    asciiFileName: `${entity.name}-${stamp}.xlsx`,
    stream: writer.stream,
  };
}

/**
 * The rows of an entity with afterRead hooks, held a batch at a time: each batch is read again as
 * records, as a list reads them (virtual computed fields computed, the caller's hidden fields
 * left out), passed through the hooks, and then written. A cell whose field afterRead removed
 * (or set to undefined) is left empty; one whose value afterRead changed or filled is written
 * from that value; the others as the export writes them without hooks. A property afterRead adds
 * that is no field of the schema has no column.
 */
class AfterReadRows {
  private readonly held: { bytes: Buffer; fields: Int32Array }[] = [];

  constructor(
    private readonly request: CrudRequest,
    private readonly columns: readonly ExportColumn[],
    private readonly writeRaw: RawRowHandler,
  ) {}

  get count(): number {
    return this.held.length;
  }

  /** Keeps a copy of a row (its bytes are valid only during the call); its key is the last value. */
  readonly add: RawRowHandler = (src, fields) => {
    const length = (this.columns.length + 1) * 2;
    let first = src.length;
    let last = 0;
    for (let index = 0; index < length; index += 2) {
      const start = fields[index] as number;
      if (start < 0) continue;
      first = Math.min(first, start);
      last = Math.max(last, fields[index + 1] as number);
    }
    if (last < first) first = last;
    const shifted = new Int32Array(length);
    for (let index = 0; index < length; index += 2) {
      const start = fields[index] as number;
      shifted[index] = start < 0 ? -1 : start - first;
      shifted[index + 1] = start < 0 ? -1 : (fields[index + 1] as number) - first;
    }
    this.held.push({ bytes: Buffer.from(src.subarray(first, last)), fields: shifted });
  };

  /** Writes the rows held, through afterRead. */
  async flush(rows: SheetRows): Promise<void> {
    if (this.held.length === 0) return;
    const held = this.held.splice(0, this.held.length);
    const { request, columns } = this;
    const { entity } = request;
    const keyAt = columns.length * 2;
    const keyOf = (row: { bytes: Buffer; fields: Int32Array }): string =>
      row.bytes.toString('utf8', row.fields[keyAt], row.fields[keyAt + 1]);
    const keyTexts = held.map(keyOf);
    const read = await sql<Row>`select ${selectList(entity)} from ${table(entity)}
      where ${column(entity.key)} = any(cast(${arrayLiteral(keyTexts)} as ${sql.raw(entity.key.sqlType)}[]))`.execute(
      request.db,
    );
    const records = read.rows.map((row) =>
      request.policy.shown(withVirtualFields(entity.schema, row, englishTranslate)),
    );
    const shown = await readHook(request, records);
    const byKey = new Map<string, { record: Row; shown: Row }>();
    records.forEach((record, index) =>
      byKey.set(String(record[entity.key.name]), { record, shown: shown[index] ?? {} }),
    );
    const yes = request.l10n.t('export.yes');
    const no = request.l10n.t('export.no');
    for (const row of held) {
      const found = byKey.get(keyOf(row));
      if (!found) continue; // gone since its key was read
      const blanked = new Int32Array(row.fields);
      const changed: [number, unknown][] = [];
      for (const [index, col] of columns.entries()) {
        const name = col.field.name;
        const value = found.shown[name];
        if (value === undefined) {
          blanked[index * 2] = -1; // removed by afterRead: nothing of it is written
        } else if (!sameValue(value, found.record[name])) {
          blanked[index * 2] = -1;
          changed.push([index, value]);
        }
      }
      if (changed.length === 0) {
        this.writeRaw(row.bytes, blanked, columns.length);
        continue;
      }
      // The row's own cells, then those afterRead changed, in column order.
      rows.startRow();
      const cells = new Map(changed);
      for (let index = 0; index < columns.length; index += 1) {
        const start = blanked[index * 2] as number;
        if (start >= 0)
          columns[index]?.write(rows, index, row.bytes, start, blanked[index * 2 + 1] as number);
        else if (cells.has(index)) rows.value(index, cellOf(cells.get(index), yes, no));
      }
      rows.endRow();
    }
  }
}

const sameValue = (a: unknown, b: unknown): boolean =>
  a === b || (typeof a === 'object' && a !== null && JSON.stringify(a) === JSON.stringify(b));

/** A value afterRead gave, as a cell. */
function cellOf(value: unknown, yes: string, no: string): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? yes : no;
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

/** Texts as a PostgreSQL array literal: one bound parameter, however many. */
function arrayLiteral(texts: readonly string[]): string {
  return `{${texts.map((text) => `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

/** A column's value as text: the form PostgreSQL prints, ISO 8601 for dates and times. */
function textOf(field: FieldDef): RawBuilder<unknown> {
  const ref = qualified('t', field);
  if (!field.dict && (field.sqlType === 'timestamptz' || field.sqlType === 'date'))
    return sql`to_json(${ref})::text`;
  if (field.schema['x-ui']?.widget === 'richtext') return plainTextOf(ref);
  return sql`${ref}::text`;
}

/**
 * Rich text (HTML) as a reader of the sheet wants it: its text, a line per paragraph, list item
 * or line break, the common entities read; the same SQL on PGlite and PostgreSQL.
 */
function plainTextOf(ref: RawBuilder<unknown>): RawBuilder<unknown> {
  let text = sql`regexp_replace(${ref}::text, '<(br|/p|/div|/li|/h[1-6]|/tr)[^>]*>', E'\n', 'gi')`;
  text = sql`regexp_replace(${text}, '<[^>]*>', '', 'g')`;
  for (const [entity, char] of [
    ['&nbsp;', ' '],
    ['&lt;', '<'],
    ['&gt;', '>'],
    ['&quot;', '"'],
    ['&#39;', "'"],
    ['&amp;', '&'],
  ] as const)
    text = sql`replace(${text}, ${entity}, ${char})`;
  return sql`btrim(${text}, E' \n')`;
}

const writeText: FieldWriter = (rows, column, src, start, end) => rows.textBytes(column, src, start, end);
const writeNumber: FieldWriter = (rows, column, src, start, end) => rows.numberBytes(column, src, start, end);
/** A JSON string (a date as to_json prints it): the text between the quotes. */
const writeQuoted: FieldWriter = (rows, column, src, start, end) =>
  src[start] === 0x22 && src[end - 1] === 0x22 && end - start >= 2
    ? rows.textBytes(column, src, start + 1, end - 1)
    : rows.textBytes(column, src, start, end);

/** Labels by value; the map's keys are the values' UTF-8 bytes read as Latin-1, as looked up. */
function labelWriter(labels: Map<string, string>): FieldWriter {
  const texts = new Map<string, SheetText>();
  for (const [value, label] of labels) {
    if (label !== '') texts.set(Buffer.from(value, 'utf8').toString('latin1'), sheetText(label));
  }
  // Most codes are one character: those are looked up by their byte.
  const byByte: (SheetText | undefined)[] = [];
  for (const [key, text] of texts) if (key.length === 1) byByte[key.charCodeAt(0)] = text;
  return (rows, column, src, start, end) => {
    const label =
      end - start === 1 ? byByte[src[start] as number] : texts.get(src.toString('latin1', start, end));
    if (label) rows.text(column, label);
    else rows.textBytes(column, src, start, end);
  };
}

/** A JSON value (jsonb columns): parsed and shown as mapped. */
function jsonWriter(map: (value: unknown) => CellValue): FieldWriter {
  return (rows, column, src, start, end) => {
    const text = src.toString('utf8', start, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
    rows.value(column, map(value));
  };
}

/**
 * A timestamp in the server's time zone as docs/product.md §9 shows it (YYYY-MM-DD HH:mm:ss), the same as
 * formatDateTime, computed from the ISO text without a Date object per value.
 */
function dateTimeWriter(zone: string | undefined): FieldWriter {
  const offsets = new LocalOffsets(zone);
  const out = Buffer.alloc(40);
  return (rows, column, src, start, end) => {
    const length = writeIsoAsDisplay(out, src, start, end, offsets);
    if (length >= 0) rows.textBytes(column, out, 0, length);
    else rows.value(column, unusualTimestamp(src.toString('utf8', start, end), zone));
  };
}

/** Writes an ISO timestamp (see parseIsoTimestamp) in the display format; -1 when it is none. */
function writeIsoAsDisplay(
  out: Buffer,
  src: Buffer,
  start: number,
  end: number,
  offsets: LocalOffsets,
): number {
  const utc = parseIsoTimestamp(src, start, end);
  return Number.isFinite(utc) ? writeDateTime(out, utc + offsets.at(utc)) : -1;
}

/** A timestamp the fast path does not read (infinity, years before 1000 BC …): as Date reads it, else as it is. */
function unusualTimestamp(text: string, zone?: string): string {
  const iso = text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : formatDateTime(date, zone);
}

/** The display form of a timestamp as to_json prints it, the way an export shows it. */
export function displayTimestamp(iso: string, zone?: string): string {
  const src = Buffer.from(iso, 'utf8');
  const out = Buffer.alloc(40);
  const length = writeIsoAsDisplay(out, src, 0, src.length, sharedOffsets(zone));
  return length >= 0 ? out.toString('latin1', 0, length) : unusualTimestamp(iso, zone);
}

/**
 * How a plain (non-reference) value becomes a cell: dictionary labels, the approval status's
 * label (草稿 / 审批中 / 已通过 / 已驳回, as the list shows it), dates, yes/no, JSON.
 */
async function fieldWriter(request: CrudRequest, field: FieldDef): Promise<FieldWriter> {
  const { l10n } = request;
  if (field.name === APPROVAL_STATUS && workflowOf(request.entity))
    return labelWriter(new Map(APPROVAL_STATES.map((state) => [state, l10n.t(approvalStatusKey(state))])));
  if (field.dict) {
    const labels = await dictionaryLabels({
      db: request.db,
      registry: request.registry,
      l10n,
      dictType: field.dict,
    });
    if (field.sqlType !== 'jsonb') return labelWriter(labels);
    const label = (item: unknown): string => labels.get(String(item)) ?? String(item);
    return jsonWriter((value) =>
      value === null || value === undefined
        ? null
        : Array.isArray(value)
          ? value.map(label).join(', ')
          : label(value),
    );
  }
  // A 64-bit integer is text in the sheet: a number cell keeps 15 significant digits in Excel.
  if (isInt64(field.schema)) return writeText;
  // A decimal is a number cell holding the database's exact digits, shown at its scale.
  if (decimalOf(field.schema)) return writeNumber;
  switch (field.sqlType) {
    case 'timestamptz':
      return dateTimeWriter(request.timeZone);
    case 'boolean':
      return labelWriter(
        new Map([
          ['true', l10n.t('export.yes')],
          ['false', l10n.t('export.no')],
        ]),
      );
    case 'bigint':
    case 'integer':
    case 'double precision':
      return writeNumber;
    case 'jsonb':
      return jsonWriter((value) => {
        if (value === null || value === undefined) return null;
        if (typeof value === 'number' || typeof value === 'string') return value;
        return JSON.stringify(value);
      });
    case 'date':
      return writeQuoted;
    case 'text':
      return writeText;
  }
  return writeNumber; // numeric(p, s): a decimal, handled above
}

// ---------------------------------------------------------------------------------------------
// Timestamps

const digit = (src: Buffer, at: number): number => {
  const value = (src[at] ?? 0) - 0x30;
  return value >= 0 && value <= 9 ? value : NaN;
};
const twoDigits = (src: Buffer, at: number): number => digit(src, at) * 10 + digit(src, at + 1);

/** Days since 1970-01-01 of a date of the proleptic Gregorian calendar (Howard Hinnant's algorithm). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * The instant of an ISO 8601 timestamp with an offset, as PostgreSQL's to_json prints one
 * ("2024-01-02T03:04:05.678+08:00", quotes included), in whole seconds since the epoch (the
 * fraction dropped); NaN for anything else.
 */
function parseIsoTimestamp(src: Buffer, start: number, end: number): number {
  let at = start;
  let last = end;
  if (src[at] === 0x22) at += 1;
  if (src[last - 1] === 0x22) last -= 1;
  let year = 0;
  const yearStart = at;
  for (; at < last && src[at] !== 0x2d; at += 1) year = year * 10 + digit(src, at);
  if (at - yearStart < 4 || at + 15 > last) return NaN;
  if (src[at + 3] !== 0x2d || src[at + 6] !== 0x54 || src[at + 9] !== 0x3a || src[at + 12] !== 0x3a)
    return NaN;
  const month = twoDigits(src, at + 1);
  const day = twoDigits(src, at + 4);
  const seconds = twoDigits(src, at + 7) * 3600 + twoDigits(src, at + 10) * 60 + twoDigits(src, at + 13);
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31 && seconds >= 0)) return NaN;
  at += 15;
  if (src[at] === 0x2e) for (at += 1; at < last && digit(src, at) >= 0;) at += 1; // the fraction
  let offset = 0;
  const sign = src[at];
  if (sign === 0x5a && at + 1 === last) {
    offset = 0; // Z
  } else if ((sign === 0x2b || sign === 0x2d) && at + 3 <= last) {
    offset = twoDigits(src, at + 1) * 3600;
    at += 3;
    if (src[at] === 0x3a) {
      offset += twoDigits(src, at + 1) * 60;
      at += 3;
    }
    if (src[at] === 0x3a) {
      offset += twoDigits(src, at + 1);
      at += 3;
    }
    if (at !== last) return NaN;
    if (sign === 0x2d) offset = -offset;
  } else {
    return NaN;
  }
  return daysFromCivil(year, month, day) * 86_400 + seconds - offset;
}

/** Days from 1970-01-01 whose offsets are kept in a table: 1900 to 2100. */
const FIRST_CACHED_DAY = daysFromCivil(1900, 1, 1);
const CACHED_DAYS = daysFromCivil(2100, 1, 1) - FIRST_CACHED_DAY;
/** A day not looked at yet; a day in which the offset changes. */
const UNKNOWN_DAY = 0x7fffffff;
const CHANGING_DAY = 0x7ffffffe;
/** The hours of a day at which its offset is compared: a day whose samples differ is not cached. */
const SAMPLE_SECONDS = [0, 4, 8, 12, 16, 20].map((hour) => hour * 3600).concat(86_399);

/**
 * The offset of the server's time zone at an instant, in seconds: looked up once per UTC day in a
 * table (every export of seven years of dates would otherwise look up tens of thousands of
 * quarter hours). A day in which the offset changes (daylight saving time, a zone's new rule) is
 * not cached, and each of its instants is looked up on its own.
 */
class LocalOffsets {
  private readonly days = new Int32Array(CACHED_DAYS).fill(UNKNOWN_DAY);
  private readonly offsetAt: (utcSeconds: number) => number;

  /** zone: an IANA time zone (the reader's); the server's own when undefined. */
  constructor(zone?: string) {
    this.offsetAt = zone === undefined ? localOffset : (utcSeconds) => zoneOffset(utcSeconds, zone);
  }

  at(utcSeconds: number): number {
    const day = Math.floor(utcSeconds / 86_400);
    const index = day - FIRST_CACHED_DAY;
    if (!(index >= 0 && index < CACHED_DAYS)) return this.offsetAt(utcSeconds);
    let offset = this.days[index] as number;
    if (offset === UNKNOWN_DAY) {
      const start = day * 86_400;
      const first = this.offsetAt(start);
      offset = SAMPLE_SECONDS.every((at) => this.offsetAt(start + at) === first) ? first : CHANGING_DAY;
      this.days[index] = offset;
    }
    return offset === CHANGING_DAY ? this.offsetAt(utcSeconds) : offset;
  }
}

/** One table of offsets for single values, made again when the process's time zone changes. */
let shared: { zone: string | undefined; offsets: LocalOffsets } | undefined;
/** The tables of the readers' time zones (a handful: the zones the users' browsers are in). */
const zoneTables = new Map<string, LocalOffsets>();
function sharedOffsets(zone?: string): LocalOffsets {
  if (zone !== undefined) {
    let table = zoneTables.get(zone);
    if (!table) {
      if (zoneTables.size >= 64) zoneTables.clear();
      table = new LocalOffsets(zone);
      zoneTables.set(zone, table);
    }
    return table;
  }
  const serverZone = process.env.TZ;
  if (!shared || shared.zone !== serverZone) shared = { zone: serverZone, offsets: new LocalOffsets() };
  return shared.offsets;
}

/** Local wall-clock time minus universal time, to the second (getTimezoneOffset has whole minutes only). */
function localOffset(utcSeconds: number): number {
  const date = new Date(utcSeconds * 1000);
  const local =
    daysFromCivil(date.getFullYear(), date.getMonth() + 1, date.getDate()) * 86_400 +
    date.getHours() * 3600 +
    date.getMinutes() * 60 +
    date.getSeconds();
  return local - utcSeconds;
}

/** Writes a wall-clock time (seconds since the epoch) as YYYY-MM-DD HH:mm:ss; returns the length. */
function writeDateTime(out: Buffer, seconds: number): number {
  const days = Math.floor(seconds / 86_400);
  const secondOfDay = seconds - days * 86_400;
  // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  let at = 0;
  if (year >= 1000 && year <= 9999) {
    out[0] = 0x30 + Math.floor(year / 1000);
    out[1] = 0x30 + (Math.floor(year / 100) % 10);
    out[2] = 0x30 + (Math.floor(year / 10) % 10);
    out[3] = 0x30 + (year % 10);
    at = 4;
  } else {
    at = out.write(String(year), 0, 'latin1'); // as formatDateTime prints it
  }
  at = writeTwoDigits(out, at, 0x2d, month);
  at = writeTwoDigits(out, at, 0x2d, day);
  at = writeTwoDigits(out, at, 0x20, Math.floor(secondOfDay / 3600));
  at = writeTwoDigits(out, at, 0x3a, Math.floor(secondOfDay / 60) % 60);
  return writeTwoDigits(out, at, 0x3a, secondOfDay % 60);
}

/** Writes a separator and a number below 100 in two digits at `at`; returns the end. */
function writeTwoDigits(out: Buffer, at: number, separator: number, value: number): number {
  out[at] = separator;
  out[at + 1] = 0x30 + Math.floor(value / 10);
  out[at + 2] = 0x30 + (value % 10);
  return at + 3;
}
