import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { EntityDef } from '../../../../engine/index.js';
import type { Row } from '../../../lib/db/database.js';
import { actorOf, ok, queryOf, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, id, integer, object, text, type RouteSchema } from '../../../lib/route-schema.js';
import { table } from '../../../lib/sql/toolkit.js';
import { addRecord, getRecord, queryRecords, updateRecord, type CrudRequest } from '../../crud/index.js';
import { recordPolicy, roleLinks, type RecordAccessMode } from '../../rbac/index.js';
import {
  deleteTemplateRole,
  updateTemplateRole,
  type TemplateRoleChange,
} from '../services/template-roles.js';

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

const ARTICLE = { type: 'object', additionalProperties: true };

const LIST_SCHEMA: RouteSchema = {
  tags: TAGS,
  summary:
    'Template article list (docs/product.md §7): importance, type, title, page, limit, sort (+id | -id)',
  querystring: object({
    importance: integer(1, 3),
    type: text(8),
    title: text(200),
    page: integer(1, 100_000),
    limit: integer(1, 1000),
    sort: text(8, { enum: ['+id', '-id', 'id'] }),
  }),
  response: answer(object({ total: { type: 'integer' }, items: { type: 'array', items: ARTICLE } })),
};

const ARTICLE_BODY = {
  type: 'object',
  additionalProperties: true,
  description: 'a template article (snake_case fields)',
};

const MENU_ROUTE = {
  type: 'object',
  additionalProperties: true,
  description: '{path, component, name, meta: {title, icon}, children}',
};

export async function demoMockRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const crud = async (
    request: FastifyRequest,
    entity: EntityDef,
    mode: RecordAccessMode,
  ): Promise<CrudRequest> => {
    const l10n = localizerFor(request);
    const auth = requireAuth(request);
    const policy = await recordPolicy({ ctx, auth, entity, mode, l10n });
    return {
      db: ctx.db,
      registry: ctx.registry,
      entity,
      actor: actorOf(request),
      l10n,
      policy,
      roles: auth.roles,
    };
  };
  const article = ctx.registry.get('article');
  if (article) {
    app.get('/api/article/list', { schema: LIST_SCHEMA }, async (request) => {
      const query = queryOf(request);
      const params: Record<string, string> = {
        currentPage: String(query.page ?? 1),
        pageSize: String(query.limit ?? 20),
        sort: query.sort === '-id' ? '-id' : 'id',
      };
      if (query.importance !== undefined) params.importance = String(query.importance);
      if (typeof query.type === 'string' && query.type !== '') params.type = query.type;
      if (typeof query.title === 'string' && query.title !== '') params.title = query.title;
      const page = await queryRecords(await crud(request, article, 'read'), params);
      return ok({ total: page.total, items: page.records.map(templateArticle) });
    });
    app.get(
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
        ok(templateArticle(await getRecord(await crud(request, article, 'read'), queryOf(request).id))),
    );
    app.get(
      '/api/article/pv',
      {
        schema: {
          tags: TAGS,
          summary: 'Pageviews by platform of the articles (docs/product.md §7: pvData of key and pv)',
          querystring: object({ pv: text(32) }),
          response: answer(
            object({
              pvData: { type: 'array', items: object({ key: { type: 'string' }, pv: { type: 'integer' } }) },
            }),
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
    app.post(
      '/api/article/create',
      {
        schema: {
          tags: TAGS,
          summary: 'Creates a template article (docs/product.md §7); data "success"',
          body: ARTICLE_BODY,
          response: answer({ type: 'string' }),
        },
      },
      async (request) => {
        await addRecord(
          await crud(request, article, 'write'),
          entityValues(request.body as Record<string, unknown>),
        );
        return ok('success');
      },
    );
    app.post(
      '/api/article/update',
      {
        schema: {
          tags: TAGS,
          summary: 'Updates a template article (docs/product.md §7; id and version required); data "success"',
          body: ARTICLE_BODY,
          response: answer({ type: 'string' }),
        },
      },
      async (request) => {
        await updateRecord(
          await crud(request, article, 'write'),
          entityValues(request.body as Record<string, unknown>),
        );
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
  }
  // Menus are shared by every tenant; grants are per tenant.
  const readMenus = async (): Promise<MenuRow[]> =>
    (
      await sql<MenuRow>`select id, menu_code as code, menu_path as path, menu_component as component,
        menu_icon as icon, menu_name as name, menu_parent as parent from ${table(menu)}
        where menu_status = '1' order by menu_sequence, id`.execute(ctx.db)
    ).rows;
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

  app.get(
    '/api/vue-element-admin/routes',
    {
      schema: {
        tags: TAGS,
        summary: 'The menu tree as template routes (docs/product.md §7), from the real menus',
        response: answer({ type: 'array', items: MENU_ROUTE }),
      },
    },
    async () => ok(routeTree(await readMenus())),
  );
  app.get(
    '/api/vue-element-admin/roles',
    {
      schema: {
        tags: TAGS,
        summary:
          'The roles with the routes each sees (docs/product.md §7), from the real roles and menu grants',
        response: answer({
          type: 'array',
          items: object({
            key: { type: 'string' },
            name: { type: 'string' },
            description: { type: ['string', 'null'] },
            routes: { type: 'array', items: MENU_ROUTE },
          }),
        }),
      },
    },
    async (request) => {
      const { tenantCode } = actorOf(request);
      const menus = await readMenus();
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
  app.post(
    '/api/vue-element-admin/role',
    {
      schema: {
        tags: TAGS,
        summary: 'Creates a role (docs/product.md §7): {key, name, description}; data {key}',
        body: object(
          { key: text(64), name: text(64), description: text(255), routes: { type: 'array', maxItems: 0 } },
          ['key', 'name'],
        ),
        response: answer(object({ key: { type: 'string' } })),
      },
    },
    async (request) => {
      const body = request.body as { key: string; name: string; description?: string };
      const created = await addRecord(await crud(request, role, 'write'), {
        roleCode: body.key,
        roleName: body.name,
        ...(body.description ? { roleDescription: body.description } : {}),
      });
      return ok({ key: String(created.roleCode) });
    },
  );
  const ROLE_KEY = object({ key: text(64, { minLength: 1 }) }, ['key']);
  app.put(
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
          routes: { type: 'array', maxItems: 10_000, items: MENU_ROUTE },
        }),
        response: answer(object({ status: { type: 'string' } })),
      },
    },
    async (request) => {
      const { key } = request.params as { key: string };
      await updateTemplateRole(
        await crud(request, role, 'write'),
        roleLinks(ctx).menu,
        key,
        (request.body ?? {}) as TemplateRoleChange,
      );
      return ok({ status: 'success' });
    },
  );
  app.delete(
    '/api/vue-element-admin/role/:key',
    {
      schema: {
        tags: TAGS,
        summary: 'Deletes a role (docs/product.md §7); 409 while a user holds it; data {status}',
        params: ROLE_KEY,
        response: answer(object({ status: { type: 'string' } })),
      },
    },
    async (request) => {
      const { key } = request.params as { key: string };
      await deleteTemplateRole(await crud(request, role, 'write'), key);
      return ok({ status: 'success' });
    },
  );
}
