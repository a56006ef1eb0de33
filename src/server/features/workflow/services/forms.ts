import { sql } from 'kysely';
import { prepareInput } from '../../../../engine/index.js';
import type { WfTaskForm } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import { assertFieldsWritable, fieldRightsFor } from '../../rbac/index.js';

/**
 * Forms of a process: a formKey naming an entity schema. Submitted form data is checked with
 * the same validators as the entity's CRUD API (a bad field is a 400 naming it) and the caller's
 * field rights on that entity (a hidden field, or a read-only one given, is a 403 naming it, as on
 * the entity's add), and kept as variables. A formKey that names no entity (a designed form, later) is not checked here.
 */

export function formInfo(ctx: AppContext, formKey: string | null | undefined): WfTaskForm | null {
  if (!formKey) return null;
  const entity = ctx.registry.get(formKey);
  return { formKey, schema: entity ? (entity.schema as unknown as Record<string, unknown>) : null };
}

/**
 * The designed forms' table (features/forms FORM_TABLE): named here, as the forms feature
 * depends on this one (isProcessDeployed) and an import back would close a loop.
 */
const FORM_TABLE = 'sys_form';

/**
 * Whether `code` names a form a process of the tenant can show: an entity of the schema files, or
 * a designed form the tenant has published (a live entity of the registry, whose row says whose).
 */
export async function isTenantForm({
  ctx,
  db,
  tenantCode,
  code,
}: {
  ctx: AppContext;
  db: Db;
  tenantCode: string;
  code: string;
}): Promise<boolean> {
  if (!ctx.registry.get(code)) return false;
  if (!ctx.registry.isRuntime(code)) return true;
  const rows = await sql<{ found: number }>`select 1 as found from ${sql.table(FORM_TABLE)}
    where tenant_code = ${tenantCode} and form_code = ${code} and status = 'published'`.execute(db);
  return rows.rows.length > 0;
}

/** A model's form (usedForm) names one of the tenant's forms: 400 naming /usedForm otherwise. */
export async function assertTenantForm({
  ctx,
  db,
  tenantCode,
  code,
  l10n,
}: {
  ctx: AppContext;
  db: Db;
  tenantCode: string;
  code: string | null;
  l10n: Localizer;
}): Promise<void> {
  if (code === null || (await isTenantForm({ ctx, db, tenantCode, code }))) return;
  throw new AppError('wfUnknownForm', { code }, [
    { field: '/usedForm', message: l10n.t('errors.workflow.unknownForm', { code }) },
  ]);
}

/**
 * The form data as the caller may write it (403 naming a field their roles hide or keep
 * read-only) and as the entity's validators accept it (400 naming each bad field).
 */
export async function checkedFormData({
  ctx,
  l10n,
  formKey,
  formData,
  tenantCode,
  roles,
  db,
}: {
  ctx: AppContext;
  l10n: Localizer;
  formKey: string | null | undefined;
  formData: Record<string, unknown> | undefined;
  tenantCode: string;
  /** The caller's roles, whose field rights on the formKey's entity hold. */
  roles: readonly string[];
  /** The transaction of the task or start: the rights are read in it (PGlite has one connection). */
  db: Db;
}): Promise<Record<string, unknown>> {
  if (!formData) return {};
  const entity = formKey ? ctx.registry.get(formKey) : undefined;
  if (!entity) return formData;
  const rights = await fieldRightsFor({ ctx: { ...ctx, db }, tenantCode, roles, entity });
  assertFieldsWritable({ entity, l10n, rights, body: formData });
  return prepareInput(entity, ctx.registry.validators(entity), formData, 'create', l10n.t).values;
}
