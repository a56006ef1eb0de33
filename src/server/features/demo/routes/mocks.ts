import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Row } from '../../../lib/db/database.js';
import { actorOf, ok, requireAuth } from '../../../lib/http.js';
import {
  answer,
  anyJson,
  arrayOf,
  dictionary,
  id,
  integer,
  object,
  oneOf,
  text,
  typed,
} from '../../../lib/route-schema.js';
import { table } from '../../../lib/sql/toolkit.js';
import { addRecord, crudRequestOf, getRecord, queryRecords, updateRecord } from '../../crud/index.js';
import { isPlatformAdmin, isTenantsMenu, roleLinks } from '../../rbac/index.js';
import { deleteTemplateRole, updateTemplateRole } from '../services/template-roles.js';

/**
 * The template's development calls (docs/product.md §7: article/*, vue-element-admin/*), answered
 * from the real article entity, roles and menus instead of fixtures. The shapes are the
 * template's: `data.total` and `data.items`, snake_case article fields, `data: 'success'`.
 */

const TAGS = ['demo'];

/** An article as the template's mock shaped it. */
function templateArticle(row: Row): Row {
  const displayTime = typeof row.displayTime === 'string' ? row.displayTime : null;
  return {
    id: row.id,
    timestamp: displayTime ? Date.parse(displayTime) : null,
    author: row.author,
    reviewer: row.reviewer ?? null,
    title: row.title,
    content_short: row.contentShort ?? null,
    content: row.content ?? null,
    forecast: row.forecast ?? null,
    importance: row.importance,
    type: row.type,
    status: row.status,
    display_time: displayTime,
    comment_disabled: row.commentDisabled ?? false,
    pageviews: row.pageviews ?? 0,
    image_uri: row.imageUri ?? null,
    platforms: row.platforms ?? [],
  };
}

/** A template article body (snake_case, as article/create and update send it) as the entity's fields. */
function entityValues(body: Record<string, unknown>): Record<string, unknown> {
  const names: Record<string, string> = {
    id: 'id',
    version: 'version',
    title: 'title',
    author: 'author',
    reviewer: 'reviewer',
    importance: 'importance',
    type: 'type',
    status: 'status',
    display_time: 'displayTime',
    forecast: 'forecast',
    pageviews: 'pageviews',
    comment_disabled: 'commentDisabled',
    platforms: 'platforms',
    image_uri: 'imageUri',
    content_short: 'contentShort',
    content: 'content',
  };
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    // The template's timestamp duplicates display_time; unknown names go on to be refused by name.
    if (name === 'timestamp') continue;
    values[names[name] ?? name] = value;
  }
  return values;
}

const NULLABLE_STRING = { type: ['string', 'null'] };

/** An article as templateArticle() shapes it. */
const ARTICLE = object(
  {
    id: { type: 'integer' },
    timestamp: { type: ['number', 'null'], description: 'display_time in milliseconds since 1970' },
    author: NULLABLE_STRING,
    reviewer: NULLABLE_STRING,
    title: NULLABLE_STRING,
    content_short: NULLABLE_STRING,
    content: NULLABLE_STRING,
    forecast: { type: ['number', 'null'] },
    importance: { type: ['integer', 'null'], description: '1 to 3' },
    type: NULLABLE_STRING,
    status: NULLABLE_STRING,
    display_time: { ...NULLABLE_STRING, format: 'date-time' },
    comment_disabled: { type: 'boolean' },
    pageviews: { type: 'integer' },
    image_uri: NULLABLE_STRING,
    platforms: { type: 'array', items: { type: 'string' } },
  },
  [
    'id',
    'timestamp',
    'author',
    'reviewer',
    'title',
    'content_short',
    'content',
    'forecast',
    'importance',
    'type',
    'status',
    'display_time',
    'comment_disabled',
    'pageviews',
    'image_uri',
    'platforms',
  ],
);

const ARTICLE_BODY = dictionary(anyJson(), {
  description:
    'a template article (snake_case fields); the article entity checks it and names any unknown field',
});

/** A template route made of a menu, as routeTree() shapes it. */
const MENU_ROUTE = object(
  {
    path: { type: 'string' },
    component: { type: 'string', description: "the menu's component, or layout" },
    name: { type: 'string', description: 'the menu code' },
    meta: object({ title: { type: 'string' }, icon: NULLABLE_STRING }, ['title', 'icon']),
    children: {
      type: 'array',
      items: { type: 'object', additionalProperties: true },
      description: 'the routes of the child menus, each of this shape; absent without any',
    },
  },
  ['path', 'component', 'name', 'meta'],
);

/** A template route as a client sends it back: only the names (menu codes) are read, children included. */
const MENU_ROUTE_INPUT = dictionary(anyJson(), { description: '{name, children, …}: name is a menu code' });

const ROLE_STATUS = answer(object({ status: oneOf(['success']) }, ['status']));

export async function demoMockRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const crud = crudRequestOf(ctx);
  const api = typed(app);
  const article = ctx.registry.get('article');
  if (article) {
    api.get(
      '/api/article/list',
      {
        schema: {
          tags: TAGS,
          summary:
            'Template article list (docs/product.md §7): importance, type, title, page, limit, sort (+id | -id)',
          querystring: object({
            importance: integer(1, 3),
            type: text(8),
            title: text(200),
            page: integer(1, 100_000),
            limit: integer(1, 1000),
            sort: oneOf(['+id', '-id', 'id'], { maxLength: 8 }),
          }),
          response: answer(
            object({ total: { type: 'integer' }, items: arrayOf(ARTICLE) }, ['total', 'items']),
          ),
        },
      },
      async (request) => {
        const { query } = request;
        const params: Record<string, string> = {
          currentPage: String(query.page ?? 1),
          pageSize: String(query.limit ?? 20),
          sort: query.sort === '-id' ? '-id' : 'id',
        };
        if (query.importance !== undefined) params.importance = String(query.importance);
        if (query.type) params.type = query.type;
        if (query.title) params.title = query.title;
        const page = await queryRecords(await crud(request, article, 'read'), params);
        return ok({ total: page.total, items: page.records.map(templateArticle) });
      },
    );
    api.get(
      '/api/article/detail',
      {
        schema: {
          tags: TAGS,
          summary: 'Template article detail (docs/product.md §7)',
          querystring: object({ id: id() }, ['id']),
          response: answer(ARTICLE),
        },
      },
      async (request) =>
        ok(templateArticle(await getRecord(await crud(request, article, 'read'), request.query.id))),
    );
    api.get(
      '/api/article/pv',
      {
        schema: {
          tags: TAGS,
          summary: 'Pageviews by platform of the articles (docs/product.md §7: pvData of key and pv)',
          querystring: object({ pv: text(32) }),
          response: answer(
            object(
              {
                pvData: arrayOf(
                  object({ key: { type: 'string', description: 'the platform' }, pv: { type: 'integer' } }, [
                    'key',
                    'pv',
                  ]),
                ),
              },
              ['pvData'],
            ),
          ),
        },
      },
      async (request) => {
        const actor = actorOf(request);
        const rows = await sql<{
          key: string;
          pv: number;
        }>`select p.platform as key, sum(a.pageviews)::int as pv
          from ${table(article)} a cross join lateral jsonb_array_elements_text(a.platforms) as p(platform)
          where a.tenant_code = ${actor.tenantCode}
          group by p.platform order by p.platform`.execute(ctx.db);
        return ok({ pvData: rows.rows.map((row) => ({ key: row.key, pv: Number(row.pv) })) });
      },
    );
    api.post(
      '/api/article/create',
      {
        schema: {
          tags: TAGS,
          summary: 'Creates a template article (docs/product.md §7); data "success"',
          body: ARTICLE_BODY,
          response: answer(oneOf(['success'])),
        },
      },
      async (request) => {
        await addRecord(await crud(request, article, 'write'), entityValues(request.body));
        return ok('success');
      },
    );
    api.post(
      '/api/article/update',
      {
        schema: {
          tags: TAGS,
          summary: 'Updates a template article (docs/product.md §7; id and version required); data "success"',
          body: ARTICLE_BODY,
          response: answer(oneOf(['success'])),
        },
      },
      async (request) => {
        await updateRecord(await crud(request, article, 'write'), entityValues(request.body));
        return ok('success');
      },
    );
  }

  const menu = ctx.registry.require('sysmenu');
  const role = ctx.registry.require('sysrole');
  interface MenuRow {
    id: number;
    code: string;
    path: string;
    component: string | null;
    icon: string | null;
    name: string;
    parent: number;
    meta: unknown;
  }
  // Menus are shared by every tenant, but those of one tenant's own and, for a tenant's
  // administrator, the platform's pages (as the sidebar shows them); grants are per tenant.
  const readMenus = async (request: FastifyRequest): Promise<MenuRow[]> => {
    const auth = requireAuth(request);
    const isPlatform = isPlatformAdmin(ctx, auth);
    const rows =
      await sql<MenuRow>`select id, menu_code as code, menu_path as path, menu_component as component,
        menu_icon as icon, menu_name as name, menu_parent as parent, menu_meta as meta from ${table(menu)}
        where menu_status = '1' order by menu_sequence, id`.execute(ctx.db);
    return rows.rows.filter((row) =>
      isTenantsMenu({ menuMeta: row.meta, tenantCode: auth.tenantCode, isPlatform }),
    );
  };
  const routeTree = (menus: MenuRow[], include?: ReadonlySet<number>): Row[] => {
    const build = (parent: number): Row[] =>
      menus
        .filter((item) => Number(item.parent) === parent && (!include || include.has(Number(item.id))))
        .map((item) => {
          const children = build(Number(item.id));
          return {
            path: item.path,
            component: item.component ?? 'layout',
            name: item.code,
            meta: { title: item.name, icon: item.icon },
            ...(children.length > 0 ? { children } : {}),
          };
        });
    return build(0);
  };

  api.get(
    '/api/vue-element-admin/routes',
    {
      schema: {
        tags: TAGS,
        summary: 'The menu tree as template routes (docs/product.md §7), from the real menus',
        response: answer(arrayOf(MENU_ROUTE)),
      },
    },
    async (request) => ok(routeTree(await readMenus(request))),
  );
  api.get(
    '/api/vue-element-admin/roles',
    {
      schema: {
        tags: TAGS,
        summary:
          'The roles with the routes each sees (docs/product.md §7), from the real roles and menu grants',
        response: answer(
          arrayOf(
            object(
              {
                key: { type: 'string', description: 'the role code' },
                name: { type: 'string' },
                description: NULLABLE_STRING,
                routes: arrayOf(MENU_ROUTE),
              },
              ['key', 'name', 'description', 'routes'],
            ),
          ),
        ),
      },
    },
    async (request) => {
      const { tenantCode } = actorOf(request);
      const menus = await readMenus(request);
      const roles = await sql<{
        id: number;
        key: string;
        name: string;
        description: string | null;
      }>`select id,
        role_code as key, role_name as name, role_description as description from ${table(role)}
        where tenant_code = ${tenantCode} order by id`.execute(ctx.db);
      const grants = await sql<{
        role_id: number;
        menu_id: number;
      }>`select role_id, menu_id from sys_role_menu
        where tenant_code = ${tenantCode}`.execute(ctx.db);
      return ok(
        roles.rows.map((item) => {
          // The administrator sees every menu without grants.
          const granted =
            item.key === 'ROLE_ADMIN'
              ? undefined
              : new Set(
                  grants.rows
                    .filter((row) => Number(row.role_id) === Number(item.id))
                    .map((row) => Number(row.menu_id)),
                );
          return {
            key: item.key,
            name: item.name,
            description: item.description,
            routes: routeTree(menus, granted),
          };
        }),
      );
    },
  );
  api.post(
    '/api/vue-element-admin/role',
    {
      schema: {
        tags: TAGS,
        summary: 'Creates a role (docs/product.md §7): {key, name, description}; data {key}',
        body: object(
          {
            key: text(64),
            name: text(64),
            description: text(255),
            routes: arrayOf(anyJson(), { maxItems: 0, description: 'grants are given by an update' }),
          },
          ['key', 'name'],
        ),
        response: answer(object({ key: { type: 'string' } }, ['key'])),
      },
    },
    async (request) => {
      const { body } = request;
      const created = await addRecord(await crud(request, role, 'write'), {
        roleCode: body.key,
        roleName: body.name,
        ...(body.description ? { roleDescription: body.description } : {}),
      });
      return ok({ key: String(created.roleCode) });
    },
  );
  const ROLE_KEY = object({ key: text(64, { minLength: 1 }) }, ['key']);
  api.put(
    '/api/vue-element-admin/role/:key',
    {
      schema: {
        tags: TAGS,
        summary:
          'Updates a role (docs/product.md §7): name, description; routes (menu codes as route names) become its menu grants; data {status}',
        params: ROLE_KEY,
        body: object({
          key: text(64),
          name: text(64, { minLength: 1 }),
          description: text(255),
          routes: arrayOf(MENU_ROUTE_INPUT, { maxItems: 10_000 }),
        }),
        response: ROLE_STATUS,
      },
    },
    async (request) => {
      await updateTemplateRole({
        request: await crud(request, role, 'write'),
        menuLink: roleLinks(ctx).menu,
        key: request.params.key,
        change: request.body,
      });
      return ok({ status: 'success' });
    },
  );
  api.delete(
    '/api/vue-element-admin/role/:key',
    {
      schema: {
        tags: TAGS,
        summary: 'Deletes a role (docs/product.md §7); 409 while a user holds it; data {status}',
        params: ROLE_KEY,
        response: ROLE_STATUS,
      },
    },
    async (request) => {
      await deleteTemplateRole(await crud(request, role, 'write'), request.params.key);
      return ok({ status: 'success' });
    },
  );
}
