import { sql } from 'kysely';
import type { Db, Row } from '../../../lib/db/database.js';
import type { EntityRegistry } from '../../../lib/registry.js';

/**
 * What a change to a user, a role or a user's roles does to the user's sessions. Services call
 * these in the transaction of the change, so a session never outlives, even for a moment after
 * the commit, the credentials or the roles it was opened with. Every process hears of it through
 * the session triggers (features/sessions/services/watch.ts) before the change's answer goes out.
 */

/** The tables that decide which roles a user holds (the user's main role and its role links). */
export interface RoleTables {
  userTable: string;
  roleTable: string;
}

export const roleTablesOf = (registry: EntityRegistry): RoleTables => ({
  userTable: registry.require('sysuser').table,
  roleTable: registry.require('sysrole').table,
});

/**
 * Ends every live session of the users: their password was set, they were disabled or moved to
 * another tenant. `exceptSessionId` keeps the session that made a self-service change.
 */
export async function endSessions({
  trx,
  userIds,
  exceptSessionId,
}: {
  trx: Db;
  userIds: readonly number[];
  exceptSessionId?: number;
}): Promise<void> {
  if (userIds.length === 0) return;
  const except = exceptSessionId === undefined ? sql`` : sql`and id <> ${exceptSessionId}`;
  await sql`update sys_session set revoked_at = now()
    where user_id in (${sql.join(userIds)}) and revoked_at is null ${except}`.execute(trx);
}

/** The role codes a user holds now, as a jsonb array ordered like loadUserRoles. */
const currentRoles = (tables: RoleTables) => sql`coalesce((
    select jsonb_agg(r.role_code order by r.role_code) from ${sql.table(tables.roleTable)} r
    where r.id in (select role_id from ${sql.table(tables.userTable)} where id = s.user_id)
       or r.id in (select role_id from sys_role_user where user_id = s.user_id)
  ), '[]'::jsonb)`;

/**
 * Gives the live sessions that `which` selects the roles their users hold now: a role taken
 * away stops granting its URLs on the user's next request, one given works at once. Sessions
 * whose roles do not change are left alone (and announce nothing).
 */
async function rescope(trx: Db, tables: RoleTables, which: ReturnType<typeof sql>): Promise<void> {
  await sql`update sys_session s set roles = ${currentRoles(tables)}
    where s.revoked_at is null and s.refresh_expires_at > now() and ${which}
      and s.roles is distinct from ${currentRoles(tables)}`.execute(trx);
}

/** Re-scopes the sessions of users whose roles changed (a role link or the main role). */
export async function rescopeUsers({
  trx,
  tables,
  userIds,
}: {
  trx: Db;
  tables: RoleTables;
  userIds: readonly number[];
}): Promise<void> {
  if (userIds.length === 0) return;
  await rescope(trx, tables, sql`s.user_id in (${sql.join(userIds)})`);
}

/** Re-scopes the sessions that hold a role code that was renamed or deleted. */
export async function rescopeRoleHolders({
  trx,
  tables,
  role,
}: {
  trx: Db;
  tables: RoleTables;
  role: { tenantCode: string; roleCode: string };
}): Promise<void> {
  await rescope(
    trx,
    tables,
    sql`s.tenant_code = ${role.tenantCode} and s.roles @> ${JSON.stringify([role.roleCode])}::jsonb`,
  );
}

/** A user or role written through the generated CRUD: the row before, the row after (null: deleted). */
export interface RecordChange {
  before: Row;
  after: Row | null;
  /** The fields the write set (secret fields included, which rows never show). */
  assigned: ReadonlySet<string>;
}

const isActive = (row: Row): boolean => row.status === '1';

/**
 * The sessions' side of a user written through the generated CRUD, in its transaction: a
 * password set, a disabled user or a changed tenant ends the user's sessions; a changed main
 * role re-scopes them (features/sessions/module.ts hooks it on sysuser).
 */
export async function applyUserChange({
  trx,
  registry,
  change,
}: {
  trx: Db;
  registry: EntityRegistry;
  change: RecordChange;
}): Promise<void> {
  const { before, after } = change;
  const entity = registry.require('sysuser');
  const userId = Number(before[entity.key.name]);
  // A deleted user's sessions die with the row (the sessions' user key cascades).
  if (!after) return;
  const secretSet = entity.fields.some((field) => field.isSecret && change.assigned.has(field.name));
  const isMoved = before.tenantCode !== after.tenantCode;
  if (secretSet || !isActive(after) || isMoved) await endSessions({ trx, userIds: [userId] });
  else if (before.roleId !== after.roleId)
    await rescopeUsers({ trx, tables: roleTablesOf(registry), userIds: [userId] });
}

/**
 * The sessions' side of a role written through the generated CRUD: a renamed or deleted role
 * code re-scopes the sessions that hold it (hooked on sysrole).
 */
export async function applyRoleChange({
  trx,
  registry,
  change,
}: {
  trx: Db;
  registry: EntityRegistry;
  change: RecordChange;
}): Promise<void> {
  const { before, after } = change;
  const roleCode = before.roleCode;
  if (typeof roleCode !== 'string' || (after && after.roleCode === roleCode)) return;
  await rescopeRoleHolders({
    trx,
    tables: roleTablesOf(registry),
    role: { tenantCode: String(before.tenantCode), roleCode },
  });
}
