import { recordEvents } from '../../../lib/events/index.js';
import { sql } from 'kysely';
import {
  entityTableSpecs,
  planTableMigration,
  type EntityDef,
  type FieldError,
} from '../../../../engine/index.js';
import type {
  FormCheck,
  FormRecord,
  FormStatus,
  FormVersion,
  ImpactReport,
  PublishAnswer,
} from '../../../../engine/api-types.js';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { FORM_TABLE, FORM_VERSION_TABLE } from '../tables.js';
import { ensureTrigram, readExistingTables } from '../../../lib/db/migrate.js';
import { AppError } from '../../../lib/errors.js';
import { assertSchemaBudget } from '../../../lib/schema-budget.js';
import { detailColumnTitle, fieldTitle } from '../../../lib/titles.js';
import type { Localizer } from '../../../lib/i18n.js';
import { insertRecords } from '../../../lib/sql/insert-records.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { writeAudit } from '../../../lib/audit.js';
import { dictionaryItems, dictionaryTable } from '../../../lib/dictionaries.js';
import { column, scopeCondition, table, whereClause } from '../../../lib/sql/toolkit.js';
import { isProcessDeployed } from '../../workflow/index.js';
import { assertPlatformAdmin, isPlatformAdmin, namesNoOtherTenant } from '../../rbac/index.js';
import { compileForm, normalizeContent, onlineApiOf } from './compile.js';
import { backfillValue, impactOf } from './impact.js';

/**
 * Designed forms: stored with their versions, checked by the engine, published as live entities
 * (table, API, menu, grants) and unpublished, all without a restart. Each change runs in one
 * transaction; the registry of this process follows once it commits, and other processes learn
 * of it through the notification the transaction sends (watch.ts).
 *
 * A form belongs to the tenant that added it (tenant_code): every read and change names the
 * caller's tenant, so another tenant's form answers 404; its published API, menu and grants are
 * its tenant's only. Form codes stay unique across tenants: a code names the entity, its table
 * (online_<code>) and its API (/api/online/<code>), which are one per database.
 */

export const FORM_CHANNEL = 'ecobid_form';
const BUTTONS = ['add', 'update', 'delete', 'export'];

interface FormRow {
  id: number;
  tenant_code: string;
  form_code: string;
  form_name: string;
  form_description: string | null;
  form_content: unknown;
  status: FormStatus;
  version: number;
  published_content: unknown;
  published_version: number | null;
  menu_id: number | null;
  created_at: Date | string;
  created_by: string | null;
  updated_at: Date | string | null;
  updated_by: string | null;
}

/**
 * A form's content is kept as JSON text inside its jsonb columns: jsonb orders an object's keys
 * by length, and a form's property order is its field order. Rows written before hold the object
 * itself (order already lost) and read as they are.
 */
const contentSql = (content: unknown) => sql`to_jsonb(${JSON.stringify(content)}::text)`;
const contentOf = (stored: unknown): unknown => {
  if (typeof stored !== 'string') return stored;
  try {
    return JSON.parse(stored) as unknown;
  } catch {
    return stored;
  }
};

const iso = (value: Date | string | null): string | null =>
  value === null ? null : value instanceof Date ? value.toISOString() : new Date(value).toISOString();

function recordOf(row: FormRow): FormRecord {
  return {
    id: Number(row.id),
    formCode: row.form_code,
    formName: row.form_name,
    formDescription: row.form_description,
    formContent: contentOf(row.form_content),
    status: row.status,
    version: row.version,
    publishedVersion: row.published_version,
    api: row.status === 'published' ? onlineApiOf(row.form_code) : null,
    menuId: row.menu_id === null ? null : Number(row.menu_id),
    createdAt: iso(row.created_at) ?? '',
    createdBy: row.created_by,
    updatedAt: iso(row.updated_at),
    updatedBy: row.updated_by,
  };
}

const formTable = sql.table(FORM_TABLE);
const versionTable = sql.table(FORM_VERSION_TABLE);

/** One form of the tenant; another tenant's form is not found (404), as a missing one. */
async function findRow(db: Db, id: number, tenantCode: string, isLocked = false): Promise<FormRow> {
  const found =
    await sql<FormRow>`select * from ${formTable} where id = ${id} and tenant_code = ${tenantCode}${
      isLocked ? sql` for update` : sql``
    }`.execute(db);
  const row = found.rows[0];
  if (!row) throw new AppError('notFound');
  return row;
}

// The tenant of a published form ----------------------------------------------------------------

/** The tenant each live form entity of the registry belongs to (set wherever one is put). */
const formTenants = new WeakMap<EntityDef, string>();

function putForm(ctx: AppContext, entity: EntityDef, tenantCode: string): void {
  formTenants.set(entity, tenantCode);
  ctx.registry.put(entity);
}

/**
 * Whether a live entity is a published form of another tenant than the caller's: its API, its
 * schema in the generator and its menu are not the caller's (404 / unknown, as a missing one).
 */
export function isOtherTenantsForm(ctx: AppContext, entity: EntityDef, tenantCode: string): boolean {
  if (!ctx.registry.isRuntime(entity.name)) return false;
  return formTenants.get(entity) !== tenantCode;
}

/**
 * The entities a caller sees listed (GET /api/schemas, its validators, the back-office page's
 * bootstrap): every entity of the schema files, and the published forms of the caller's tenant
 * only; an anonymous caller (no tenant) sees no published form at all.
 */
export function tenantsEntities(ctx: AppContext, tenantCode: string | undefined): EntityDef[] {
  return ctx.registry.all.filter((entity) =>
    tenantCode === undefined
      ? !ctx.registry.isRuntime(entity.name)
      : !isOtherTenantsForm(ctx, entity, tenantCode),
  );
}

// Options and tables of the platform ------------------------------------------------------------

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const entityOptionsOf = (content: unknown): Record<string, unknown> =>
  isObject(content) && isObject(content['x-entity']) ? content['x-entity'] : {};

/**
 * x-entity.tenant false (rows of every tenant in one table) and x-entity.adopt (an existing
 * table of the database) reach beyond the caller's tenant: 403 platformOnly naming the field
 * for anyone but the platform administrator.
 */
function refusePlatformOptions(ctx: AppContext, auth: AuthContext, l10n: Localizer, content: unknown): void {
  const options = entityOptionsOf(content);
  const errors: FieldError[] = [];
  if (options.tenant !== undefined && options.tenant !== true)
    errors.push({
      field: '/formContent/x-entity/tenant',
      message: l10n.t('forms.problems.platformOption', { option: 'x-entity.tenant' }),
    });
  if (options.adopt !== undefined && options.adopt !== false)
    errors.push({
      field: '/formContent/x-entity/adopt',
      message: l10n.t('forms.problems.platformOption', { option: 'x-entity.adopt' }),
    });
  if (errors.length > 0) assertPlatformAdmin(ctx, auth, errors);
}

/** A property's title in the reader's language (x-ui.titles), else its schema title, else its name. */
function propertyTitle(property: Record<string, unknown>, name: string, l10n: Localizer): string {
  const ui = isObject(property['x-ui']) ? property['x-ui'] : {};
  const titles = isObject(ui.titles) ? ui.titles : {};
  const own = titles[l10n.language];
  if (typeof own === 'string' && own !== '') return own;
  return typeof property.title === 'string' && property.title !== '' ? property.title : name;
}

/**
 * A field's 字典 (x-dict) names a dictionary that has items: an unknown code is refused (400
 * naming the field by its title and the code), as the designer's dictionary picker offers only
 * known ones. Detail lines' columns too.
 */
async function refuseUnknownDictionaries({
  ctx,
  db,
  actor,
  l10n,
  content,
}: {
  ctx: AppContext;
  db: Db;
  actor: Actor;
  l10n: Localizer;
  content: unknown;
}): Promise<void> {
  const used: { pointer: string; title: string; dict: string }[] = [];
  const walk = (properties: unknown, pointer: string, prefix: string): void => {
    if (!isObject(properties)) return;
    for (const [name, property] of Object.entries(properties)) {
      if (!isObject(property)) continue;
      const title = `${prefix}${propertyTitle(property, name, l10n)}`;
      const dict = property['x-dict'];
      if (typeof dict === 'string') used.push({ pointer: `${pointer}/${name}/x-dict`, title, dict });
      const items = property.items;
      if (property['x-detail'] !== undefined && isObject(items))
        walk(items.properties, `${pointer}/${name}/items/properties`, `${title} / `);
    }
  };
  walk(isObject(content) ? content.properties : undefined, '/formContent/properties', '');
  if (used.length === 0) return;
  const dict = dictionaryTable(ctx.registry);
  if (!dict) return;
  const known = new Map<string, boolean>();
  const errors: FieldError[] = [];
  for (const item of used) {
    if (!known.has(item.dict))
      known.set(item.dict, (await dictionaryItems({ db, dict, dictType: item.dict, actor })).length > 0);
    if (known.get(item.dict) !== true)
      errors.push({
        field: item.pointer,
        message: l10n.t('forms.problems.unknownDict', { field: item.title, dict: item.dict }),
      });
  }
  if (errors.length > 0) throw new AppError('validation', {}, errors);
}

/**
 * The approval process a form names (x-entity.workflow.process, chosen in the designer) is one
 * the tenant has deployed: an unknown key is refused (400 naming /formContent/x-entity/workflow/process).
 */
async function refuseUnknownProcess({
  db,
  actor,
  l10n,
  content,
}: {
  db: Db;
  actor: Actor;
  l10n: Localizer;
  content: unknown;
}): Promise<void> {
  const workflow = entityOptionsOf(content).workflow;
  const process = isObject(workflow) ? workflow.process : undefined;
  // another shape is the meta-schema's to refuse (compileForm), naming the field
  if (typeof process !== 'string' || process === '') return;
  if (await isProcessDeployed({ db, tenantCode: actor.tenantCode, key: process })) return;
  throw new AppError('validation', {}, [
    {
      field: '/formContent/x-entity/workflow/process',
      message: l10n.t('forms.problems.unknownProcess', { process }),
    },
  ]);
}

/** Names of PostgreSQL's catalogue and of the platform's own tables (the framework's prefixes). */
const RESERVED_TABLE = /^(pg_|information_schema|sys_|wf_|act_|gen_)/;

/**
 * A form's table may not be another schema's (a dot), PostgreSQL's catalogue, or a table of the
 * platform (a feature's table, another entity's, another form's): 400 naming /x-entity/table.
 * A tenant administrator's form may not take over any table the database has already either
 * (adopting one is the platform's). The form's own tables (of its last publication) stay its own.
 */
async function refuseReservedTable({
  ctx,
  db,
  auth,
  l10n,
  row,
  content,
}: {
  ctx: AppContext;
  db: Db;
  auth: AuthContext;
  l10n: Localizer;
  /** The stored form, when there is one: the table of its last publication is its own. */
  row: FormRow | undefined;
  content: unknown;
}): Promise<void> {
  const table = entityOptionsOf(content).table;
  if (typeof table !== 'string') return;
  // The stored form's own tables: its default one, its live entity's, its last publication's.
  const own = new Set<string>();
  if (row) {
    own.add(`online_${row.form_code}`);
    const live = ctx.registry.isRuntime(row.form_code) ? ctx.registry.get(row.form_code) : undefined;
    for (const spec of live ? entityTableSpecs(live) : []) own.add(spec.name);
    const published = entityOptionsOf(contentOf(row.published_content)).table;
    if (typeof published === 'string') own.add(published);
  }
  if (own.has(table)) return;
  let isReserved = table.includes('.') || RESERVED_TABLE.test(table.toLowerCase());
  if (!isReserved) isReserved = ctx.tableSpecs().some((spec) => spec.name === table);
  if (!isReserved && !isPlatformAdmin(ctx, auth)) {
    const existing = await sql`select 1 from information_schema.tables
      where table_schema = current_schema() and table_name = ${table}`.execute(db);
    isReserved = existing.rows.length > 0;
  }
  if (!isReserved) {
    // Another form's table, published now or before (it stays after an unpublish).
    const others = await sql<{
      form_code: string;
      published_content: unknown;
    }>`select form_code, published_content from ${formTable} where id <> ${row?.id ?? 0}`.execute(db);
    isReserved = others.rows.some(
      (row) =>
        table === `online_${row.form_code}` ||
        entityOptionsOf(contentOf(row.published_content)).table === table,
    );
  }
  if (isReserved)
    throw new AppError('validation', {}, [
      { field: '/formContent/x-entity/table', message: l10n.t('forms.problems.reservedTable', { table }) },
    ]);
}

async function addVersion(
  trx: Db,
  actor: Actor,
  row: FormRow,
  action: FormVersion['action'],
  content: unknown,
): Promise<void> {
  await sql`insert into ${versionTable} (form_id, version, action, form_content, created_by)
    values (${row.id}, ${row.version}, ${action}, ${contentSql(content)}, ${actor.username})`.execute(trx);
}

// Query, add, update, delete ----------------------------------------------------------------------

export interface FormQuery {
  currentPage?: number;
  pageSize?: number;
  formCode?: string;
  formName?: string;
  status?: FormStatus;
  id?: number;
}

/** The forms of the caller's tenant, a page at a time. */
export async function queryForms(
  ctx: AppContext,
  tenantCode: string,
  query: FormQuery,
): Promise<{ records: FormRecord[]; total: number; currentPage: number; pageSize: number }> {
  const currentPage = query.currentPage ?? 1;
  const pageSize = query.pageSize ?? 10;
  const conditions = [sql`tenant_code = ${tenantCode}`];
  if (query.id !== undefined) conditions.push(sql`id = ${query.id}`);
  if (query.formCode) conditions.push(sql`form_code ilike ${`%${escapeLike(query.formCode)}%`}`);
  if (query.formName) conditions.push(sql`form_name ilike ${`%${escapeLike(query.formName)}%`}`);
  if (query.status) conditions.push(sql`status = ${query.status}`);
  const where = sql.join(conditions, sql` and `);
  const total = await sql<{ n: number }>`select count(*)::int as n from ${formTable} where ${where}`.execute(
    ctx.db,
  );
  const rows = await sql<FormRow>`select * from ${formTable} where ${where}
    order by id desc limit ${pageSize} offset ${(currentPage - 1) * pageSize}`.execute(ctx.db);
  const records = rows.rows.map(recordOf);
  // A published form's menu roles: 重新发布 offers them again (with the menu's parent, from the menu tree)
  const menuIds = records.flatMap((record) => (record.menuId === null ? [] : [record.menuId]));
  if (menuIds.length > 0) {
    const role = ctx.registry.require('sysrole');
    const granted = await sql<{
      menu_id: number | string;
      code: string;
    }>`select rm.menu_id, r.role_code as code
      from sys_role_menu rm join ${sql.table(role.table)} r on r.id = rm.role_id
      where rm.tenant_code = ${tenantCode} and r.tenant_code = ${tenantCode} and rm.menu_id in (${sql.join(menuIds)})
      order by r.role_code`.execute(ctx.db);
    for (const record of records)
      record.menuRoles = granted.rows
        .filter((row) => Number(row.menu_id) === record.menuId)
        .map((row) => row.code);
  }
  return { records, total: total.rows[0]?.n ?? 0, currentPage, pageSize };
}

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function formVersions(ctx: AppContext, tenantCode: string, id: number): Promise<FormVersion[]> {
  await findRow(ctx.db, id, tenantCode);
  const rows = await sql<{
    id: number | string;
    version: number;
    action: FormVersion['action'];
    form_content: unknown;
    created_at: Date | string;
    created_by: string | null;
  }>`select id, version, action, form_content, created_at, created_by from ${versionTable}
    where form_id = ${id} order by id desc`.execute(ctx.db);
  return rows.rows.map((row) => ({
    id: Number(row.id),
    version: row.version,
    action: row.action,
    formContent: contentOf(row.form_content),
    createdAt: iso(row.created_at) ?? '',
    createdBy: row.created_by,
  }));
}

/** A dictionary the designer's 字典 picker offers: its code, its stored name and its item count. */
export interface FormDictionary {
  dictType: string;
  dictName: string | null;
  items: number;
}

/**
 * The dictionaries of the caller's tenant that have items (the ones 校验 and 发布 accept for a
 * field's 字典), by code: the designer's picker lists them with their names.
 */
export async function formDictionaries(ctx: AppContext, actor: Actor): Promise<FormDictionary[]> {
  const dict = dictionaryTable(ctx.registry);
  if (!dict) return [];
  const rows = await sql<{
    type: string;
    name: string | null;
    items: number;
  }>`select ${column(dict.type)} as type,
    max(case when ${column(dict.value)} is null or ${column(dict.value)} = '' then ${column(dict.name)} end) as name,
    count(${column(dict.value)}) filter (where ${column(dict.value)} <> '')::int as items
    from ${table(dict.entity)} ${whereClause(scopeCondition(dict.entity, actor))}
    group by ${column(dict.type)} order by ${column(dict.type)}`.execute(ctx.db);
  return rows.rows
    .filter((row) => row.items > 0)
    .map((row) => ({ dictType: row.type, dictName: row.name, items: row.items }));
}

/**
 * 恢复: an older version's content becomes the form's draft again, as a new version (action
 * restore), the published form staying live as it is until it is published again. The menu a
 * publication wrote into its content is not part of a draft and is left out.
 */
export async function restoreFormVersion({
  ctx,
  actor,
  l10n,
  input,
}: FormCall & { input: { id: number; version: number; versionId: number } }): Promise<FormRecord> {
  return ctx.db.transaction().execute(async (trx) => {
    const row = await findRow(trx, input.id, actor.tenantCode, true);
    if (row.version !== input.version)
      throw new AppError('staleVersion', {}, [
        { field: '/version', message: l10n.t('forms.problems.staleVersion') },
      ]);
    const found = await sql<{ version: number; form_content: unknown }>`select version, form_content
      from ${versionTable} where id = ${input.versionId} and form_id = ${row.id}`.execute(trx);
    const source = found.rows[0];
    if (!source)
      throw new AppError('validation', {}, [
        { field: '/versionId', message: l10n.t('forms.problems.noVersion', { id: input.versionId }) },
      ]);
    const content = contentOf(source.form_content);
    if (isObject(content) && isObject(content['x-entity']) && 'menu' in content['x-entity']) {
      const { menu: _menu, ...options } = content['x-entity'];
      content['x-entity'] = options;
    }
    const updated = await sql<FormRow>`update ${formTable} set form_content = ${contentSql(content)},
      version = version + 1, updated_at = now(), updated_by = ${actor.username}
      where id = ${row.id} returning *`.execute(trx);
    const next = updated.rows[0] as FormRow;
    await addVersion(trx, actor, next, 'restore', content);
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sysform',
          recordKey: row.id,
          action: 'update',
          before: { version: row.version },
          after: { version: next.version, restoredFrom: source.version },
        },
      ],
    });
    return recordOf(next);
  });
}

export interface FormInput {
  formCode: string;
  formName: string;
  formDescription?: string;
  formContent: Record<string, unknown>;
}

/** What every change of a form is called with: the app, who does it and in which language. */
export interface FormCall {
  ctx: AppContext;
  actor: Actor;
  /** The caller's roles and tenant: platform-only options are checked against them. */
  auth: AuthContext;
  l10n: Localizer;
}

export async function addForm({
  ctx,
  actor,
  auth,
  l10n,
  input,
}: FormCall & { input: FormInput }): Promise<FormRecord> {
  const formCode = input.formCode;
  refusePlatformOptions(ctx, auth, l10n, input.formContent);
  if (!new RegExp('^[a-z][a-z0-9]{1,39}$').test(formCode))
    throw new AppError('validation', {}, [{ field: '/formCode', message: l10n.t('forms.problems.badCode') }]);
  if (ctx.registry.get(formCode) && !ctx.registry.isRuntime(formCode))
    throw new AppError('uniqueClash', {}, [
      { field: '/formCode', message: l10n.t('forms.problems.codeIsEntity', { formCode }) },
    ]);
  return ctx.db.transaction().execute(async (trx) => {
    const clash = await sql`select 1 from ${formTable} where form_code = ${input.formCode}`.execute(trx);
    if (clash.rows.length > 0)
      throw new AppError('uniqueClash', {}, [
        { field: '/formCode', message: l10n.t('forms.problems.codeTaken', { formCode }) },
      ]);
    const inserted = await sql<FormRow>`insert into ${formTable}
      (tenant_code, form_code, form_name, form_description, form_content, status, version, created_by)
      values (${actor.tenantCode}, ${input.formCode}, ${input.formName}, ${input.formDescription ?? null},
        ${contentSql(input.formContent)}, 'draft', 1, ${actor.username})
      returning *`.execute(trx);
    const row = inserted.rows[0] as FormRow;
    await addVersion(trx, actor, row, 'save', input.formContent);
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sysform',
          recordKey: row.id,
          action: 'add',
          before: null,
          after: { formCode: row.form_code },
        },
      ],
    });
    return recordOf(row);
  });
}

export interface FormUpdate {
  id: number;
  version: number;
  formName?: string;
  formDescription?: string | null;
  formContent?: Record<string, unknown>;
}

/** Saves a new draft version; a published form stays live as published until it is published again. */
export async function updateForm({
  ctx,
  actor,
  auth,
  l10n,
  input,
}: FormCall & { input: FormUpdate }): Promise<FormRecord> {
  if (input.formContent !== undefined) refusePlatformOptions(ctx, auth, l10n, input.formContent);
  return ctx.db.transaction().execute(async (trx) => {
    const row = await findRow(trx, input.id, actor.tenantCode, true);
    if (row.version !== input.version)
      throw new AppError('staleVersion', {}, [
        { field: '/version', message: l10n.t('forms.problems.staleVersion') },
      ]);
    const updated = await sql<FormRow>`update ${formTable} set
      form_name = ${input.formName ?? row.form_name},
      form_description = ${input.formDescription === undefined ? row.form_description : input.formDescription},
      form_content = ${contentSql(input.formContent ?? contentOf(row.form_content))},
      version = version + 1, updated_at = now(), updated_by = ${actor.username}
      where id = ${row.id} returning *`.execute(trx);
    const next = updated.rows[0] as FormRow;
    await addVersion(trx, actor, next, 'save', contentOf(next.form_content));
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sysform',
          recordKey: row.id,
          action: 'update',
          before: { version: row.version },
          after: { version: next.version },
        },
      ],
    });
    return recordOf(next);
  });
}

export async function deleteForm({
  ctx,
  actor,
  l10n,
  id,
}: FormCall & { id: number }): Promise<{ deleted: number }> {
  return ctx.db.transaction().execute(async (trx) => {
    const row = await findRow(trx, id, actor.tenantCode, true);
    if (row.status === 'published')
      throw new AppError('formPublished', {}, [
        { field: '/id', message: l10n.t('forms.problems.unpublishFirst') },
      ]);
    await sql`delete from ${formTable} where id = ${id}`.execute(trx);
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sysform',
          recordKey: id,
          action: 'delete',
          before: { formCode: row.form_code },
          after: null,
        },
      ],
    });
    return { deleted: 1 };
  });
}

// Check -------------------------------------------------------------------------------------------

/** The entity the table was last published with (it stays after an unpublish). */
function publishedEntityOf(ctx: AppContext, row: FormRow): EntityDef | undefined {
  if (row.published_content === null || row.published_content === undefined) return undefined;
  const live = ctx.registry.get(row.form_code);
  if (live && ctx.registry.isRuntime(row.form_code)) return live;
  return compileForm({
    registry: ctx.registry,
    formCode: row.form_code,
    content: contentOf(row.published_content),
  }).entity;
}

export interface FormCheckInput {
  formContent: unknown;
  /** A stored form: its code, and the impact on the table of its last publication. */
  id?: number | undefined;
  formCode?: string | undefined;
  /** 以默认值回填现有记录: a new required rule whose field has a default is no refusal. */
  backfill?: boolean | undefined;
}

export async function checkForm({
  ctx,
  actor,
  auth,
  l10n,
  input,
}: FormCall & { input: FormCheckInput }): Promise<FormCheck> {
  // 400 naming the budget and each value past it, before anything compiles the content.
  assertSchemaBudget(input.formContent, l10n, '/formContent');
  const row = input.id === undefined ? undefined : await findRow(ctx.db, input.id, actor.tenantCode);
  const code = row?.form_code ?? input.formCode ?? 'form';
  refusePlatformOptions(ctx, auth, l10n, input.formContent);
  const content = normalizeContent({
    formCode: code,
    formName: row?.form_name ?? code,
    content: input.formContent,
  });
  await refuseReservedTable({ ctx, db: ctx.db, auth, l10n, row, content });
  await refuseUnknownDictionaries({ ctx, db: ctx.db, actor, l10n, content });
  await refuseUnknownProcess({ db: ctx.db, actor, l10n, content });
  const { entity, errors } = compileForm({ registry: ctx.registry, formCode: code, content });
  if (!entity || !row) return { isValid: errors.length === 0, errors };
  const before = publishedEntityOf(ctx, row);
  if (!before) return { isValid: true, errors };
  const impact = await impactOf({
    db: ctx.db,
    ajv: ctx.registry.ajv,
    before,
    after: entity,
    isBackfill: input.backfill === true,
  });
  return { isValid: impact.isSafe, errors: impactErrors(impact, l10n, [entity, before]), impact };
}

/** The pointer of an impact item's field: a detail row's column sits under the detail's items. */
const impactPointer = (field: string): string => {
  const [name = '', column] = field.split('.');
  return `/formContent/properties/${name}${column === undefined ? '' : `/items/properties/${column}`}`;
};

/**
 * The refused items of an impact report in the caller's language, one text per rule
 * (locales: forms.impact.<rule>, a JSON Schema keyword without a text of its own falls back to
 * forms.impact.rule) with the field, the rule, the row count and the first keys.
 */
/**
 * An impact item's field as the designer titled it in the reader's language (a sub-table column
 * after its sub-table's title), from the new form or, for a dropped field, the published one; its
 * code when neither has it.
 */
function impactTitle(field: string, entities: readonly EntityDef[], l10n: Localizer): string {
  const [name = '', column] = field.split('.');
  for (const entity of entities) {
    const def = entity.fieldsByName.get(name);
    if (!def) continue;
    const title = fieldTitle({ l10n, entity, field: def });
    if (column === undefined) return title;
    const columnDef = def.detail?.fields.find((candidate) => candidate.name === column);
    if (columnDef)
      return `${title} · ${detailColumnTitle({ l10n, entity, detailFieldName: name, column: columnDef })}`;
  }
  return field;
}

export function impactErrors(
  impact: ImpactReport,
  l10n: Localizer,
  /** The new form's entity, then the published one: the fields' titles. */
  entities: readonly EntityDef[] = [],
): FieldError[] {
  return impact.items
    .filter((item) => !item.isSafe)
    .map((item) => {
      const params = {
        field: impactTitle(item.field, entities, l10n),
        rule: item.rule,
        rows: item.rows,
        keys: item.keys.join(', '),
      };
      // A drop or a type change is refused even when no row holds a value (no keys to name then).
      const key = `forms.impact.${item.rule}${item.rows === 0 ? 'NoRows' : ''}`;
      const known = l10n.find([key]) !== undefined;
      return { field: impactPointer(item.field), message: l10n.t(known ? key : 'forms.impact.rule', params) };
    });
}

// Publish and unpublish ---------------------------------------------------------------------------

export interface PublishInput {
  id: number;
  /** The parent menu: its id or its code. */
  menuParent: number | string;
  icon?: string;
  /**
   * Role codes of the caller's tenant that hold the menu, its buttons and its API from now on:
   * exactly these, a role left out loses them (重新发布 with a role removed). Omitted: the grants
   * stay as they are (none on a first publish).
   */
  roles?: string[];
  /**
   * 以默认值回填现有记录: a field made required (or added required) that has a default fills the
   * rows without a value with it, in the publish's transaction; without a default it is still refused.
   */
  backfill?: boolean;
}

const menuCodeOf = (formCode: string): string => `online_${formCode}`;
export const menuPathOf = (formCode: string): string => `/online/${formCode}`;

export async function publishForm({
  ctx,
  actor,
  auth,
  l10n,
  input,
}: FormCall & { input: PublishInput }): Promise<PublishAnswer> {
  const menu = ctx.registry.require('sysmenu');
  const role = ctx.registry.require('sysrole');
  const hasTrigram = await ensureTrigram(ctx.db);
  const { entity, impact } = await ctx.db.transaction().execute(async (trx) => {
    const row = await findRow(trx, input.id, actor.tenantCode, true);
    refusePlatformOptions(ctx, auth, l10n, contentOf(row.form_content));
    // A parent the tenant sees: no menu of another tenant's own (meta.tenant).
    const parent = await sql<{
      id: number;
      code: string;
    }>`select id, menu_code as code from ${sql.table(menu.table)}
      where ${typeof input.menuParent === 'number' ? sql`id = ${input.menuParent}` : sql`menu_code = ${input.menuParent}`}
      and ${namesNoOtherTenant('menu_meta', actor.tenantCode)}`.execute(trx);
    const parentMenu = parent.rows[0];
    if (!parentMenu)
      throw new AppError('validation', {}, [
        {
          field: '/menuParent',
          message: l10n.t('forms.problems.noMenu', { menu: String(input.menuParent) }),
        },
      ]);
    const roles = input.roles;
    const roleRows = await sql<{
      id: number;
      code: string;
    }>`select id, role_code as code from ${sql.table(role.table)}
      where tenant_code = ${actor.tenantCode} and role_code in (${sql.join(roles && roles.length > 0 ? roles : [''])})`.execute(
      trx,
    );
    const missing = (roles ?? []).filter((code) => !roleRows.rows.some((r) => r.code === code));
    if (missing.length > 0)
      throw new AppError('validation', {}, [
        { field: '/roles', message: l10n.t('forms.problems.noRole', { roles: missing.join(', ') }) },
      ]);

    const content = normalizeContent({
      formCode: row.form_code,
      formName: row.form_name,
      content: contentOf(row.form_content),
    }) as Record<string, unknown>;
    await refuseReservedTable({ ctx, db: trx, auth, l10n, row, content });
    await refuseUnknownDictionaries({ ctx, db: trx, actor, l10n, content });
    await refuseUnknownProcess({ db: trx, actor, l10n, content });
    const options = content['x-entity'] as Record<string, unknown>;
    options.menu = {
      parent: parentMenu.code,
      ...(input.icon ? { icon: input.icon } : {}),
      path: menuPathOf(row.form_code),
    };
    assertSchemaBudget(content, l10n, '/formContent');
    const compiled = compileForm({ registry: ctx.registry, formCode: row.form_code, content });
    if (!compiled.entity) throw new AppError('validation', {}, compiled.errors);
    const next = compiled.entity;
    const before = publishedEntityOf(ctx, row);
    let report: ImpactReport | undefined;
    if (before) {
      report = await impactOf({
        db: trx,
        ajv: ctx.registry.ajv,
        before,
        after: next,
        isBackfill: input.backfill === true,
      });
      if (!report.isSafe)
        throw new AppError('formUnsafeChange', {}, impactErrors(report, l10n, [next, before]));
    }
    // The engine's DDL, as at start-up: create the tables (the form's, then the child table of
    // each detail field) or add what is missing, all in this transaction.
    const existing = await readExistingTables(trx);
    const plans = entityTableSpecs(next).map((spec) =>
      planTableMigration(spec, existing.get(spec.name), { hasTrigram }),
    );
    const problems = plans.flatMap((plan) => plan.problems);
    if (problems.length > 0)
      throw new AppError(
        'formUnsafeChange',
        {},
        problems.map((problem) => ({
          field: '/formContent',
          message: l10n.t('forms.problems.tableChange', { problem }),
        })),
      );
    for (const statement of plans.flatMap((plan) => plan.statements)) await sql.raw(statement).execute(trx);
    const backfilled =
      input.backfill === true && report ? await backfillDefaults(ctx, trx, next, report) : [];

    // The menu entry: a new one, or the one of the last publication shown again and moved.
    const menuCode = menuCodeOf(row.form_code);
    // The form's titles in zh / tw / en (the designer's form titles) name its menu in each language;
    // the menu is its tenant's own (meta.tenant: not shown in another tenant's sidebar).
    const titles = (content['x-ui'] as { titles?: Record<string, string> } | undefined)?.titles;
    const menuMeta = {
      ...(titles && Object.keys(titles).length > 0 ? { titles } : {}),
      tenant: row.tenant_code,
    };
    const menuValues = {
      menuName: row.form_name,
      menuIcon: input.icon ?? 'form',
      menuPath: menuPathOf(row.form_code),
      menuComponent: `entity/${row.form_code}`,
      menuParent: parentMenu.id,
    };
    const found = await sql<{
      id: number;
    }>`select id from ${sql.table(menu.table)} where menu_code = ${menuCode}`.execute(trx);
    let menuId = found.rows[0]?.id;
    if (menuId === undefined) {
      const [inserted] = await insertRecords({
        trx,
        registry: ctx.registry,
        entity: menu,
        actor,
        records: [
          { menuCode, ...menuValues, menuSequence: 100, menuStatus: '1', menuButton: BUTTONS, menuMeta },
        ],
      });
      menuId = Number(inserted);
    } else {
      await sql`update ${sql.table(menu.table)} set menu_name = ${menuValues.menuName}, menu_icon = ${menuValues.menuIcon},
        menu_path = ${menuValues.menuPath}, menu_component = ${menuValues.menuComponent}, menu_parent = ${menuValues.menuParent},
        menu_meta = ${JSON.stringify(menuMeta)}::jsonb, menu_status = '1', updated_at = now(), updated_by = ${actor.username}, version = version + 1
        where id = ${menuId}`.execute(trx);
    }

    // Grants: the menu, its buttons and the API's URLs, to exactly the chosen roles of the tenant.
    if (roles !== undefined)
      await setFormGrants({
        trx,
        ctx,
        actor,
        menuId,
        pattern: `/api/${next.api}/**`,
        description: row.form_name,
        roleIds: roleRows.rows.map((granted) => Number(granted.id)),
      });

    const updated = await sql<FormRow>`update ${formTable} set status = 'published',
      published_content = ${contentSql(content)}, published_version = version, menu_id = ${menuId},
      updated_at = now(), updated_by = ${actor.username} where id = ${row.id} returning *`.execute(trx);
    await addVersion(trx, actor, updated.rows[0] as FormRow, 'publish', content);
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sysform',
          recordKey: row.id,
          action: 'update',
          before: { status: row.status },
          after: {
            status: 'published',
            version: row.version,
            ...(backfilled.length > 0 ? { backfilled } : {}),
          },
        },
      ],
    });
    await recordEvents({
      trx,
      actor,
      events: [
        {
          type: 'form.published',
          entity: 'sysform',
          key: row.id,
          version: row.version,
          detail: { formCode: row.form_code },
        },
      ],
    });
    await sql`select pg_notify(${FORM_CHANNEL}, ${row.form_code})`.execute(trx);
    return { entity: next, impact: report };
  });
  putForm(ctx, entity, actor.tenantCode);
  return {
    entity: entity.name,
    api: entity.api,
    menuPath: menuPathOf(entity.name),
    ...(impact ? { impact } : {}),
  };
}

/**
 * 以默认值回填现有记录: each new required rule the impact report says a default can fill gets
 * that default in the rows without a value (the form's table, or a detail's child table).
 */
async function backfillDefaults(
  ctx: AppContext,
  trx: Db,
  entity: EntityDef,
  report: ImpactReport,
): Promise<{ field: string; rows: number }[]> {
  const done: { field: string; rows: number }[] = [];
  for (const item of report.items) {
    if (item.rule !== 'required' || item.canBackfill !== true || item.rows === 0) continue;
    const [name = '', columnName] = item.field.split('.');
    const owner = entity.fieldsByName.get(name);
    const detail = columnName === undefined ? undefined : owner?.detail;
    const field = detail ? detail.fields.find((column) => column.name === columnName) : owner;
    if (!field || (columnName !== undefined && !detail)) continue;
    const value = backfillValue(ctx.registry.ajv, field);
    if (value === undefined) continue;
    const target = detail ? detail.table : entity.table;
    const updated = await sql`update ${sql.table(target)} set ${sql.ref(field.column)} = ${value}
      where ${sql.ref(field.column)} is null`.execute(trx);
    done.push({ field: item.field, rows: Number(updated.numAffectedRows ?? 0) });
  }
  return done;
}

/**
 * Gives the published form's menu, its buttons and its API's URL pattern to exactly `roleIds`
 * (roles of the actor's tenant): the others of the tenant lose them. The URL pattern is added
 * when a role needs it. A change of who holds the menu is audited as the role-menu links are.
 */
async function setFormGrants({
  trx,
  ctx,
  actor,
  menuId,
  pattern,
  description,
  roleIds,
}: {
  trx: Db;
  ctx: AppContext;
  actor: Actor;
  menuId: number;
  pattern: string;
  description: string;
  roleIds: number[];
}): Promise<void> {
  const url = ctx.registry.require('sysurl');
  const tenant = actor.tenantCode;
  const urlFound = await sql<{ id: number }>`select id from ${sql.table(url.table)}
    where tenant_code = ${tenant} and url = ${pattern}`.execute(trx);
  let urlId = urlFound.rows[0]?.id;
  if (urlId === undefined && roleIds.length > 0) {
    const [inserted] = await insertRecords({
      trx,
      registry: ctx.registry,
      entity: url,
      actor,
      records: [{ url: pattern, description }],
    });
    urlId = Number(inserted);
  }
  const before = await sql<{ role_id: number }>`select role_id from sys_role_menu
    where tenant_code = ${tenant} and menu_id = ${menuId} order by role_id`.execute(trx);
  const others = roleIds.length > 0 ? sql`and role_id not in (${sql.join(roleIds)})` : sql``;
  await sql`delete from sys_role_menu where tenant_code = ${tenant} and menu_id = ${menuId} ${others}`.execute(
    trx,
  );
  await sql`delete from sys_role_button where tenant_code = ${tenant} and menu_id = ${menuId} ${others}`.execute(
    trx,
  );
  if (urlId !== undefined)
    await sql`delete from sys_role_url where tenant_code = ${tenant} and url_id = ${urlId} ${others}`.execute(
      trx,
    );
  for (const roleId of roleIds) {
    await sql`insert into sys_role_menu (tenant_code, role_id, menu_id) values (${tenant}, ${roleId}, ${menuId})
      on conflict do nothing`.execute(trx);
    for (const button of BUTTONS)
      await sql`insert into sys_role_button (tenant_code, role_id, menu_id, button)
        values (${tenant}, ${roleId}, ${menuId}, ${button}) on conflict do nothing`.execute(trx);
    await sql`insert into sys_role_url (tenant_code, role_id, url_id) values (${tenant}, ${roleId}, ${urlId ?? 0})
      on conflict do nothing`.execute(trx);
  }
  const held = before.rows.map((granted) => Number(granted.role_id));
  const after = [...roleIds].sort((a, b) => a - b);
  if (held.join() !== after.join())
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sys_role_menu',
          recordKey: `menu_id=${menuId}`,
          action: 'update',
          before: { role_id: held },
          after: { role_id: after },
        },
      ],
    });
}

/** Hides the menu and the API; the table and its rows stay for a later publication. */
export async function unpublishForm({
  ctx,
  actor,
  l10n,
  id,
}: FormCall & { id: number }): Promise<FormRecord> {
  const menu = ctx.registry.require('sysmenu');
  const record = await ctx.db.transaction().execute(async (trx) => {
    const row = await findRow(trx, id, actor.tenantCode, true);
    if (row.status !== 'published')
      throw new AppError('validation', {}, [
        { field: '/id', message: l10n.t('forms.problems.notPublished') },
      ]);
    if (row.menu_id !== null)
      await sql`update ${sql.table(menu.table)} set menu_status = '0', updated_at = now(), version = version + 1
        where id = ${row.menu_id}`.execute(trx);
    const updated = await sql<FormRow>`update ${formTable} set status = 'draft', updated_at = now(),
      updated_by = ${actor.username} where id = ${id} returning *`.execute(trx);
    const next = updated.rows[0] as FormRow;
    await addVersion(trx, actor, next, 'unpublish', contentOf(row.published_content ?? row.form_content));
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sysform',
          recordKey: id,
          action: 'update',
          before: { status: 'published' },
          after: { status: 'draft' },
        },
      ],
    });
    await sql`select pg_notify(${FORM_CHANNEL}, ${row.form_code})`.execute(trx);
    return recordOf(next);
  });
  ctx.registry.hide(record.formCode);
  return record;
}

// Loading into the registry -----------------------------------------------------------------------

/**
 * Brings one form's registry entry in line with the database (a notification from another
 * process, or start-up): published content live, anything else hidden.
 */
export async function applyForm(ctx: AppContext, formCode: string): Promise<void> {
  const found = await sql<
    Pick<FormRow, 'status' | 'published_content' | 'tenant_code'>
  >`select status, published_content, tenant_code
    from ${formTable} where form_code = ${formCode}`.execute(ctx.db);
  const row = found.rows[0];
  if (!row || row.status !== 'published') {
    ctx.registry.hide(formCode);
    return;
  }
  const live = ctx.registry.get(formCode);
  const content = contentOf(row.published_content);
  if (live && JSON.stringify(live.schema) === JSON.stringify(content)) {
    formTenants.set(live, row.tenant_code);
    return;
  }
  const { entity } = compileForm({ registry: ctx.registry, formCode, content });
  if (entity) putForm(ctx, entity, row.tenant_code);
}

/** Every published form, live in the registry (start-up, and after a lost listening connection). */
export async function loadPublishedForms(ctx: AppContext, warn: (message: string) => void): Promise<void> {
  const found = await sql<{
    form_code: string;
    published_content: unknown;
    tenant_code: string;
  }>`select form_code, published_content, tenant_code
    from ${formTable} where status = 'published' order by id`.execute(ctx.db);
  const published = new Set(found.rows.map((row) => row.form_code));
  for (const entity of ctx.registry.all)
    if (ctx.registry.isRuntime(entity.name) && !published.has(entity.name)) ctx.registry.hide(entity.name);
  // A form may refer to another form's entity: passes until nothing more compiles.
  let pending = found.rows;
  for (let pass = 0; pending.length > 0 && pass < 5; pass += 1) {
    const failed: typeof pending = [];
    for (const row of pending) {
      const { entity } = compileForm({
        registry: ctx.registry,
        formCode: row.form_code,
        content: contentOf(row.published_content),
      });
      if (entity) putForm(ctx, entity, row.tenant_code);
      else failed.push(row);
    }
    if (failed.length === pending.length) break;
    pending = failed;
  }
  for (const row of pending) warn(`published form ${row.form_code} does not compile and stays hidden`);
}
