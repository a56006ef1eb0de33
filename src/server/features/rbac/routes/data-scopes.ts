import type { FastifyInstance } from 'fastify';
import { DATA_SCOPES, MAX_SCOPE_CONDITION } from '../../../../engine/index.js';
import { actorOf, ok } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, arrayOf, id, ids, object, oneOf, text, typed } from '../../../lib/route-schema.js';
import { roleDataScopes, saveRoleDataScopes } from '../services/data-scopes.js';

/** One role's row data scope on one entity (engine DataScopeSetting). */
const DATA_SCOPE_ROW = object(
  {
    menuCode: { type: 'string', description: 'the entity (its menu code)' },
    scope: { type: 'string', enum: [...DATA_SCOPES] },
    orgIds: {
      type: 'array',
      items: { type: 'integer' },
      description: 'the chosen organisations (scope orgs)',
    },
    condition: { type: ['string', 'null'], description: 'the condition (scope condition)' },
  },
  ['menuCode', 'scope', 'orgIds', 'condition'],
);

/**
 * Row data scopes per role and entity (数据范围, features/rbac/permissions/row-scope.ts): read and
 * replace the scopes of one role, on the role page.
 */
export async function dataScopeRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  const role = ctx.registry.require('sysrole');
  const tags = [role.name];
  api.get(
    `/api/${role.api}/queryDataScopeByRoleId`,
    {
      schema: {
        tags,
        summary: 'Row data scopes of one role (entities not listed: all rows)',
        querystring: object({ roleId: id() }, ['roleId']),
        response: answer(arrayOf(DATA_SCOPE_ROW)),
      },
    },
    async (request) =>
      ok(
        await roleDataScopes({
          ctx,
          actor: actorOf(request),
          l10n: localizerFor(request),
          roleId: request.query.roleId,
        }),
      ),
  );
  api.post(
    `/api/${role.api}/authorizeDataScopeToRole`,
    {
      schema: {
        tags,
        summary: 'Replaces the row data scopes of one role',
        body: object(
          {
            roleId: id(),
            rows: arrayOf(
              object(
                {
                  menuCode: text(64, { minLength: 1 }),
                  scope: oneOf(DATA_SCOPES),
                  orgIds: { ...ids(1000), uniqueItems: true },
                  condition: text(MAX_SCOPE_CONDITION),
                },
                ['menuCode', 'scope'],
                { additionalProperties: false },
              ),
              { maxItems: 1000 },
            ),
          },
          ['roleId', 'rows'],
          { additionalProperties: false },
        ),
        response: answer(
          object({ saved: { type: 'integer', description: 'scope rows now held' } }, ['saved']),
        ),
      },
    },
    async (request) =>
      ok(
        await saveRoleDataScopes({
          ctx,
          actor: actorOf(request),
          l10n: localizerFor(request),
          ...request.body,
        }),
      ),
  );
}
