import { PassThrough, type Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { sql } from 'kysely';
import { EntityInputError, exportColumns, parseListQuery, type EntityDef, type ListColumn, type RawParams } from '../../engine/index.js';
import type { Db, Row } from '../db/database.js';
import type { EntityRegistry } from '../entities/registry.js';
import type { Localizer } from '../i18n/index.js';
import type { CrudRequest } from './service.js';
import { column, filterCondition, orderByClause, scopeCondition, selectList, table, whereClause } from './sql.js';
import { entityTitle, fieldTitle } from './titles.js';

const BATCH = 2000;

export interface ExportFile {
  fileName: string;
  stream: Readable;
}

/** Waits until a slow client has read what is buffered, or has gone away. */
function drainedOrClosed(stream: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

const pad = (value: number): string => String(value).padStart(2, '0');

/** SPEC §9 display format, YYYY-MM-DD HH:mm:ss, in the server's time zone. */
export function formatDateTime(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

type Labeller = (value: unknown) => unknown;

async function dictionaryLabels(db: Db, registry: EntityRegistry, l10n: Localizer, dictType: string): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  const dict = registry.get('sysdict');
  const typeField = dict?.fieldsByName.get('dictType');
  const valueField = dict?.fieldsByName.get('dictValue');
  const nameField = dict?.fieldsByName.get('dictName');
  if (!dict || !typeField || !valueField || !nameField) return labels;
  const rows = await sql<{ value: string; name: string }>`select ${column(valueField)} as value, ${column(nameField)} as name
    from ${table(dict)} where ${column(typeField)} = ${dictType} and ${column(valueField)} is not null`.execute(db);
  for (const row of rows.rows) labels.set(row.value, l10n.find([`dicts.${dictType}.${row.value}`]) ?? row.name);
  return labels;
}

async function referenceLabels(request: CrudRequest, target: EntityDef, keys: unknown[]): Promise<Map<unknown, unknown>> {
  const labelField = target.fieldsByName.get(target.label);
  if (keys.length === 0 || !labelField) return new Map();
  const rows = await sql<{ key: unknown; label: unknown }>`select ${column(target.key)} as key, ${column(labelField)} as label
    from ${table(target)} ${whereClause([sql`${column(target.key)} in (${sql.join(keys)})`, ...scopeCondition(target, request.actor)])}`.execute(request.db);
  return new Map(rows.rows.map((row) => [row.key, row.label]));
}

function cellValue(value: unknown, l10n: Localizer): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return formatDateTime(value);
  if (typeof value === 'boolean') return l10n.t(value ? 'export.yes' : 'export.no');
  if (Array.isArray(value) || typeof value === 'object') return JSON.stringify(value);
  return value;
}

/**
 * Streams every row matching the filters and sort as an .xlsx: translated headers, dictionary
 * and reference labels, no secret fields. Keys are read first, then rows in batches, so memory
 * stays flat and the (single-connection) embedded database is never held for the whole export.
 */
export async function exportRecords(request: CrudRequest, body: unknown): Promise<ExportFile> {
  const { entity, l10n } = request;
  const isFilterObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  // No body means no filters; anything else that is not an object must not turn into "export everything".
  if (!isFilterObject && body !== undefined && body !== null) {
    throw new EntityInputError([{ field: '/', message: l10n.t('validation.type', { type: 'object' }) }]);
  }
  const params: RawParams = isFilterObject ? { ...(body as RawParams) } : {};
  delete params.currentPage;
  delete params.pageSize;
  const query = parseListQuery(entity, params, l10n.t);
  const where = whereClause([...scopeCondition(entity, request.actor), ...query.filters.map(filterCondition)]);
  const keyRows = await sql<{ key: unknown }>`select ${column(entity.key)} as key from ${table(entity)} ${where}
    ${orderByClause(entity, query.sort)}`.execute(request.db);
  const keys = keyRows.rows.map((row) => row.key);

  const columns = exportColumns(entity);
  const dictLabels = new Map<string, Map<string, string>>();
  for (const col of columns) {
    if (col.dict && !dictLabels.has(col.dict)) dictLabels.set(col.dict, await dictionaryLabels(request.db, request.registry, l10n, col.dict));
  }

  const stream = new PassThrough({ highWaterMark: 1024 * 1024 });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: false, useSharedStrings: false });
  const title = entityTitle(l10n, entity);
  const sheet = workbook.addWorksheet(title.slice(0, 31));
  sheet.columns = columns.map((col) => ({
    header: fieldTitle(l10n, entity, entity.fieldsByName.get(col.field) ?? entity.key),
    key: col.field,
    width: Math.max(10, Math.round((col.width ?? 120) / 7)),
  }));

  const writeBatch = async (batchKeys: unknown[]): Promise<void> => {
    const rows = await sql<Row>`select ${selectList(entity)} from ${table(entity)}
      where ${column(entity.key)} in (${sql.join(batchKeys)})`.execute(request.db);
    const byKey = new Map(rows.rows.map((row) => [row[entity.key.name], row]));
    const labellers = new Map<string, Labeller>();
    for (const col of columns) labellers.set(col.field, await labellerFor(col, rows.rows));
    for (const key of batchKeys) {
      const row = byKey.get(key);
      if (!row) continue; // deleted since the keys were read
      sheet.addRow(columns.map((col) => cellValue((labellers.get(col.field) ?? ((v: unknown) => v))(row[col.field]), l10n))).commit();
    }
  };

  const labellerFor = async (col: ListColumn, rows: Row[]): Promise<Labeller> => {
    if (col.dict) {
      const labels = dictLabels.get(col.dict) ?? new Map<string, string>();
      return (value) =>
        Array.isArray(value) ? value.map((item) => labels.get(String(item)) ?? item).join(', ') : value === null || value === undefined ? value : labels.get(String(value)) ?? value;
    }
    if (col.ref) {
      const target = request.registry.require(col.ref);
      const wanted = [...new Set(rows.map((row) => row[col.field]).filter((value) => value !== null && value !== undefined))];
      const labels = await referenceLabels(request, target, wanted);
      return (value) => labels.get(value) ?? value;
    }
    return (value) => value;
  };

  const produce = async (): Promise<void> => {
    for (let start = 0; start < keys.length; start += BATCH) {
      await writeBatch(keys.slice(start, start + BATCH));
      if (stream.destroyed) return; // the client went away
      if (stream.writableNeedDrain) await drainedOrClosed(stream);
    }
    sheet.commit();
    await workbook.commit();
  };
  produce().catch((error: unknown) => stream.destroy(error instanceof Error ? error : new Error(String(error))));

  const stamp = formatDateTime(new Date()).replace(/[-: ]/g, '');
  return { fileName: `${entity.name}-${stamp}.xlsx`, stream };
}
