import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { OrgNode, UserLeaf } from '../../../engine/api-types.js';
import { EntityInputError, type FieldError } from '../../../engine/index.js';
import { table } from '../../lib/sql/toolkit.js';
import { entityTitle } from '../../lib/titles.js';
import { actorOf, ok, queryOf } from '../../lib/http.js';
import { localizerFor, type Localizer } from '../../lib/i18n.js';

interface OrgRow {
  id: number;
  org_name: string;
  org_type: string | null;
  org_parent: number | null;
}

interface UserRow {
  id: number;
  username: string;
  nickname: string | null;
  org_id: number | null;
  role_id: number | null;
  status: string | null;
}

/**
 * Organisation trees with users as leaves (SPEC §7 "Extras", sysorg): queryOrgUserTree marks the
 * users holding a role, queryModelOrgUserTree the users assigned to a workflow model.
 */
export async function orgUserRoutes(app: FastifyInstance): Promise<void> {
  const { registry } = app.ctx;
  const org = registry.require('sysorg');
  const user = registry.require('sysuser');
  const role = registry.require('sysrole');

  const badParam = (
    l10n: Localizer,
    name: string,
    message: string,
    params: Record<string, unknown>,
  ): EntityInputError => new EntityInputError([{ field: `/${name}`, message: l10n.t(message, params) }]);

  /** assign=true keeps the assigned users only (and the organisations leading to them). */
  const assignParam = (request: FastifyRequest): boolean => {
    const raw = queryOf(request).assign;
    if (raw === undefined || raw === '' || raw === 'false') return false;
    if (raw === 'true') return true;
    throw badParam(localizerFor(request), 'assign', 'validation.type', { type: 'boolean' });
  };

  const tree = async (
    tenantCode: string,
    assigned: (row: UserRow) => { checked: boolean; isMainRole: boolean },
    isAssignedOnly: boolean,
  ): Promise<(OrgNode | UserLeaf)[]> => {
    const [orgs, users] = await Promise.all([
      sql<OrgRow>`select id, org_name, org_type, org_parent from ${table(org)}
        where tenant_code = ${tenantCode} order by org_sequence asc nulls first, id asc`.execute(app.ctx.db),
      sql<UserRow>`select id, username, nickname, org_id, role_id, status from ${table(user)}
        where tenant_code = ${tenantCode} order by username asc, id asc`.execute(app.ctx.db),
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
    const roots: (OrgNode | UserLeaf)[] = [];
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
    const prune = (list: (OrgNode | UserLeaf)[]): (OrgNode | UserLeaf)[] =>
      list.flatMap((node): (OrgNode | UserLeaf)[] => {
        if (node.type === 'user') return [node];
        const children = prune(node.children);
        return children.length > 0 ? [{ ...node, children }] : [];
      });
    return prune(roots);
  };

  /**
   * GET queryOrgUserTree?roleId=&assign=: the organisation tree of the tenant with its users as
   * leaves; with roleId each user is checked when they hold the role (as main role or through the
   * role's user list), and assign=true keeps only those.
   */
  app.get(`/api/${org.api}/queryOrgUserTree`, async (request) => {
    const l10n = localizerFor(request);
    const { tenantCode } = actorOf(request);
    const raw = queryOf(request).roleId;
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (raw !== undefined && !/^\d{1,15}$/.test(text))
      throw badParam(l10n, 'roleId', 'validation.type', { type: 'integer' });
    const isAssignedOnly = assignParam(request);
    const roleId = raw === undefined ? undefined : Number(text);
    let holders = new Set<number>();
    if (roleId !== undefined) {
      const found = await sql`select 1 from ${table(role)}
        where id = ${roleId} and tenant_code = ${tenantCode}`.execute(app.ctx.db);
      if (found.rows.length === 0) {
        const errors: FieldError[] = [
          {
            field: '/roleId',
            message: l10n.t('errors.refMissing', { entity: entityTitle(l10n, role), key: roleId }),
          },
        ];
        throw new EntityInputError(errors);
      }
      const linked = await sql<{ user_id: number }>`select user_id from sys_role_user
        where role_id = ${roleId} and tenant_code = ${tenantCode}`.execute(app.ctx.db);
      holders = new Set(linked.rows.map((row) => row.user_id));
    }
    return ok(
      await tree(
        tenantCode,
        (row) => {
          const isMainRole = roleId !== undefined && row.role_id === roleId;
          return { checked: isMainRole || holders.has(row.id), isMainRole };
        },
        isAssignedOnly,
      ),
    );
  });

  /**
   * GET queryModelOrgUserTree?modelId=&assign=: the same tree for a workflow model's candidate
   * users. Workflow models do not exist yet, so no user is assigned: every leaf is unchecked and
   * assign=true gives an empty tree.
   */
  app.get(`/api/${org.api}/queryModelOrgUserTree`, async (request) => {
    const l10n = localizerFor(request);
    const raw = queryOf(request).modelId;
    if (raw !== undefined && (typeof raw !== 'string' || raw.length > 64 || raw.includes('\u0000')))
      throw badParam(l10n, 'modelId', 'validation.maxLength', { limit: 64 });
    const isAssignedOnly = assignParam(request);
    return ok(
      await tree(actorOf(request).tenantCode, () => ({ checked: false, isMainRole: false }), isAssignedOnly),
    );
  });
}
