import { sql, type RawBuilder } from 'kysely';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import { column, table } from '../../../lib/sql/toolkit.js';

/**
 * Who netdisc shares reach (sys_netdisc_share): the user named, the users acting in the role
 * named (the session's roles), the users of the organisation named, all in the share's tenant.
 */
function shareReaches(ctx: AppContext, auth: AuthContext): RawBuilder<unknown> {
  const user = ctx.registry.require('sysuser');
  const role = ctx.registry.require('sysrole');
  const org = user.fieldsByName.get('orgId');
  const byOrg = org
    ? sql`or (s.target_type = 'org' and s.target_id = (select ${column(org)} from ${table(user)} where id = ${auth.userId}))`
    : sql``;
  return sql`s.tenant_code = ${auth.tenantCode} and (
    (s.target_type = 'user' and s.target_id = ${auth.userId})
    or (s.target_type = 'role' and s.target_id in (select id from ${table(role)}
      where tenant_code = ${auth.tenantCode} and role_code in (${sql.join(auth.roles.length > 0 ? auth.roles : [''])})))
    ${byOrg})`;
}

/**
 * Ids of the folders shared with the caller, and of every folder inside them, none of them in
 * the recycle bin (a query to use in `in (…)`).
 */
export function sharedFolderIds(ctx: AppContext, auth: AuthContext): RawBuilder<unknown> {
  return sql`(with recursive shared_folder(id) as (
      select f.id from sys_netdisc_folder f
        join sys_netdisc_share s on s.item_type = 'folder' and s.item_id = f.id
        where ${shareReaches(ctx, auth)} and f.tenant_code = ${auth.tenantCode} and f.deleted_at is null
      union
      select c.id from sys_netdisc_folder c join shared_folder p on c.parent_id = p.id
        where c.deleted_at is null
    ) select id from shared_folder)`;
}

/**
 * Whether the sys_file row in scope (unaliased columns) is a netdisc file shared with the
 * caller, itself or through a folder, and not in the recycle bin.
 */
export function fileSharedWith(ctx: AppContext, auth: AuthContext): RawBuilder<unknown> {
  return sql`(is_netdisc and deleted_at is null and tenant_code = ${auth.tenantCode} and (
    exists (select 1 from sys_netdisc_share s
      where s.item_type = 'file' and s.item_id = sys_file.id and ${shareReaches(ctx, auth)})
    or folder_id in ${sharedFolderIds(ctx, auth)}))`;
}
