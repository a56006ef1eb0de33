import { sql } from 'kysely';
import {
  entityTableSpecs,
  isTimeZone,
  planTableMigration,
  type AdoptionOptions,
  type BookkeepingField,
  type ConventionValue,
  type EntitySchema,
  type TableSpec,
} from '../../../../engine/index.js';
import type { AdoptAnswer, AdoptChange, AdoptPreview } from '../../../../engine/api-types.js';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import { ensureTrigram, readExistingTables, startIndexBuild } from '../../../lib/db/migrate.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import type { Db } from '../../../lib/db/database.js';
import { writeAudit } from '../../../lib/audit.js';
import { addForm, compileForm, normalizeContent, onlineApiOf } from '../../forms/index.js';
import {
  entityNameOf,
  proposeAdoption,
  reverseDetail,
  type TableInfo,
} from '../../../../../generators/reverse.js';
import { adoptedTables, describeTable, referencingTables, reverseSchema } from './database-tables.js';

/**
 * Adopting an existing table (reverse generation → the form designer → publishing) without harm
 * to the application that owns it. The preview (confirm false) proposes, each as a choice:
 * - the table's own conventions: bookkeeping columns (creator, create_time, updater, update_time …)
 *   kept as the engine's createdBy/createdAt/updatedBy/updatedAt, a soft-delete column (deleted,
 *   del_flag, is_deleted: hidden from lists, a delete sets it), a tenant column (tenant_id: fixed
 *   to one value, or one per tenant of ours);
 * - secrets (a column whose name or comment says password, secret, token or key): x-secret,
 *   written only (as given: the other application's own hash), never read out, listed, exported,
 *   filtered or indexed;
 * - sub-tables: the tables whose foreign key refers to it, none chosen (a reference stays one);
 * - columns the engine would add (its bookkeeping the table lacks) and its list indexes, each with
 *   its estimated size and write cost: none unless the admin opts in.
 * Confirmed, the designed form is made with x-entity.adoption holding the choices, and only the
 * statements of the opted-in columns and indexes run.
 */

export interface AdoptInput {
  tableName: string;
  /** The designed form's code (its entity name); the table's letters and digits when absent. */
  formCode?: string;
  /** false: only say what adopting would do; true: do it. */
  confirm: boolean;
  /** Tables referring to it adopted as its details (sub-tables); none when absent. */
  details?: string[];
  /** Columns adopted as secrets; the proposed ones when absent. */
  secrets?: string[];
  /** The table's own bookkeeping columns; the proposed ones when absent. */
  bookkeeping?: Partial<Record<BookkeepingField, string>>;
  /** The soft-delete column; the proposed one when absent, none when null. */
  softDelete?: { column: string; deleted: ConventionValue; active: ConventionValue } | null;
  /** The tenant column and its value(s); the proposed one (its most frequent value) when absent, none when null. */
  tenantColumn?: {
    column: string;
    value?: ConventionValue;
    byTenant?: Record<string, ConventionValue>;
  } | null;
  /** The engine's bookkeeping columns to add to the table (opt-in; none when absent). */
  addColumns?: BookkeepingField[];
  /** The engine's list and lookup indexes to build (opt-in, by name; none when absent). */
  indexes?: string[];
  /** The zone of the table's timestamp without time zone columns (x-entity.timeZone). */
  timeZone?: string;
}

/** The column and its definition each bookkeeping field gets when the admin opts into adding it. */
const ENGINE_COLUMNS: Record<BookkeepingField, { column: string; definition: string; width: number }> = {
  createdAt: { column: 'created_at', definition: 'timestamptz not null default now()', width: 8 },
  createdBy: { column: 'created_by', definition: 'text', width: 12 },
  updatedAt: { column: 'updated_at', definition: 'timestamptz not null default now()', width: 8 },
  updatedBy: { column: 'updated_by', definition: 'text', width: 12 },
  version: { column: 'version', definition: 'integer not null default 1', width: 4 },
};
const BOOKKEEPING_FIELDS = Object.keys(ENGINE_COLUMNS) as BookkeepingField[];

interface TableStats {
  rows: number;
  bytes: number;
  indexBytes: number;
  indexes: number;
  /** pg_stats avg_width by column (after ANALYZE), else nothing. */
  widths: Map<string, number>;
}

async function tableStats(db: Db, tableName: string): Promise<TableStats> {
  const stats = await sql<{ rows: string; bytes: string; index_bytes: string; indexes: number }>`
    select c.reltuples::bigint::text as rows, pg_table_size(c.oid)::text as bytes,
      pg_indexes_size(c.oid)::text as index_bytes,
      (select count(*)::int from pg_index i where i.indrelid = c.oid) as indexes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relname = ${tableName}`.execute(db);
  const row = stats.rows[0];
  let rows = Number(row?.rows ?? 0);
  // Never analysed (-1): counted (the preview is the platform administrator's, one table).
  if (rows < 0) {
    const counted = await sql<{ n: string }>`select count(*)::text as n from ${sql.table(tableName)}`.execute(
      db,
    );
    rows = Number(counted.rows[0]?.n ?? 0);
  }
  const widths = await sql<{ attname: string; avg_width: number }>`
    select attname::text, avg_width from pg_stats where schemaname = current_schema() and tablename = ${tableName}`.execute(
    db,
  );
  return {
    rows,
    bytes: Number(row?.bytes ?? 0),
    indexBytes: Number(row?.index_bytes ?? 0),
    indexes: Number(row?.indexes ?? 0),
    widths: new Map(widths.rows.map((width) => [width.attname, Number(width.avg_width)])),
  };
}

/** A column's width in bytes: its statistics, else its type's. */
function widthOf(table: TableInfo, stats: TableStats, name: string): number {
  const known = stats.widths.get(name);
  if (known !== undefined) return known;
  const type = table.columns.find((column) => column.name === name)?.type ?? 'text';
  if (/^(smallint)/.test(type)) return 2;
  if (/^(integer|real|date)/.test(type)) return 4;
  if (/^(bigint|double|timestamp|time)/.test(type)) return 8;
  return 16;
}

/** The estimates of one index: its size and the cost of an insert afterwards, relative to now. */
function indexEstimate(
  table: TableInfo,
  stats: TableStats,
  columns: string[],
  method: 'btree' | 'trigram' | 'jsonb',
): { estimatedBytes: number; writeCost: number } {
  const width = columns.reduce((sum, name) => sum + widthOf(table, stats, name), 0);
  // A btree entry: 8 bytes of header and item pointer, the key, 4 of line pointer; pages ~90 % full.
  // A trigram index holds about one entry per character; a jsonb one per array item.
  const entries = method === 'trigram' ? Math.max(1, width) : method === 'jsonb' ? 4 : 1;
  const entryBytes = method === 'btree' ? 12 + Math.ceil(width / 8) * 8 : 10;
  const estimatedBytes = Math.round((stats.rows * entries * entryBytes) / 0.9);
  // An insert writes the row and one entry per index: each index adds that much again (a trigram
  // index, whose entries are many, several times that).
  const units = 1 + stats.indexes;
  const added = method === 'btree' ? 1 : Math.min(10, Math.max(2, entries / 4));
  return { estimatedBytes, writeCost: Number(((units + added) / units).toFixed(2)) };
}

const PATTERN_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The admin's choices merged with the proposals, checked against the table's columns. */
async function choicesOf(
  db: Db,
  table: TableInfo,
  input: AdoptInput,
): Promise<{
  options: AdoptionOptions;
  secrets: string[];
  proposedSecrets: { column: string; reason: string }[];
  tenantValues: { value: string | number | null; rows: number }[];
}> {
  const proposal = proposeAdoption(table);
  const names = new Set(table.columns.map((column) => column.name));
  const problems: { field: string; message: string }[] = [];
  const needColumn = (pointer: string, name: string): void => {
    if (!PATTERN_NAME.test(name) || !names.has(name))
      problems.push({ field: pointer, message: `${table.name} has no column ${name}` });
  };
  const bookkeeping: Partial<Record<BookkeepingField, string>> = {
    ...(input.bookkeeping ?? proposal.bookkeeping),
  };
  for (const [field, name] of Object.entries(bookkeeping)) needColumn(`/bookkeeping/${field}`, name);
  const added = new Set(input.addColumns ?? []);
  for (const [index, field] of (input.addColumns ?? []).entries()) {
    if (bookkeeping[field] !== undefined)
      problems.push({ field: `/addColumns/${index}`, message: `${field} is kept in ${bookkeeping[field]}` });
    else bookkeeping[field] = ENGINE_COLUMNS[field].column;
  }
  const softDelete = input.softDelete === undefined ? proposal.softDelete : (input.softDelete ?? undefined);
  if (softDelete) needColumn('/softDelete/column', softDelete.column);
  let tenantValues: { value: string | number | null; rows: number }[] = [];
  const tenantColumnName =
    input.tenantColumn === undefined ? proposal.tenantColumn?.column : input.tenantColumn?.column;
  if (tenantColumnName !== undefined) {
    needColumn('/tenantColumn/column', tenantColumnName);
    if (names.has(tenantColumnName)) {
      const found = await sql<{ value: string | number | null; rows: string }>`
        select ${sql.ref(tenantColumnName)} as value, count(*)::text as rows from ${sql.table(table.name)}
        group by 1 order by count(*) desc, 1 limit 20`.execute(db);
      tenantValues = found.rows.map((row) => ({
        value: typeof row.value === 'bigint' ? Number(row.value) : row.value,
        rows: Number(row.rows),
      }));
    }
  }
  let tenantColumn: AdoptionOptions['tenantColumn'];
  if (input.tenantColumn) tenantColumn = input.tenantColumn;
  else if (input.tenantColumn === undefined && proposal.tenantColumn) {
    // Fixed to the value most rows have (else the column's default): the admin may choose another.
    const common =
      tenantValues.find((entry) => entry.value !== null)?.value ?? proposal.tenantColumn.defaultValue;
    tenantColumn = {
      column: proposal.tenantColumn.column,
      ...(common !== undefined && common !== null ? { value: common } : {}),
    };
  }
  const taken = new Set([...Object.values(bookkeeping), softDelete?.column, tenantColumn?.column]);
  const secrets =
    input.secrets ?? proposal.secrets.map((secret) => secret.column).filter((name) => !taken.has(name));
  for (const [index, name] of secrets.entries()) needColumn(`/secrets/${index}`, name);
  if (problems.length > 0) throw new AppError('validation', {}, problems);
  // The table's own time columns holding a wall clock (timestamp without time zone): in its zone.
  const wallClock = (['createdAt', 'updatedAt'] as const).filter((field) => {
    const name = bookkeeping[field];
    return (
      name !== undefined &&
      !added.has(field) &&
      table.columns.some(
        (column) =>
          column.name === name && column.type.replace(/\(.*\)/, '').trim() === 'timestamp without time zone',
      )
    );
  });
  const options: AdoptionOptions = {
    bookkeeping,
    ...(softDelete ? { softDelete } : {}),
    ...(tenantColumn ? { tenantColumn } : {}),
    indexes: input.indexes ?? [],
    ...(wallClock.length > 0 ? { wallClock } : {}),
  };
  return { options, secrets, proposedSecrets: proposal.secrets, tenantValues };
}

/** POST generator/reverse/adopt: the preview of adopting a table, or (confirmed) the adoption. */
export async function adoptTable({
  ctx,
  actor,
  auth,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  /** The caller (the platform administrator: the route is platform-only). */
  auth: AuthContext;
  l10n: Localizer;
  input: AdoptInput;
}): Promise<AdoptAnswer> {
  const refuseAdopted = async (db: AppContext['db']): Promise<void> => {
    const by = (await adoptedTables(db)).get(input.tableName);
    if (by)
      throw new AppError('tableAdopted', { table: input.tableName, form: by.formCode }, [
        {
          field: '/tableName',
          message: `already adopted by the designed form ${by.formCode} (id ${by.formId})`,
        },
      ]);
  };
  if (input.timeZone !== undefined && !isTimeZone(input.timeZone))
    throw new AppError('validation', {}, [{ field: '/timeZone', message: l10n.t('validation.invalid') }]);
  await refuseAdopted(ctx.db);
  const table = await describeTable(ctx.db, input.tableName);
  if (!table) throw new AppError('notFound');
  const choices = await choicesOf(ctx.db, table, input);
  const candidates = await referencingTables(ctx, input.tableName);
  const chosenDetails = new Set(input.details ?? []);
  for (const [index, name] of (input.details ?? []).entries())
    if (!candidates.some((child) => child.name === name))
      throw new AppError('validation', {}, [
        { field: `/details/${index}`, message: `${name} has no foreign key to ${input.tableName}` },
      ]);
  const {
    schema: reversed,
    details,
    warnings,
  } = await reverseSchema(ctx, input.tableName, {
    details: [...chosenDetails],
    adoption: { options: choices.options, secrets: choices.secrets },
  });
  const formCode = input.formCode ?? entityNameOf(input.tableName);
  const content = normalizeContent({
    formCode,
    formName: reversed.title,
    content: {
      ...reversed,
      // The columns' order as the form's layout: a jsonb column (PostgreSQL) keeps no key order.
      'x-ui': { ...reversed['x-ui'], items: Object.keys(reversed.properties) },
      'x-entity': {
        ...reversed['x-entity'],
        api: onlineApiOf(formCode),
        adopt: true,
        ...(input.timeZone !== undefined ? { timeZone: input.timeZone } : {}),
      },
    },
  }) as EntitySchema;
  const compiled = compileForm({ registry: ctx.registry, formCode, content });
  if (!compiled.entity) throw new AppError('validation', {}, compiled.errors);
  // The table and the child tables of its chosen details (kept as they are: they plan nothing, or problems).
  const specs = entityTableSpecs(compiled.entity);
  const hasTrigram = await ensureTrigram(ctx.db);
  // PostgreSQL: the opted-in indexes are built concurrently once the columns are in, so a large
  // table keeps taking writes; PGlite (one connection) builds them in the transaction.
  const isConcurrent = ctx.dbKind === 'postgres';
  const planOf = async (db: AppContext['db']): Promise<{ statements: string[]; indexes: string[] }> => {
    const existing = await readExistingTables(db);
    const plans = specs.map((spec) =>
      planTableMigration(spec, existing.get(spec.name), { hasTrigram, isConcurrent }),
    );
    const problems = plans.flatMap((plan) => plan.problems);
    if (problems.length > 0)
      throw new AppError(
        'validation',
        {},
        problems.map((message) => ({ field: '/tableName', message })),
      );
    return {
      statements: plans.flatMap((plan) => plan.statements),
      indexes: plans.flatMap((plan) => plan.concurrentStatements ?? []),
    };
  };
  const planned = await planOf(ctx.db);
  const [mainSpec] = specs;
  const preview = await previewOf({
    ctx,
    table,
    spec: mainSpec,
    input,
    choices,
    candidates,
    chosenDetails,
    warnings,
    hasTrigram,
  });
  if (!input.confirm)
    return {
      formCode,
      schema: content,
      statements: [...planned.statements, ...planned.indexes],
      details,
      preview,
    };
  // The form first: a taken code refuses the adoption before the table is touched.
  const form = await addForm({
    ctx,
    actor,
    auth,
    l10n,
    input: {
      formCode,
      formName: content.title,
      formDescription: content.description ?? '',
      formContent: content as unknown as Record<string, unknown>,
    },
  });
  const now = await ctx.db.transaction().execute(async (trx) => {
    // Planned again inside the transaction: the table may have changed since it was shown.
    const plan = await planOf(trx);
    for (const statement of plan.statements) await sql.raw(statement).execute(trx);
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sysform',
          recordKey: form.id,
          action: 'update',
          before: null,
          after: {
            adoptedTable: input.tableName,
            detailTables: details,
            adoption: choices.options,
            secrets: choices.secrets,
            statements: [...plan.statements, ...plan.indexes],
          },
        },
      ],
    });
    return plan;
  });
  // CREATE INDEX CONCURRENTLY IF NOT EXISTS runs outside a transaction; one that fails leaves an
  // invalid index that the periodic check (startIndexRepair) or the next start builds again.
  if (now.indexes.length > 0) await startIndexBuild(ctx.db, now.indexes).done;
  return {
    formCode,
    schema: content,
    statements: [...now.statements, ...now.indexes],
    details,
    preview,
    form,
  };
}

/** The preview: the table as it is, and every proposal with its estimates and whether it is chosen. */
async function previewOf({
  ctx,
  table,
  spec,
  input,
  choices,
  candidates,
  chosenDetails,
  warnings,
  hasTrigram,
}: {
  ctx: AppContext;
  table: TableInfo;
  spec: TableSpec | undefined;
  input: AdoptInput;
  choices: Awaited<ReturnType<typeof choicesOf>>;
  candidates: TableInfo[];
  chosenDetails: ReadonlySet<string>;
  warnings: string[];
  hasTrigram: boolean;
}): Promise<AdoptPreview> {
  const stats = await tableStats(ctx.db, table.name);
  const existing = (await readExistingTables(ctx.db)).get(table.name);
  const added = new Set(input.addColumns ?? []);
  const rowBytes = stats.rows > 0 ? stats.bytes / stats.rows : 100;
  const columns: AdoptChange[] = BOOKKEEPING_FIELDS.filter(
    (field) => added.has(field) || choices.options.bookkeeping?.[field] === undefined,
  ).map((field) => {
    const engine = ENGINE_COLUMNS[field];
    return {
      name: field,
      statement: `alter table "${table.name}" add column "${engine.column}" ${engine.definition}`,
      estimatedBytes: Math.round(stats.rows * engine.width),
      writeCost: Number((1 + engine.width / Math.max(rowBytes, 1)).toFixed(2)),
      isChosen: added.has(field),
    };
  });
  const chosenIndexes = new Set(input.indexes ?? []);
  const offered = spec?.offeredIndexes ?? [];
  // The statements the engine would run for every offered index (the types the table has allow).
  const offeredPlan = spec
    ? planTableMigration({ ...spec, indexes: offered }, existing, { hasTrigram })
    : { statements: [] };
  const indexes: AdoptChange[] = [];
  for (const index of offered) {
    const statement = offeredPlan.statements.find((candidate) => candidate.includes(`"${index.name}"`));
    if (!statement || !statement.startsWith('create')) continue;
    const method = index.list?.method ?? 'btree';
    indexes.push({
      name: index.name,
      statement,
      ...indexEstimate(table, stats, index.columns, method),
      isChosen: chosenIndexes.has(index.name),
    });
  }
  const detailCandidates = candidates.map((child) => {
    const detail = reverseDetail(table, child, new Map());
    const column = child.foreignKeys.find((fk) => fk.refTable === table.name)?.column ?? '';
    return {
      table: child.name,
      column,
      isChosen: chosenDetails.has(child.name),
      ...(detail.field ? {} : { refusal: detail.warnings.join('; ') }),
    };
  });
  const chosenSecrets = new Set(choices.secrets);
  const secrets = [
    ...choices.proposedSecrets.map((secret) => ({ ...secret, isChosen: chosenSecrets.has(secret.column) })),
    ...choices.secrets
      .filter((name) => !choices.proposedSecrets.some((secret) => secret.column === name))
      .map((column) => ({ column, reason: 'chosen', isChosen: true })),
  ];
  const { options } = choices;
  return {
    table: {
      rows: stats.rows,
      bytes: stats.bytes,
      indexBytes: stats.indexBytes,
      indexes: stats.indexes,
      columns: table.columns.length,
    },
    detailCandidates,
    secrets,
    bookkeeping: Object.fromEntries(
      Object.entries(options.bookkeeping ?? {}).filter(([field]) => !added.has(field as BookkeepingField)),
    ),
    ...(options.softDelete ? { softDelete: options.softDelete } : {}),
    ...(options.tenantColumn
      ? { tenantColumn: { ...options.tenantColumn, values: choices.tenantValues } }
      : {}),
    columns,
    indexes,
    warnings,
  };
}
