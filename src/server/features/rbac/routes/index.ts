import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EntityInputError } from '../../../../engine/index.js';
import { actorOf, ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, arrayOf, flag, id, ids, object, text, typed } from '../../../lib/route-schema.js';
import { menuNodeSchema } from '../answers.js';
import { grantButtons, menuButtons, menuButtonTree, roleButtons } from '../services/buttons.js';
import { deleteHiddenFields, hiddenFieldRows, saveHiddenFields } from '../services/data-permissions.js';
import { linkedIds, replaceLinks, type LinkRequest, type RoleLink } from '../services/links.js';
import { roleChoices, roleLinks } from '../services/roles.js';
import { orgUserRoutes } from './org-users.js';
import { dataScopeRoutes } from './data-scopes.js';
import { postRoutes } from './posts.js';

/** How many records one authorize call may link. */
const MAX_LINKS = 10_000;

const LINKED_IDS = arrayOf(id(), { description: 'the linked ids, ascending' });
const LINKED = object({ linked: { type: 'integer', description: 'links now held' } }, ['linked']);
const STRINGS = { type: 'array', items: { type: 'string' } };

/** A role as the role choices list it (engine RoleOption). */
const ROLE_OPTION = object(
  {
    id: { type: 'integer' },
    roleCode: { type: 'string' },
    roleName: { type: 'string' },
    checked: { type: 'boolean', description: 'held by the user and/or attached to the post asked about' },
  },
  ['id', 'roleCode', 'roleName', 'checked'],
);

/** The fields hidden from one role on one menu's screen (engine DataFieldPermission). */
const DATA_FIELD_ROW = object(
  {
    id: { type: 'integer' },
    roleCode: { type: 'string' },
    menuCode: { type: 'string' },
    dataFields: { ...STRINGS, description: 'the fields hidden from the role' },
    readOnlyFields: { ...STRINGS, description: 'the fields the role sees but may not change' },
  },
  ['id', 'roleCode', 'menuCode', 'dataFields', 'readOnlyFields'],
);

/**
 * A value its route schema requires: the link routes name their parameters at run time, so their
 * types cannot say which is there.
 */
function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`the route schema must require ${name}`);
  return value;
}

/**
 * The authorization endpoints of docs/product.md §7 "Extras": who holds which role, which URLs,
 * menus and buttons a role is granted, and which data fields a role may not see on a menu's screen.
 */
export async function rbacRoutes(app: FastifyInstance): Promise<void> {
  await app.register(postRoutes);
  await app.register(orgUserRoutes);
  await app.register(dataScopeRoutes);
  const { ctx } = app;
  const { registry } = ctx;
  const api = typed(app);
  const role = registry.require('sysrole');
  const menu = registry.require('sysmenu');
  const links = roleLinks(ctx);

  const linkRequest = (request: FastifyRequest): LinkRequest => ({
    db: ctx.db,
    actor: actorOf(request),
    l10n: localizerFor(request),
  });

  /** A required text parameter: trimmed, and not blank (400 naming it otherwise). */
  const filledText = (request: FastifyRequest, name: string, value: string): string => {
    const trimmed = value.trim();
    if (trimmed === '') {
      throw new EntityInputError([
        { field: `/${name}`, message: localizerFor(request).t('validation.required') },
      ]);
    }
    return trimmed;
  };

  /**
   * GET <api>/<queryName>?<param>=id → the ids linked to one record; POST <api>/<authorizeName>
   * {<idField>, <idsField>} replaces them.
   */
  const linkRoutes = (spec: {
    entity: { api: string; name: string };
    link: RoleLink;
    side: 'role' | 'other';
    query: { name: string; param: string };
    authorize: { name: string; idField: string; idsField: string; minItems: number };
  }) => {
    const { entity, link, side, query, authorize } = spec;
    const tags = [entity.name];
    api.get(
      `/api/${entity.api}/${query.name}`,
      {
        schema: {
          tags,
          summary: `Ids linked to one ${query.param}`,
          querystring: object({ [query.param]: id() }, [query.param]),
          response: answer(LINKED_IDS),
        },
      },
      async (request) =>
        ok(
          await linkedIds({
            ...linkRequest(request),
            link,
            side,
            id: required(request.query[query.param], query.param),
          }),
        ),
    );
    const linkedKeys = { ...ids(MAX_LINKS), uniqueItems: true, minItems: authorize.minItems };
    api.post(
      `/api/${entity.api}/${authorize.name}`,
      {
        schema: {
          tags,
          summary: `Replaces the ${authorize.idsField} of one ${authorize.idField}`,
          body: object(
            { [authorize.idField]: id(), [authorize.idsField]: linkedKeys },
            [authorize.idField, authorize.idsField],
            { additionalProperties: false },
          ),
          response: answer(LINKED),
        },
      },
      async (request) => {
        const { [authorize.idField]: key, [authorize.idsField]: linked } = request.body;
        if (typeof key !== 'number' || !Array.isArray(linked))
          throw new Error(`the route schema must require ${authorize.idField} and ${authorize.idsField}`);
        return ok(
          await replaceLinks({
            ...linkRequest(request),
            link,
            side,
            id: key,
            ids: linked,
            fields: { id: authorize.idField, ids: authorize.idsField },
          }),
        );
      },
    );
  };

  // role ↔ user (docs/product.md §5: assigning users to a role needs at least one user)
  linkRoutes({
    entity: role,
    link: links.user,
    side: 'other',
    query: { name: 'queryRoleIdByUserId', param: 'userId' },
    authorize: { name: 'authorizeRoleToUser', idField: 'userId', idsField: 'roleIds', minItems: 0 },
  });
  linkRoutes({
    entity: role,
    link: links.user,
    side: 'role',
    query: { name: 'queryUserIdByRoleId', param: 'roleId' },
    authorize: { name: 'authorizeUserToRole', idField: 'roleId', idsField: 'userIds', minItems: 1 },
  });
  // role ↔ url
  linkRoutes({
    entity: links.url.other,
    link: links.url,
    side: 'other',
    query: { name: 'queryRoleIdByUrlId', param: 'urlId' },
    authorize: { name: 'authorizeRoleToUrl', idField: 'urlId', idsField: 'roleIds', minItems: 0 },
  });
  linkRoutes({
    entity: links.url.other,
    link: links.url,
    side: 'role',
    query: { name: 'queryUrlIdByRoleId', param: 'roleId' },
    authorize: { name: 'authorizeUrlToRole', idField: 'roleId', idsField: 'urlIds', minItems: 0 },
  });
  // role ↔ menu (authorization needs ticked data)
  linkRoutes({
    entity: menu,
    link: links.menu,
    side: 'role',
    query: { name: 'queryMenuIdByRoleId', param: 'roleId' },
    authorize: { name: 'authorizeMenuToRole', idField: 'roleId', idsField: 'menuIds', minItems: 1 },
  });
  // role ↔ post: the roles a post works in (see postRoles in features/rbac/permissions/authority.ts)
  linkRoutes({
    entity: links.post.other,
    link: links.post,
    side: 'other',
    query: { name: 'queryRoleIdByPostId', param: 'postId' },
    authorize: { name: 'authorizeRoleToPost', idField: 'postId', idsField: 'roleIds', minItems: 0 },
  });

  /** The roles of the tenant, checked for userId and/or postCode; assign=true keeps the checked ones. */
  const roleChoicesSchema = {
    tags: [role.name],
    summary: 'Roles of the tenant, checked when the user or post holds them',
    querystring: object({
      userId: id(),
      postCode: text(64),
      assign: flag('true: the checked ones only'),
    }),
  };
  const rolesFor = (
    request: FastifyRequest,
    query: { userId?: number; postCode?: string; assign?: string },
  ) =>
    roleChoices({
      ctx,
      actor: actorOf(request),
      l10n: localizerFor(request),
      userId: query.userId,
      postCode: query.postCode === undefined ? undefined : filledText(request, 'postCode', query.postCode),
      isAssignedOnly: query.assign === 'true',
    });
  for (const name of ['queryRoleName', 'queryRoleNameCheckbox']) {
    api.get(
      `/api/${role.api}/${name}`,
      { schema: { ...roleChoicesSchema, response: answer(arrayOf(ROLE_OPTION)) } },
      async (request) => ok(await rolesFor(request, request.query)),
    );
  }
  api.get(
    `/api/${role.api}/queryRoleCode`,
    { schema: { ...roleChoicesSchema, response: answer({ ...STRINGS, description: 'the role codes' }) } },
    async (request) => ok((await rolesFor(request, request.query)).map((row) => row.roleCode)),
  );

  // Buttons: a role is granted buttons of a menu, out of the buttons the menu has (menuButton).
  const tags = [menu.name];
  const menuCodeQuery = object({ menuCode: text(64, { minLength: 1 }) }, ['menuCode']);
  api.get(
    `/api/${menu.api}/querySysMenuButtonTree`,
    {
      schema: {
        tags,
        summary: 'Menus with their buttons',
        response: answer({ type: 'array', items: menuNodeSchema(menu), description: 'the menu tree' }),
      },
    },
    async (request) => ok(await menuButtonTree({ ctx, auth: requireAuth(request) })),
  );
  api.get(
    `/api/${menu.api}/queryCheckedMenuButton`,
    {
      schema: {
        tags,
        summary: 'The buttons of one menu',
        querystring: menuCodeQuery,
        response: answer({ ...STRINGS, description: "the menu's buttons (none for an unknown menu)" }),
      },
    },
    async (request) =>
      ok(
        await menuButtons({
          ctx,
          auth: requireAuth(request),
          menuCode: filledText(request, 'menuCode', request.query.menuCode),
        }),
      ),
  );
  api.get(
    `/api/${menu.api}/queryMenuButtonByRoleCode`,
    {
      schema: {
        tags,
        summary: 'Buttons granted to a role (menuCode:button)',
        querystring: object({ roleCode: text(64, { minLength: 1 }) }, ['roleCode']),
        response: answer({ ...STRINGS, description: 'menuCode:button' }),
      },
    },
    async (request) =>
      ok(
        await roleButtons({
          ctx,
          actor: actorOf(request),
          roleCode: filledText(request, 'roleCode', request.query.roleCode),
        }),
      ),
  );
  api.post(
    `/api/${menu.api}/authorizeMenuButtonToRole`,
    {
      schema: {
        tags,
        summary: 'Replaces the buttons granted to a role',
        body: object(
          {
            roleCode: text(64, { minLength: 1 }),
            buttons: arrayOf(text(200, { pattern: '^[^:\\u0000]+:[^:\\u0000]+$' }), {
              uniqueItems: true,
              maxItems: 10_000,
              description: 'menuCode:button',
            }),
          },
          ['roleCode', 'buttons'],
          { additionalProperties: false },
        ),
        response: answer(LINKED),
      },
    },
    async (request) =>
      ok(
        await grantButtons({
          ctx,
          auth: requireAuth(request),
          actor: actorOf(request),
          l10n: localizerFor(request),
          ...request.body,
        }),
      ),
  );

  // Data fields: per menu, one row per role code listing the fields hidden from that role and
  // those it may only read (permissions/field-rights.ts).
  api.get(
    `/api/${menu.api}/queryDataFieldByMenuCode`,
    {
      schema: {
        tags,
        summary: 'Data fields hidden or read-only per role on one menu',
        querystring: menuCodeQuery,
        response: answer(arrayOf(DATA_FIELD_ROW)),
      },
    },
    async (request) =>
      ok(
        await hiddenFieldRows({
          ctx,
          actor: actorOf(request),
          menuCode: filledText(request, 'menuCode', request.query.menuCode),
        }),
      ),
  );
  api.post(
    `/api/${menu.api}/authorizeMenuDataToRole`,
    {
      schema: {
        tags,
        summary: 'Replaces the hidden and read-only data fields of one menu',
        body: object(
          {
            menuCode: text(64, { minLength: 1 }),
            rows: arrayOf(
              object(
                {
                  roleCode: text(64, { minLength: 1 }),
                  dataFields: arrayOf(text(64, { pattern: '^[a-z][a-zA-Z0-9]*$' }), {
                    uniqueItems: true,
                    maxItems: 1000,
                  }),
                  // optional: a client of before the read-only fields keeps working (none read-only)
                  readOnlyFields: arrayOf(text(64, { pattern: '^[a-z][a-zA-Z0-9]*$' }), {
                    uniqueItems: true,
                    maxItems: 1000,
                  }),
                },
                ['roleCode', 'dataFields'],
                { additionalProperties: false },
              ),
              { maxItems: 1000 },
            ),
          },
          ['menuCode', 'rows'],
          { additionalProperties: false },
        ),
        response: answer(object({ saved: { type: 'integer', description: 'rows now held' } }, ['saved'])),
      },
    },
    async (request) =>
      ok(
        await saveHiddenFields({
          ctx,
          actor: actorOf(request),
          l10n: localizerFor(request),
          ...request.body,
        }),
      ),
  );
  api.post(
    `/api/${menu.api}/deleteDataField`,
    {
      schema: {
        tags,
        summary: 'Deletes one data-field row',
        querystring: object({ id: id() }, ['id']),
        response: answer(object({ deleted: { type: 'integer' } }, ['deleted'])),
      },
    },
    async (request) =>
      ok(
        await deleteHiddenFields({
          ctx,
          actor: actorOf(request),
          l10n: localizerFor(request),
          id: request.query.id,
        }),
      ),
  );
}
