import type { Readable } from 'node:stream';
import { sql, type RawBuilder } from 'kysely';
import {
  EntityInputError,
  exportColumns,
  parseListQuery,
  type EntityDef,
  type FieldDef,
  type RawParams,
} from '../../engine/index.js';
import type { Db, Row } from '../db/database.js';
import type { EntityRegistry } from '../entities/registry.js';
import type { Localizer } from '../i18n/index.js';
import type { CrudRequest } from './service.js';
import { rejectHiddenParams } from './data-fields.js';
import { column, filterCondition, orderByClause, scopeCondition, table, whereClause } from './sql.js';
import { entityTitle, fieldTitle } from './titles.js';
import { createXlsxWriter, type CellValue } from './xlsx.js';

const BATCH = 2000;

export interface ExportFile {
  fileName: string;
  stream: Readable;
}

const pad = (value: number): string => String(value).padStart(2, '0');

/** SPEC §9 display format, YYYY-MM-DD HH:mm:ss, in the server's time zone. */
export function formatDateTime(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

async function dictionaryLabels(
  db: Db,
  registry: EntityRegistry,
  l10n: Localizer,
  dictType: string,
): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  const dict = registry.get('sysdict');
  const typeField = dict?.fieldsByName.get('dictType');
  const valueField = dict?.fieldsByName.get('dictValue');
  const nameField = dict?.fieldsByName.get('dictName');
  if (!dict || !typeField || !valueField || !nameField) return labels;
  const rows = await sql<{
    value: string;
    name: string;
  }>`select ${column(valueField)} as value, ${column(nameField)} as name
    from ${table(dict)} where ${column(typeField)} = ${dictType} and ${column(valueField)} is not null`.execute(
    db,
  );
  for (const row of rows.rows)
    labels.set(row.value, l10n.find([`dicts.${dictType}.${row.value}`]) ?? row.name);
  return labels;
}

/** One exported column: how to read it in SQL and how to show it in a cell. */
interface ExportColumn {
  field: FieldDef;
  select: RawBuilder<unknown>;
  toCell(value: unknown): CellValue;
}

const qualified = (alias: string, field: FieldDef): RawBuilder<unknown> =>
  sql.ref(`${alias}.${field.column}`);

/**
 * Streams every row matching the filters and sort as an .xlsx: translated headers, dictionary
 * and reference labels, no secret fields. The ordered keys are read first, then the rows in
 * batches (each as one JSON value, which both drivers parse far faster than row objects), so
 * memory stays flat and the single-connection embedded database is free between batches.
 */
export async function exportRecords(request: CrudRequest, body: unknown): Promise<ExportFile> {
  const { entity, l10n, actor, registry } = request;
  const isFilterObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  // No body means no filters; anything else that is not an object must not turn into "export everything".
  if (!isFilterObject && body !== undefined && body !== null) {
    throw new EntityInputError([{ field: '/', message: l10n.t('validation.type', { type: 'object' }) }]);
  }
  const params: RawParams = isFilterObject ? { ...(body as RawParams) } : {};
  delete params.currentPage;
  delete params.pageSize;
  rejectHiddenParams(params, request.hiddenFields, l10n);
  const query = parseListQuery(entity, params, l10n.t);
  const where = whereClause([...scopeCondition(entity, actor), ...query.filters.map(filterCondition)]);
  const keyResult = await sql<{
    keys: unknown[] | null;
  }>`select json_agg(${column(entity.key)} ${orderByClause(entity, query.sort)}) as keys
    from ${table(entity)} ${where}`.execute(request.db);
  const keys = keyResult.rows[0]?.keys ?? [];

  const joins: RawBuilder<unknown>[] = [];
  const columns: ExportColumn[] = [];
  const visibleColumns = exportColumns(entity).filter((col) => !request.hiddenFields?.has(col.field));
  for (const [index, listColumn] of visibleColumns.entries()) {
    const field = entity.fieldsByName.get(listColumn.field);
    if (!field) continue;
    const alias = `c${index}`;
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
        select: sql`coalesce(${qualified(joinAlias, labelField)}::text, ${qualified('t', field)}::text) as ${sql.id(alias)}`,
        toCell: (value) => (value === null || value === undefined ? null : String(value)),
      });
      continue;
    }
    columns.push({
      field,
      select: sql`${qualified('t', field)} as ${sql.id(alias)}`,
      toCell: await cellMapper(request, field),
    });
  }

  const title = entityTitle(l10n, entity);
  const writer = createXlsxWriter({
    sheetName: title,
    headers: columns.map((col) => fieldTitle(l10n, entity, col.field)),
    widths: columns.map((col) => Math.max(10, Math.round((col.field.schema['x-list']?.width ?? 120) / 7))),
  });
  const aliases = columns.map((_, index) => `c${index}`);
  const selectList = sql.join(columns.map((col) => col.select));

  const fetchBatch = async (start: number): Promise<{ keys: unknown[]; rows: Map<unknown, Row> }> => {
    const batchKeys = keys.slice(start, start + BATCH);
    const result = await sql<{ rows: Row[] | null }>`select json_agg(b) as rows from (
        select ${qualified('t', entity.key)} as "__key", ${selectList} from ${table(entity)} as t ${sql.join(joins, sql` `)}
        where ${qualified('t', entity.key)} in (${sql.join(batchKeys)})) b`.execute(request.db);
    return { keys: batchKeys, rows: new Map((result.rows[0]?.rows ?? []).map((row) => [row.__key, row])) };
  };

  const produce = async (): Promise<void> => {
    // The next batch is read while the current one is written: on PostgreSQL the two overlap.
    let next = keys.length > 0 ? fetchBatch(0) : undefined;
    for (let start = 0; next; start += BATCH) {
      const batch = await next;
      next = start + BATCH < keys.length ? fetchBatch(start + BATCH) : undefined;
      const cells: CellValue[][] = [];
      for (const key of batch.keys) {
        const row = batch.rows.get(key);
        if (!row) continue; // deleted since the keys were read
        cells.push(columns.map((col, index) => col.toCell(row[aliases[index] ?? ''])));
      }
      await writer.writeRows(cells);
      if (writer.stream.destroyed) {
        await next?.catch(() => undefined);
        return; // the client went away
      }
      // Let the response stream and other requests run between batches (PGlite never yields by itself).
      await new Promise((resolve) => setImmediate(resolve));
    }
    await writer.end();
  };
  produce().catch((error: unknown) =>
    writer.stream.destroy(error instanceof Error ? error : new Error(String(error))),
  );

  const stamp = formatDateTime(new Date()).replace(/[-: ]/g, '');
  return { fileName: `${entity.name}-${stamp}.xlsx`, stream: writer.stream };
}

/** How a plain (non-reference) value becomes a cell: dictionary labels, dates, yes/no, JSON. */
async function cellMapper(request: CrudRequest, field: FieldDef): Promise<(value: unknown) => CellValue> {
  const { l10n } = request;
  if (field.dict) {
    const labels = await dictionaryLabels(request.db, request.registry, l10n, field.dict);
    const label = (item: unknown): string => labels.get(String(item)) ?? String(item);
    return (value) =>
      value === null || value === undefined
        ? null
        : Array.isArray(value)
          ? value.map(label).join(', ')
          : label(value);
  }
  if (field.sqlType === 'timestamptz') {
    return (value) => (typeof value === 'string' ? formatDateTime(new Date(value)) : null);
  }
  if (field.sqlType === 'boolean') {
    return (value) => (typeof value === 'boolean' ? l10n.t(value ? 'export.yes' : 'export.no') : null);
  }
  return (value) => {
    if (value === null || value === undefined) return null;
    if (typeof value === 'number' || typeof value === 'string') return value;
    return JSON.stringify(value);
  };
}
