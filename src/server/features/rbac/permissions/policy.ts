import { sql } from 'kysely';
import {
  ADMIN_ROLE,
  EntityInputError,
  parseListQuery,
  type EntityDef,
  type FieldError,
  type ListQuery,
  type RawParams,
} from '../../../../engine/index.js';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db, Row } from '../../../lib/db/database.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import { column, scopeCondition, table, whereClause, type Condition } from '../../../lib/sql/toolkit.js';
import { entityTitle } from '../../../lib/titles.js';
import { rowScopeConditions } from './row-scope.js';
import { matchesUrlPattern } from './url-pattern.js';
import { entityOfComponent, grantedCallsOf, matchesCall, menuCallsOf } from './menu-calls.js';
import { ALL_WRITABLE, assertFieldsWritable, fieldRightsFor, type FieldRightsSets } from './field-rights.js';
import { namesNoOtherTenant } from './tenant-menus.js';

/**
 * The permission policy of the server, in one place: who is an administrator, which URLs,
 * menus and buttons a caller's roles are granted, the tenant rules of the generated API, and
 * which data fields of an entity a caller may see. Routes and services ask here; none of them
 * decides a part of it on its own.
 */

// Roles ---------------------------------------------------------------------------------------

/** ROLE_ADMIN among the roles the caller acts in: every URL, menu, button and field. */
export function isAdmin(roles: readonly string[]): boolean {
  return roles.includes(ADMIN_ROLE);
}

/** 403 unless the caller acts as ROLE_ADMIN (online users, forced logout). */
export function assertAdmin(auth: AuthContext): void {
  if (!isAdmin(auth.roles)) throw new AppError('forbidden');
}

/**
 * The two kinds of administrator, named here only. The platform administrator is ROLE_ADMIN of
 * the default tenant (config.defaultTenant): it runs the platform itself (tenants, database
 * tables, site-wide settings, platform-only routes). A tenant's administrator is ROLE_ADMIN of
 * any other tenant: every URL, menu and button of its own tenant, nothing of another tenant's
 * and nothing of the platform's.
 */
export function isPlatformAdmin(ctx: AppContext, auth: AuthContext): boolean {
  return isAdmin(auth.roles) && auth.tenantCode === ctx.config.defaultTenant;
}

/**
 * A route declared platform-only (config.isPlatformOnly beside the route): 403 platformOnly for
 * anyone but the platform administrator, whatever URL grants their roles have.
 */
export function assertPlatformRoute({
  ctx,
  auth,
  isPlatformOnly,
}: {
  ctx: AppContext;
  auth: AuthContext;
  isPlatformOnly: boolean;
}): void {
  if (isPlatformOnly && !isPlatformAdmin(ctx, auth)) throw new AppError('platformOnly');
}

/** 403 platformOnly unless the caller is the platform administrator (a platform-only option of a call). */
export function assertPlatformAdmin(ctx: AppContext, auth: AuthContext, errors?: FieldError[]): void {
  if (!isPlatformAdmin(ctx, auth)) throw new AppError('platformOnly', {}, errors);
}

// The tenant wall ------------------------------------------------------------------------------
// Another tenant's id answers as if it did not exist: 404 where it names the record acted on,
// 400 naming the field where it is a reference (docs/http-contract.md "Tenants").

/**
 * 404 naming the first of `ids` not among `found` (the ids the caller's tenant holds: what a
 * lookup or a delete restricted to the tenant returned). `subject` names the kind of record.
 */
export function assertAllFound({
  ids,
  found,
  subject,
}: {
  ids: readonly (number | string)[];
  found: Iterable<number | string>;
  subject: string;
}): void {
  const seen = new Set([...found].map(String));
  const missing = ids.find((id) => !seen.has(String(id)));
  if (missing !== undefined) throw new AppError('notFound', { entity: subject, key: String(missing) });
}

/** The keys among `keys` of records of `entity` the tenant may see (its own; any of a shared entity). */
export async function ownKeys({
  db,
  entity,
  tenantCode,
  keys,
}: {
  db: Db;
  entity: EntityDef;
  tenantCode: string;
  keys: readonly (number | string)[];
}): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const found = await sql<{ key: number | string }>`select ${column(entity.key)} as key from ${table(entity)}
    ${whereClause([sql`${column(entity.key)} in (${sql.join(keys)})`, ...scopeCondition(entity, { userId: null, username: '', tenantCode })])}`.execute(
    db,
  );
  return new Set(found.rows.map((row) => String(row.key)));
}

/** 404 unless every key names a record of `entity` the caller's tenant may see. */
export async function assertOwnRecords(options: {
  db: Db;
  entity: EntityDef;
  tenantCode: string;
  keys: readonly (number | string)[];
  l10n: Localizer;
}): Promise<void> {
  assertAllFound({
    ids: options.keys,
    found: await ownKeys(options),
    subject: entityTitle(options.l10n, options.entity),
  });
}

/**
 * 400 naming `field` unless every key names a record of `entity` the caller's tenant may see: a
 * reference to another tenant's record is refused like a reference to none.
 */
export async function assertOwnReferences(options: {
  db: Db;
  entity: EntityDef;
  tenantCode: string;
  keys: readonly (number | string)[];
  l10n: Localizer;
  field: string;
}): Promise<void> {
  const found = await ownKeys(options);
  const missing = options.keys.filter((key) => !found.has(String(key)));
  if (missing.length === 0) return;
  throw new EntityInputError([
    {
      field: options.field,
      message: options.l10n.t('errors.refMissing', {
        entity: entityTitle(options.l10n, options.entity),
        key: missing.join(', '),
      }),
    },
  ]);
}

// URL grants ----------------------------------------------------------------------------------

export interface UrlAccess {
  ctx: AppContext;
  auth: AuthContext;
  /** The request path (a query string is ignored). */
  path: string;
  /** The request method: a menu grants its calls by method and path (menu-calls.ts). */
  method?: string;
  /** A route every signed-in user needs for themselves (own profile, menus, notifications). */
  isSelfService: boolean;
}

/**
 * Whether a route is granted without looking at URL grants: to ROLE_ADMIN, and a self-service
 * route to anyone signed in. Synchronous, so the permission hook decides these requests
 * without a turn of the event loop.
 */
export function isGrantedEveryUrl(auth: AuthContext, isSelfService: boolean): boolean {
  return isSelfService || isAdmin(auth.roles);
}

/**
 * Role-based access to a non-public /api route: ROLE_ADMIN passes, a self-service route passes,
 * any other route needs a URL permission (sysurl pattern) granted to one of the caller's roles
 * in the caller's tenant; 403 otherwise.
 */
export async function assertUrlGranted({ ctx, auth, path, method, isSelfService }: UrlAccess): Promise<void> {
  if (isGrantedEveryUrl(auth, isSelfService)) return;
  if (auth.roles.length === 0) throw new AppError('forbidden');
  const url = ctx.registry.require('sysurl');
  const role = ctx.registry.require('sysrole');
  const granted = await sql<{ url: string }>`select distinct u.url from ${table(url)} u
    join sys_role_url ru on ru.url_id = u.id
    join ${table(role)} r on r.id = ru.role_id
    where r.tenant_code = ${auth.tenantCode} and r.role_code in (${sql.join(auth.roles)})`.execute(ctx.db);
  const bare = path.split('?')[0] ?? '';
  if (granted.rows.some((row) => matchesUrlPattern(row.url, bare))) return;
  // The calls of the menus granted to the roles (menu-calls.ts), with their buttons.
  if (method !== undefined) {
    const calls = await menuGrantedCalls({ ctx, tenantCode: auth.tenantCode, roles: auth.roles });
    if (calls.some((call) => matchesCall(call, method, bare))) return;
  }
  throw new AppError('forbidden');
}

/** A menu granted to roles: its component, meta and the buttons the roles hold on it. */
export interface GrantedMenuRow {
  id: number;
  component: string;
  meta: unknown;
  buttons: Set<string>;
}

/**
 * The enabled menus granted to the roles in the tenant (sys_role_menu), each with the buttons the
 * roles hold on it (sys_role_button). A menu of another tenant or of the platform (isTenantsMenu)
 * grants nothing: only the platform administrator has those, and it passes every URL anyway.
 */
export async function grantedMenus({ ctx, tenantCode, roles }: RoleGrants): Promise<GrantedMenuRow[]> {
  const menu = ctx.registry.require('sysmenu');
  const role = ctx.registry.require('sysrole');
  const rows = await sql<{ id: number; component: string | null; meta: unknown }>`select distinct m.id,
    m.menu_component as component, m.menu_meta as meta from sys_role_menu rm
    join ${table(role)} r on r.id = rm.role_id
    join ${table(menu)} m on m.id = rm.menu_id
    where r.tenant_code = ${tenantCode} and r.role_code in (${roleList(roles)}) and m.menu_status = '1'`.execute(
    ctx.db,
  );
  const byId = new Map<number, GrantedMenuRow>();
  for (const row of rows.rows) {
    if (!isOwnTenantsMenu(row.meta, tenantCode)) continue;
    byId.set(Number(row.id), {
      id: Number(row.id),
      component: row.component ?? '',
      meta: row.meta,
      buttons: new Set(),
    });
  }
  for (const { menuId, button } of await grantedButtons({ ctx, tenantCode, roles }))
    byId.get(Number(menuId))?.buttons.add(button);
  return [...byId.values()];
}

/** A menu a non-platform caller of the tenant may hold: not the platform's, not another tenant's. */
function isOwnTenantsMenu(menuMeta: unknown, tenantCode: string): boolean {
  const meta = menuMeta as { tenant?: unknown; platform?: unknown } | null;
  if (meta?.platform === true) return false;
  return typeof meta?.tenant !== 'string' || meta.tenant === tenantCode;
}

/** Buttons that change records (the generated page's add, update, delete). */
const WRITE_BUTTONS = new Set(['add', 'update', 'delete']);

/**
 * The buttons of a generated page a caller other than the platform administrator can use: on a
 * shared (platform-wide) entity the writes are the platform administrator's (assertTenantRules),
 * so its add, update and delete grant nothing and are not shown.
 */
export function usableButtons(entity: EntityDef | undefined, buttons: ReadonlySet<string>): Set<string> {
  if (!entity || entity.isTenantScoped) return new Set(buttons);
  return new Set([...buttons].filter((button) => !WRITE_BUTTONS.has(button)));
}

/** Every call the menus granted to the roles grant (menu-calls.ts). */
export async function menuGrantedCalls(grants: RoleGrants): Promise<string[]> {
  const entityNamed = (name: string) => grants.ctx.registry.get(name);
  const calls: string[] = [];
  for (const menu of await grantedMenus(grants)) {
    const declared = menuCallsOf(menu.component, entityNamed);
    if (!declared) continue;
    const entity = entityOfComponent(menu.component, entityNamed);
    if (entity?.isPlatformAdminOnly) continue;
    calls.push(...grantedCallsOf(declared, usableButtons(entity, menu.buttons)));
  }
  return calls;
}

// Menu and button grants ----------------------------------------------------------------------

/** Roles of a tenant, for the grant queries: an empty list matches no role. */
const roleList = (roles: readonly string[]) => sql.join(roles.length > 0 ? [...roles] : ['']);

/** Roles of a tenant whose grants are asked for. */
export interface RoleGrants {
  ctx: AppContext;
  tenantCode: string;
  roles: readonly string[];
}

/** Ids of the menus granted to the roles (sys_role_menu) in the tenant. */
export async function grantedMenuIds({ ctx, tenantCode, roles }: RoleGrants): Promise<number[]> {
  const role = ctx.registry.require('sysrole');
  const granted = await sql<{ menu_id: number }>`select distinct rm.menu_id from sys_role_menu rm
    join ${table(role)} r on r.id = rm.role_id
    where r.tenant_code = ${tenantCode} and r.role_code in (${roleList(roles)})`.execute(ctx.db);
  return granted.rows.map((row) => row.menu_id);
}

/** Buttons granted to the roles (sys_role_button) in the tenant, with their menu's id. */
export async function grantedButtons({
  ctx,
  tenantCode,
  roles,
}: RoleGrants): Promise<{ menuId: number; button: string }[]> {
  const role = ctx.registry.require('sysrole');
  const granted = await sql<{
    menu_id: number;
    button: string;
  }>`select distinct rb.menu_id, rb.button from sys_role_button rb
    join ${table(role)} r on r.id = rb.role_id
    where r.tenant_code = ${tenantCode} and r.role_code in (${roleList(roles)})`.execute(ctx.db);
  return granted.rows.map((row) => ({ menuId: row.menu_id, button: row.button }));
}

// Tenant rules --------------------------------------------------------------------------------

/** Reading records, or changing them (add, update, delete). */
export type RecordAccessMode = 'read' | 'write';

/**
 * Shared (platform-wide) rows are changed, and platform-admin entities even read, by the
 * platform administrator only.
 */
export function assertTenantRules({
  ctx,
  auth,
  entity,
  mode,
}: {
  ctx: AppContext;
  auth: AuthContext;
  entity: EntityDef;
  mode: RecordAccessMode;
}): void {
  const isRestricted = entity.isPlatformAdminOnly || (mode === 'write' && !entity.isTenantScoped);
  if (isRestricted && !isPlatformAdmin(ctx, auth)) throw new AppError('platformOnly');
}

// Data fields ---------------------------------------------------------------------------------

// Which fields a caller's roles hide or keep read-only: permissions/field-rights.ts (the union
// rule across roles is documented there).

/**
 * What one caller may see of one entity's records, decided once per request. The item services
 * read list parameters and hand out rows through it only (query, tree, export, add, update), so
 * none of them can show a hidden field or filter on one.
 */
export interface RecordPolicy {
  /** Whether the caller may see a field (a list column, an export column). */
  isVisible(field: string): boolean;
  /** Whether the caller may fill a field (visible and not read-only): an import's columns. */
  isWritable(field: string): boolean;
  /**
   * 403 naming each field of a write's body the caller may not send: a hidden one, a read-only
   * one changed (stored: the record before an update) or given on an add (field-rights.ts).
   */
  assertWritable(body: unknown, stored?: Row): void;
  /** The fields the caller may see but not change. */
  readOnlyFields: ReadonlySet<string>;
  /**
   * The list query of filters and sort in params, parsed by the engine. A hidden field cannot
   * be filtered or sorted on: that would reveal its values. defaultSort, the service's own
   * order, is not the caller's and is not checked.
   */
  listQuery(params: RawParams, defaultSort?: string): ListQuery;
  /** A row as the caller may see it. */
  shown<T extends Row>(row: T): T;
  /**
   * Rows the caller may not see, as conditions every read and write adds to the tenant scope
   * (absent: none): the row data scopes of the caller's roles (row-scope.ts; a record outside
   * is answered 404, a write that would land outside 403 outsideScope), and on menus a page of
   * one tenant's own (meta.tenant, a saved report's page), listed only in that tenant and to
   * the platform administrator.
   */
  rowConditions?: Condition[];
}

function policyHiding(entity: EntityDef, l10n: Localizer, rights: FieldRightsSets): RecordPolicy {
  const { hidden } = rights;
  const refuseHiddenParams = (params: RawParams): void => {
    if (hidden.size === 0) return;
    const errors: FieldError[] = Object.keys(params)
      .filter((name) => hidden.has(name))
      .map((name) => ({ field: `/${name}`, message: l10n.t('errors.unknownFilterField', { field: name }) }));
    const sort = typeof params.sort === 'string' ? params.sort : '';
    for (const term of sort.split(',')) {
      const name = term.trim().replace(/^-/, '');
      if (hidden.has(name))
        errors.push({ field: '/sort', message: l10n.t('errors.unknownSortField', { field: name }) });
    }
    if (errors.length > 0) throw new EntityInputError(errors);
  };
  return {
    isVisible: (field) => !hidden.has(field),
    isWritable: (field) => !hidden.has(field) && !rights.readOnly.has(field),
    assertWritable: (body, stored) =>
      assertFieldsWritable({ entity, l10n, rights, body, ...(stored ? { stored } : {}) }),
    readOnlyFields: rights.readOnly,
    listQuery: (params, defaultSort) => {
      refuseHiddenParams(params);
      const withSort = defaultSort && !params.sort ? { ...params, sort: defaultSort } : params;
      return parseListQuery(entity, withSort, l10n.t);
    },
    shown: (row) => {
      if (hidden.size === 0) return row;
      const copy: Row = {};
      for (const [name, value] of Object.entries(row)) if (!hidden.has(name)) copy[name] = value;
      return copy as typeof row;
    },
  };
}

/**
 * Every field visible: the portal's published reads (each endpoint projects what a visitor
 * reads) and dictionary items (reference data every signed-in user reads).
 */
export function openRecordPolicy(entity: EntityDef, l10n: Localizer): RecordPolicy {
  return policyHiding(entity, l10n, ALL_WRITABLE);
}

export interface RecordAccess {
  ctx: AppContext;
  auth: AuthContext;
  entity: EntityDef;
  mode: RecordAccessMode;
  l10n: Localizer;
}

/**
 * The policy of a signed-in caller on an entity's records: the tenant rules first (403), then
 * the data fields the caller's roles hide or keep read-only.
 */
export async function recordPolicy({ ctx, auth, entity, mode, l10n }: RecordAccess): Promise<RecordPolicy> {
  assertTenantRules({ ctx, auth, entity, mode });
  const rights = await fieldRightsFor({ ctx, tenantCode: auth.tenantCode, roles: auth.roles, entity });
  const hiding = policyHiding(entity, l10n, rights);
  // Row data scopes of the caller's roles (row-scope.ts): reads and writes alike.
  const scope = await rowScopeConditions({ ctx, auth, entity, isAdmin: isAdmin(auth.roles) });
  const policy = scope.length > 0 ? { ...hiding, rowConditions: scope } : hiding;
  const menuMeta = entity.name === MENU_ENTITY ? entity.fieldsByName.get('menuMeta') : undefined;
  if (!menuMeta || isPlatformAdmin(ctx, auth)) return policy;
  // As the sidebar shows menus (authority.ts, isTenantsMenu): a meta naming another tenant hides it.
  return {
    ...policy,
    rowConditions: [...scope, namesNoOtherTenant(menuMeta.column, auth.tenantCode)],
  };
}

const MENU_ENTITY = 'sysmenu';
