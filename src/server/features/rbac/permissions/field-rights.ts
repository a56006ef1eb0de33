import { sql } from 'kysely';
import { ADMIN_ROLE, type EntityDef, type FieldDef, type FieldError } from '../../../../engine/index.js';
import type { FieldRights } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db, Row } from '../../../lib/db/database.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import { table } from '../../../lib/sql/toolkit.js';
import { matchesUrlPattern } from './url-pattern.js';

/**
 * Field rights per role and entity (the 数据权限 page, sys_data_permission): each field of an
 * entity is visible, read-only or hidden to a role. A role without a row for the entity sees and
 * changes every field. The key is never restricted (records must stay addressable).
 *
 * A caller acting in several roles gets the union of what the roles allow:
 * - a field is hidden only when every role that grants reading the entity (a URL grant matching
 *   its query) hides it;
 * - a field is read-only when no role that grants writing the entity (a URL grant matching its
 *   add or update) may change it (it is read-only or hidden in each of them).
 * A role that grants nothing of the entity's API adds nothing (an unrelated role cannot widen the
 * rights of another); when none of the caller's roles is granted the entity's URLs (it is reached
 * through another route: the report designer, a published form's portal), every role counts.
 *
 * Writes: a hidden field sent in an add, an update or an import is refused (403 naming it); a
 * read-only one too, unless an update sends it unchanged (clients send whole records) or an add
 * sends it empty or as its schema default.
 */

/** A caller's rights on one entity's fields: what is hidden, what is shown but not writable. */
export interface FieldRightsSets {
  hidden: ReadonlySet<string>;
  readOnly: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();
export const ALL_WRITABLE: FieldRightsSets = { hidden: NONE, readOnly: NONE };

/** Right of one role on one field, ordered so that the union is the largest. */
const HIDDEN = 0;
const READ_ONLY = 1;
const WRITABLE = 2;

interface RoleRow {
  role_code: string;
  menu_code: string;
  data_fields: string[];
  read_only_fields: string[];
}

/** How one role's row rates a field (no row: writable). */
function rightOf(row: RoleRow | undefined, field: string): number {
  if (!row) return WRITABLE;
  if (row.data_fields.includes(field)) return HIDDEN;
  if (row.read_only_fields.includes(field)) return READ_ONLY;
  return WRITABLE;
}

/** The base path of an entity's generated API (`/api/<x-entity.api>`). */
const basePath = (entity: EntityDef): string => `/api/${entity.api}`;

/**
 * The union of the rows of the caller's roles for one entity. `grants` holds each role's URL
 * patterns (absent when the entity is unknown here: every role counts).
 */
function combine({
  entity,
  roles,
  rows,
  grants,
}: {
  entity: EntityDef | undefined;
  roles: readonly string[];
  rows: readonly RoleRow[];
  grants: ReadonlyMap<string, string[]> | undefined;
}): FieldRightsSets {
  if (rows.length === 0) return ALL_WRITABLE;
  const byRole = new Map(rows.map((row) => [row.role_code, row]));
  const granting = (paths: string[]): readonly string[] => {
    if (!entity || !grants) return roles;
    const counted = roles.filter((role) =>
      (grants.get(role) ?? []).some((pattern) => paths.some((path) => matchesUrlPattern(pattern, path))),
    );
    return counted.length > 0 ? counted : roles;
  };
  const base = entity ? basePath(entity) : '';
  const readers = granting([`${base}/query`]);
  const writers = granting([`${base}/add`, `${base}/update`]);
  const named = new Set(rows.flatMap((row) => [...row.data_fields, ...row.read_only_fields]));
  if (entity) named.delete(entity.key.name);
  const hidden = new Set<string>();
  const readOnly = new Set<string>();
  for (const field of named) {
    const seen = Math.max(...readers.map((role) => rightOf(byRole.get(role), field)));
    const written = Math.max(...writers.map((role) => rightOf(byRole.get(role), field)));
    if (seen === HIDDEN) hidden.add(field);
    else if (written < WRITABLE) readOnly.add(field);
  }
  return hidden.size === 0 && readOnly.size === 0 ? ALL_WRITABLE : { hidden, readOnly };
}

/** The URL patterns granted to each of the roles in the tenant. */
async function urlGrants(
  ctx: AppContext,
  tenantCode: string,
  roles: readonly string[],
): Promise<Map<string, string[]>> {
  const url = ctx.registry.require('sysurl');
  const role = ctx.registry.require('sysrole');
  const rows = await sql<{ role_code: string; url: string }>`select r.role_code, u.url from ${table(url)} u
    join sys_role_url ru on ru.url_id = u.id
    join ${table(role)} r on r.id = ru.role_id
    where r.tenant_code = ${tenantCode} and r.role_code in (${sql.join([...roles])})`.execute(ctx.db);
  const grants = new Map<string, string[]>();
  for (const row of rows.rows)
    (grants.get(row.role_code) ?? grants.set(row.role_code, []).get(row.role_code))?.push(row.url);
  return grants;
}

async function roleRows(
  db: Db,
  tenantCode: string,
  roles: readonly string[],
  menuCode?: string,
): Promise<RoleRow[]> {
  const rows =
    await sql<RoleRow>`select role_code, menu_code, data_fields, read_only_fields from sys_data_permission
    where tenant_code = ${tenantCode} and role_code in (${sql.join([...roles])})
    ${menuCode === undefined ? sql`` : sql`and menu_code = ${menuCode}`}`.execute(db);
  return rows.rows;
}

/** A caller's field rights on one entity (ROLE_ADMIN, and a caller without roles: none restricted). */
export async function fieldRightsFor({
  ctx,
  tenantCode,
  roles,
  entity,
}: {
  ctx: AppContext;
  tenantCode: string;
  roles: readonly string[];
  entity: EntityDef;
}): Promise<FieldRightsSets> {
  if (roles.length === 0 || roles.includes(ADMIN_ROLE)) return ALL_WRITABLE;
  const rows = await roleRows(ctx.db, tenantCode, roles, entity.name);
  if (rows.length === 0) return ALL_WRITABLE;
  return combine({ entity, roles, rows, grants: await urlGrants(ctx, tenantCode, roles) });
}

/**
 * The caller's field rights on every entity one of their roles restricts, by menu code (entity
 * name), as the back-office learns them (queryCurrentAuthority): hidden fields are left out of
 * its forms and lists, read-only ones shown disabled.
 */
export async function fieldRightsByMenu({
  ctx,
  tenantCode,
  roles,
  entityOf,
}: {
  ctx: AppContext;
  tenantCode: string;
  roles: readonly string[];
  /** The entity of a menu code in the caller's tenant (published forms are per tenant). */
  entityOf: (menuCode: string) => EntityDef | undefined;
}): Promise<Record<string, FieldRights>> {
  if (roles.length === 0 || roles.includes(ADMIN_ROLE)) return {};
  const rows = await roleRows(ctx.db, tenantCode, roles);
  if (rows.length === 0) return {};
  const grants = await urlGrants(ctx, tenantCode, roles);
  const byMenu = new Map<string, RoleRow[]>();
  for (const row of rows)
    (byMenu.get(row.menu_code) ?? byMenu.set(row.menu_code, []).get(row.menu_code))?.push(row);
  const answer: Record<string, FieldRights> = {};
  for (const [menuCode, menuRows] of byMenu) {
    const rights = combine({ entity: entityOf(menuCode), roles, rows: menuRows, grants });
    if (rights.hidden.size + rights.readOnly.size === 0) continue;
    answer[menuCode] = { hidden: [...rights.hidden].sort(), readOnly: [...rights.readOnly].sort() };
  }
  return answer;
}

// Writes ----------------------------------------------------------------------------------------

const isEmpty = (value: unknown): boolean => value === undefined || value === null || value === '';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/**
 * Whether a value sent is the value stored, as the API answered it: empty equals empty, a date
 * equals the same instant, a number equals its text (big integers answer as text), objects and
 * arrays member by member (a key left out equals an empty member).
 */
export function isSameValue(sent: unknown, stored: unknown): boolean {
  if (isEmpty(sent) || isEmpty(stored)) return isEmpty(sent) && isEmpty(stored);
  if (Array.isArray(sent) || Array.isArray(stored)) {
    return (
      Array.isArray(sent) &&
      Array.isArray(stored) &&
      sent.length === stored.length &&
      sent.every((item, index) => isSameValue(item, stored[index]))
    );
  }
  if (isPlainObject(sent) || isPlainObject(stored)) {
    if (!isPlainObject(sent) || !isPlainObject(stored)) return false;
    const keys = new Set([...Object.keys(sent), ...Object.keys(stored)]);
    return [...keys].every((key) => isSameValue(sent[key], stored[key]));
  }
  if (stored instanceof Date || sent instanceof Date) {
    const time = (value: unknown): number =>
      value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
    return time(sent) === time(stored);
  }
  if (String(sent) === String(stored)) return true;
  // the same instant or day written another way (an offset instead of Z)
  if (typeof sent === 'string' && typeof stored === 'string' && /^\d{4}-\d\d-\d\d/.test(sent)) {
    const [a, b] = [Date.parse(sent), Date.parse(stored)];
    return !Number.isNaN(a) && a === b;
  }
  return false;
}

/** What a write policy checks: the fields of the body the caller may not send as they are. */
export interface WriteCheck {
  entity: EntityDef;
  l10n: Localizer;
  rights: FieldRightsSets;
  /** The record's fields as sent. */
  body: unknown;
  /** The record as stored (an update; its detail rows under their fields when one is sent), absent on an add. */
  stored?: Row;
}

/** The fields of the body a write must refuse, each as a field error. */
export function refusedFields({ entity, l10n, rights, body, stored }: WriteCheck): FieldError[] {
  if ((rights.hidden.size === 0 && rights.readOnly.size === 0) || !isPlainObject(body)) return [];
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(body)) {
    const field: FieldDef | undefined = entity.fieldsByName.get(name);
    if (!field || field.isKey) continue;
    if (rights.hidden.has(name)) {
      errors.push({ field: `/${name}`, message: l10n.t('errors.fieldHidden') });
    } else if (rights.readOnly.has(name)) {
      // a secret is never answered: left empty it is kept, anything else changes it
      const isKept = field.isSecret
        ? isEmpty(value)
        : stored
          ? isSameValue(value, stored[name])
          : isEmpty(value) ||
            (field.schema.default !== undefined && isSameValue(value, field.schema.default));
      if (!isKept) errors.push({ field: `/${name}`, message: l10n.t('errors.fieldReadOnly') });
    }
  }
  return errors;
}

/** 403 naming every field of the body the caller may not write as sent (see refusedFields). */
export function assertFieldsWritable(check: WriteCheck): void {
  const errors = refusedFields(check);
  if (errors.length > 0) throw new AppError('fieldNotWritable', {}, errors);
}
