import { sql } from 'kysely';
import ExcelJS from 'exceljs';
import { decimalOf, detailFields, detailTieField, isInt64, type FieldDef } from '../../../../engine/index.js';
import { column, scopeCondition, table, whereClause } from '../../../lib/sql/toolkit.js';
import { detailColumnTitle, entityTitle, fieldTitle } from '../../../lib/titles.js';
import type { CrudRequest } from '../services/crud.js';
import { importableFields } from './import.js';
import { loadDictionary } from './values.js';

/** Rows of the data sheet that get the dropdowns (the rest of a sheet a user fills in). */
const VALIDATED_ROWS = 5000;
const LISTS_SHEET = 'lists';

interface ValidatedSheet {
  dataValidations: { add(range: string, validation: ExcelJS.DataValidation): void };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** A value that passes the field's own rules where the schema gives enough to make one. */
function exampleOf(request: CrudRequest, field: FieldDef, title: string): string | number | undefined {
  const { l10n } = request;
  const schema = field.schema as {
    examples?: unknown[];
    default?: unknown;
    format?: string;
    minimum?: number;
    enum?: unknown[];
    pattern?: string;
    minLength?: number;
  };
  const given = schema.examples?.[0] ?? schema.enum?.[0] ?? schema.default;
  if (typeof given === 'string' || typeof given === 'number') return given;
  if (typeof given === 'boolean') return l10n.t(given ? 'export.yes' : 'export.no');
  const now = new Date();
  const day = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  switch (field.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return l10n.t('export.yes');
    case 'string':
      if (schema.format === 'date') return day;
      if (schema.format === 'date-time') return `${day} 09:00:00`;
      if (schema.format === 'email') return 'user@example.com';
      // An exact number: its smallest allowed value or 1, as a number cell.
      if (decimalOf(field.schema)) return Number(decimalOf(field.schema)?.minimum ?? 1);
      if (isInt64(field.schema)) return 1;
      if (schema.pattern) return undefined;
      return l10n.t('import.example', { field: title });
    default:
      return undefined;
  }
}

async function firstReferenceLabel(request: CrudRequest, field: FieldDef): Promise<string | undefined> {
  if (!field.ref) return undefined;
  const target = request.registry.require(field.ref);
  const label = target.fieldsByName.get(target.label) ?? target.key;
  const rows = await sql<{ label: unknown }>`select ${column(label)} as label from ${table(target)}
    ${whereClause(scopeCondition(target, request.actor))} order by ${column(target.key)} limit 1`.execute(
    request.db,
  );
  const value = rows.rows[0]?.label;
  return value === undefined || value === null ? undefined : String(value);
}

/** A sheet name as Excel takes it (no \\ / ? * [ ] :, at most 31 characters), as the export writes it. */
const sheetTitle = (text: string): string => text.replace(/[\\/?*[\]:]/g, ' ').slice(0, 31);

type Example = Record<string, string | number | undefined>;

/**
 * Fills a sheet's columns (header row, widths, frozen header) and its example row: dictionary
 * columns get a dropdown of the dictionary's labels (listed on the hidden lists sheet), reference
 * columns the label of a record the caller can see, others a value their rules accept.
 */
async function fillSheet(
  request: CrudRequest,
  sheet: ExcelJS.Worksheet,
  lists: { sheet: ExcelJS.Worksheet; used: number },
  columns: { key: string; title: string; field?: FieldDef; example?: string | number }[],
): Promise<void> {
  sheet.columns = columns.map((entry) => ({
    header: entry.title,
    key: entry.key,
    width: Math.max(entry.key === '#' ? 6 : 12, entry.title.length * 2 + 4),
  }));
  sheet.getRow(1).font = { bold: true };
  sheet.views = [{ state: 'frozen', ySplit: 1 }];
  const example: Example = {};
  for (const [index, { key, title, field, example: given }] of columns.entries()) {
    if (!field) {
      example[key] = given;
    } else if (field.dict) {
      const { l10n, db, registry, actor } = request;
      const dictionary = await loadDictionary({ db, registry, l10n, actor, dictType: field.dict });
      const labels = [...dictionary.labels.values()];
      example[key] = labels[0];
      if (labels.length === 0) continue;
      lists.used += 1;
      labels.forEach((label, row) => (lists.sheet.getCell(row + 1, lists.used).value = label));
      const letters = lists.sheet.getColumn(lists.used).letter;
      const target = sheet.getColumn(index + 1).letter;
      // exceljs keeps a worksheet's validations in `dataValidations`, which its typings leave out.
      (sheet as unknown as ValidatedSheet).dataValidations.add(`${target}2:${target}${VALIDATED_ROWS}`, {
        type: 'list',
        allowBlank: !field.isRequired,
        formulae: [`${LISTS_SHEET}!$${letters}$1:$${letters}$${labels.length}`],
        showErrorMessage: field.type !== 'array',
      });
    } else if (field.ref) {
      example[key] = await firstReferenceLabel(request, field);
    } else {
      example[key] = exampleOf(request, field, title);
    }
  }
  sheet.addRow(example);
}

/**
 * The import template of an entity: the importable fields with their translated titles, one
 * example row, and for dictionary columns a dropdown of the dictionary's labels (listed on a
 * hidden sheet, so long dictionaries fit). An entity with sub-tables (x-detail) gets one sheet per
 * sub-table in the layout the export writes and the import reads (import-details.ts): named
 * `<form> - <sub-table>`, its header the master's label column, `#` (the line's position), then
 * the sub-table's columns; its example line belongs to the example master row.
 */
export async function importTemplate(request: CrudRequest): Promise<{ fileName: string; bytes: Buffer }> {
  const { entity, l10n } = request;
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(l10n.t('export.sheet'));
  const fields = importableFields(request);
  const details = detailFields(entity).filter((field) => request.policy.isWritable(field.name));
  const detailSheets = details.map((field) =>
    workbook.addWorksheet(
      sheetTitle(`${entityTitle(l10n, entity)} - ${fieldTitle({ l10n, entity, field })}`),
    ),
  );
  const lists = { sheet: workbook.addWorksheet(LISTS_SHEET, { state: 'veryHidden' }), used: 0 };
  await fillSheet(
    request,
    sheet,
    lists,
    fields.map((field) => ({ key: field.name, title: fieldTitle({ l10n, entity, field }), field })),
  );
  const labelField = detailTieField(entity);
  // the tie column's example as the first sheet's example row holds it (none when not importable)
  const labelAt = fields.indexOf(labelField);
  const exampleLabel = labelAt >= 0 ? sheet.getRow(2).getCell(labelAt + 1).value : undefined;
  for (const [index, field] of details.entries()) {
    const target = detailSheets[index];
    if (!target) continue;
    await fillSheet(request, target, lists, [
      {
        key: '__label',
        title: fieldTitle({ l10n, entity, field: labelField }),
        ...(typeof exampleLabel === 'string' || typeof exampleLabel === 'number'
          ? { example: exampleLabel }
          : {}),
      },
      { key: '#', title: '#', example: 1 },
      ...field.detail.fields
        .filter((item) => !item.isReadOnly && !item.isSystem && !item.auto)
        .map((item) => ({
          key: item.name,
          title: detailColumnTitle({ l10n, entity, detailFieldName: field.name, column: item }),
          field: item,
        })),
    ]);
  }
  const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
  return { fileName: `${entityTitle(l10n, entity)}-${l10n.t('import.templateName')}.xlsx`, bytes };
}
