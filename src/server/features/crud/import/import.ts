import { sql } from 'kysely';
import {
  autoValues,
  computedFields,
  EntityInputError,
  fileFieldUse,
  isHashedSecret,
  prepareInput,
  type EntityDef,
  type FieldDef,
  type FieldError,
} from '../../../../engine/index.js';
import type { ImportColumn, ImportMode, ImportProblem, ImportResult } from '../../../../engine/api-types.js';
import { writeAudit } from '../../../lib/audit.js';
import { BOOKKEEPING_FIELDS } from '../../../lib/events/index.js';
import type { Db, Row } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import { sanitizeRichTextValues } from '../../../lib/html.js';
import { hashSecretsConcurrently } from '../../../lib/passwords.js';
import {
  column,
  insertRow,
  scopeCondition,
  selectedFields,
  selectList,
  table,
  whereClause,
  type Actor,
  type Condition,
} from '../../../lib/sql/toolkit.js';
import { entityTitle, fieldTitle } from '../../../lib/titles.js';
import { checkFileFields } from '../services/file-fields.js';
import { computedOnWrite, updateRecord, writeHook, type CrudRequest } from '../services/crud.js';
import type { DetailImport } from './details.js';
import type { SheetRow, SheetStream } from './read.js';
import { ChunkWriter } from './writer.js';
import { loadDictionary, loadReferences, readCell, type ColumnReader } from './values.js';
import { findExisting, problemsOfFailure, titledProblem, type MatchColumn } from './update.js';

export const MAX_PROBLEMS = 1000;
export const PREVIEW_ROWS = 200;
/** Rows inserted per statement (each column one array parameter, whatever the row count). */
const ROWS_PER_STATEMENT = 2000;

/** A PostgreSQL array literal of one column's values as text (NULL for a missing value). */
function arrayLiteral(field: FieldDef, batch: { values: Record<string, unknown> }[]): string {
  const items = batch.map(({ values }) => {
    const value = values[field.name];
    if (value === undefined || value === null) return 'NULL';
    const text = field.sqlType === 'jsonb' ? JSON.stringify(value) : String(value);
    return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  });
  return `{${items.join(',')}}`;
}

/**
 * Fields an import may fill: what an add takes, and what the caller may change. Detail rows
 * (x-detail) are entered in the form, not read from a sheet's cells; files (x-ui upload, image)
 * are uploaded, and an export's column of their names is ignored when it is imported back.
 */
export function importableFields(request: Pick<CrudRequest, 'entity' | 'policy'>): FieldDef[] {
  return request.entity.fields.filter(
    (field) =>
      !field.isReadOnly &&
      !field.isSystem &&
      !field.auto &&
      !field.detail &&
      !fileFieldUse(field) &&
      request.policy.isWritable(field.name),
  );
}

const fold = (text: string): string => text.trim().toLowerCase();

/** Header text → field: the field name or its title in the caller's language or the schema's. */
function headerIndex(request: CrudRequest): Map<string, FieldDef> {
  const byHeader = new Map<string, FieldDef>();
  for (const field of request.entity.fields) {
    for (const name of [
      field.schema.title,
      fieldTitle({ l10n: request.l10n, entity: request.entity, field }),
      field.name,
    ]) {
      if (name) byHeader.set(fold(name), field);
    }
  }
  return byHeader;
}

/**
 * The columns of a header that fill a hashed secret (a password) the caller may write: hashed
 * before the import's transaction opens (secrets.ts).
 */
export function secretColumns(request: CrudRequest, header: string[]): { index: number; field: FieldDef }[] {
  const byHeader = headerIndex(request);
  const writable = new Set(importableFields(request));
  const found: { index: number; field: FieldDef }[] = [];
  header.forEach((text, index) => {
    const field = text === '' ? undefined : byHeader.get(fold(text));
    if (
      field &&
      writable.has(field) &&
      isHashedSecret(request.entity, field) &&
      !found.some((item) => item.field === field)
    )
      found.push({ index, field });
  });
  return found;
}

/** Which sheet column fills which field; header problems are on row 1. */
function mapColumns(
  request: CrudRequest,
  header: string[],
  problems: ImportProblem[],
  updateByKey: boolean,
): {
  columns: { index: number; column: ImportColumn; field: FieldDef }[];
  ignored: string[];
  refused: FieldError[];
  match?: MatchColumn;
} {
  const { l10n, entity } = request;
  const byHeader = headerIndex(request);
  const writable = new Set(importableFields(request));
  const columns: { index: number; column: ImportColumn; field: FieldDef }[] = [];
  const ignored: string[] = [];
  const taken = new Set<string>();
  const refused: FieldError[] = [];
  let keyColumn: MatchColumn | undefined;
  header.forEach((text, index) => {
    if (text === '') return;
    const field = byHeader.get(fold(text));
    if (!field) {
      problems.push({ row: 1, field: text, message: l10n.t('import.unknownColumn', { column: text }) });
      return;
    }
    // A column of a field the caller's roles hide or keep read-only: the import is refused
    // (403 naming the field, as an add sending it; rbac field-rights.ts).
    if (!field.isKey && !request.policy.isWritable(field.name)) {
      const isHidden = !request.policy.isVisible(field.name);
      refused.push({
        field: `/${field.name}`,
        message: l10n.t(isHidden ? 'errors.fieldHidden' : 'errors.fieldReadOnly'),
      });
      return;
    }
    // Updating by key: the key column (an export's first) names the record a row updates.
    if (updateByKey && field.isKey && !writable.has(field)) {
      keyColumn ??= { index, field };
      return;
    }
    if (!writable.has(field)) {
      ignored.push(text);
      return;
    }
    if (taken.has(field.name)) {
      problems.push({
        row: 1,
        field: field.name,
        message: l10n.t('import.duplicateColumn', { column: text }),
      });
      return;
    }
    taken.add(field.name);
    columns.push({
      index,
      field,
      column: { header: text, field: field.name, title: fieldTitle({ l10n, entity, field }) },
    });
  });
  if (columns.length === 0 && problems.length === 0)
    problems.push({ row: 1, field: '', message: l10n.t('import.noColumns') });
  // Without the key column, a row names its record by the first unique field it fills (a username).
  const unique = columns.find(({ field }) => field.isUnique || field.isKey);
  const match = keyColumn ?? (unique ? { index: unique.index, field: unique.field } : undefined);
  if (updateByKey && !match) problems.push({ row: 1, field: '', message: l10n.t('import.noKeyColumn') });
  return { columns, ignored, refused, ...(updateByKey && match ? { match } : {}) };
}

/** A column's reader, and for a reference column the cell texts already looked up. */
interface ImportColumnState {
  index: number;
  field: FieldDef;
  reader: ColumnReader;
  /** Texts of a reference column already looked up (found or not). */
  looked?: Set<string>;
}

async function columnStates(
  request: CrudRequest,
  columns: { index: number; field: FieldDef }[],
): Promise<ImportColumnState[]> {
  const { l10n, db, registry, actor, entity } = request;
  const yes = new Set(['true', '1', 'yes', 'y', '是', fold(l10n.t('export.yes'))]);
  const no = new Set(['false', '0', 'no', 'n', '否', fold(l10n.t('export.no'))]);
  const states: ImportColumnState[] = [];
  for (const { index, field } of columns) {
    const reader: ColumnReader = {
      field,
      yes,
      no,
      ...(request.timeZone ? { timeZone: request.timeZone } : {}),
    };
    if (field.dict)
      reader.dictionary = await loadDictionary({ db, registry, l10n, actor, dictType: field.dict });
    if (field.ref) {
      reader.references = new Map();
      reader.knownKeys = new Set();
      if (entity.tree?.parent === field.name) reader.root = entity.tree.root;
    }
    states.push({ index, field, reader, ...(field.ref ? { looked: new Set<string>() } : {}) });
  }
  return states;
}

/** Looks up the reference texts of a chunk not looked up before (labels or keys of the targets). */
async function loadChunkReferences(
  request: CrudRequest,
  db: Db,
  states: ImportColumnState[],
  chunk: SheetRow[],
): Promise<void> {
  for (const { index, field, reader, looked } of states) {
    if (!field.ref || !looked || !reader.references) continue;
    const texts = new Set<string>();
    for (const { cells } of chunk) {
      const text = cells[index] ?? '';
      for (const part of field.type === 'array' ? text.split(/\s*[,，、;；]\s*/) : [text])
        if (!looked.has(part)) texts.add(part);
    }
    if (texts.size === 0) continue;
    for (const text of texts) looked.add(text);
    const found = await loadReferences({
      db,
      target: request.registry.require(field.ref),
      actor: request.actor,
      texts,
    });
    for (const [text, key] of found) {
      reader.references.set(text, key);
      reader.knownKeys?.add(key);
    }
  }
}

/** A dictionary or reference cell that named nothing known: the problem the checks would name. */
function unresolved(request: CrudRequest, reader: ColumnReader, value: unknown): string | undefined {
  const items = Array.isArray(value) ? value : [value];
  if (reader.dictionary) {
    const missing = items.find((item) => !reader.dictionary?.labels.has(String(item)));
    // An unknown label stays text: the dictionary check names it, not the type check.
    if (missing !== undefined)
      return request.l10n.t('import.notInDictionary', {
        value: String(missing),
        labels: [...(reader.dictionary?.labels.values() ?? [])]
          .slice(0, 30)
          .join(request.l10n.t('import.listSeparator')),
      });
  }
  if (reader.references) {
    const missing = items.find((item) => item !== reader.root && !reader.knownKeys?.has(item));
    if (missing !== undefined) {
      const target = request.registry.require(reader.field.ref ?? '');
      return request.l10n.t('errors.refMissing', {
        entity: entityTitle(request.l10n, target),
        key: String(missing),
      });
    }
  }
  return undefined;
}

/** Unique fields (and a key the caller gives): the first row of each value met so far in the file. */
type UniqueSeen = Map<string, Map<string, number>>;

/** Unique fields of a chunk: a value met before in the file, or already in the tenant. */
async function uniqueProblems(
  request: CrudRequest,
  db: Db,
  prepared: PreparedRow[],
  seen: UniqueSeen,
  problems: ImportProblem[],
): Promise<Set<number>> {
  const { entity, l10n, actor } = request;
  const flagged = new Set<number>();
  for (const field of entity.fields) {
    if (!(field.isUnique || (field.isKey && !entity.isKeyGenerated))) continue;
    let firstRow = seen.get(field.name);
    if (!firstRow) seen.set(field.name, (firstRow = new Map()));
    const values: unknown[] = [];
    const rowOf = new Map<string, number>();
    for (const { row, values: record } of prepared) {
      const value = record[field.name];
      if (value === undefined || value === null) continue;
      const text = String(value);
      const earlier = firstRow.get(text);
      if (earlier !== undefined) {
        problems.push({
          row,
          field: field.name,
          message: l10n.t('import.duplicateValue', { value: text, row: earlier }),
        });
        flagged.add(row);
        continue;
      }
      firstRow.set(text, row);
      rowOf.set(text, row);
      values.push(value);
    }
    for (let start = 0; start < values.length; start += 1000) {
      const chunk = values.slice(start, start + 1000);
      const found = await sql<{ value: unknown }>`select ${column(field)} as value from ${table(entity)}
        ${whereClause([sql`${column(field)} in (${sql.join(chunk)})`, ...scopeCondition(entity, actor)])}`.execute(
        db,
      );
      const title = fieldTitle({ l10n, entity, field }); // once, not per clashing row
      for (const { value } of found.rows) {
        const text = String(value);
        const shown = `${title} “${text}”`;
        const row = rowOf.get(text) ?? 0;
        problems.push({ row, field: field.name, message: l10n.t('errors.uniqueClash', { value: shown }) });
        flagged.add(row);
      }
    }
  }
  return flagged;
}

export interface ImportInput {
  /** The service call on the entity the rows are added to. */
  crud: CrudRequest;
  sheet: SheetStream;
  dryRun: boolean;
  /** all (the default): every row or none; partial: the good rows are written, the bad ones reported. */
  mode?: ImportMode;
  /** A row whose key (or first unique field) names an existing record updates it instead of adding. */
  updateByKey?: boolean;
  /** Called after each chunk with the data rows checked (and, unless a dry run, written) so far. */
  onProgress?: (rows: number) => void;
  /** Secrets hashed before the transaction (secrets.ts): by sheet row, field → the text and its hash. */
  hashed?: HashedSecrets;
  /** Detail (sub-table) rows read from the file's other sheets (import-details.ts). */
  details?: DetailImport;
}

/** Secrets hashed before an import's transaction (secrets.ts), by sheet row: field name → the text read and its hash. */
export type HashedSecrets = Map<number, Map<string, { text: string; hash: string }>>;

/** A data row checked and ready to insert: its spreadsheet row and its values by field name. */
interface PreparedRow {
  row: number;
  values: Record<string, unknown>;
}

/** A chunk's rows checked: those to add, and (updateByKey) the bodies of the updates. */
interface PreparedChunk {
  adds: PreparedRow[];
  updates: { row: number; body: Record<string, unknown> }[];
}

/** What the walk over the file keeps between chunks. */
interface ImportWalk {
  request: CrudRequest;
  columns: { index: number; column: ImportColumn; field: FieldDef }[];
  states: ImportColumnState[];
  problems: ImportProblem[];
  seen: UniqueSeen;
  preview: { row: number; values: Record<string, string> }[];
  total: number;
  details?: DetailImport;
  /** The entity has modules' write hooks: rows are hooked one by one, as adds. */
  isHooked: boolean;
  /** updateByKey: the column naming the record a row updates. */
  match?: MatchColumn;
  /** The x-auto values of every added row (publisher, one publish time for the whole import). */
  auto: Record<string, unknown>;
  /**
   * Stored computed fields and rules are read again over the row as it will be written (after
   * beforeChange and the x-auto values): the schema has some, and a hook or an x-auto field may
   * change what they read.
   */
  isRecomputed: boolean;
}

/** Reads and checks one chunk of rows as an add would (see importRecords); problems go to the walk. */
async function prepareChunk(
  walk: ImportWalk,
  db: Db,
  chunk: SheetRow[],
  dryRun: boolean,
): Promise<PreparedChunk> {
  const { request, columns, states, problems } = walk;
  const { entity, l10n } = request;
  const validators = request.registry.validators(entity);
  const hasFileFields = entity.fields.some((field) => fileFieldUse(field) !== undefined);
  await loadChunkReferences(request, db, states, chunk);
  const existing = walk.match ? await findExisting(request, db, walk.match, chunk) : undefined;
  const ready: PreparedRow[] = [];
  const updates: PreparedChunk['updates'] = [];
  for (const { cells, row } of chunk) {
    walk.total += 1;
    if (dryRun && walk.preview.length < PREVIEW_ROWS) {
      const shown: Record<string, string> = {};
      // A secret (a password column) is never echoed back.
      for (const { index: at, field } of columns) if (!field.isSecret) shown[field.name] = cells[at] ?? '';
      walk.preview.push({ row, values: shown });
    }
    const body: Record<string, unknown> = {};
    const cellProblems: ImportProblem[] = [];
    states.forEach(({ index: at, field, reader }) => {
      const value = readCell(reader, cells[at] ?? '');
      if (value === undefined) return;
      const problem = unresolved(request, reader, value);
      if (problem) cellProblems.push({ row, field: field.name, message: problem });
      else body[field.name] = value;
    });
    walk.details?.attach(body, row, cellProblems);
    const hook = { operation: 'add' as const, isImport: true, before: undefined };
    const target = walk.match ? existing?.get(cells[walk.match.index] ?? '') : undefined;
    if (target) {
      // An update: checked as an edit here, written by the update service (its hooks, rules, audit).
      const update = { ...body, ...target };
      try {
        if (!walk.isHooked) prepareInput(entity, validators, update, 'update', l10n.t);
        if (cellProblems.length === 0) updates.push({ row, body: update });
      } catch (error) {
        if (!(error instanceof EntityInputError)) throw error;
        for (const item of error.errors)
          cellProblems.push({
            row,
            field: item.field.replace(/^\//, '').split('/')[0] ?? '',
            message: item.message,
          });
      }
      problems.push(...cellProblems.map((problem) => titledProblem(request, problem)));
      continue;
    }
    try {
      const input = walk.isHooked
        ? await writeHook(request, db, 'beforeValidate', { ...hook, data: body })
        : body;
      const prepared = prepareInput(entity, validators, input, 'create', l10n.t);
      let values = prepared.values;
      const emptied = sanitizeRichTextValues(entity, values).filter(
        (name) => entity.fieldsByName.get(name)?.isRequired === true,
      );
      for (const name of emptied)
        cellProblems.push({ row, field: name, message: l10n.t('validation.required') });
      if (hasFileFields) {
        for (const error of await checkFileFields({ ...request, trx: db }, values))
          cellProblems.push({ row, field: error.field.replace(/^\//, ''), message: error.message });
      }
      // beforeChange sees a row that passed its own checks (uniqueness across the file comes after).
      if (walk.isHooked && cellProblems.length === 0)
        values = await writeHook(request, db, 'beforeChange', { ...hook, data: values });
      if (walk.isRecomputed && cellProblems.length === 0)
        Object.assign(values, computedOnWrite(request, { ...values, ...walk.auto }));
      if (cellProblems.length === 0) ready.push({ row, values });
    } catch (error) {
      if (!(error instanceof EntityInputError)) throw error;
      const flagged = new Set(cellProblems.map((problem) => problem.field));
      for (const item of error.errors) {
        const field = item.field.replace(/^\//, '').split('/')[0] ?? '';
        // A detail row's cell: named on its own sheet and row.
        const inDetail = walk.details?.problemOf(row, item);
        if (inDetail) cellProblems.push(inDetail);
        // A cell already named (an unknown label) is not named again as "required".
        else if (!flagged.has(field)) cellProblems.push({ row, field, message: item.message });
      }
    }
    problems.push(...cellProblems.map((problem) => titledProblem(request, problem)));
  }
  const clashing = await uniqueProblems(request, db, ready, walk.seen, problems);
  return { adds: clashing.size === 0 ? ready : ready.filter(({ row }) => !clashing.has(row)), updates };
}

/** Rows read per chunk: checked, looked up and inserted together, then let go. */
export const IMPORT_CHUNK_ROWS = 2000;

/**
 * Lets timers, sockets and other requests run between chunks: PGlite answers without ever
 * leaving the microtask queue, so an import of 100,000 rows would otherwise hold the whole
 * server for its duration.
 */
const yieldToOthers = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Imports a sheet into an entity: every row is read and validated as an add would be (the
 * entity's validator, dictionaries, references, uniqueness, file fields); a dry run stops there
 * and writes nothing. Otherwise all rows go in one transaction, or none when any row has a
 * problem (400 listing the problems). The file is walked in chunks of IMPORT_CHUNK_ROWS: each
 * chunk is checked and, while no problem has been met, inserted before the next one is read, so
 * only one chunk of rows is held at a time; a problem anywhere rolls everything back.
 */
export async function importRecords({
  crud: request,
  sheet,
  ...options
}: ImportInput): Promise<ImportResult> {
  const { l10n } = request;
  const problems: ImportProblem[] = [];
  const isPartial = options.mode === 'partial';
  const { columns, ignored, refused, match } = mapColumns(
    request,
    sheet.header,
    problems,
    options.updateByKey === true,
  );
  if (refused.length > 0) {
    await sheet.close?.();
    throw new AppError('fieldNotWritable', {}, refused);
  }
  const auto = autoValues(request.entity, { actor: request.actor.username, now: new Date() });
  const walk: ImportWalk = {
    request,
    columns,
    states: await columnStates(request, columns),
    problems,
    seen: new Map(),
    preview: [],
    total: 0,
    ...(options.details ? { details: options.details } : {}),
    isHooked: request.modules.hasWriteHooks(request.entity.name),
    ...(match ? { match } : {}),
    auto,
    isRecomputed:
      (computedFields(request.entity.schema).length > 0 ||
        (request.entity.schema['x-rules']?.length ?? 0) > 0) &&
      (request.modules.has(request.entity.name, 'beforeChange') || Object.keys(auto).length > 0),
  };
  let updated = 0;
  const finish = (imported: number): ImportResult => {
    if (walk.total === 0) problems.push({ row: 2, field: '', message: l10n.t('import.noRows') });
    if (options.details) problems.push(...options.details.problems, ...options.details.unmatched());
    const shown = problems
      .sort((a, b) => (a.sheet ?? '').localeCompare(b.sheet ?? '') || a.row - b.row)
      .slice(0, MAX_PROBLEMS);
    return {
      dryRun: options.dryRun,
      total: walk.total,
      imported,
      problems: shown,
      problemCount: problems.length,
      columns: columns.map(({ column: item }) => item),
      ignored,
      ...(options.updateByKey ? { updated } : {}),
      ...(isPartial && !options.dryRun ? { skipped: Math.max(0, walk.total - imported) } : {}),
      ...(options.dryRun ? { preview: walk.preview } : {}),
    };
  };
  // partial: a header problem (an unknown column) leaves its column out; the rows still go in.
  const headerRefuses = isPartial
    ? columns.length === 0 || (options.updateByKey === true && !match)
    : problems.length > 0;
  if (options.dryRun || headerRefuses || (options.details?.problems.length ?? 0) > 0) {
    // Header problems: the rows are still checked, so that every problem is named at once.
    const checkAll = async (db: Db): Promise<void> => {
      for await (const chunk of sheet.chunks) {
        await prepareChunk(walk, db, chunk, options.dryRun);
        options.onProgress?.(walk.total);
        await yieldToOthers();
      }
    };
    // Hooks run in a transaction that is rolled back: a dry run writes nothing, whatever they do.
    if (walk.isHooked) await checkRolledBack(request.db, checkAll);
    else await checkAll(request.db);
    const result = finish(0);
    if (options.dryRun) return result;
    throw rejected(result);
  }
  const inserter = insertChunk(request, { ...options, isHooked: walk.isHooked, auto });
  return inTransaction(
    request.db,
    async (trx) => {
      // A chunk's insert runs in the database while the next chunk is read and checked here: on
      // PostgreSQL the two overlap (the checks' own queries queue behind the insert on the one
      // connection). At most one insert is under way. Not when a chunk's checks may need the rows
      // written before: a reference to the entity itself (a tree's parent given by label), or
      // rows made per added record (afterAdd) or details.
      const overlaps =
        !walk.match &&
        !walk.isHooked &&
        !options.details &&
        !walk.states.some(({ field }) => field.ref === request.entity.name);
      const writing = new ChunkWriter();
      for await (const chunk of sheet.chunks) {
        const prepared = await writing.during(prepareChunk(walk, trx, chunk, false));
        await writing.settle();
        // After a problem the rest is only checked: the transaction is rolled back at the end
        // (partial: the good rows of every chunk are written, the bad ones only reported).
        if (problems.length === 0 || isPartial) {
          writing.start(inserter(trx, prepared.adds));
          if (prepared.updates.length > 0) {
            await writing.settle();
            updated += await updateRows(request, trx, prepared.updates, problems);
          }
        }
        if (!overlaps) await writing.settle();
        options.onProgress?.(walk.total);
        await yieldToOthers();
      }
      const imported = (await writing.settle()) + updated;
      const result = finish(imported);
      if (problems.length > 0 && !isPartial) throw rejected(result);
      return result;
    },
    { clashSubject: entityTitle(request.l10n, request.entity) },
  );
}

/** Thrown to roll back a dry run's transaction. */
class DryRunDone extends Error {}

/** Runs `work` in a transaction that is rolled back whatever it did. */
async function checkRolledBack(db: Db, work: (trx: Db) => Promise<void>): Promise<void> {
  try {
    await db.transaction().execute(async (trx) => {
      await work(trx);
      throw new DryRunDone();
    });
  } catch (error) {
    if (!(error instanceof DryRunDone)) throw error;
  }
}

/** The 400 of an import with problems, listing them as /<row>/<field>. */
function rejected(result: ImportResult): AppError {
  return new AppError(
    'importRejected',
    { count: result.problemCount },
    result.problems.map((problem) => ({
      field: `${problem.sheet === undefined ? '' : `/${problem.sheet}`}/${problem.row}/${problem.field}`,
      message: problem.message,
    })),
  );
}

/**
 * 400 importRejected naming the sheet rows whose inserted record lies outside the caller's row
 * data scope (rbac row-scope.ts): an import cannot create what its author could not then see.
 * Inserted rows come back in the order of the batch (one unnest, one insert).
 */
async function assertRowsWithinScope({
  request,
  trx,
  batch,
  inserted,
  scope,
}: {
  request: CrudRequest;
  trx: Db;
  batch: PreparedRow[];
  inserted: Row[];
  scope: Condition[];
}): Promise<void> {
  const { entity, l10n } = request;
  const keys = inserted.map((row) => row[entity.key.name]);
  if (keys.length === 0) return;
  const outside = await sql<{ key: unknown }>`select ${column(entity.key)} as key from ${table(entity)}
    where ${column(entity.key)} in (${sql.join(keys)}) and not coalesce((${sql.join(scope, sql` and `)}), false)`.execute(
    trx,
  );
  if (outside.rows.length === 0) return;
  const refused = new Set(outside.rows.map((row) => String(row.key)));
  const problems = inserted.flatMap((row, index) =>
    refused.has(String(row[entity.key.name])) ? [batch[index]?.row ?? 0] : [],
  );
  throw new AppError(
    'importRejected',
    { count: problems.length },
    problems
      .slice(0, MAX_PROBLEMS)
      .map((row) => ({ field: `/${row}/`, message: l10n.t('import.outsideScope') })),
  );
}

/** Inserts checked rows with their audit rows, ROWS_PER_STATEMENT at a time; answers the count. */
function insertChunk(
  request: CrudRequest,
  options: Pick<ImportInput, 'details' | 'hashed'> & { isHooked: boolean; auto: Record<string, unknown> },
): (trx: Db, prepared: PreparedRow[]) => Promise<number> {
  const { entity, actor } = request;
  const scope = request.policy.rowConditions ?? [];
  const { auto } = options;
  // The bookkeeping columns of every row (tenant, created and updated by; an adopted table's own).
  const bookkeeping = insertRow({ entity, values: {}, fields: [], actor });
  const constants = bookkeeping.params.map((value) => sql`${value}`);
  const secrets = entity.fields.filter((field) => isHashedSecret(entity, field));
  return async (trx, prepared) => {
    for (const { values } of prepared) Object.assign(values, auto);
    // Passwords are hashed concurrently, off the event loop (lib/passwords.ts).
    for (const field of secrets) {
      // Hashed before the transaction when the text is the one read then (secrets.ts).
      for (const { row, values } of prepared) {
        const early = options.hashed?.get(row)?.get(field.name);
        if (early && early.text === values[field.name]) values[field.name] = early.hash;
      }
      const holders = prepared.filter(
        ({ row, values }) =>
          typeof values[field.name] === 'string' &&
          options.hashed?.get(row)?.get(field.name)?.hash !== values[field.name],
      );
      const hashes = await hashSecretsConcurrently(holders.map(({ values }) => String(values[field.name])));
      holders.forEach(({ values }, index) => {
        values[field.name] = hashes[index];
      });
    }
    const fields = entity.fields.filter(
      (field) => !field.detail && prepared.some(({ values }) => values[field.name] !== undefined),
    );
    const columns = [...fields.map(column), ...bookkeeping.columns];
    // One array parameter per column (unnest): a statement of thousands of rows stays a handful of
    // parameters, which both databases parse far faster than a VALUES list of a parameter per cell.
    const aliases = fields.map((_, index) => sql.id(`c${index}`));
    const casts = fields.map((field, index) => sql`${sql.id('u', `c${index}`)}::${sql.raw(field.sqlType)}`);
    let imported = 0;
    for (let start = 0; start < prepared.length; start += ROWS_PER_STATEMENT) {
      const batch = prepared.slice(start, start + ROWS_PER_STATEMENT);
      const arrays = fields.map((field) => sql`${arrayLiteral(field, batch)}::text[]`);
      const insert = sql`insert into ${table(entity)} (${sql.join(columns)})
        select ${sql.join([...casts, ...constants])} from unnest(${sql.join(arrays)}) as u(${sql.join(aliases)})
        returning ${selectList(entity)}`;
      if (!options.isHooked && !options.details && scope.length === 0) {
        // The audit rows are made by the database from the inserted rows in the same statement:
        // no row travels back to the server, and nothing is turned into JSON here. Empty fields
        // are left out of `after` (the audit screens show an add's non-empty values, so what they
        // show is the same), which keeps the import's audit rows and their WAL smaller.
        const counted = await sql<{ n: number }>`with inserted as (${insert}), audited as (
          insert into sys_audit_log (tenant_code, entity, record_key, action, user_id, username, before, after)
          select ${actor.tenantCode}, ${entity.name}, (${sql.ref(`inserted.${entity.key.name}`)})::text, 'add',
            ${actor.userId}::bigint, ${actor.username}, null, jsonb_strip_nulls(to_jsonb(inserted)) from inserted returning 1),
          evented as (${importEvents(entity, actor)} returning 1)
          select count(*)::int as n from audited`.execute(trx);
        imported += Number(counted.rows[0]?.n ?? 0);
        continue;
      }
      const inserted = await sql<Row>`${insert}`.execute(trx);
      if (scope.length > 0)
        await assertRowsWithinScope({ request, trx, batch, inserted: inserted.rows, scope });
      await writeAudit({
        trx,
        actor,
        entries: inserted.rows.map((row) => ({
          entity: entity.name,
          recordKey: row[entity.key.name],
          action: 'add' as const,
          before: null,
          after: row,
        })),
      });
      await options.details?.write(trx, actor, batch, inserted.rows);
      if (options.isHooked)
        for (const [index, row] of inserted.rows.entries()) {
          const values = batch[index]?.values ?? {};
          const changes = new Set(Object.keys(values).filter((name) => values[name] !== undefined));
          await writeHook(request, trx, 'afterChange', {
            operation: 'add',
            isImport: true,
            before: undefined,
            data: row,
            changes,
          });
        }
      imported += inserted.rows.length;
    }
    return imported;
  };
}

/**
 * The outbox rows of a fast-path import (lib/events): one record.added per inserted row, made by
 * the database from the rows of the `inserted` statement (the field names only, never a value).
 * `changed` names the fields the row holds a value of (the keys of its audit row's `after`, less
 * the bookkeeping), in order of name: one `case` per field, so no row is turned into a document
 * for it (building and reading `to_jsonb` of every row twice cost the database 1.7–2 s of CPU per
 * 100,000 rows, measured under issue 31).
 */
function importEvents(entity: EntityDef, actor: Actor) {
  const fields = selectedFields(entity);
  const bookkeeping = new Set(BOOKKEEPING_FIELDS);
  const held = fields
    .filter((field) => !bookkeeping.has(field.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((field) => {
      const value = sql.ref(`inserted.${field.name}`);
      // A JSON column's null document is left out of the audit row's `after` too (jsonb_strip_nulls).
      const isHeld =
        field.sqlType === 'jsonb'
          ? sql`${value} is not null and ${value} <> 'null'::jsonb`
          : sql`${value} is not null`;
      return sql`case when ${isHeld} then ${field.name}::text end`;
    });
  const changed =
    held.length > 0 ? sql`to_jsonb(array_remove(array[${sql.join(held)}]::text[], null))` : sql`'[]'::jsonb`;
  const version = fields.some((field) => field.name === 'version')
    ? sql`(${sql.ref('inserted.version')})::integer`
    : sql`null::integer`;
  return sql`insert into sys_event (tenant_code, type, entity, record_key, user_id, username, version, changed)
    select ${actor.tenantCode}, 'record.added', ${entity.name}, (${sql.ref(`inserted.${entity.key.name}`)})::text,
      ${actor.userId}::bigint, ${actor.username}, ${version}, ${changed}
    from inserted`;
}

/**
 * Writes a chunk's updates one by one through the update service, in the import's transaction.
 * A row the service refuses (its checks, a clash, a stale version) becomes the row's problems.
 */
async function updateRows(
  request: CrudRequest,
  trx: Db,
  updates: PreparedChunk['updates'],
  problems: ImportProblem[],
): Promise<number> {
  let count = 0;
  for (const { row, body } of updates) {
    try {
      await updateRecord({ ...request, db: trx }, body);
      count += 1;
    } catch (error) {
      const named = problemsOfFailure(request, row, error);
      if (!named) throw error;
      problems.push(...named);
    }
  }
  return count;
}
