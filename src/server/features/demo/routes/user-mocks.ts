import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { actorOf, ok } from '../../../lib/http.js';
import { PUBLIC_SECURITY, answer, arrayOf, integer, object, text, typed } from '../../../lib/route-schema.js';
import { table } from '../../../lib/sql/toolkit.js';

/**
 * The template's development-only user mocks (docs/product.md §7 "Mock search user, transaction
 * list, login, info, logout"; §8 mock error codes 60204 and 50008), registered only when
 * config.isDevMocks (DEV_MOCKS, on unless NODE_ENV is production). As the template's, the login
 * mock knows two demo accounts by name and hands out fixed mock tokens that are good for the info
 * mock only: nothing here signs anyone in to the real API. The search and the transaction list
 * are answered from the tenant's real users and purchases, for signed-in callers granted them.
 */

const TAGS = ['demo'];
const BASE = '/api/vue-element-admin';

/** The template's mock error codes (docs/product.md §8), answered with HTTP 200 like its mocks. */
export const MOCK_CODES = { badCredentials: 60204, noUserDetails: 50008 } as const;

/** The demo accounts of the template's login mock and the role each acts in (docs/product.md §6). */
const MOCK_ACCOUNTS: Readonly<Record<string, { token: string; role: string }>> = {
  admin: { token: 'admin-token', role: 'ROLE_ADMIN' },
  editor: { token: 'editor-token', role: 'ROLE_EDITOR' },
};

/** The template's envelope, with its error codes (not only 200) and an optional data. */
const MOCK_ANSWER = (data: Record<string, unknown>) => ({
  200: object({ code: { type: 'integer' }, message: { type: 'string' }, data }, ['code', 'message']),
});

const MOCK_AVATAR = '/favicon.svg';

export async function demoUserMockRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  const role = ctx.registry.require('sysrole');
  const user = ctx.registry.require('sysuser');

  api.post(
    `${BASE}/user/login`,
    {
      config: { isPublic: true },
      schema: {
        tags: TAGS,
        summary: 'Template login mock (development only): a mock token for a demo account, else code 60204',
        security: PUBLIC_SECURITY,
        body: object({ username: text(64), password: text(64) }),
        response: MOCK_ANSWER(object({ token: { type: 'string' } }, ['token'])),
      },
    },
    async (request) => {
      const account = MOCK_ACCOUNTS[request.body?.username?.trim() ?? ''];
      if (!account)
        return { code: MOCK_CODES.badCredentials, message: 'Account and password are incorrect.' };
      return { code: 200, message: 'success', data: { token: account.token } };
    },
  );

  api.get(
    `${BASE}/user/info`,
    {
      config: { isPublic: true },
      schema: {
        tags: TAGS,
        summary:
          'Template user-info mock (development only): the demo account of a mock token, else code 50008',
        security: PUBLIC_SECURITY,
        querystring: object({ token: text(64) }),
        response: MOCK_ANSWER(
          object(
            {
              roles: { type: 'array', items: { type: 'string' } },
              introduction: { type: 'string' },
              avatar: { type: 'string' },
              name: { type: 'string' },
            },
            ['roles', 'introduction', 'avatar', 'name'],
          ),
        ),
      },
    },
    async (request) => {
      const token = request.query.token ?? '';
      const account = Object.values(MOCK_ACCOUNTS).find((item) => item.token === token);
      if (!account)
        return { code: MOCK_CODES.noUserDetails, message: 'Login failed, unable to get user details.' };
      // the demo role's own name and description, as seeded (demo/seed.ts)
      const found = await sql<{ name: string; description: string | null }>`select role_name as name,
        role_description as description from ${table(role)}
        where role_code = ${account.role} and tenant_code = ${ctx.config.defaultTenant} limit 1`.execute(
        ctx.db,
      );
      const row = found.rows[0];
      return {
        code: 200,
        message: 'success',
        data: {
          roles: [account.role],
          introduction: row?.description ?? '',
          avatar: MOCK_AVATAR,
          name: row?.name ?? account.role,
        },
      };
    },
  );

  api.post(
    `${BASE}/user/logout`,
    {
      config: { isPublic: true },
      schema: {
        tags: TAGS,
        summary: 'Template logout mock (development only)',
        security: PUBLIC_SECURITY,
        response: MOCK_ANSWER({ type: 'string' }),
      },
    },
    async () => ({ code: 200, message: 'success', data: 'success' }),
  );

  api.get(
    `${BASE}/search/user`,
    {
      schema: {
        tags: TAGS,
        summary: 'Template user search mock (development only): user names of the tenant containing name',
        querystring: object({ name: text(64) }),
        response: answer(
          object({ items: arrayOf(object({ name: { type: 'string' } }, ['name'])) }, ['items']),
        ),
      },
    },
    async (request) => {
      const { tenantCode } = actorOf(request);
      const name = request.query.name?.trim() ?? '';
      const pattern = `%${name.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
      const found = await sql<{ name: string }>`select username as name from ${table(user)}
        where tenant_code = ${tenantCode} and username ilike ${pattern} order by username limit 20`.execute(
        ctx.db,
      );
      return ok({ items: found.rows.map((row) => ({ name: row.name })) });
    },
  );

  api.get(
    `${BASE}/transaction/list`,
    {
      schema: {
        tags: TAGS,
        summary: "Template transaction list mock (development only): the tenant's latest users as orders",
        querystring: object({ limit: integer(1, 100) }),
        response: answer(
          object(
            {
              total: { type: 'integer' },
              items: arrayOf(
                object(
                  {
                    order_no: { type: 'string' },
                    timestamp: { type: 'number' },
                    username: { type: 'string' },
                    price: { type: 'number' },
                    status: { type: 'string', enum: ['success', 'pending'] },
                  },
                  ['order_no', 'timestamp', 'username', 'price', 'status'],
                ),
              ),
            },
            ['total', 'items'],
          ),
        ),
      },
    },
    async (request) => {
      const { tenantCode } = actorOf(request);
      const limit = request.query.limit ?? 20;
      // the template lists 20 orders: here the tenant's latest sign-ups stand for them
      const found = await sql<{ id: number; username: string; createdAt: Date | string }>`select id, username,
        created_at as "createdAt" from ${table(user)} where tenant_code = ${tenantCode}
        order by created_at desc, id desc limit ${limit}`.execute(ctx.db);
      const total = await sql<{ count: string }>`select count(*) as count from ${table(user)}
        where tenant_code = ${tenantCode}`.execute(ctx.db);
      return ok({
        total: Number(total.rows[0]?.count ?? 0),
        items: found.rows.map((row) => ({
          order_no: `ORD${String(row.id).padStart(8, '0')}`,
          timestamp: new Date(row.createdAt).getTime(),
          username: row.username,
          price: ((Number(row.id) * 7919) % 1_500_000) / 100,
          status: Number(row.id) % 3 === 0 ? ('pending' as const) : ('success' as const),
        })),
      });
    },
  );
}
