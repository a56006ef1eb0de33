import type { FastifyInstance } from 'fastify';
import { actorOf, ok } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, arrayOf, flag, id, object, text, typed } from '../../../lib/route-schema.js';
import { orgUserTree, roleHolders } from '../services/org-users.js';
import { assertAllFound } from '../permissions/policy.js';
import { tenantModelIds } from '../../workflow/index.js';

const nullableText = { type: ['string', 'null'] };

/**
 * A node of an organisation-user tree (engine OrgUserNode): an organisation, with its
 * sub-organisations and then its users as children, or a user (a leaf).
 */
const ORG_USER_NODE = object(
  {
    key: { type: 'string', description: 'org-<id> or user-<id>' },
    type: { type: 'string', enum: ['org', 'user'] },
    id: { type: 'integer' },
    title: { type: 'string' },
    // an organisation
    orgName: { type: 'string' },
    orgType: nullableText,
    orgParent: { type: 'integer' },
    children: {
      type: 'array',
      items: { description: 'a node of this shape' },
      description: 'sub-organisations, then users (organisations only)',
    },
    // a user
    username: { type: 'string' },
    nickname: nullableText,
    orgId: { type: ['integer', 'null'] },
    status: nullableText,
    checked: {
      type: 'boolean',
      description: 'assigned: holds the role (queryOrgUserTree), or assigned to the model',
    },
    isMainRole: { type: 'boolean', description: "the role is the user's main role" },
    isLeaf: { type: 'boolean', enum: [true] },
  },
  ['key', 'type', 'id', 'title'],
);

/**
 * Organisation trees with users as leaves (docs/product.md §7 "Extras", sysorg): queryOrgUserTree
 * marks the users holding a role, queryModelOrgUserTree the users assigned to a workflow model.
 */
export async function orgUserRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  const org = ctx.registry.require('sysorg');
  const tags = [org.name];
  const tree = answer(arrayOf(ORG_USER_NODE));
  const assignOnly = flag('true: the assigned users only (and the organisations leading to them)');

  /**
   * GET queryOrgUserTree?roleId=&assign=: the organisation tree of the tenant with its users as
   * leaves; with roleId each user is checked when they hold the role (as main role or through the
   * role's user list), and assign=true keeps only those.
   */
  api.get(
    `/api/${org.api}/queryOrgUserTree`,
    {
      schema: {
        tags,
        summary: 'Organisations with their users; with roleId the holders are checked',
        querystring: object({ roleId: id(), assign: assignOnly }),
        response: tree,
      },
    },
    async (request) => {
      const l10n = localizerFor(request);
      const { tenantCode } = actorOf(request);
      const { roleId, assign } = request.query;
      const holders =
        roleId === undefined ? new Set<number>() : await roleHolders({ ctx, tenantCode, roleId, l10n });
      return ok(
        await orgUserTree({
          ctx,
          tenantCode,
          assigned: (row) => {
            const isMainRole = roleId !== undefined && row.role_id === roleId;
            return { checked: isMainRole || holders.has(row.id), isMainRole };
          },
          isAssignedOnly: assign === 'true',
        }),
      );
    },
  );

  /**
   * GET queryModelOrgUserTree?modelId=&assign=: the same tree for a workflow model's candidate
   * users. No user is assigned to a model yet: every leaf is unchecked and assign=true gives an
   * empty tree. A modelId names a model of the tenant (404 otherwise, another tenant's included).
   */
  api.get(
    `/api/${org.api}/queryModelOrgUserTree`,
    {
      schema: {
        tags,
        summary: "Organisations with their users, for a workflow model's candidates",
        querystring: object({ modelId: text(64), assign: assignOnly }),
        response: tree,
      },
    },
    async (request) => {
      const { tenantCode } = actorOf(request);
      const { modelId } = request.query;
      if (modelId !== undefined && modelId !== '') {
        const id = /^[1-9][0-9]{0,15}$/.test(modelId) ? Number(modelId) : 0;
        const found = id > 0 ? await tenantModelIds({ ctx, tenantCode, ids: [id] }) : [];
        assertAllFound({ ids: [modelId], found, subject: 'model' });
      }
      return ok(
        await orgUserTree({
          ctx,
          tenantCode,
          assigned: () => ({ checked: false, isMainRole: false }),
          isAssignedOnly: request.query.assign === 'true',
        }),
      );
    },
  );
}
