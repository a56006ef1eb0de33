import ExcelJS from 'exceljs';
import { sql, type RawBuilder } from 'kysely';
import {
  decimalNumberFormat,
  decimalOf,
  type EntityDef,
  type FieldDef,
  type FieldError,
  type ReportCell,
  type ReportChartType,
  type ReportColumn,
  type ReportDefinition,
  type ReportResult,
} from '../../../../engine/index.js';
import { BUDGETS } from '../../../lib/budgets.js';
import type { AppContext } from '../../../lib/context.js';
import { AppError } from '../../../lib/errors.js';
import { column, filterCondition, scopeCondition, table, whereClause } from '../../../lib/sql/toolkit.js';
import { dictionaryLabels } from '../../crud/index.js';
import {
  reportEntity,
  reportField,
  reportPolicy,
  type ReportAccess,
  type ReportField,
} from './report-fields.js';

/**
 * Runs a report definition of the report designer: one GROUP BY over an entity's
 * table, built only from the entity's known columns and bound values, within the caller's tenant,
 * list URL grant and data-field permissions; filters are the entity list's own (policy.listQuery).
 */

export type ChartType = ReportChartType;
export type MeasureFunction = 'count' | 'sum' | 'avg';

export type { ReportCell, ReportColumn, ReportDefinition, ReportResult };

export const MAX_GROUPS = 500;
const MEASURE = /^(count):\*$|^(sum|avg):([a-zA-Z][a-zA-Z0-9_]*)$/;

interface PlannedMeasure {
  fn: MeasureFunction;
  field?: FieldDef;
  info?: ReportField;
}

interface Plan {
  entity: EntityDef;
  dimensions: { field: FieldDef; info: ReportField }[];
  measures: PlannedMeasure[];
  conditions: RawBuilder<unknown>[];
}

async function plan(access: ReportAccess, definition: ReportDefinition): Promise<Plan> {
  const { l10n } = access;
  const entity = reportEntity({
    ctx: access.ctx,
    l10n,
    tenantCode: access.auth.tenantCode,
    name: definition.entity,
  });
  const policy = await reportPolicy(access, entity);
  const errors: FieldError[] = [];
  const usable = (name: string): { field: FieldDef; info: ReportField } | undefined => {
    const field = entity.fieldsByName.get(name);
    const info = field && reportField({ l10n, entity, field, policy });
    return field && info ? { field, info } : undefined;
  };
  const dimensions = definition.dimensions.flatMap((name, index) => {
    const found = usable(name);
    if (found?.info.isDimension) return [found];
    errors.push({ field: `/dimensions/${index}`, message: l10n.t('report.notDimension', { name }) });
    return [];
  });
  const measures = definition.measures.flatMap((text, index): PlannedMeasure[] => {
    const match = MEASURE.exec(text);
    if (match?.[1] === 'count') return [{ fn: 'count' }];
    const found = match?.[3] ? usable(match[3]) : undefined;
    if (match && found?.info.isMeasure) return [{ fn: match[2] as MeasureFunction, ...found }];
    errors.push({ field: `/measures/${index}`, message: l10n.t('report.notMeasure', { name: text }) });
    return [];
  });
  if (definition.measures.length === 0)
    errors.push({ field: '/measures', message: l10n.t('report.noMeasure') });
  if (errors.length > 0) throw new AppError('validation', {}, errors);
  // The list's own filters: a hidden or unknown field is refused naming it (400).
  const query = policy.listQuery(definition.filters);
  return {
    entity,
    dimensions,
    measures,
    conditions: [
      ...scopeCondition(entity, access.auth),
      ...(policy.rowConditions ?? []),
      ...query.filters.map(filterCondition),
    ],
  };
}

/** A dimension's SQL: dates by month (YYYY-MM), everything else as stored. */
function dimensionSql(field: FieldDef, offset: number): RawBuilder<unknown> {
  if (field.sqlType === 'timestamptz')
    return sql`to_char((${column(field)} at time zone 'UTC') + make_interval(mins => ${offset}), 'YYYY-MM')`;
  if (field.sqlType === 'date') return sql`to_char(${column(field)}, 'YYYY-MM')`;
  return column(field);
}

function measureSql(measure: Plan['measures'][number]): RawBuilder<unknown> {
  if (measure.fn === 'count' || !measure.field) return sql`count(*)::int`;
  // A decimal is summed and averaged on numeric, exactly, and answered as text at its scale
  // (the average rounded half away from zero to the scale): never through a float.
  const decimal = decimalOf(measure.field.schema);
  if (decimal) {
    const ref = column(measure.field);
    const scale = sql.lit(decimal.scale);
    return measure.fn === 'sum'
      ? sql`round(sum(${ref}), greatest(scale(sum(${ref})), ${scale}))::text`
      : sql`round(avg(${ref}), ${scale})::text`;
  }
  return measure.fn === 'sum'
    ? sql`sum(${column(measure.field)})::float8`
    : sql`round(avg(${column(measure.field)})::numeric, 2)::float8`;
}

/** Labels of dimension values: dictionary labels, referenced records' labels, yes/no. */
async function labeller(
  access: ReportAccess,
  dimension: Plan['dimensions'][number],
  values: unknown[],
): Promise<(value: unknown) => ReportCell> {
  const { ctx, l10n, auth } = access;
  const { field } = dimension;
  const empty = l10n.t('report.empty');
  if (field.dict) {
    const labels = await dictionaryLabels({ db: ctx.db, registry: ctx.registry, l10n, dictType: field.dict });
    return (value) => (value === null ? empty : (labels.get(String(value)) ?? String(value)));
  }
  const target = field.ref ? ctx.registry.get(field.ref) : undefined;
  if (target) {
    const keys = [...new Set(values.filter((value) => value !== null && value !== undefined))];
    const labelField = target.fieldsByName.get(target.label) ?? target.key;
    const labels = new Map<string, string>();
    if (keys.length > 0) {
      const rows = await sql<{ key: unknown; label: unknown }>`select ${column(target.key)} as key,
        ${column(labelField)} as label from ${table(target)}
        ${whereClause([sql`${column(target.key)} in (${sql.join(keys)})`, ...scopeCondition(target, auth)])}`.execute(
        ctx.db,
      );
      for (const row of rows.rows) labels.set(String(row.key), String(row.label ?? row.key));
    }
    return (value) => (value === null ? empty : (labels.get(String(value)) ?? String(value)));
  }
  if (field.sqlType === 'boolean')
    return (value) => (value === null ? empty : l10n.t(value === true ? 'export.yes' : 'export.no'));
  return (value) =>
    value === null || value === '' ? empty : typeof value === 'number' ? value : String(value);
}

function measureTitle(access: ReportAccess, measure: Plan['measures'][number]): string {
  if (measure.fn === 'count') return access.l10n.t('report.count');
  return access.l10n.t(`report.${measure.fn}`, { field: measure.info?.title ?? '' });
}

const QUERY_CANCELED = '57014';

const isQueryCanceled = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === QUERY_CANCELED;

/**
 * Runs the report's query within BUDGETS.reports, else a 422 naming the budget. On PostgreSQL
 * under a statement timeout of queryMs, in its own transaction. On PGlite a query cannot be
 * stopped (it runs in the server's thread), so the rows it would group are counted first, in a
 * scan that stops one past the `rows` budget.
 */
async function withinBudget(
  ctx: AppContext,
  planned: Plan,
  query: RawBuilder<Record<string, unknown>>,
): Promise<{ rows: Record<string, unknown>[] }> {
  const { queryMs, rows } = BUDGETS.reports;
  if (ctx.dbKind === 'pglite') {
    const counted = await sql<{ rows: number }>`select count(*)::int as rows from (select 1
      from ${table(planned.entity)} ${whereClause(planned.conditions)} limit ${rows + 1}) as bounded`.execute(
      ctx.db,
    );
    if ((counted.rows[0]?.rows ?? 0) > rows)
      throw new AppError('reportBudget', { budget: 'reports.rows', limit: String(rows) });
    return query.execute(ctx.db);
  }
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      await sql.raw(`set local statement_timeout = ${Math.max(1, Math.floor(queryMs))}`).execute(trx);
      return query.execute(trx);
    });
  } catch (error) {
    if (isQueryCanceled(error))
      throw new AppError('reportBudget', { budget: 'reports.queryMs', limit: `${queryMs} ms` });
    throw error;
  }
}

export async function runReport({
  access,
  definition,
  offset = 0,
}: {
  access: ReportAccess;
  definition: ReportDefinition;
  /** The caller's minutes east of UTC: dates are grouped by their months. */
  offset?: number;
}): Promise<ReportResult> {
  const planned = await plan(access, definition);
  const dims = planned.dimensions.map(
    (dimension, index) => sql`${dimensionSql(dimension.field, offset)} as ${sql.id(`d${index}`)}`,
  );
  const measures = planned.measures.map(
    (measure, index) => sql`${measureSql(measure)} as ${sql.id(`m${index}`)}`,
  );
  const positions = planned.dimensions.map((_unused, index) => sql.lit(index + 1));
  const grouping =
    positions.length > 0
      ? sql`group by ${sql.join(positions)} order by ${sql.join(positions.map((position) => sql`${position} asc nulls first`))}`
      : sql``;
  const result = await withinBudget(
    access.ctx,
    planned,
    sql<Record<string, unknown>>`select ${sql.join([...dims, ...measures])}
    from ${table(planned.entity)} ${whereClause(planned.conditions)} ${grouping}
    limit ${MAX_GROUPS + 1}`,
  );
  const rows = result.rows.slice(0, MAX_GROUPS);
  const labels = await Promise.all(
    planned.dimensions.map((dimension, index) =>
      labeller(
        access,
        dimension,
        rows.map((row) => row[`d${index}`]),
      ),
    ),
  );
  const columns: ReportColumn[] = [
    ...planned.dimensions.map((dimension, index) => ({
      key: `d${index}`,
      title: dimension.info.title,
      kind: 'dimension' as const,
    })),
    ...planned.measures.map((measure, index) => ({
      key: `m${index}`,
      title: measureTitle(access, measure),
      kind: 'measure' as const,
    })),
  ];
  return {
    columns,
    rows: rows.map((row) => {
      const shown: Record<string, ReportCell> = {};
      planned.dimensions.forEach((_dimension, index) => {
        shown[`d${index}`] = labels[index]?.(row[`d${index}`] ?? null) ?? null;
      });
      planned.measures.forEach((_measure, index) => {
        const value = row[`m${index}`];
        shown[`m${index}`] =
          value === null || value === undefined
            ? null
            : typeof value === 'string' &&
                planned.measures[index]?.field &&
                decimalOf(planned.measures[index].field.schema)
              ? value
              : Number(value);
      });
      return shown;
    }),
    isTruncated: result.rows.length > MAX_GROUPS,
  };
}

const DECIMAL_TEXT = /^-?\d+(?:\.(\d+))?$/;

/** The report's table as an .xlsx: a title row, the header row, the groups. */
export async function reportWorkbook(title: string, report: ReportResult): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(title.slice(0, 31).replace(/[\\/?*[\]:]/g, ' ') || 'report');
  sheet.addRow([title]).font = { bold: true, size: 14 };
  if (report.columns.length > 1) sheet.mergeCells(1, 1, 1, report.columns.length);
  sheet.addRow(report.columns.map((col) => col.title)).font = { bold: true };
  for (const row of report.rows) {
    const added = sheet.addRow(report.columns.map((col) => row[col.key] ?? null));
    report.columns.forEach((col, index) => {
      const value = row[col.key];
      // A decimal measure (exact digits on the wire) is a number cell at its scale, not text.
      const digits = col.kind === 'measure' && typeof value === 'string' ? DECIMAL_TEXT.exec(value) : null;
      if (!digits || typeof value !== 'string') return;
      const cell = added.getCell(index + 1);
      cell.value = Number(value);
      cell.numFmt = decimalNumberFormat(digits[1]?.length ?? 0);
    });
  }
  report.columns.forEach((col, index) => {
    sheet.getColumn(index + 1).width = Math.max(12, col.title.length * 2 + 4);
  });
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** 400 naming each field of the definition the caller may not use (nothing is run). */
export async function checkReport(access: ReportAccess, definition: ReportDefinition): Promise<void> {
  await plan(access, definition);
}
