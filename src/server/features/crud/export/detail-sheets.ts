import { sql, type RawBuilder } from 'kysely';
import {
  decimalNumberFormat,
  decimalOf,
  detailFields,
  detailTieField,
  type EntityDef,
  type FieldDef,
  type SortTerm,
} from '../../../../engine/index.js';
import type { Db } from '../../../lib/db/database.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { EntityRegistry } from '../../../lib/registry.js';
import {
  column,
  orderByClause,
  readColumn,
  scopeCondition,
  table,
  whereClause,
  type Actor,
} from '../../../lib/sql/toolkit.js';
import { detailColumnTitle, entityTitle, fieldTitle } from '../../../lib/titles.js';
import type { CellValue, XlsxSheet, XlsxWriter } from '../../../lib/xlsx/write.js';

/**
 * Detail (x-detail) rows on sheets after the records' own: one sheet per detail field, each row
 * led by its parent's label and its position, then its columns with dictionary and reference
 * labels, in the order of the exported parents.
 */
const BATCH = 2000;

export interface DetailSheets {
  sheets: XlsxSheet[];
  /** Writes every detail sheet in turn (the records' sheet is done). */
  write(writer: XlsxWriter): Promise<void>;
}

interface DetailExportContext {
  db: Db;
  registry: EntityRegistry;
  entity: EntityDef;
  actor: Actor;
  l10n: Localizer;
  /** The export's filters, on the parent table. */
  conditions: RawBuilder<unknown>[];
  sort: SortTerm[];
  /** Turns a value into a cell as the records' sheet does (dates, yes/no, dictionaries). */
  dictionaryLabels: (dictType: string) => Promise<Map<string, string>>;
  formatDateTime: (date: Date) => string;
}

/** Labels of the referenced records a column's values point at. */
async function referenceLabels(
  ctx: DetailExportContext,
  field: FieldDef,
  values: unknown[],
): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  const target = ctx.registry.get(field.ref ?? '');
  const keys = [...new Set(values.filter((value) => value !== null && value !== undefined))];
  if (!target || keys.length === 0) return labels;
  const labelField = target.fieldsByName.get(target.label) ?? target.key;
  const rows = await sql<{ key: unknown; label: unknown }>`select ${column(target.key)} as key,
    ${column(labelField)} as label from ${table(target)}
    ${whereClause([sql`${column(target.key)} in (${sql.join(keys)})`, ...scopeCondition(target, ctx.actor)])}`.execute(
    ctx.db,
  );
  for (const row of rows.rows) labels.set(String(row.key), String(row.label ?? row.key));
  return labels;
}

export function detailSheets(ctx: DetailExportContext): DetailSheets {
  const { entity, l10n } = ctx;
  const fields = detailFields(entity);
  const parentLabel = detailTieField(entity);
  const sheets = fields.map((field): XlsxSheet => ({
    sheetName: `${entityTitle(l10n, entity)} - ${fieldTitle({ l10n, entity, field })}`,
    headers: [
      fieldTitle({ l10n, entity, field: parentLabel }),
      '#',
      ...field.detail.fields.map((item) =>
        detailColumnTitle({ l10n, entity, detailFieldName: field.name, column: item }),
      ),
    ],
    widths: [24, 6, ...field.detail.fields.map(() => 16)],
    numberFormats: [
      undefined,
      undefined,
      ...field.detail.fields.map((item) => {
        const decimal = decimalOf(item.schema);
        return decimal ? decimalNumberFormat(decimal.scale) : undefined;
      }),
    ],
  }));

  const cellOf = async (items: FieldDef[], rows: Record<string, unknown>[]) => {
    const writers = await Promise.all(
      items.map(async (item): Promise<(value: unknown) => CellValue> => {
        if (item.dict) {
          const labels = await ctx.dictionaryLabels(item.dict);
          const label = (value: unknown): string => labels.get(String(value)) ?? String(value);
          return (value) => (Array.isArray(value) ? value.map(label).join(', ') : label(value));
        }
        if (item.ref) {
          const labels = await referenceLabels(
            ctx,
            item,
            rows.map((row) => row[item.name]),
          );
          return (value) => labels.get(String(value)) ?? String(value);
        }
        if (item.sqlType === 'timestamptz') return (value) => ctx.formatDateTime(new Date(String(value)));
        if (item.sqlType === 'date')
          return (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
        if (item.sqlType === 'boolean') return (value) => l10n.t(value === true ? 'export.yes' : 'export.no');
        if (item.sqlType === 'jsonb') return (value) => JSON.stringify(value);
        if (item.type === 'integer' || item.type === 'number') return (value) => Number(value);
        // A decimal: a number cell of its exact digits; an int64: its digits as text.
        if (decimalOf(item.schema)) return (value) => ({ number: String(value) });
        return (value) => String(value);
      }),
    );
    return rows.map((row): CellValue[] => [
      row.__label === null || row.__label === undefined ? null : String(row.__label),
      Number(row.__seq),
      ...items.map((item, index) => {
        const value = row[item.name];
        return value === null || value === undefined ? null : (writers[index]?.(value) ?? null);
      }),
    ]);
  };

  return {
    sheets,
    write: async (writer) => {
      for (const field of fields) {
        await writer.nextSheet();
        const items = field.detail.fields;
        const { parentColumn, seqColumn, keyColumn, isAdopted } = field.detail;
        const parentRef = sql.ref(`c.${parentColumn}`);
        const order = sql.ref(`c.${seqColumn ?? keyColumn}`);
        const select = [
          sql`${sql.ref(`t.${parentLabel.column}`)} as ${sql.id('__label')}`,
          // An adopted child table without a position column: the row's place in key order.
          seqColumn === null
            ? sql`row_number() over (partition by ${parentRef} order by ${order}) as ${sql.id('__seq')}`
            : sql`${order} as ${sql.id('__seq')}`,
          ...items.map(
            (item) => sql`${readColumn(item, sql.ref(`c.${item.column}`))} as ${sql.id(item.name)}`,
          ),
        ];
        // An adopted child table has no tenant_code: its rows are scoped by their parents.
        const rowScope =
          entity.isTenantScoped && !isAdopted ? sql` and c.tenant_code = ${ctx.actor.tenantCode}` : sql``;
        for (let offset = 0; ; offset += BATCH) {
          // Tenant and filters apply to the parents (a subquery: both tables have tenant_code).
          const rows = await sql<Record<string, unknown>>`select ${sql.join(select)}
            from (select * from ${table(entity)} ${whereClause(ctx.conditions)}) as t
            join ${sql.table(field.detail.table)} as c on ${parentRef} = ${sql.ref(`t.${entity.key.column}`)}${rowScope}
            ${orderByClause({ entity, sort: ctx.sort, tableAlias: 't' })}, ${order} limit ${BATCH} offset ${offset}`.execute(
            ctx.db,
          );
          await writer.writeRows(await cellOf(items, rows.rows));
          if (rows.rows.length < BATCH || writer.stream.destroyed) break;
        }
      }
    },
  };
}
