import { sql } from 'kysely';
import { ADMIN_ROLE, EntityInputError, type EntityDef, type RawParams } from '../../../engine/index.js';
import type { AuthContext } from '../sessions/session.js';
import type { Db, Row } from '../../lib/db/database.js';
import type { Localizer } from '../../lib/i18n.js';

const NOTHING_HIDDEN: ReadonlySet<string> = new Set();

/**
 * Fields of an entity's screen (menu code = entity name) hidden from the caller by data-field
 * permissions. Permissions add up across roles: a field is hidden only when every role of the
 * caller hides it, so a role without a row for the menu hides nothing. ROLE_ADMIN sees all, and
 * the key is never hidden (records must stay addressable).
 */
export async function hiddenFieldsFor(
  db: Db,
  auth: AuthContext,
  entity: EntityDef,
): Promise<ReadonlySet<string>> {
  if (auth.roles.length === 0 || auth.roles.includes(ADMIN_ROLE)) return NOTHING_HIDDEN;
  const rows = await sql<{
    role_code: string;
    data_fields: string[];
  }>`select role_code, data_fields from sys_data_permission
    where tenant_code = ${auth.tenantCode} and menu_code = ${entity.name} and role_code in (${sql.join(auth.roles)})`.execute(
    db,
  );
  if (rows.rows.length < auth.roles.length) return NOTHING_HIDDEN;
  let hidden: Set<string> | undefined;
  for (const row of rows.rows) {
    const fields = new Set(row.data_fields);
    hidden = hidden === undefined ? fields : new Set([...hidden].filter((field) => fields.has(field)));
  }
  hidden?.delete(entity.key.name);
  return hidden && hidden.size > 0 ? hidden : NOTHING_HIDDEN;
}

export function withoutHidden<T extends Row>(row: T, hidden: ReadonlySet<string> | undefined): T {
  if (!hidden || hidden.size === 0) return row;
  const copy: Row = {};
  for (const [name, value] of Object.entries(row)) if (!hidden.has(name)) copy[name] = value;
  return copy as T;
}

/** A hidden field cannot be filtered or sorted on either: that would reveal its values. */
export function rejectHiddenParams(
  params: RawParams,
  hidden: ReadonlySet<string> | undefined,
  l10n: Localizer,
): void {
  if (!hidden || hidden.size === 0) return;
  const errors = Object.keys(params)
    .filter((name) => hidden.has(name))
    .map((name) => ({ field: `/${name}`, message: l10n.t('errors.unknownFilterField', { field: name }) }));
  const sort = typeof params.sort === 'string' ? params.sort : '';
  for (const term of sort.split(',')) {
    const name = term.trim().replace(/^-/, '');
    if (hidden.has(name))
      errors.push({ field: '/sort', message: l10n.t('errors.unknownSortField', { field: name }) });
  }
  if (errors.length > 0) throw new EntityInputError(errors);
}
