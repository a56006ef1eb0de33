import { sql } from 'kysely';
import { EntityInputError, type OrgNode, type OrgUserNode, type UserLeaf } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Localizer } from '../../../lib/i18n.js';
import { table } from '../../../lib/sql/toolkit.js';
import { entityTitle } from '../../../lib/titles.js';

interface OrgRow {
  id: number;
  org_name: string;
  org_type: string | null;
  org_parent: number | null;
}

export interface UserRow {
  id: number;
  username: string;
  nickname: string | null;
  org_id: number | null;
  role_id: number | null;
  status: string | null;
}

/**
 * The organisation tree of a tenant with its users as leaves, each marked by assigned;
 * isAssignedOnly keeps the assigned users and the organisations leading to them.
 */
export async function orgUserTree({
  ctx,
  tenantCode,
  assigned,
  isAssignedOnly,
}: {
  ctx: AppContext;
  tenantCode: string;
  assigned: (row: UserRow) => { checked: boolean; isMainRole: boolean };
  isAssignedOnly: boolean;
}): Promise<OrgUserNode[]> {
  const org = ctx.registry.require('sysorg');
  const user = ctx.registry.require('sysuser');
  const [orgs, users] = await Promise.all([
    sql<OrgRow>`select id, org_name, org_type, org_parent from ${table(org)}
      where tenant_code = ${tenantCode} order by org_sequence asc nulls first, id asc`.execute(ctx.db),
    sql<UserRow>`select id, username, nickname, org_id, role_id, status from ${table(user)}
      where tenant_code = ${tenantCode} order by username asc, id asc`.execute(ctx.db),
  ]);
  const nodes = new Map<number, OrgNode>(
    orgs.rows.map((row) => [
      row.id,
      {
        key: `org-${row.id}`,
        type: 'org',
        id: row.id,
        title: row.org_name,
        orgName: row.org_name,
        orgType: row.org_type,
        orgParent: row.org_parent ?? 0,
        children: [],
      },
    ]),
  );
  const roots: OrgUserNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.orgParent === 0 ? undefined : nodes.get(node.orgParent);
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  for (const row of users.rows) {
    const marks = assigned(row);
    if (isAssignedOnly && !marks.checked) continue;
    const leaf: UserLeaf = {
      key: `user-${row.id}`,
      type: 'user',
      id: row.id,
      title: row.nickname || row.username,
      username: row.username,
      nickname: row.nickname,
      orgId: row.org_id,
      status: row.status,
      ...marks,
      isLeaf: true,
    };
    const home = row.org_id === null ? undefined : nodes.get(row.org_id);
    (home ? home.children : roots).push(leaf);
  }
  if (!isAssignedOnly) return roots;
  // Only the organisations that lead to an assigned user.
  const prune = (list: OrgUserNode[]): OrgUserNode[] =>
    list.flatMap((node): OrgUserNode[] => {
      if (node.type === 'user') return [node];
      const children = prune(node.children);
      return children.length > 0 ? [{ ...node, children }] : [];
    });
  return prune(roots);
}

/** The users holding a role of the tenant through the role's user list (400 naming roleId when it is not the tenant's). */
export async function roleHolders({
  ctx,
  tenantCode,
  roleId,
  l10n,
}: {
  ctx: AppContext;
  tenantCode: string;
  roleId: number;
  l10n: Localizer;
}): Promise<Set<number>> {
  const role = ctx.registry.require('sysrole');
  const found = await sql`select 1 from ${table(role)}
    where id = ${roleId} and tenant_code = ${tenantCode}`.execute(ctx.db);
  if (found.rows.length === 0) {
    throw new EntityInputError([
      {
        field: '/roleId',
        message: l10n.t('errors.refMissing', { entity: entityTitle(l10n, role), key: roleId }),
      },
    ]);
  }
  const linked = await sql<{ user_id: number }>`select user_id from sys_role_user
    where role_id = ${roleId} and tenant_code = ${tenantCode}`.execute(ctx.db);
  return new Set(linked.rows.map((row) => row.user_id));
}
