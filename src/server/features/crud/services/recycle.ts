import { sql } from 'kysely';
import {
  DELETED_AT_COLUMN,
  DELETED_BY_COLUMN,
  EntityInputError,
  englishTranslate,
  withVirtualFields,
  hasRecycleBin,
  type EntityDef,
  type FieldError,
} from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import { writeAudit } from '../../../lib/audit.js';
import type { Db, Row } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { readParam } from '../../../lib/modules/index.js';
import { AppError } from '../../../lib/errors.js';
import {
  column,
  qualifiedColumn,
  selectList,
  table,
  tenantRowsCondition,
  updateBookkeeping,
  whereClause,
  type Actor,
  type Condition,
} from '../../../lib/sql/toolkit.js';
import { entityTitle, fieldTitle } from '../../../lib/titles.js';
import { checkReferences, checkUnique } from './checks.js';
import { addRecord, readHook, transact, updateRecord, writeHook, type CrudRequest } from './crud.js';

/**
 * The recycle bin of an entity with x-entity.softDelete: a delete (crud.ts) sets deleted_at, and
 * every read of the CRUD leaves such a row out (scopeCondition). Here: the bin's page, restore
 * (refused when a unique value was taken meanwhile, or a reference points at a record gone
 * since), purge, and purge after the tenant's recycleBinDays param. Also: restoring any record
 * to a version its audit log keeps (a new audited update, checked against the schema of today).
 */

/** Param (sysparam, per tenant): days a record stays in a recycle bin; its value when unset. */
export const RECYCLE_DAYS_PARAM = 'recycleBinDays';
export const DEFAULT_RECYCLE_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

const deletedAt = sql.ref(DELETED_AT_COLUMN);
const deletedBy = sql.ref(DELETED_BY_COLUMN);

/** A record as the bin lists it: its fields, who deleted it, when, and when it goes for good. */
export type BinnedRecord = Row & { deletedAt: string; deletedBy: string | null; expiresAt: string };

export interface RecycleBinPage {
  records: BinnedRecord[];
  total: number;
  currentPage: number;
  pageSize: number;
  /** The tenant's recycleBinDays. */
  recycleDays: number;
}

/** The tenant's recycleBinDays param: a whole number of at least 1, else the default. */
export async function recycleDaysOf(ctx: { db: Db; registry: AppContext['registry'] }, tenantCode: string) {
  const text = await readParam({
    trx: ctx.db,
    registry: ctx.registry,
    tenant: tenantCode,
    key: RECYCLE_DAYS_PARAM,
  });
  const days = Number(text ?? '');
  return text !== undefined && Number.isInteger(days) && days >= 1 ? days : DEFAULT_RECYCLE_DAYS;
}

/** 404 unless the entity keeps a recycle bin (its routes exist only then; a published form's may not). */
function assertRecycleBin(request: CrudRequest): void {
  if (!hasRecycleBin(request.entity))
    throw new AppError('routeNotFound', { path: `/api/${request.entity.api}/recycle` });
}

/** The caller's rows in the bin: tenant, row scope, deleted. */
const binConditions = (request: CrudRequest): Condition[] => [
  ...tenantRowsCondition(request.entity, request.actor),
  ...(request.policy.rowConditions ?? []),
  sql`${deletedAt} is not null`,
];

const isoOf = (value: unknown): string => new Date(value as string | Date).toISOString();

/** The bin's page, newest deletion first; what has passed its days is purged first. */
export async function queryRecycleBin(
  request: CrudRequest,
  page: { currentPage: number; pageSize: number },
): Promise<RecycleBinPage> {
  assertRecycleBin(request);
  const { entity, actor } = request;
  await purgeExpiredRecords({
    db: request.db,
    registry: request.registry,
    now: new Date(),
    entity,
    tenantCode: actor.tenantCode,
  });
  const recycleDays = await recycleDaysOf(request, actor.tenantCode);
  const where = whereClause(binConditions(request));
  const offset = (page.currentPage - 1) * page.pageSize;
  const [rows, count] = await Promise.all([
    sql<Row & { deletedAt: Date | string; deletedBy: string | null }>`select ${selectList(entity)},
        ${deletedAt} as "deletedAt", ${deletedBy} as "deletedBy"
      from ${table(entity)} ${where}
      order by ${deletedAt} desc, ${qualifiedColumn(entity.table, entity.key)} desc limit ${page.pageSize} offset ${offset}`.execute(
      request.db,
    ),
    sql<{ n: number }>`select count(*)::int as n from ${table(entity)} ${where}`.execute(request.db),
  ]);
  // As a list shows them: virtual computed fields computed, through the modules' afterRead.
  const shown = await readHook(
    request,
    rows.rows.map((row) => {
      const { deletedAt: _at, deletedBy: _by, ...record } = row;
      return request.policy.shown(withVirtualFields(entity.schema, record, englishTranslate));
    }),
  );
  return {
    records: rows.rows.map((row, index) => {
      const at = new Date(isoOf(row.deletedAt));
      return {
        ...(shown[index] ?? {}),
        deletedAt: at.toISOString(),
        deletedBy: row.deletedBy,
        expiresAt: new Date(at.getTime() + recycleDays * DAY_MS).toISOString(),
      };
    }),
    total: Number(count.rows[0]?.n ?? 0),
    currentPage: page.currentPage,
    pageSize: page.pageSize,
    recycleDays,
  };
}

/** The binned rows of `keys`, locked; a 404 naming the first key not in the caller's bin. */
async function binnedRows(request: CrudRequest, trx: Db, keys: unknown[]): Promise<Row[]> {
  const { entity, l10n } = request;
  const found = await sql<Row>`select ${selectList(entity)} from ${table(entity)}
    ${whereClause([sql`${column(entity.key)} in (${sql.join(keys)})`, ...binConditions(request)])} for update`.execute(
    trx,
  );
  const foundKeys = new Set(found.rows.map((row) => row[entity.key.name]));
  const missing = keys.find((key) => !foundKeys.has(key));
  if (missing !== undefined)
    throw new AppError('notInRecycleBin', { entity: entityTitle(l10n, entity), key: String(missing) }, [
      {
        field: `/${entity.key.name}`,
        message: l10n.t('errors.notInRecycleBin', {
          entity: entityTitle(l10n, entity),
          key: String(missing),
        }),
      },
    ]);
  return found.rows;
}

/**
 * Brings records back from the bin, in one transaction. A unique value another record took
 * meanwhile is a 409 naming the field; a reference to a record deleted since a 400 naming it.
 * The modules' beforeChange and afterChange run for each record (operation `restore`).
 */
export async function restoreRecords(request: CrudRequest, keys: unknown[]): Promise<{ restored: number }> {
  assertRecycleBin(request);
  const { entity, actor } = request;
  return transact(request, async (trx) => {
    const rows = await binnedRows(request, trx, keys);
    for (const row of rows) {
      const key = row[entity.key.name];
      const references: FieldError[] = await checkReferences({ ...request, trx }, row);
      if (references.length > 0) throw new EntityInputError(references);
      await checkUnique({ ...request, trx, values: uniqueValues(entity, row), ownKey: key });
      // the modules' beforeChange may refuse it (a value today's rules no longer allow)
      await writeHook(request, trx, 'beforeChange', { operation: 'restore', before: row, data: row });
    }
    const assignments = [
      sql`${deletedAt} = null`,
      sql`${deletedBy} = null`,
      ...updateBookkeeping(entity, actor),
    ];
    const restored = await sql<Row>`update ${table(entity)} set ${sql.join(assignments)}
      ${whereClause([sql`${column(entity.key)} in (${sql.join(keys)})`, ...binConditions(request)])}
      returning ${selectList(entity)}`.execute(trx);
    // Before and after hold the same values: the history shows 还原 with no field changed.
    const binned = new Map(rows.map((row) => [row[entity.key.name], row]));
    await writeAudit({
      trx,
      actor,
      entries: restored.rows.map((row) => ({
        entity: entity.name,
        recordKey: row[entity.key.name],
        action: 'restore' as const,
        before: binned.get(row[entity.key.name]) ?? null,
        after: row,
      })),
    });
    for (const row of restored.rows)
      await writeHook(request, trx, 'afterChange', {
        operation: 'restore',
        before: binned.get(row[entity.key.name]),
        data: row,
      });
    return { restored: restored.rows.length };
  });
}

/** The values of the unique fields (the key of a client-keyed entity is its own: never a clash). */
function uniqueValues(entity: EntityDef, row: Row): Row {
  const values: Row = {};
  for (const field of entity.fields) if (field.isUnique && !field.isKey) values[field.name] = row[field.name];
  return values;
}

/** Deletes records of the bin for good (their detail rows with them), audited. */
export async function purgeRecords(request: CrudRequest, keys: unknown[]): Promise<{ purged: number }> {
  assertRecycleBin(request);
  const { entity, actor } = request;
  return transact(request, async (trx) => {
    const rows = await binnedRows(request, trx, keys);
    await sql`delete from ${table(entity)}
      ${whereClause([sql`${column(entity.key)} in (${sql.join(keys)})`, ...binConditions(request)])}`.execute(
      trx,
    );
    await writeAudit({ trx, actor, entries: purgeEntries(entity, rows) });
    return { purged: rows.length };
  });
}

const purgeEntries = (entity: EntityDef, rows: Row[]) =>
  rows.map((row) => ({
    entity: entity.name,
    recordKey: row[entity.key.name],
    action: 'purge' as const,
    before: row,
    after: null,
  }));

/**
 * Purges what has been in a recycle bin longer than its tenant's recycleBinDays at `now`: of one
 * entity or all, of one tenant or all (the recycle-bin job, crud/module.ts). Audited as the
 * system's. Returns how many records went.
 */
export async function purgeExpiredRecords({
  db,
  registry,
  now,
  entity,
  tenantCode,
}: {
  db: Db;
  registry: AppContext['registry'];
  now: Date;
  entity?: EntityDef;
  tenantCode?: string;
}): Promise<number> {
  let purged = 0;
  for (const binned of entity ? [entity] : registry.all.filter(hasRecycleBin)) {
    if (!hasRecycleBin(binned)) continue;
    const tenants =
      tenantCode !== undefined || !binned.isTenantScoped
        ? [tenantCode ?? '']
        : (
            await sql<{ tenant_code: string }>`select distinct tenant_code from ${table(binned)}
              where ${deletedAt} is not null`.execute(db)
          ).rows.map((row) => row.tenant_code);
    for (const tenant of tenants) {
      const days = await recycleDaysOf({ db, registry }, tenant);
      const cutoff = new Date(now.getTime() - days * DAY_MS);
      const actor: Actor = { userId: null, username: 'system', tenantCode: tenant };
      purged += await inTransaction(db, async (trx) => {
        const gone = await sql<Row>`delete from ${table(binned)}
          ${whereClause([...tenantRowsCondition(binned, actor), sql`${deletedAt} < ${cutoff}`])}
          returning ${selectList(binned)}`.execute(trx);
        await writeAudit({ trx, actor, entries: purgeEntries(binned, gone.rows) });
        return gone.rows.length;
      });
    }
  }
  return purged;
}

interface AuditVersion {
  action: string;
  record_key: string;
  before: Row | null;
  after: Row | null;
}

/**
 * Sets a record back to the values of one entry of its audit log (its 修改历史): the values after
 * an add, update or restore, the values lost by a delete or purge. A new audited update through
 * the ordinary update (every check of today's schema and field rights); a record gone for good
 * is added again. Values that no longer pass today's schema are a 400 naming the fields.
 */
export async function restoreVersion(request: CrudRequest, auditId: number): Promise<Row> {
  const { entity, actor, l10n } = request;
  const found = await sql<AuditVersion>`select action, record_key, before, after from sys_audit_log
    where id = ${auditId} and tenant_code = ${actor.tenantCode} and entity = ${entity.name}`.execute(
    request.db,
  );
  const version = found.rows[0];
  const values = version ? (version.after ?? version.before) : null;
  if (!version || !values)
    throw new AppError('versionNotFound', { id: auditId }, [
      { field: '/auditId', message: l10n.t('errors.versionNotFound', { id: auditId }) },
    ]);
  const key = values[entity.key.name];
  const current = await sql<Row & { binned?: boolean }>`select ${selectList(entity)}
    ${hasRecycleBin(entity) ? sql`, ${deletedAt} is not null as binned` : sql``}
    from ${table(entity)} ${whereClause([
      sql`${column(entity.key)} = ${key}`,
      ...tenantRowsCondition(entity, actor),
      ...(request.policy.rowConditions ?? []),
    ])}`.execute(request.db);
  const row = current.rows[0];
  if (row?.binned === true)
    throw new AppError('inRecycleBin', { entity: entityTitle(l10n, entity), key: String(key) }, [
      {
        field: '/auditId',
        message: l10n.t('errors.inRecycleBin', { entity: entityTitle(l10n, entity), key: String(key) }),
      },
    ]);
  const body = versionBody(request, values);
  try {
    if (!row)
      return await addRecord(request, entity.isKeyGenerated ? body : { ...body, [entity.key.name]: key });
    return await updateRecord(request, { ...body, [entity.key.name]: key, version: row.version });
  } catch (error) {
    if (!(error instanceof EntityInputError)) throw error;
    // The version's values do not pass the schema of today: said as such, each field named.
    const fields = error.errors.map((item) => {
      const name = item.field.split('/')[1] ?? '';
      const field = entity.fieldsByName.get(name);
      return field ? fieldTitle({ l10n, entity, field }) : name;
    });
    throw new AppError('versionInvalid', { fields: [...new Set(fields)].join(', ') }, error.errors);
  }
}

/**
 * The body of an update to a version: every field of today's schema the caller may write, from
 * the version (null where it has none: cleared, or refused when required now). Secrets, read-only
 * and detail fields are left as they are.
 */
function versionBody(request: CrudRequest, values: Row): Row {
  const body: Row = {};
  for (const field of request.entity.fields) {
    if (field.isKey || field.isReadOnly || field.isSystem || field.isSecret || field.detail) continue;
    if (!request.policy.isWritable(field.name)) continue;
    body[field.name] = values[field.name] ?? null;
  }
  return body;
}
