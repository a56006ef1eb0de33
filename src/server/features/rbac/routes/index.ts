import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EntityInputError, toFieldErrors } from '../../../../engine/index.js';
import { actorOf, numberParam, ok, queryOf, requiredNumberParam } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { grantButtons, menuButtons, menuButtonTree, roleButtons } from '../services/buttons.js';
import {
  deleteHiddenFields,
  hiddenFieldRows,
  saveHiddenFields,
  type HiddenFieldsRow,
} from '../services/data-permissions.js';
import { linkedIds, replaceLinks, type LinkRequest, type RoleLink } from '../services/links.js';
import { roleChoices, roleLinks } from '../services/roles.js';
import { orgUserRoutes } from './org-users.js';
import { postRoutes } from './posts.js';

const ID = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;
const IDS = { type: 'array', items: ID, uniqueItems: true, maxItems: 10000 } as const;

/**
 * The authorization endpoints of SPEC §7 "Extras": who holds which role, which URLs, menus and
 * buttons a role is granted, and which data fields a role may not see on a menu's screen.
 */
export async function rbacRoutes(app: FastifyInstance): Promise<void> {
  await app.register(postRoutes);
  await app.register(orgUserRoutes);
  const { ctx } = app;
  const { registry } = ctx;
  const role = registry.require('sysrole');
  const menu = registry.require('sysmenu');
  const links = roleLinks(ctx);

  const linkRequest = (request: FastifyRequest): LinkRequest => ({
    db: ctx.db,
    actor: actorOf(request),
    l10n: localizerFor(request),
  });

  const bodyOf = <T>(request: FastifyRequest, validate: ReturnType<typeof registry.ajv.compile>): T => {
    if (!validate(request.body ?? {}))
      throw new EntityInputError(toFieldErrors(validate.errors ?? [], localizerFor(request).t));
    return request.body as T;
  };

  /** An id parameter: its route schema (plugins/route-schema-manifest.ts) has made it a whole number from 1 up. */
  const idParam = (request: FastifyRequest, name: string): number => requiredNumberParam(request, name);

  const textParam = (request: FastifyRequest, name: string): string => {
    const raw = queryOf(request)[name];
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (text === '' || text.includes('\u0000')) {
      throw new EntityInputError([
        { field: `/${name}`, message: localizerFor(request).t('validation.required') },
      ]);
    }
    return text;
  };

  /** GET <base>/<name>?<param>=id → linked ids; POST <base>/<name> {<idField>, <idsField>} replaces them. */
  const linkRoutes = (
    base: string,
    link: RoleLink,
    side: 'role' | 'other',
    query: [string, string],
    authorize: [string, string, string, number],
  ) => {
    const [queryName, param] = query;
    const [authorizeName, idField, idsField, minItems] = authorize;
    app.get(`/api/${base}/${queryName}`, async (request) =>
      ok(await linkedIds(linkRequest(request), link, side, idParam(request, param))),
    );
    const validate = registry.ajv.compile({
      type: 'object',
      properties: { [idField]: ID, [idsField]: { ...IDS, minItems } },
      required: [idField, idsField],
      additionalProperties: false,
    });
    app.post(`/api/${base}/${authorizeName}`, async (request) => {
      const body = bodyOf<Record<string, unknown>>(request, validate);
      return ok(
        await replaceLinks(
          linkRequest(request),
          link,
          side,
          body[idField] as number,
          body[idsField] as number[],
          { id: idField, ids: idsField },
        ),
      );
    });
  };

  // role ↔ user (SPEC §5: assigning users to a role needs at least one user)
  linkRoutes(
    role.api,
    links.user,
    'other',
    ['queryRoleIdByUserId', 'userId'],
    ['authorizeRoleToUser', 'userId', 'roleIds', 0],
  );
  linkRoutes(
    role.api,
    links.user,
    'role',
    ['queryUserIdByRoleId', 'roleId'],
    ['authorizeUserToRole', 'roleId', 'userIds', 1],
  );
  // role ↔ url
  linkRoutes(
    links.url.other.api,
    links.url,
    'other',
    ['queryRoleIdByUrlId', 'urlId'],
    ['authorizeRoleToUrl', 'urlId', 'roleIds', 0],
  );
  linkRoutes(
    links.url.other.api,
    links.url,
    'role',
    ['queryUrlIdByRoleId', 'roleId'],
    ['authorizeUrlToRole', 'roleId', 'urlIds', 0],
  );
  // role ↔ menu (authorization needs ticked data)
  linkRoutes(
    menu.api,
    links.menu,
    'role',
    ['queryMenuIdByRoleId', 'roleId'],
    ['authorizeMenuToRole', 'roleId', 'menuIds', 1],
  );

  // role ↔ post: the roles a post works in (see postRoles in features/rbac/permissions/authority.ts)
  linkRoutes(
    links.post.other.api,
    links.post,
    'other',
    ['queryRoleIdByPostId', 'postId'],
    ['authorizeRoleToPost', 'postId', 'roleIds', 0],
  );

  /** The roles of the tenant, checked for userId and/or postCode; assign=true keeps the checked ones. */
  const rolesForUser = async (request: FastifyRequest) => {
    const query = queryOf(request);
    return roleChoices({
      ctx,
      actor: actorOf(request),
      l10n: localizerFor(request),
      userId: numberParam(request, 'userId'),
      postCode: query.postCode === undefined ? undefined : textParam(request, 'postCode'),
      isAssignedOnly: query.assign === 'true',
    });
  };
  app.get(`/api/${role.api}/queryRoleName`, async (request) => ok(await rolesForUser(request)));
  app.get(`/api/${role.api}/queryRoleNameCheckbox`, async (request) => ok(await rolesForUser(request)));
  app.get(`/api/${role.api}/queryRoleCode`, async (request) =>
    ok((await rolesForUser(request)).map((row) => row.roleCode)),
  );

  // Buttons: a role is granted buttons of a menu, out of the buttons the menu has (menuButton).
  app.get(`/api/${menu.api}/querySysMenuButtonTree`, async () => ok(await menuButtonTree({ ctx })));
  app.get(`/api/${menu.api}/queryCheckedMenuButton`, async (request) =>
    ok(await menuButtons({ ctx, menuCode: textParam(request, 'menuCode') })),
  );
  app.get(`/api/${menu.api}/queryMenuButtonByRoleCode`, async (request) =>
    ok(await roleButtons({ ctx, actor: actorOf(request), roleCode: textParam(request, 'roleCode') })),
  );
  const validateButtons = registry.ajv.compile({
    type: 'object',
    properties: {
      roleCode: { type: 'string', minLength: 1, maxLength: 64 },
      buttons: {
        type: 'array',
        items: { type: 'string', pattern: '^[^:]+:[^:]+$' },
        uniqueItems: true,
        maxItems: 10000,
      },
    },
    required: ['roleCode', 'buttons'],
    additionalProperties: false,
  });
  app.post(`/api/${menu.api}/authorizeMenuButtonToRole`, async (request) => {
    const body = bodyOf<{ roleCode: string; buttons: string[] }>(request, validateButtons);
    const l10n = localizerFor(request);
    return ok(await grantButtons({ ctx, actor: actorOf(request), l10n, ...body }));
  });

  // Data fields: per menu, one row per role code listing the fields hidden from that role.
  app.get(`/api/${menu.api}/queryDataFieldByMenuCode`, async (request) =>
    ok(await hiddenFieldRows({ ctx, actor: actorOf(request), menuCode: textParam(request, 'menuCode') })),
  );
  const validateDataFields = registry.ajv.compile({
    type: 'object',
    properties: {
      menuCode: { type: 'string', minLength: 1, maxLength: 64 },
      rows: {
        type: 'array',
        maxItems: 1000,
        items: {
          type: 'object',
          properties: {
            roleCode: { type: 'string', minLength: 1, maxLength: 64 },
            dataFields: {
              type: 'array',
              items: { type: 'string', pattern: '^[a-z][a-zA-Z0-9]*$' },
              uniqueItems: true,
            },
          },
          required: ['roleCode', 'dataFields'],
          additionalProperties: false,
        },
      },
    },
    required: ['menuCode', 'rows'],
    additionalProperties: false,
  });
  app.post(`/api/${menu.api}/authorizeMenuDataToRole`, async (request) => {
    const body = bodyOf<{ menuCode: string; rows: HiddenFieldsRow[] }>(request, validateDataFields);
    const l10n = localizerFor(request);
    return ok(await saveHiddenFields({ ctx, actor: actorOf(request), l10n, ...body }));
  });
  app.post(`/api/${menu.api}/deleteDataField`, async (request) =>
    ok(await deleteHiddenFields({ ctx, actor: actorOf(request), id: idParam(request, 'id') })),
  );
}
