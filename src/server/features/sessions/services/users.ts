import { sql } from 'kysely';
import { BUYER_SUB_ACCOUNT_ROLE, type CurrentUser } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import type { EntityRegistry } from '../../../lib/registry.js';
import type { AuthContext } from './session.js';

const tableOf = (registry: EntityRegistry, name: string): ReturnType<typeof sql.table> =>
  sql.table(registry.require(name).table);

/** Role codes of a user: the main role of the user record plus the roles assigned to it. */
export async function loadUserRoles({
  db,
  registry,
  userId,
}: {
  db: Db;
  registry: EntityRegistry;
  userId: number;
}): Promise<string[]> {
  const result = await sql<{ role_code: string }>`
    select distinct r.role_code from ${tableOf(registry, 'sysrole')} r
    where r.id in (select role_id from ${tableOf(registry, 'sysuser')} where id = ${userId})
       or r.id in (select role_id from sys_role_user where user_id = ${userId})
    order by r.role_code`.execute(db);
  return result.rows.map((row) => row.role_code);
}

/**
 * The signed-in user. `roles` are the roles of the session (what the server trusts and what the
 * RoleCode header may choose from); `currentRole` is the role the caller acts in now: the first
 * role the RoleCode header chose, or the first role of the session without the header.
 */
export async function currentUser({
  ctx,
  auth,
}: {
  ctx: AppContext;
  auth: AuthContext & { heldRoles?: string[] };
}): Promise<CurrentUser> {
  const { db, registry } = ctx;
  const result = await sql<{
    id: number;
    username: string;
    nickname: string | null;
    avatar: string | null;
    mobile: string | null;
    email: string | null;
    user_type: number | null;
    org_name: string | null;
  }>`select u.id, u.username, u.nickname, u.avatar, u.mobile, u.email, u.user_type, o.org_name
    from ${tableOf(registry, 'sysuser')} u left join ${tableOf(registry, 'sysorg')} o on o.id = u.org_id
    where u.id = ${auth.userId} and u.tenant_code = ${auth.tenantCode}`.execute(db);
  const user = result.rows[0];
  if (!user) throw new Error(`session ${auth.sessionId} names a missing user`);
  const roles = auth.heldRoles ?? (await loadUserRoles({ db, registry, userId: user.id }));
  const orgName = user.org_name ?? '';
  return {
    id: user.id,
    username: user.username,
    nickname: user.nickname,
    name: orgName,
    zname: roles.includes(BUYER_SUB_ACCOUNT_ROLE) ? orgName : user.username,
    avatar: user.avatar,
    mobile: user.mobile,
    email: user.email,
    roles,
    userType: user.user_type ?? 0,
    orgName,
    tenantCode: auth.tenantCode,
    currentRole: auth.roles[0] ?? roles[0] ?? null,
  };
}
