import { sql } from 'kysely';
import {
  DATA_SCOPES,
  parseScopeCondition,
  type DataScope,
  type EntityDef,
  type ScopeExpr,
  type ScopeValue,
  type ScopeVariable,
} from '../../../../engine/index.js';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { englishTranslate } from '../../../../engine/index.js';
import { column, table, type Condition } from '../../../lib/sql/toolkit.js';

/**
 * Row data scopes of the permission policy (engine/row-scope.ts for the vocabulary): the rows of
 * an entity a caller's roles let them see and change, as one SQL condition every read and write
 * of the generated API adds beside the tenant's (policy.ts, recordPolicy → rowConditions).
 *
 * - Stored per role and entity in sys_data_scope (tenant, role code, menu code = entity name).
 * - ROLE_ADMIN, and a caller with a role that has no row for the entity (or a row "all"), sees
 *   every row of the tenant: nothing changes for an install that sets no scope.
 * - Several roles: the union (the conditions joined by or).
 * - Owner = created_by (the user name). Organisation = the field x-entity.scope.org names, or,
 *   when the entity declares none, the organisation of the record's creator (created_by's user).
 *   Both are served by indexes: (tenant, org field, key) when the field is filtered on, and
 *   (tenant, created_by, key), which an entity declaring x-entity.scope gets.
 */

interface ScopeRow {
  role_code: string;
  scope: string;
  org_ids: unknown;
  condition: string | null;
  /** The creators of the caller's organisation (scope org, entity without an organisation field). */
  org_creators: string[] | null;
  /** The creators of it and the organisations below it (scope orgBelow, the same entities). */
  below_creators: string[] | null;
}

/** The caller's organisation and the ones below it, read once per request and only when needed. */
class CallerOrgs {
  private orgId?: Promise<number | null>;
  private below?: Promise<number[]>;
  constructor(
    private readonly ctx: AppContext,
    private readonly auth: AuthContext,
  ) {}

  own(): Promise<number | null> {
    this.orgId ??= (async () => {
      const user = this.ctx.registry.require('sysuser');
      const rows = await sql<{ org_id: number | null }>`select org_id from ${table(user)}
        where id = ${this.auth.userId} and tenant_code = ${this.auth.tenantCode}`.execute(this.ctx.db);
      const value = rows.rows[0]?.org_id;
      return value === null || value === undefined ? null : Number(value);
    })();
    return this.orgId;
  }

  /** The caller's organisation and every organisation under it (none without an organisation). */
  andBelow(): Promise<number[]> {
    this.below ??= (async () => {
      const own = await this.own();
      if (own === null) return [];
      const org = this.ctx.registry.require('sysorg');
      const rows = await sql<{ id: number }>`with recursive below(id) as (
          select ${own}::bigint
          union
          select o.id from ${table(org)} o join below b on o.org_parent = b.id
          where o.tenant_code = ${this.auth.tenantCode} and o.id <> b.id)
        select id from below`.execute(this.ctx.db);
      return rows.rows.map((row) => Number(row.id));
    })();
    return this.below;
  }
}

const FALSE: Condition = sql`false`;

const inList = (ref: Condition, values: readonly (number | string)[]): Condition =>
  values.length === 0 ? FALSE : sql`${ref} in (${sql.join([...values])})`;

/** The field holding a record's organisation (x-entity.scope.org), if the entity declares one. */
function orgFieldOf(entity: EntityDef) {
  const name = entity.schema['x-entity'].scope?.org;
  return name === undefined ? undefined : entity.fieldsByName.get(name);
}

/** Creators named one by one up to this many; beyond, the condition reads the users itself. */
const MAX_LISTED_CREATORS = 1000;

/**
 * Records of these organisations: by the entity's organisation field, else by their creator's.
 * The creators are listed by name (up to MAX_LISTED_CREATORS), so the planner estimates the
 * matches from created_by's statistics and reads them from the owner index.
 */
async function ofOrgs(
  ctx: AppContext,
  auth: AuthContext,
  entity: EntityDef,
  orgIds: readonly number[],
): Promise<Condition> {
  if (orgIds.length === 0) return FALSE;
  const field = orgFieldOf(entity);
  if (field) return inList(column(field), orgIds);
  const user = ctx.registry.require('sysuser');
  const creators = await sql<{ username: string }>`select username from ${table(user)}
    where tenant_code = ${auth.tenantCode} and org_id in (${sql.join([...orgIds])})
    limit ${MAX_LISTED_CREATORS + 1}`.execute(ctx.db);
  if (creators.rows.length <= MAX_LISTED_CREATORS)
    return inList(
      sql.ref('created_by'),
      creators.rows.map((row) => row.username),
    );
  return sql`created_by in (select username from ${table(user)}
    where tenant_code = ${auth.tenantCode} and org_id in (${sql.join([...orgIds])}))`;
}

/**
 * The creators of the caller's organisation (and of every organisation under it) as two columns
 * of the statement that reads the roles' scope rows (rowScopeConditions): the caller's
 * organisation, the tree below it and its users are read there, only for a row of scope org or
 * orgBelow (a scalar sub-select in a case branch runs only when its branch is taken), so a list
 * under an own-organisation scope sends the statements an unscoped list sends, no round trip more.
 * Each column is null when not read, and holds MAX_LISTED_CREATORS + 1 names at most (more: the
 * caller reads the organisations on their own).
 */
function callerOrgCreatorColumns(ctx: AppContext, auth: AuthContext, entity: EntityDef) {
  if (orgFieldOf(entity)) return sql`, null::text[] as org_creators, null::text[] as below_creators`;
  const user = ctx.registry.require('sysuser');
  const org = ctx.registry.require('sysorg');
  const own = sql`select org_id::bigint as id from ${table(user)}
    where id = ${auth.userId} and tenant_code = ${auth.tenantCode} and org_id is not null`;
  const creators = (orgs: ReturnType<typeof sql>) => sql`array(select username from ${table(user)}
      where tenant_code = ${auth.tenantCode} and org_id in (${orgs})
      limit ${MAX_LISTED_CREATORS + 1})`;
  const below = sql`with recursive orgs(id) as (
      ${own}
      union select o.id::bigint from ${table(org)} o join orgs b on o.org_parent = b.id
        where o.tenant_code = ${auth.tenantCode} and o.id <> b.id)
    select id from orgs`;
  return sql`, case when scope = 'org' then ${creators(own)} end as org_creators,
    case when scope = 'orgBelow' then ${creators(below)} end as below_creators`;
}

async function variableValue(orgs: CallerOrgs, auth: AuthContext, name: ScopeVariable) {
  switch (name) {
    case 'id':
      return auth.userId;
    case 'username':
      return auth.username;
    case 'orgId':
      return orgs.own();
    case 'orgs': {
      const own = await orgs.own();
      return own === null ? [] : [own];
    }
    case 'orgsBelow':
      return orgs.andBelow();
  }
}

async function values(
  orgs: CallerOrgs,
  auth: AuthContext,
  items: ScopeValue[],
): Promise<(string | number | boolean | null)[]> {
  const out: (string | number | boolean | null)[] = [];
  for (const item of items) {
    if (item.kind === 'literal') out.push(item.value);
    else {
      const value = await variableValue(orgs, auth, item.name);
      if (Array.isArray(value)) out.push(...value);
      else out.push(value);
    }
  }
  return out;
}

/** A parsed condition as SQL: values are bound parameters, columns the entity's own. */
async function compile(expr: ScopeExpr, orgs: CallerOrgs, auth: AuthContext): Promise<Condition> {
  switch (expr.op) {
    case 'and':
    case 'or': {
      const parts = await Promise.all(expr.items.map((item) => compile(item, orgs, auth)));
      return sql`(${sql.join(parts, expr.op === 'and' ? sql` and ` : sql` or `)})`;
    }
    case 'not':
      // A comparison with an empty value is unknown: "not" of it keeps the row out, as SQL does.
      return sql`(not coalesce(${await compile(expr.item, orgs, auth)}, false))`;
    case 'null':
      return expr.isNegated ? sql`${column(expr.field)} is not null` : sql`${column(expr.field)} is null`;
    case 'in': {
      const list = (await values(orgs, auth, expr.values)).filter(
        (value): value is string | number | boolean => value !== null,
      );
      if (list.length === 0) return expr.isNegated ? sql`true` : FALSE;
      const condition = sql`${column(expr.field)} in (${sql.join(list)})`;
      return expr.isNegated ? sql`(${column(expr.field)} is not null and not ${condition})` : condition;
    }
    case 'compare': {
      const [value = null] = await values(orgs, auth, [expr.value]);
      if (value === null) return FALSE;
      return sql`${column(expr.field)} ${sql.raw(expr.comparison)} ${value}`;
    }
  }
}

/** The condition of one role's scope row. */
async function scopeRowCondition(
  ctx: AppContext,
  auth: AuthContext,
  entity: EntityDef,
  row: ScopeRow,
  orgs: CallerOrgs,
): Promise<Condition | undefined> {
  switch (row.scope as DataScope) {
    case 'all':
      return undefined;
    case 'self':
      return sql`created_by = ${auth.username}`;
    case 'org':
    case 'orgBelow': {
      const isBelow = row.scope === 'orgBelow';
      const creators = isBelow ? row.below_creators : row.org_creators;
      if (creators && creators.length <= MAX_LISTED_CREATORS) return inList(sql.ref('created_by'), creators);
      if (isBelow) return ofOrgs(ctx, auth, entity, await orgs.andBelow());
      const own = await orgs.own();
      return await ofOrgs(ctx, auth, entity, own === null ? [] : [own]);
    }
    case 'orgs': {
      const ids = Array.isArray(row.org_ids) ? row.org_ids.map(Number).filter(Number.isSafeInteger) : [];
      return ofOrgs(ctx, auth, entity, ids);
    }
    case 'condition': {
      const parsed = parseScopeCondition(entity, row.condition ?? '', englishTranslate, '/condition');
      // A condition the entity no longer reads (a field removed since it was saved) lets nothing through.
      return 'expr' in parsed ? compile(parsed.expr, orgs, auth) : FALSE;
    }
    default:
      return FALSE;
  }
}

/**
 * The row scope of a caller on an entity as conditions to add to the tenant's (empty: every row
 * of the tenant). `isAdmin` is the policy's (ROLE_ADMIN sees all).
 */
export async function rowScopeConditions({
  ctx,
  auth,
  entity,
  isAdmin,
}: {
  ctx: AppContext;
  auth: AuthContext;
  entity: EntityDef;
  isAdmin: boolean;
}): Promise<Condition[]> {
  if (isAdmin || auth.roles.length === 0 || !entity.isTenantScoped) return [];
  const rows = await sql<ScopeRow>`select role_code, scope, org_ids, condition
      ${callerOrgCreatorColumns(ctx, auth, entity)}
    from sys_data_scope
    where tenant_code = ${auth.tenantCode} and menu_code = ${entity.name}
      and role_code in (${sql.join(auth.roles)})`.execute(ctx.db);
  // A role without a row for the entity sees all of it, and so does the caller (the union).
  if (new Set(rows.rows.map((row) => row.role_code)).size < new Set(auth.roles).size) return [];
  if (rows.rows.some((row) => row.scope === 'all')) return [];
  const orgs = new CallerOrgs(ctx, auth);
  const parts: Condition[] = [];
  for (const row of rows.rows) {
    const condition = await scopeRowCondition(ctx, auth, entity, row, orgs);
    if (condition === undefined) return [];
    parts.push(condition);
  }
  return [parts.length === 1 && parts[0] ? parts[0] : sql`(${sql.join(parts, sql` or `)})`];
}

/** Whether a scope name is one of the vocabulary's. */
export const isDataScope = (value: string): value is DataScope =>
  (DATA_SCOPES as readonly string[]).includes(value);

/**
 * Whether the record `key` of `entity` satisfies `conditions` (the caller's row scope), read in
 * the transaction `trx` that wrote it: what refuses an add or update landing outside the scope.
 */
export async function isWithinScope({
  trx,
  entity,
  key,
  conditions,
}: {
  trx: Db;
  entity: EntityDef;
  key: unknown;
  conditions: readonly Condition[];
}): Promise<boolean> {
  if (conditions.length === 0) return true;
  const found = await sql`select 1 from ${table(entity)}
    where ${column(entity.key)} = ${key} and ${sql.join([...conditions], sql` and `)}`.execute(trx);
  return found.rows.length > 0;
}
