import { sql } from 'kysely';
import {
  APPROVAL_INSTANCE,
  APPROVAL_STATUS,
  autoValues,
  checkConditionsOnUpdate,
  checkRecord,
  englishTranslate,
  withVirtualFields,
  detailFields,
  EntityInputError,
  hasRecycleBin,
  isHashedSecret,
  prepareInput,
  typeWord,
  type CountPolicy,
  type EntityDef,
  type Page as ApiPage,
  type FieldError,
  type RawParams,
  workflowOf,
} from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import { hashSecret } from '../../../lib/passwords.js';
import type { Db, Row } from '../../../lib/db/database.js';
import type { EntityRegistry } from '../../../lib/registry.js';
import { AppError } from '../../../lib/errors.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import type { Localizer } from '../../../lib/i18n.js';
import {
  checkDictionaries,
  checkReferences,
  checkTreeMove,
  checkUnique,
  type CheckContext,
} from './checks.js';
import {
  column,
  filterCondition,
  insertRow,
  scopeCondition,
  selectList,
  table,
  toDbValue,
  updateBookkeeping,
  adoptionOf,
  whereClause,
  type Actor,
  type Condition,
} from '../../../lib/sql/toolkit.js';
import { entityTitle } from '../../../lib/titles.js';
import { readListPage } from './list-page.js';
import { checkFileFields } from './file-fields.js';
import { sanitizeRichTextValues } from '../../../lib/html.js';
import {
  readParam,
  runAfterRead,
  runWriteHooks,
  type EntityService,
  type ModuleSet,
  type SharedServices,
  type WriteHookInput,
} from '../../../lib/modules/index.js';
import { isWithinScope, openRecordPolicy, type RecordPolicy } from '../../rbac/index.js';
import { deleteAdoptedDetailRows, readDetailRows, writeDetailRows } from '../../../lib/sql/detail-rows.js';
import { checkDetailRows } from './details.js';
import { constraintError } from './constraints.js';
import { binnedLeftOut, moveToRecycleBin } from './recycle-rows.js';

export interface CrudRequest {
  db: Db;
  registry: EntityRegistry;
  entity: EntityDef;
  actor: Actor;
  l10n: Localizer;
  /** What the caller may see of the records and filter on (features/rbac/permissions/policy.ts). */
  policy: RecordPolicy;
  /** The caller's roles (file fields: an administrator may use every file of the tenant). */
  roles?: readonly string[];
  /** When a list's count is exact (the server's LIST_* settings); the engine's defaults otherwise. */
  countPolicy?: CountPolicy;
  /** The modules' hooks (lib/modules): run by every write and read of the entity. */
  modules: ModuleSet;
  /**
   * The caller's IANA time zone (the X-Time-Zone header the front-ends send): an export writes
   * times in it, as the caller's screen shows them, and an import reads wall-clock times in it.
   * The server's own zone when undefined.
   */
  timeZone?: string;
  /**
   * Runs after an add, in its transaction (a throw undoes the add); its answer is the answer of
   * the add (a saved report adds its menu).
   */
  afterAdd?: (trx: Db, row: Row) => Promise<Row>;
  /**
   * An update made from the task screen of the record's approval (x-entity.workflow): while the
   * record is under approval by `instanceId`, these fields (the open task's) may change.
   */
  approvalEdit?: { instanceId: number; fields: ReadonlySet<string> };
}

/**
 * A page of records as the query endpoints answer it, with the position after its last row
 * (`cursor`, sent back as `after` for the next page) and whether an exact count gave up.
 */
export type Page = ApiPage<Row> & { cursor?: string; countTimedOut?: boolean };

/** Constraint errors that slipped past the checks (or that the table alone knows) name the field. */
export const transact = <T>(request: CrudRequest, work: (trx: Db) => Promise<T>): Promise<T> =>
  inTransaction(request.db, work, {
    clashSubject: entityTitle(request.l10n, request.entity),
    onConstraint: (error) =>
      constraintError({ db: request.db, entity: request.entity, l10n: request.l10n, error }),
  });

/** Adds the detail rows of each record (in their saved order) under their fields. */
async function withDetails(db: Db, entity: EntityDef, actor: Actor, read: Row[]): Promise<Row[]> {
  // Virtual computed fields (x-computed, not stored) are computed from the row read.
  const rows = read.map((row) => withVirtualFields(entity.schema, row, englishTranslate));
  if (rows.length === 0 || detailFields(entity).length === 0) return rows;
  const keys = rows.map((row) => row[entity.key.name]);
  const details = await readDetailRows({ db, entity, parentKeys: keys, actor });
  return rows.map((row) => {
    const withRows: Row = { ...row };
    for (const [field, byParent] of details) withRows[field] = byParent.get(row[entity.key.name]) ?? [];
    return withRows;
  });
}

export async function queryRecords(request: CrudRequest, params: RawParams): Promise<Page> {
  const { entity, actor } = request;
  const query = request.policy.listQuery(params);
  const conditions = [
    ...scopeCondition(entity, actor),
    ...(request.policy.rowConditions ?? []),
    ...query.filters.map(filterCondition),
  ];
  const { rows, ...page } = await readListPage({
    db: request.db,
    entity,
    query,
    conditions,
    policy: request.countPolicy,
  });
  // A query by one key is a detail read (the edit form's): it carries the detail rows, a list does not.
  const isDetailRead = query.filters.some(
    (filter) => filter.field.isKey && filter.op === 'in' && filter.values.length === 1,
  );
  const shown = isDetailRead ? await withDetails(request.db, entity, actor, rows) : rows;
  return {
    records: await readHook(
      request,
      shown.map((row) => request.policy.shown(row)),
    ),
    ...page,
    currentPage: query.currentPage,
    pageSize: query.pageSize,
  };
}

/** Conditions of a read or write of the caller: the tenant's, then the policy's row scope. */
const scopeOf = (request: CrudRequest): Condition[] => [
  ...scopeCondition(request.entity, request.actor),
  ...(request.policy.rowConditions ?? []),
];

/**
 * 403 outsideScope unless the record written in `trx` lies within the caller's row scope
 * (an add or update landing outside it is refused; the transaction is undone).
 */
async function assertWithinScope(request: CrudRequest, trx: Db, key: unknown): Promise<void> {
  const conditions = request.policy.rowConditions ?? [];
  if (!(await isWithinScope({ trx, entity: request.entity, key, conditions })))
    throw new AppError('outsideScope', { entity: entityTitle(request.l10n, request.entity) });
}

/**
 * A record under approval (x-entity.workflow, approvalStatus pending) is read-only: an update,
 * a delete or an import row naming it is a 409 naming the record, unless the update comes from
 * the task screen of its instance (request.approvalEdit) and changes only the task's fields
 * (else a 403 naming each other field changed).
 */
function assertNotUnderApproval(
  request: CrudRequest,
  before: Row,
  change?: { values: Record<string, unknown>; cleared: readonly string[] },
): void {
  const { entity, l10n } = request;
  if (!workflowOf(entity) || before[APPROVAL_STATUS] !== 'pending') return;
  const subject = {
    entity: entityTitle(l10n, entity),
    label: String(before[entity.label] ?? before[entity.key.name] ?? ''),
  };
  const edit = request.approvalEdit;
  if (!change || !edit || edit.instanceId !== Number(before[APPROVAL_INSTANCE]))
    throw new AppError('recordUnderApproval', subject);
  const changed = [
    ...Object.keys(change.values).filter(
      (name) => change.values[name] !== undefined && !isStoredValue(before[name], change.values[name]),
    ),
    ...change.cleared.filter((name) => before[name] !== null && before[name] !== undefined),
  ];
  const locked = [...new Set(changed)].filter((name) => !edit.fields.has(name));
  if (locked.length > 0)
    throw new AppError(
      'recordFieldLocked',
      subject,
      locked.map((name) => ({ field: `/${name}`, message: l10n.t('errors.recordFieldLocked', subject) })),
    );
}

/** The record of the key in the caller's tenant and row scope, locked for the transaction (undefined: none). */
export function lockRecord(request: CrudRequest, trx: Db, key: unknown): Promise<Row | undefined> {
  return findOne(trx, request, key, true);
}

async function findOne(
  trx: Db,
  request: CrudRequest,
  key: unknown,
  isForUpdate = false,
): Promise<Row | undefined> {
  const { entity } = request;
  const where = whereClause([sql`${column(entity.key)} = ${key}`, ...scopeOf(request)]);
  const lock = isForUpdate ? sql`for update` : sql``;
  const result = await sql<Row>`select ${selectList(entity)} from ${table(entity)} ${where} ${lock}`.execute(
    trx,
  );
  return result.rows[0];
}

export async function getRecord(request: CrudRequest, key: unknown): Promise<Row> {
  const row = await findOne(request.db, request, key);
  if (!row)
    throw new AppError('notFound', { entity: entityTitle(request.l10n, request.entity), key: String(key) });
  const [withRows = row] = await withDetails(request.db, request.entity, request.actor, [row]);
  const [shown = withRows] = await readHook(request, [request.policy.shown(withRows)]);
  return shown;
}

async function hashSecrets(entity: EntityDef, values: Record<string, unknown>): Promise<void> {
  for (const field of entity.fields) {
    const value = values[field.name];
    if (isHashedSecret(entity, field) && typeof value === 'string')
      values[field.name] = await hashSecret(value);
  }
}

/**
 * Rich text is sanitised before anything is checked or stored; a required one left with nothing
 * (it held only a script) is refused on its field.
 */
function cleanRichText(request: CrudRequest, values: Record<string, unknown>): void {
  const emptied = sanitizeRichTextValues(request.entity, values).filter(
    (name) => request.entity.fields.find((field) => field.name === name)?.isRequired === true,
  );
  if (emptied.length > 0) {
    throw new EntityInputError(
      emptied.map((name) => ({ field: `/${name}`, message: request.l10n.t('validation.required') })),
    );
  }
}

async function runChecks(
  ctx: CheckContext,
  values: Record<string, unknown>,
  ownKey?: unknown,
): Promise<void> {
  const errors: FieldError[] = [
    ...(await checkReferences(ctx, values)),
    ...(await checkDictionaries(ctx, values)),
    ...(await checkFileFields(ctx, values)),
    ...(await checkDetailRows(ctx, values)),
  ];
  if (ownKey !== undefined && ctx.entity.tree) {
    errors.push(...(await checkTreeMove({ ...ctx, key: ownKey, newParent: values[ctx.entity.tree.parent] })));
  }
  if (errors.length > 0) throw new EntityInputError(errors);
  await checkUnique({ ...ctx, values, ownKey });
}

/**
 * The stored computed fields (x-computed) of the record as it will be written, after the modules'
 * beforeChange and the x-auto values (a hook's budget is never stored beside the tax of the one
 * sent; a rule may read the publish time the server sets), with the cross-field rules (x-rules)
 * checked over it: 400 naming the fields.
 */
export function computedOnWrite(
  request: Pick<CrudRequest, 'entity' | 'l10n'>,
  record: Record<string, unknown>,
): Record<string, unknown> {
  const outcome = checkRecord(request.entity.schema, record, request.l10n.t);
  if (outcome.errors.length > 0) throw new EntityInputError(outcome.errors);
  return outcome.values;
}

/** A body as an object a hook may change (a copy). */
const bodyObject = (body: unknown): Row =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...(body as Row) } : {};

/** The answer of an add or update: the record as the caller sees it, through afterRead, plus what afterChange added. */
async function answerOf(request: CrudRequest, row: Row, added: Row): Promise<Row> {
  const [shown = row] = await readHook(request, [request.policy.shown(row)]);
  return Object.keys(added).length > 0 ? { ...shown, ...added } : shown;
}

export async function addRecord(request: CrudRequest, body: unknown): Promise<Row> {
  const { entity, actor } = request;
  // hidden and read-only fields of the caller's roles: 403 naming them (rbac field-rights.ts)
  request.policy.assertWritable(body);
  const prepare = (input: unknown): Record<string, unknown> => {
    const { values } = prepareInput(
      entity,
      request.registry.validators(entity),
      input,
      'create',
      request.l10n.t,
    );
    cleanRichText(request, values);
    return values;
  };
  // Without a beforeValidate hook the body is checked before the transaction opens.
  const early = request.modules.has(entity.name, 'beforeValidate') ? undefined : prepare(body);
  return transact(request, async (trx) => {
    const hook = { operation: 'add' as const, before: undefined };
    const checked =
      early ?? prepare(await writeHook(request, trx, 'beforeValidate', { ...hook, data: bodyObject(body) }));
    await runChecks({ ...request, trx }, checked);
    const values = await writeHook(request, trx, 'beforeChange', { ...hook, data: checked });
    const given = new Set(Object.keys(values).filter((name) => values[name] !== undefined));
    // x-auto fields (publisher, publish time): the server's values, never the client's
    Object.assign(values, autoValues(entity, { actor: actor.username, now: new Date() }));
    Object.assign(values, computedOnWrite(request, values));
    await hashSecrets(entity, values);
    const fields = entity.fields.filter((field) => values[field.name] !== undefined && !field.detail);
    const { columns, params } = insertRow({ entity, values, fields, actor });
    const inserted =
      await sql<Row>`insert into ${table(entity)} (${sql.join(columns)}) values (${sql.join(params)})
      returning ${selectList(entity)}`.execute(trx);
    const parent = inserted.rows[0];
    if (!parent) throw new Error(`insert into ${entity.table} returned nothing`);
    await assertWithinScope(request, trx, parent[entity.key.name]);
    // Detail rows go in with their parent, in the same transaction.
    await writeDetailRows({ trx, entity, parentKey: parent[entity.key.name], values, actor, isNew: true });
    const [row = parent] = await withDetails(trx, entity, actor, [parent]);
    await writeAudit({
      trx,
      actor,
      entries: [
        { entity: entity.name, recordKey: row[entity.key.name], action: 'add', before: null, after: row },
      ],
    });
    const added = await writeHook(request, trx, 'afterChange', { ...hook, data: row, changes: given });
    const answer = await answerOf(request, row, added);
    return request.afterAdd ? request.afterAdd(trx, answer) : answer;
  });
}

/** Whether a value sent is the one the record holds (as read back: dates as instants, JSON as text). */
function isStoredValue(stored: unknown, sent: unknown): boolean {
  if (stored instanceof Date)
    return typeof sent === 'string' && new Date(sent).getTime() === stored.getTime();
  if (typeof stored === 'object' && stored !== null) return JSON.stringify(stored) === JSON.stringify(sent);
  return stored === sent;
}

/**
 * The record before an update as field rights compare it: with its detail rows when the body
 * sends a detail field the caller may only keep (read-only).
 */
async function withSentDetails(request: CrudRequest, trx: Db, body: unknown, before: Row): Promise<Row> {
  const sent = typeof body === 'object' && body !== null ? Object.keys(body) : [];
  const needsRows = detailFields(request.entity).some(
    (field) => sent.includes(field.name) && request.policy.readOnlyFields.has(field.name),
  );
  if (!needsRows) return before;
  const [row = before] = await withDetails(trx, request.entity, request.actor, [before]);
  return row;
}

export async function updateRecord(request: CrudRequest, body: unknown): Promise<Row> {
  const { entity, actor } = request;
  const prepare = (input: unknown) => {
    const prepared = prepareInput(
      entity,
      request.registry.validators(entity),
      input,
      'update',
      request.l10n.t,
    );
    cleanRichText(request, prepared.values);
    return prepared;
  };
  // Without a beforeValidate hook the body is checked before the transaction opens.
  const early = request.modules.has(entity.name, 'beforeValidate') ? undefined : prepare(body);
  return transact(request, async (trx) => {
    let prepared = early;
    if (!prepared) {
      // beforeValidate sees the record the body names (read by the key as sent).
      const sent = bodyObject(body);
      const sentKey = sent[entity.key.name];
      const stored =
        typeof sentKey === 'number' || (typeof sentKey === 'string' && sentKey !== '')
          ? await findOne(trx, request, sentKey, true).catch(() => undefined)
          : undefined;
      prepared = prepare(
        await writeHook(request, trx, 'beforeValidate', { operation: 'update', before: stored, data: sent }),
      );
    }
    const { cleared } = prepared;
    let values = prepared.values;
    const key = values[entity.key.name];
    const version = values.version;
    delete values[entity.key.name];
    delete values.version;
    const before = await findOne(trx, request, key, true);
    if (!before)
      throw new AppError('notFound', { entity: entityTitle(request.l10n, entity), key: String(key) });
    // An adopted table without a version column has no optimistic locking (last writer wins).
    if (entity.fieldsByName.has('version') && before.version !== version) {
      throw new AppError('staleVersion', {}, [
        { field: '/version', message: request.l10n.t('errors.staleVersion') },
      ]);
    }
    // Under approval: read-only, but for the open task's fields from its task screen.
    assertNotUnderApproval(request, before, { values, cleared });
    // Hidden fields, and read-only ones sent changed: 403 naming them (rbac field-rights.ts).
    request.policy.assertWritable(body, await withSentDetails(request, trx, body, before));
    // Visibility conditions read against the record as it will be: a hidden field's value is
    // refused, its stored value cleared (engine/conditions.ts).
    const conditions = checkConditionsOnUpdate(entity.schema, before, values, cleared, request.l10n.t);
    if (conditions.errors.length > 0) throw new EntityInputError(conditions.errors);
    cleared.push(...conditions.clear);
    // Computed fields and cross-field rules over the record as it will be (engine/rules.ts).
    const after: Record<string, unknown> = { ...before, ...values };
    for (const name of cleared) after[name] = null;
    const outcome = checkRecord(entity.schema, after, request.l10n.t);
    if (outcome.errors.length > 0) throw new EntityInputError(outcome.errors);
    Object.assign(values, outcome.values);
    await runChecks({ ...request, trx }, values, key);
    if (request.modules.has(entity.name, 'beforeChange')) {
      values = await writeHook(request, trx, 'beforeChange', { operation: 'update', before, data: values });
      const changed: Record<string, unknown> = { ...before, ...values };
      for (const name of cleared) changed[name] = null;
      Object.assign(values, computedOnWrite(request, changed));
    }
    await hashSecrets(entity, values);
    // A value equal to the stored one is not written: the column keeps what it holds to the
    // byte (a timestamp's microseconds, which a JavaScript date cannot carry back).
    const assigned = entity.fields.filter(
      (field) =>
        (!field.isReadOnly || field.computed?.stored === true) &&
        !field.isKey &&
        !field.detail &&
        (cleared.includes(field.name)
          ? before[field.name] !== null
          : values[field.name] !== undefined && !isStoredValue(before[field.name], values[field.name])),
    );
    const assignments = assigned.map(
      (field) => sql`${column(field)} = ${toDbValue(field, values[field.name] ?? null)}`,
    );
    assignments.push(...updateBookkeeping(entity, actor));
    // An adopted table keeping no bookkeeping, only its details sent: the row itself is unchanged.
    if (assignments.length === 0) assignments.push(sql`${column(entity.key)} = ${column(entity.key)}`);
    const where = whereClause([sql`${column(entity.key)} = ${key}`, ...scopeOf(request)]);
    const updated = await sql<Row>`update ${table(entity)} set ${sql.join(assignments)} ${where}
      returning ${selectList(entity)}`.execute(trx);
    const parent = updated.rows[0];
    if (!parent) throw new Error(`update of ${entity.table} returned nothing`);
    await assertWithinScope(request, trx, key);
    // A detail field sent replaces the whole set of rows, under the version checked above.
    await writeDetailRows({ trx, entity, parentKey: key, values, actor, isNew: false, cleared });
    const [row = parent] = await withDetails(trx, entity, actor, [parent]);
    await writeAudit({
      trx,
      actor,
      entries: [{ entity: entity.name, recordKey: key, action: 'update', before, after: row }],
    });
    // Secret fields are assigned whenever sent (a new hash each time).
    const changes = new Set([
      ...assigned.map((field) => field.name),
      ...entity.fields
        .filter((field) => field.isSecret && values[field.name] !== undefined)
        .map((f) => f.name),
    ]);
    const added = await writeHook(request, trx, 'afterChange', {
      operation: 'update',
      before,
      data: row,
      changes,
    });
    return answerOf(request, row, added);
  });
}

/**
 * Reads the keys of a delete request (?id=1&id=2, or the entity's key name) and checks them.
 * Whole-number keys arrive as numbers: the route schema (features/crud/routes/entity-schemas.ts) read and bounded them.
 */
export function parseDeleteKeys({
  entity,
  query,
  l10n,
}: {
  entity: EntityDef;
  /** The query string as the route schema read it (whole-number keys as numbers). */
  query: RawParams;
  l10n: Localizer;
}): unknown[] {
  const raw = query[entity.key.name];
  const keys = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((item: unknown) =>
    typeof item === 'string' ? item.trim() : item,
  );
  const pointer = `/${entity.key.name}`;
  const errors: FieldError[] = [];
  if (keys.length === 0) errors.push({ field: pointer, message: l10n.t('validation.required') });
  for (const name of Object.keys(query)) {
    if (name !== entity.key.name)
      errors.push({ field: `/${name}`, message: l10n.t('validation.additionalProperties') });
  }
  const isKey = (key: unknown): boolean =>
    entity.key.type === 'integer'
      ? Number.isSafeInteger(key)
      : typeof key === 'string' && key !== '' && !key.includes('\u0000');
  if (!keys.every(isKey)) {
    errors.push({
      field: pointer,
      message: l10n.t('validation.type', { type: typeWord(entity.key.type, l10n.t) }),
    });
  }
  if (keys.length > 1000)
    errors.push({ field: pointer, message: l10n.t('validation.maxItems', { limit: 1000 }) });
  if (errors.length > 0) throw new EntityInputError(errors);
  return [...new Set(keys)];
}

export async function deleteRecords(request: CrudRequest, keys: unknown[]): Promise<{ deleted: number }> {
  const { entity, actor, registry, l10n } = request;
  return transact(request, async (trx) => {
    const scope = scopeOf(request);
    const keyList = sql.join(keys);
    const found = await sql<Row>`select ${selectList(entity)} from ${table(entity)}
      ${whereClause([sql`${column(entity.key)} in (${keyList})`, ...scope])} for update`.execute(trx);
    const foundKeys = new Set(found.rows.map((row) => row[entity.key.name]));
    const missing = keys.find((key) => !foundKeys.has(key));
    if (missing !== undefined)
      throw new AppError('notFound', { entity: entityTitle(l10n, entity), key: String(missing) });
    for (const row of found.rows) assertNotUnderApproval(request, row);
    for (const reference of registry.referencesTo(entity)) {
      const isOwnTree = reference.from === entity && entity.tree?.parent === reference.field.name;
      const conditions = [sql`${column(reference.field)} in (${keyList})`, ...binnedLeftOut(reference.from)];
      // Children that are deleted in the same batch do not block their parent.
      if (isOwnTree) conditions.push(sql`${column(entity.key)} not in (${keyList})`);
      const used =
        await sql`select 1 from ${table(reference.from)} ${whereClause(conditions)} limit 1`.execute(trx);
      if (used.rows.length === 0) continue;
      if (isOwnTree)
        throw new AppError('hasChildren', {}, [
          { field: `/${entity.key.name}`, message: l10n.t('errors.hasChildren') },
        ]);
      const by = `${entityTitle(l10n, reference.from)}`;
      throw new AppError('referenced', { by }, [
        { field: `/${entity.key.name}`, message: l10n.t('errors.referenced', { by }) },
      ]);
    }
    for (const row of found.rows)
      await writeHook(request, trx, 'beforeDelete', { operation: 'delete', before: row, data: row });
    await deleteAdoptedDetailRows({ trx, entity, parentKeys: [...foundKeys] });
    const softDelete = adoptionOf(entity)?.softDelete;
    const where = whereClause([sql`${column(entity.key)} in (${keyList})`, ...scope]);
    // An adopted table's soft delete marks its rows, as the other application does; a row of a
    // table the engine does not know that still refers to one is the transaction's 409 (constraints.ts).
    // An entity with a recycle bin (x-entity.softDelete) keeps the rows, marked (recycle.ts).
    if (hasRecycleBin(entity)) await moveToRecycleBin({ trx, entity, actor, where });
    else
      await (softDelete
        ? sql`update ${table(entity)} set ${sql.join([
            sql`${sql.ref(softDelete.column)} = ${softDelete.deleted}`,
            ...updateBookkeeping(entity, actor),
          ])} ${where}`.execute(trx)
        : sql`delete from ${table(entity)} ${where}`.execute(trx));
    for (const row of found.rows)
      await writeHook(request, trx, 'afterDelete', { operation: 'delete', before: row, data: row });
    await writeAudit({
      trx,
      actor,
      entries: found.rows.map((row) => ({
        entity: entity.name,
        recordKey: row[entity.key.name],
        action: 'delete' as const,
        before: row,
        after: null,
      })),
    });
    return { deleted: found.rows.length };
  });
}

/**
 * The modules' hooks (lib/modules) as the generic services run them: in the write's
 * transaction, with the generated CRUD of every entity bound to it.
 */

/** How a service call on another entity is made inside a transaction (a read, or a write). */
export type CrudRequestFor = (
  entity: EntityDef,
  mode: 'read' | 'write',
) => CrudRequest | Promise<CrudRequest>;

/** The generated CRUD of every entity through `requestFor` (its transaction, its policy). */
export function entityService(registry: EntityRegistry, requestFor: CrudRequestFor): EntityService {
  const of = async (name: string, mode: 'read' | 'write' = 'write'): Promise<CrudRequest> =>
    requestFor(registry.require(name), mode);
  return {
    add: async (name, record) => addRecord(await of(name), record),
    update: async (name, record) => updateRecord(await of(name), record),
    delete: async (name, keys) => deleteRecords(await of(name), [...keys]),
    get: async (name, key) => getRecord(await of(name, 'read'), key),
    query: async (name, params = {}) => {
      const page = await queryRecords(await of(name, 'read'), params);
      return {
        records: page.records,
        total: page.total,
        currentPage: page.currentPage,
        pageSize: page.pageSize,
      };
    },
  };
}

/**
 * What a hook of `request` gets beside its input: the actor's tenant, and every entity's CRUD in
 * `trx` with all fields open (a hook is the module's own logic, not the caller's request).
 */
export function hookServices(request: CrudRequest, trx: Db): SharedServices {
  const { actor, l10n, registry } = request;
  const system = (entity: EntityDef): CrudRequest => ({
    db: trx,
    registry,
    entity,
    actor,
    l10n,
    policy: openRecordPolicy(entity, l10n),
    modules: request.modules,
    ...(request.roles ? { roles: request.roles } : {}),
  });
  return {
    actor,
    tenant: actor.tenantCode,
    entities: entityService(registry, system),
    param: (key) => readParam({ trx, registry, tenant: actor.tenantCode, key }),
    translate: l10n.t,
    language: l10n.language,
    trx,
  };
}

/** Runs a write hook of the request's entity (nothing when no module hooks it). */
export async function writeHook(
  request: CrudRequest,
  trx: Db,
  name: 'beforeValidate' | 'beforeChange' | 'afterChange' | 'beforeDelete' | 'afterDelete',
  input: Omit<WriteHookInput, 'entity' | 'isImport' | 'changes'> &
    Partial<Pick<WriteHookInput, 'isImport' | 'changes'>>,
): Promise<Row> {
  const { entity, modules } = request;
  if (!modules.has(entity.name, name)) return name === 'afterChange' ? {} : input.data;
  return runWriteHooks(
    modules,
    name,
    { isImport: false, changes: new Set(), ...input, entity: entity.name },
    hookServices(request, trx),
  );
}

/** The records to answer, through the entity's afterRead hooks. */
export async function readHook<T extends Row>(request: CrudRequest, rows: T[]): Promise<T[]> {
  const { entity, modules, actor } = request;
  if (!modules.has(entity.name, 'afterRead')) return rows;
  const shown: T[] = [];
  for (const row of rows)
    shown.push(
      (await runAfterRead(modules, {
        entity: entity.name,
        actor,
        tenant: actor.tenantCode,
        data: row,
      })) as T,
    );
  return shown;
}
