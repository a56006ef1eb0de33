import {
  decimalOf,
  isInt64,
  type EntityDef,
  type FieldDef,
  type ReportEntity,
  type ReportField,
  type ReportFieldKind,
} from '../../../../engine/index.js';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import { entityTitle, fieldTitle } from '../../../lib/titles.js';
import { isOtherTenantsForm } from '../../forms/index.js';
import { assertUrlGranted, recordPolicy, type RecordPolicy } from '../../rbac/index.js';

/**
 * What the report designer offers of an entity: the entities whose list the caller may
 * read (the URL grant of its query endpoint and the tenant rules), and of each the fields the
 * caller's data permissions show, as dimensions (grouped by) or measures (summed, averaged).
 */

export type { ReportEntity, ReportField, ReportFieldKind };

/** Long free text (rich text, descriptions) is not something to group by. */
const LONGEST_GROUPED_TEXT = 500;

function kindOf(field: FieldDef): ReportFieldKind | undefined {
  if (field.dict) return 'dict';
  if (field.ref) return 'ref';
  // A decimal adds up (exactly, in SQL); a 64-bit integer is an identifier, grouped as text.
  if (decimalOf(field.schema)) return 'number';
  if (isInt64(field.schema)) return 'text';
  switch (field.sqlType) {
    case 'text':
      return 'text';
    case 'integer':
    case 'bigint':
    case 'double precision':
      return 'number';
    case 'timestamptz':
    case 'date':
      return 'date';
    case 'boolean':
      return 'boolean';
    case 'jsonb':
      return undefined;
  }
  return undefined;
}

/** The report roles of one field, or undefined when a report cannot use it. */
export function reportField({
  l10n,
  entity,
  field,
  policy,
}: {
  l10n: Localizer;
  entity: EntityDef;
  field: FieldDef;
  /** The caller's policy on the entity: a field it hides is not offered. */
  policy: RecordPolicy;
}): ReportField | undefined {
  if (field.isSecret || field.detail || !policy.isVisible(field.name)) return undefined;
  const kind = kindOf(field);
  if (!kind) return undefined;
  const isLongText =
    kind === 'text' &&
    (field.schema['x-ui']?.widget === 'richtext' ||
      (field.schema.maxLength ?? Infinity) > LONGEST_GROUPED_TEXT);
  const isDimension =
    !isLongText &&
    !(kind === 'number' && (field.sqlType === 'double precision' || decimalOf(field.schema))) &&
    !field.isKey;
  const isMeasure = kind === 'number' && !field.isKey && !field.isSystem;
  if (!isDimension && !isMeasure) return undefined;
  return {
    name: field.name,
    title: fieldTitle({ l10n, entity, field }),
    kind,
    ...(field.dict ? { dict: field.dict } : {}),
    ...(field.ref ? { ref: field.ref } : {}),
    isDimension,
    isMeasure,
    ...(field.filter ? { filter: field.filter } : {}),
  };
}

export interface ReportAccess {
  ctx: AppContext;
  auth: AuthContext;
  l10n: Localizer;
}

/** The caller's policy on an entity a report reads: 403 without its list's URL grant or tenant rights. */
export async function reportPolicy(access: ReportAccess, entity: EntityDef): Promise<RecordPolicy> {
  const { ctx, auth, l10n } = access;
  await assertUrlGranted({
    ctx,
    auth,
    path: `/api/${entity.api}/query`,
    method: 'GET',
    isSelfService: false,
  });
  return recordPolicy({ ctx, auth, entity, mode: 'read', l10n });
}

/**
 * An entity a report may read, by name: 400 naming the field when there is none (another tenant's
 * published form is none).
 */
export function reportEntity({
  ctx,
  l10n,
  tenantCode,
  name,
}: {
  ctx: AppContext;
  l10n: Localizer;
  tenantCode: string;
  name: string;
}): EntityDef {
  const entity = ctx.registry.get(name);
  if (!entity || isOtherTenantsForm(ctx, entity, tenantCode))
    throw new AppError('validation', {}, [
      { field: '/entity', message: l10n.t('report.unknownEntity', { name }) },
    ]);
  return entity;
}

/** The entities the caller may build reports on, with their usable fields, by title. */
export async function reportEntities(access: ReportAccess): Promise<ReportEntity[]> {
  const list: ReportEntity[] = [];
  for (const entity of access.ctx.registry.all) {
    if (isOtherTenantsForm(access.ctx, entity, access.auth.tenantCode)) continue;
    let policy: RecordPolicy;
    try {
      policy = await reportPolicy(access, entity);
    } catch (error) {
      if (error instanceof AppError && error.code === 'forbidden') continue;
      throw error;
    }
    const fields = entity.fields
      .map((field) => reportField({ l10n: access.l10n, entity, field, policy }))
      .filter((field): field is ReportField => field !== undefined);
    list.push({ name: entity.name, title: entityTitle(access.l10n, entity), fields });
  }
  return list.sort((a, b) => a.title.localeCompare(b.title, access.l10n.language === 'en' ? 'en' : 'zh'));
}
