import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EntityInputError } from '../../../../engine/index.js';
import { actorOf, numberParam, ok, queryOf } from '../../../lib/http.js';
import { localizerFor, type Localizer } from '../../../lib/i18n.js';
import { orgUserTree, roleHolders } from '../services/org-users.js';

/**
 * Organisation trees with users as leaves (SPEC §7 "Extras", sysorg): queryOrgUserTree marks the
 * users holding a role, queryModelOrgUserTree the users assigned to a workflow model.
 */
export async function orgUserRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const org = ctx.registry.require('sysorg');

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

  /**
   * GET queryOrgUserTree?roleId=&assign=: the organisation tree of the tenant with its users as
   * leaves; with roleId each user is checked when they hold the role (as main role or through the
   * role's user list), and assign=true keeps only those.
   */
  app.get(`/api/${org.api}/queryOrgUserTree`, async (request) => {
    const l10n = localizerFor(request);
    const { tenantCode } = actorOf(request);
    // the route schema (plugins/route-schema-manifest.ts) has made roleId a whole number from 1 up
    const roleId = numberParam(request, 'roleId');
    const isAssignedOnly = assignParam(request);
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
        isAssignedOnly,
      }),
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
      await orgUserTree({
        ctx,
        tenantCode: actorOf(request).tenantCode,
        assigned: () => ({ checked: false, isMainRole: false }),
        isAssignedOnly,
      }),
    );
  });
}
