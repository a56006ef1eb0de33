import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { EntityInputError, toFieldErrors } from '../../../engine/index.js';
import { writeAudit } from '../../lib/audit.js';
import { buildTree } from '../../services/items/tree.js';
import { selectList, table } from '../../lib/sql/toolkit.js';
import type { Row } from '../../lib/db/database.js';
import { actorOf, ok, queryOf } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';
import { linkedIds, replaceLinks, type LinkRequest, type RoleLink } from '../../services/rbac/links.js';
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
  const { registry } = app.ctx;
  const role = registry.require('sysrole');
  const menu = registry.require('sysmenu');
  const links = {
    user: { table: 'sys_role_user', otherColumn: 'user_id', role, other: registry.require('sysuser') },
    url: { table: 'sys_role_url', otherColumn: 'url_id', role, other: registry.require('sysurl') },
    menu: { table: 'sys_role_menu', otherColumn: 'menu_id', role, other: menu },
    post: { table: 'sys_role_post', otherColumn: 'post_id', role, other: registry.require('syspost') },
  } satisfies Record<string, RoleLink>;

  const linkRequest = (request: FastifyRequest): LinkRequest => ({
    db: app.ctx.db,
    actor: actorOf(request),
    l10n: localizerFor(request),
  });

  const bodyOf = <T>(request: FastifyRequest, validate: ReturnType<typeof registry.ajv.compile>): T => {
    if (!validate(request.body ?? {}))
      throw new EntityInputError(toFieldErrors(validate.errors ?? [], localizerFor(request).t));
    return request.body as T;
  };

  const idParam = (request: FastifyRequest, name: string): number => {
    const raw = queryOf(request)[name];
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (!/^\d{1,15}$/.test(text)) {
      throw new EntityInputError([
        { field: `/${name}`, message: localizerFor(request).t('validation.type', { type: 'integer' }) },
      ]);
    }
    return Number(text);
  };

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

  // role ↔ post: the roles a post works in (see postRoles in services/permissions/authority.ts)
  linkRoutes(
    links.post.other.api,
    links.post,
    'other',
    ['queryRoleIdByPostId', 'postId'],
    ['authorizeRoleToPost', 'postId', 'roleIds', 0],
  );

  /**
   * The roles of the tenant, each marked checked: with userId, when the user holds it; with
   * postCode, when it is attached to the post; with both, when both hold. assign=true keeps the
   * checked ones only.
   */
  const rolesForUser = async (request: FastifyRequest) => {
    const actor = actorOf(request);
    const query = queryOf(request);
    const userId = query.userId === undefined ? undefined : idParam(request, 'userId');
    const postCode = query.postCode === undefined ? undefined : textParam(request, 'postCode');
    const held =
      userId === undefined
        ? undefined
        : new Set(await linkedIds(linkRequest(request), links.user, 'other', userId));
    let attached: Set<number> | undefined;
    if (postCode !== undefined) {
      const post = links.post.other;
      const found = await sql<{
        id: number;
      }>`select id from ${table(post)} where post_code = ${postCode} and tenant_code = ${actor.tenantCode}`.execute(
        app.ctx.db,
      );
      const postId = found.rows[0]?.id;
      if (postId === undefined) {
        throw new EntityInputError([
          {
            field: '/postCode',
            message: localizerFor(request).t('errors.refMissing', { entity: post.name, key: postCode }),
          },
        ]);
      }
      attached = new Set(await linkedIds(linkRequest(request), links.post, 'other', postId));
    }
    const isAssignedOnly = query.assign === 'true';
    const rows = await sql<{
      id: number;
      roleCode: string;
      roleName: string;
    }>`select id, role_code as "roleCode", role_name as "roleName"
      from ${table(role)} where tenant_code = ${actor.tenantCode} order by role_code`.execute(app.ctx.db);
    return rows.rows
      .map((row) => ({
        ...row,
        checked:
          (held !== undefined || attached !== undefined) &&
          (held?.has(row.id) ?? true) &&
          (attached?.has(row.id) ?? true),
      }))
      .filter((row) => !isAssignedOnly || row.checked);
  };
  app.get(`/api/${role.api}/queryRoleName`, async (request) => ok(await rolesForUser(request)));
  app.get(`/api/${role.api}/queryRoleNameCheckbox`, async (request) => ok(await rolesForUser(request)));
  app.get(`/api/${role.api}/queryRoleCode`, async (request) =>
    ok((await rolesForUser(request)).map((row) => row.roleCode)),
  );

  // Buttons: a role is granted buttons of a menu, out of the buttons the menu has (menuButton).
  const menuRows = async (): Promise<Row[]> =>
    (
      await sql<Row>`select ${selectList(menu)} from ${table(menu)} order by menu_sequence, id`.execute(
        app.ctx.db,
      )
    ).rows;
  app.get(`/api/${menu.api}/querySysMenuButtonTree`, async () => ok(buildTree(menu, await menuRows())));
  app.get(`/api/${menu.api}/queryCheckedMenuButton`, async (request) => {
    const code = textParam(request, 'menuCode');
    return ok((await menuRows()).find((row) => row.menuCode === code)?.menuButton ?? []);
  });
  app.get(`/api/${menu.api}/queryMenuButtonByRoleCode`, async (request) => {
    const code = textParam(request, 'roleCode');
    const rows = await sql<{
      menuCode: string;
      button: string;
    }>`select m.menu_code as "menuCode", rb.button from sys_role_button rb
      join ${table(role)} r on r.id = rb.role_id join ${table(menu)} m on m.id = rb.menu_id
      where r.role_code = ${code} and r.tenant_code = ${actorOf(request).tenantCode} order by 1, 2`.execute(
      app.ctx.db,
    );
    return ok(rows.rows.map((row) => `${row.menuCode}:${row.button}`));
  });
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
    const actor = actorOf(request);
    const l10n = localizerFor(request);
    const menus = new Map((await menuRows()).map((row) => [String(row.menuCode), row]));
    const grants: { menuId: unknown; button: string }[] = [];
    for (const item of body.buttons) {
      const [menuCode = '', button = ''] = item.split(':');
      const owner = menus.get(menuCode);
      if (!owner || !(Array.isArray(owner.menuButton) && owner.menuButton.includes(button))) {
        throw new EntityInputError([
          { field: '/buttons', message: l10n.t('errors.refMissing', { entity: 'menuButton', key: item }) },
        ]);
      }
      grants.push({ menuId: owner.id, button });
    }
    return ok(
      await app.ctx.db.transaction().execute(async (trx) => {
        const found = await sql<{
          id: number;
        }>`select id from ${table(role)} where role_code = ${body.roleCode} and tenant_code = ${actor.tenantCode}`.execute(
          trx,
        );
        const roleId = found.rows[0]?.id;
        if (roleId === undefined)
          throw new EntityInputError([
            {
              field: '/roleCode',
              message: l10n.t('errors.refMissing', { entity: role.name, key: body.roleCode }),
            },
          ]);
        await sql`delete from sys_role_button where role_id = ${roleId}`.execute(trx);
        if (grants.length > 0) {
          await sql`insert into sys_role_button (tenant_code, role_id, menu_id, button)
            values ${sql.join(grants.map((grant) => sql`(${actor.tenantCode}, ${roleId}, ${grant.menuId}, ${grant.button})`))}`.execute(
            trx,
          );
        }
        await writeAudit(trx, actor, [
          {
            entity: 'sys_role_button',
            recordKey: `role_id=${roleId}`,
            action: 'update',
            before: null,
            after: { buttons: body.buttons },
          },
        ]);
        return { linked: grants.length };
      }),
    );
  });

  // Data fields: per menu, one row per role code listing the fields hidden from that role.
  app.get(`/api/${menu.api}/queryDataFieldByMenuCode`, async (request) => {
    const code = textParam(request, 'menuCode');
    const rows =
      await sql<Row>`select id, role_code as "roleCode", menu_code as "menuCode", data_fields as "dataFields"
      from sys_data_permission where menu_code = ${code} and tenant_code = ${actorOf(request).tenantCode} order by role_code`.execute(
        app.ctx.db,
      );
    return ok(rows.rows);
  });
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
    const body = bodyOf<{ menuCode: string; rows: { roleCode: string; dataFields: string[] }[] }>(
      request,
      validateDataFields,
    );
    const actor = actorOf(request);
    const l10n = localizerFor(request);
    const seen = new Set<string>();
    body.rows.forEach((row, index) => {
      if (seen.has(row.roleCode)) {
        throw new EntityInputError([
          {
            field: `/rows/${index}/roleCode`,
            message: l10n.t('errors.uniqueClash', { value: row.roleCode }),
          },
        ]);
      }
      seen.add(row.roleCode);
    });
    return ok(
      await app.ctx.db.transaction().execute(async (trx) => {
        await sql`delete from sys_data_permission where menu_code = ${body.menuCode} and tenant_code = ${actor.tenantCode}`.execute(
          trx,
        );
        if (body.rows.length > 0) {
          await sql`insert into sys_data_permission (tenant_code, role_code, menu_code, data_fields) values ${sql.join(
            body.rows.map(
              (row) =>
                sql`(${actor.tenantCode}, ${row.roleCode}, ${body.menuCode}, ${JSON.stringify(row.dataFields)}::jsonb)`,
            ),
          )}`.execute(trx);
        }
        await writeAudit(trx, actor, [
          {
            entity: 'sys_data_permission',
            recordKey: body.menuCode,
            action: 'update',
            before: null,
            after: { rows: body.rows },
          },
        ]);
        return { saved: body.rows.length };
      }),
    );
  });
  app.post(`/api/${menu.api}/deleteDataField`, async (request) => {
    const id = idParam(request, 'id');
    const actor = actorOf(request);
    const result =
      await sql`delete from sys_data_permission where id = ${id} and tenant_code = ${actor.tenantCode}`.execute(
        app.ctx.db,
      );
    return ok({ deleted: Number(result.numAffectedRows ?? 0) });
  });
}
