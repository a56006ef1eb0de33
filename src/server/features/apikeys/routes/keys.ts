import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import {
  answer,
  arrayOf,
  id,
  integer,
  object,
  separatedIds,
  text,
  typed,
} from '../../../lib/route-schema.js';
import { assertAllFound } from '../../rbac/index.js';
import { isKeyRequest } from '../key-hook.js';
import { createKey, keyUses, listKeys, revokeKeys, tenantKeyIds, userRoles } from '../services/keys.js';

const tags = ['sysapikey'];
const BASE = '/api/admin/sysapikey';

const dateTime = (description: string) => ({ type: 'string', format: 'date-time', description });
const nullableDateTime = (description: string) => ({
  type: ['string', 'null'],
  format: 'date-time',
  description,
});
const strings = { type: 'array', items: { type: 'string' } };

/** A key as the list shows it: never the key nor its hash. */
const API_KEY = object(
  {
    id: { type: 'integer' },
    name: { type: 'string' },
    prefix: { type: 'string', description: 'the 8 hex digits after ek_, to tell keys apart' },
    userId: { type: 'integer' },
    username: { type: 'string' },
    roles: strings,
    allowList: strings,
    ratePerMinute: { type: 'integer' },
    expiresAt: dateTime('when the key stops working'),
    revokedAt: nullableDateTime('when the key was revoked'),
    lastUsedAt: nullableDateTime('the last call made with the key'),
    lastUsedIp: { type: ['string', 'null'] },
    createdBy: { type: 'string' },
    createdAt: dateTime('when the key was made'),
    status: { type: 'string', enum: ['active', 'expired', 'revoked'] },
  },
  [
    'id',
    'name',
    'prefix',
    'userId',
    'username',
    'roles',
    'allowList',
    'ratePerMinute',
    'expiresAt',
    'revokedAt',
    'lastUsedAt',
    'lastUsedIp',
    'createdBy',
    'createdAt',
    'status',
  ],
);

const page = (item: object) =>
  object(
    {
      records: { type: 'array', items: item },
      total: { type: 'integer' },
      currentPage: { type: 'integer' },
      pageSize: { type: 'integer' },
    },
    ['records', 'total', 'currentPage', 'pageSize'],
  );

const PAGING = { currentPage: integer(1, 1_000_000), pageSize: integer(1, 500) };

/**
 * API keys of the caller's tenant (permission: the URL grants, as every admin route): list, add
 * (answers the key once), revoke, and each key's use log. Only a session manages keys: a call
 * made with a key is refused here (key-hook.ts refuses it first; this says so again).
 */
export async function apiKeyRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  const sessionOnly = (request: Parameters<typeof requireAuth>[0]) => {
    const auth = requireAuth(request);
    if (isKeyRequest(request)) throw new AppError('apiKeySessionOnly');
    return auth;
  };

  api.get(
    `${BASE}/query`,
    {
      schema: {
        tags,
        summary: "The tenant's API keys, newest first",
        querystring: object(PAGING),
        response: answer(page(API_KEY)),
      },
    },
    async (request) => {
      const auth = sessionOnly(request);
      const { currentPage = 1, pageSize = 20 } = request.query;
      return ok(await listKeys({ ctx, tenantCode: auth.tenantCode, currentPage, pageSize }));
    },
  );

  api.get(
    `${BASE}/queryUserRoles`,
    {
      schema: {
        tags,
        summary: 'The roles a user of the tenant holds (a key may act in some of them)',
        querystring: object({ userId: id('the user') }, ['userId']),
        response: answer({
          type: 'array',
          items: object({ code: { type: 'string' }, name: { type: 'string' } }, ['code', 'name']),
        }),
      },
    },
    async (request) => {
      const auth = sessionOnly(request);
      const roles = await userRoles(ctx, auth.tenantCode, request.query.userId);
      if (!roles) throw new AppError('notFound');
      return ok(roles);
    },
  );

  api.post(
    `${BASE}/add`,
    {
      schema: {
        tags,
        summary: 'Makes a key for a user of the tenant; the answer holds the key, shown this once',
        body: object(
          {
            name: text(64, { minLength: 1 }),
            userId: id('the user the key acts for (a person or a service account)'),
            roles: arrayOf(text(64, { minLength: 1 }), { minItems: 1, maxItems: 50 }),
            expiresAt: text(40, { format: 'date-time' }),
            allowList: arrayOf(text(64), { maxItems: 50 }),
            ratePerMinute: integer(1, 100_000),
          },
          ['name', 'userId', 'roles', 'expiresAt'],
          { additionalProperties: false },
        ),
        response: answer(
          object({ key: { type: 'string', description: 'shown once' }, record: API_KEY }, ['key', 'record']),
        ),
      },
    },
    async (request) => {
      const auth = sessionOnly(request);
      return ok(await createKey({ ctx, auth, input: request.body, l10n: localizerFor(request) }));
    },
  );

  api.post(
    `${BASE}/revoke`,
    {
      schema: {
        tags,
        summary: 'Revokes keys of the tenant (id repeatable); refused at once by every server',
        querystring: object({ id: separatedIds(100, 'key ids', 1) }, ['id']),
        response: answer(object({ revoked: { type: 'integer' } }, ['revoked'])),
      },
    },
    async (request) => {
      const auth = sessionOnly(request);
      const ids = request.query.id;
      const l10n = localizerFor(request);
      // Another tenant's key is one this tenant does not have: 404, nothing is revoked.
      assertAllFound({
        ids,
        found: await tenantKeyIds(ctx, auth.tenantCode, ids),
        subject: l10n.t('menus.sysapikey'),
      });
      return ok({ revoked: await revokeKeys({ ctx, auth, ids }) });
    },
  );

  api.get(
    `${BASE}/queryUses`,
    {
      schema: {
        tags,
        summary: 'The calls made with a key of the tenant, newest first',
        querystring: object({ id: id('the key'), ...PAGING }, ['id']),
        response: answer(
          page(
            object(
              {
                id: { type: 'integer' },
                method: { type: 'string' },
                path: { type: 'string' },
                status: { type: 'integer' },
                ip: { type: ['string', 'null'] },
                at: dateTime('when the call came'),
              },
              ['id', 'method', 'path', 'status', 'ip', 'at'],
            ),
          ),
        ),
      },
    },
    async (request) => {
      const auth = sessionOnly(request);
      const { id: keyId, currentPage = 1, pageSize = 20 } = request.query;
      assertAllFound({
        ids: [keyId],
        found: await tenantKeyIds(ctx, auth.tenantCode, [keyId]),
        subject: localizerFor(request).t('menus.sysapikey'),
      });
      return ok(await keyUses({ ctx, keyId, currentPage, pageSize }));
    },
  );
}
