import { sql } from 'kysely';
import ExcelJS from 'exceljs';
import type { FieldDef } from '../../../engine/index.js';
import { column, scopeCondition, table, whereClause } from '../../lib/sql/toolkit.js';
import { entityTitle, fieldTitle } from '../../lib/titles.js';
import type { CrudRequest } from './crud.js';
import { importableFields } from './import.js';
import { loadDictionary } from './import-values.js';

/** Rows of the data sheet that get the dropdowns (the rest of a sheet a user fills in). */
const VALIDATED_ROWS = 5000;
const LISTS_SHEET = 'lists';

interface ValidatedSheet {
  dataValidations: { add(range: string, validation: ExcelJS.DataValidation): void };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** A value that passes the field's own rules where the schema gives enough to make one. */
function exampleOf(request: CrudRequest, field: FieldDef): string | number | undefined {
  const { l10n, entity } = request;
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
      if (schema.pattern) return undefined;
      return l10n.t('import.example', { field: fieldTitle(l10n, entity, field) });
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

/**
 * The import template of an entity: the importable fields with their translated titles, one
 * example row, and for dictionary columns a dropdown of the dictionary's labels (listed on a
 * hidden second sheet, so long dictionaries fit).
 */
export async function importTemplate(request: CrudRequest): Promise<{ fileName: string; bytes: Buffer }> {
  const { entity, l10n } = request;
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(l10n.t('export.sheet'));
  const lists = workbook.addWorksheet(LISTS_SHEET, { state: 'veryHidden' });
  const fields = importableFields(request);
  sheet.columns = fields.map((field) => ({
    header: fieldTitle(l10n, entity, field),
    key: field.name,
    width: Math.max(12, fieldTitle(l10n, entity, field).length * 2 + 4),
  }));
  sheet.getRow(1).font = { bold: true };
  sheet.views = [{ state: 'frozen', ySplit: 1 }];
  const example: Record<string, string | number | undefined> = {};
  let listColumn = 0;
  for (const [index, field] of fields.entries()) {
    if (field.dict) {
      const dictionary = await loadDictionary(request.db, request.registry, l10n, request.actor, field.dict);
      const labels = [...dictionary.labels.values()];
      example[field.name] = labels[0];
      if (labels.length === 0) continue;
      listColumn += 1;
      labels.forEach((label, row) => (lists.getCell(row + 1, listColumn).value = label));
      const letters = lists.getColumn(listColumn).letter;
      const target = sheet.getColumn(index + 1).letter;
      // exceljs keeps a worksheet's validations in `dataValidations`, which its typings leave out.
      (sheet as unknown as ValidatedSheet).dataValidations.add(`${target}2:${target}${VALIDATED_ROWS}`, {
        type: 'list',
        allowBlank: !field.isRequired,
        formulae: [`${LISTS_SHEET}!$${letters}$1:$${letters}$${labels.length}`],
        showErrorMessage: field.type !== 'array',
      });
    } else if (field.ref) {
      example[field.name] = await firstReferenceLabel(request, field);
    } else {
      example[field.name] = exampleOf(request, field);
    }
  }
  sheet.addRow(example);
  const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
  return { fileName: `${entityTitle(l10n, entity)}-${l10n.t('import.templateName')}.xlsx`, bytes };
}
