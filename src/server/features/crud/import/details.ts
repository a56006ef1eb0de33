import {
  detailFields,
  detailTieField,
  formFields,
  type DetailDef,
  type EntityDef,
  type FieldDef,
  type FieldError,
} from '../../../../engine/index.js';
import type { Db, Row } from '../../../lib/db/database.js';
import { AppError } from '../../../lib/errors.js';
import { ImportBudgetError } from '../../../lib/xlsx/budget.js';
import { xlsxRowsOffThread } from '../../../lib/xlsx/pool.js';
import { isBlankRow } from '../../../lib/xlsx/survey.js';
import { writeDetailRows, type DetailRow } from '../../../lib/sql/detail-rows.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { entityTitle, fieldTitle } from '../../../lib/titles.js';
import type { CrudRequest } from '../services/crud.js';
import { asFileProblem, isZip } from './read.js';
import { loadDictionary, loadReferences, readCell, type ColumnReader } from './values.js';

/**
 * Detail (x-detail, sub-table) rows of an import, read from the sheets after the first: the
 * layout the export writes (export/detail-sheets.ts), so that an export imports back.
 * - A detail sheet is named as the export names it (`<form title> - <sub-table title>`), or by the
 *   sub-table's field name or title alone.
 * - Its header: the master's label column (its title or name: the key that ties a detail row to
 *   its master row), optionally `#` (the row's position), then the sub-table's columns by name or
 *   title.
 * - Each detail row goes with the master row of the first sheet whose label cell holds the same
 *   text; the master row is validated with its rows as an add would be, and they are written in
 *   the import's transaction. Problems name the sheet, its row and `<sub-table>/<column>`.
 * Sheets that match no sub-table (a template's dropdown lists) are left alone.
 */

const fold = (text: string): string => text.trim().toLowerCase();
/** The sheet name the export writes (Excel: no \ / ? * [ ] :, at most 31 characters). */
const sheetTitle = (text: string): string => text.replace(/[\\/?*[\]:]/g, ' ').slice(0, 31);

/** One thing wrong in a detail sheet (or with a master row's details). */
export interface DetailProblem {
  sheet?: string;
  row: number;
  field: string;
  message: string;
}

interface DetailLine {
  sheet: string;
  row: number;
  seq: number;
  values: DetailRow;
}

/** What the import of a file with detail sheets carries between its master rows. */
export interface DetailImport {
  /** Problems of the detail sheets themselves (headers, cells), known before the master rows are read. */
  problems: DetailProblem[];
  /** Detail rows no master row claimed (asked once every master row is read). */
  unmatched(): DetailProblem[];
  /**
   * Puts the detail rows of a master row (by its label value) into its body; problems of the
   * master row (its label used twice) go to `problems`.
   */
  attach(body: Record<string, unknown>, masterRow: number, problems: DetailProblem[]): void;
  /** A validation error of a master row at /<detail>/<index>/<column>: the detail sheet's row. */
  problemOf(masterRow: number, error: FieldError): DetailProblem | undefined;
  /** Writes the detail rows of inserted master rows (in the order they were given). */
  write(trx: Db, actor: Actor, batch: { values: Record<string, unknown> }[], inserted: Row[]): Promise<void>;
}

function detailTitles(request: CrudRequest, field: FieldDef): string[] {
  const { l10n, entity } = request;
  const own = fieldTitle({ l10n, entity, field });
  const titles = field.schema['x-ui']?.titles ?? {};
  const names = [field.name, own, field.schema.title ?? '', ...Object.values(titles)].filter(Boolean);
  return [sheetTitle(`${entityTitle(l10n, entity)} - ${own}`), ...names.map(sheetTitle)].map(fold);
}

function columnIndex(request: CrudRequest, field: FieldDef, detail: DetailDef): Map<string, FieldDef> {
  const { l10n, entity } = request;
  const columns = formFields(entity, 'create').find((item) => item.name === field.name)?.options.columns;
  const byHeader = new Map<string, FieldDef>();
  for (const item of detail.fields) {
    const keys = columns?.find((entry) => entry.name === item.name)?.titleKeys ?? [];
    const titles = item.schema['x-ui']?.titles ?? {};
    for (const name of [item.name, item.schema.title, l10n.find(keys), ...Object.values(titles)])
      if (name) byHeader.set(fold(name), item);
  }
  return byHeader;
}

/**
 * The sheets after the first, by name, as rows of cell texts (with their row numbers), read in a
 * worker thread by the import's streaming reader (lib/xlsx/pool.ts) within the import's budgets;
 * the rows are bounded by `maxRows` like the first sheet's.
 */
async function otherSheets(
  bytes: Buffer,
  maxRows: number,
): Promise<Map<string, { row: number; cells: string[] }[]>> {
  const sheets = new Map<string, { row: number; cells: string[] }[]>();
  try {
    let count = 0;
    for await (const batch of xlsxRowsOffThread({ bytes, which: 'rest' })) {
      for (const { sheet, row, cells } of batch) {
        if (isBlankRow(cells)) continue;
        count += 1;
        if (count > maxRows) throw new ImportBudgetError('rows', maxRows);
        const rows = sheets.get(sheet) ?? [];
        rows.push({ row, cells });
        sheets.set(sheet, rows);
      }
    }
  } catch (error) {
    throw asFileProblem(error);
  }
  return sheets;
}

async function readerOf(request: CrudRequest, item: FieldDef): Promise<ColumnReader> {
  const { l10n } = request;
  const reader: ColumnReader = {
    field: item,
    yes: new Set(['true', '1', 'yes', 'y', '是', fold(l10n.t('export.yes'))]),
    no: new Set(['false', '0', 'no', 'n', '否', fold(l10n.t('export.no'))]),
    ...(request.timeZone ? { timeZone: request.timeZone } : {}),
  };
  if (item.dict)
    reader.dictionary = await loadDictionary({
      db: request.db,
      registry: request.registry,
      l10n,
      actor: request.actor,
      dictType: item.dict,
    });
  return reader;
}

/**
 * Reads the detail sheets of an uploaded .xlsx for an entity with sub-tables; undefined when the
 * entity has none or the file is a CSV (one sheet: master rows only).
 */
export async function readDetailSheets({
  crud: request,
  bytes,
  maxRows,
}: {
  /** The service call on the master entity. */
  crud: CrudRequest;
  bytes: Buffer;
  maxRows: number;
}): Promise<DetailImport | undefined> {
  const { entity, l10n } = request;
  const details = detailFields(entity).filter((field) => request.policy.isWritable(field.name));
  const refused = detailFields(entity).filter((field) => !request.policy.isWritable(field.name));
  if ((details.length === 0 && refused.length === 0) || !isZip(bytes)) return undefined;
  const sheets = await otherSheets(bytes, maxRows);
  // The sheet of a sub-table the caller's roles hide or keep read-only: 403 naming it, as a column.
  const refusedSheets = refused.filter((field) => {
    const names = new Set(detailTitles(request, field));
    return [...sheets.keys()].some((name) => names.has(fold(sheetTitle(name))));
  });
  if (refusedSheets.length > 0) {
    throw new AppError(
      'fieldNotWritable',
      {},
      refusedSheets.map((field) => ({
        field: `/${field.name}`,
        message: l10n.t(request.policy.isVisible(field.name) ? 'errors.fieldReadOnly' : 'errors.fieldHidden'),
      })),
    );
  }
  if (details.length === 0) return undefined;
  const labelField = detailTieField(entity);
  const labelHeaders = new Set(
    [
      labelField.name,
      labelField.schema.title,
      fieldTitle({ l10n, entity, field: labelField }),
      ...Object.values(labelField.schema['x-ui']?.titles ?? {}),
    ]
      .filter((name): name is string => Boolean(name))
      .map(fold),
  );
  const problems: DetailProblem[] = [];
  /** detail field → master label text → its lines */
  const lines = new Map<string, Map<string, DetailLine[]>>();
  /** detail field → label text → used by a master row (its row) */
  const claimed = new Map<string, Map<string, number>>();
  for (const field of details) {
    const names = new Set(detailTitles(request, field));
    const found = [...sheets].find(([name]) => names.has(fold(sheetTitle(name))));
    if (!found) continue;
    const [sheet, rows] = found;
    const [head, ...body] = rows;
    if (!head) continue;
    const byHeader = columnIndex(request, field, field.detail);
    let labelAt = -1;
    let seqAt = -1;
    const columns: { at: number; item: FieldDef; reader: ColumnReader }[] = [];
    for (const [at, text] of head.cells.entries()) {
      if (text === '') continue;
      if (labelAt < 0 && labelHeaders.has(fold(text))) labelAt = at;
      else if (text === '#') seqAt = at;
      else {
        const item = byHeader.get(fold(text));
        if (item) columns.push({ at, item, reader: await readerOf(request, item) });
        else
          problems.push({
            sheet,
            row: head.row,
            field: field.name,
            message: l10n.t('import.unknownColumn', { column: text }),
          });
      }
    }
    if (labelAt < 0) {
      problems.push({
        sheet,
        row: head.row,
        field: field.name,
        message: l10n.t('import.detailKeyMissing', {
          column: fieldTitle({ l10n, entity, field: labelField }),
        }),
      });
      continue;
    }
    // References in detail columns: looked up once for the whole sheet.
    for (const column of columns) {
      if (!column.item.ref) continue;
      const texts = body.map((line) => line.cells[column.at] ?? '');
      column.reader.references = await loadReferences({
        db: request.db,
        target: request.registry.require(column.item.ref),
        actor: request.actor,
        texts,
      });
      column.reader.knownKeys = new Set(column.reader.references.values());
    }
    const byLabel = new Map<string, DetailLine[]>();
    for (const line of body) {
      const label = line.cells[labelAt] ?? '';
      const values: DetailRow = {};
      for (const { at, item, reader } of columns) {
        const value = readCell(reader, line.cells[at] ?? '');
        if (value === undefined) continue;
        const missing =
          (reader.dictionary && !reader.dictionary.labels.has(String(value))) ||
          (reader.references && !reader.knownKeys?.has(value));
        if (missing) {
          const message = item.dict
            ? l10n.t('errors.dictMissing', { dict: item.dict, value: line.cells[at] ?? '' })
            : l10n.t('errors.refMissing', {
                entity: entityTitle(l10n, request.registry.require(item.ref ?? '')),
                key: line.cells[at] ?? '',
              });
          problems.push({ sheet, row: line.row, field: `${field.name}/${item.name}`, message });
        } else values[item.name] = value;
      }
      const seq = seqAt >= 0 ? Number(line.cells[seqAt]) : Number.NaN;
      const list = byLabel.get(label) ?? [];
      list.push({ sheet, row: line.row, seq: Number.isFinite(seq) ? seq : list.length + 1, values });
      byLabel.set(label, list);
    }
    for (const list of byLabel.values()) list.sort((a, b) => a.seq - b.seq);
    lines.set(field.name, byLabel);
    claimed.set(field.name, new Map());
  }
  if (lines.size === 0 && problems.length === 0) return undefined;
  /** master row → its lines per detail field, as attached (for problemOf) */
  const attached = new Map<number, Map<string, DetailLine[]>>();
  return {
    problems,
    unmatched: () => {
      const orphans: DetailProblem[] = [];
      for (const [field, byLabel] of lines) {
        for (const [label, list] of byLabel) {
          if (claimed.get(field)?.has(label)) continue;
          for (const line of list)
            orphans.push({
              sheet: line.sheet,
              row: line.row,
              field,
              message: l10n.t('import.detailNoMaster', { value: label }),
            });
        }
      }
      return orphans;
    },
    attach: (body, masterRow, rowProblems) => {
      const label = body[labelField.name];
      if (label === undefined || label === null) return;
      const text = String(label);
      for (const [field, byLabel] of lines) {
        const list = byLabel.get(text);
        if (!list) continue;
        const taken = claimed.get(field);
        const earlier = taken?.get(text);
        if (earlier !== undefined) {
          rowProblems.push({
            row: masterRow,
            field: labelField.name,
            message: l10n.t('import.detailKeyTwice', { value: text, row: earlier }),
          });
          continue;
        }
        taken?.set(text, masterRow);
        body[field] = list.map((line) => line.values);
        const byField = attached.get(masterRow) ?? new Map<string, DetailLine[]>();
        byField.set(field, list);
        attached.set(masterRow, byField);
      }
    },
    problemOf: (masterRow, error) => {
      const [, field, index, ...rest] = error.field.split('/');
      const line = attached.get(masterRow)?.get(field ?? '')?.[Number(index)];
      if (!line || rest.length === 0) return undefined;
      return {
        sheet: line.sheet,
        row: line.row,
        field: `${field}/${rest.join('/')}`,
        message: error.message,
      };
    },
    write: async (trx, actor, batch, inserted) => {
      for (const [index, { values }] of batch.entries()) {
        const row = inserted[index];
        if (!row) throw new Error(`import: no inserted row for position ${index}`);
        if (!details.some((field) => values[field.name] !== undefined)) continue;
        const label = values[labelField.name];
        if (label !== undefined && String(row[labelField.name]) !== String(label))
          throw new Error('import: inserted rows came back in another order');
        await writeDetailRows({
          trx,
          entity: entity as EntityDef,
          parentKey: row[entity.key.name],
          values,
          actor,
          isNew: true,
        });
      }
    },
  };
}
