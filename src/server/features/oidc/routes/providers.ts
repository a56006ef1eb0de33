import type { FastifyInstance } from 'fastify';
import { ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import {
  answer,
  arrayOf,
  bool,
  id,
  integer,
  nullable,
  object,
  separatedIds,
  text,
  typed,
} from '../../../lib/route-schema.js';
import { assertAllFound } from '../../rbac/index.js';
import {
  addProvider,
  deleteProviders,
  listProviders,
  tenantProviderIds,
  updateProvider,
  viewOf,
} from '../services/providers.js';
import { PROVIDER } from './schemas.js';

const tags = ['sysoidc'];
const BASE = '/api/admin/sysoidc';

const claimName = text(64);
const FIELDS = {
  name: text(64, { minLength: 1 }),
  issuer: text(500, {
    minLength: 1,
    description: 'the issuer URL (its /.well-known/openid-configuration is read)',
  }),
  clientId: text(200, { minLength: 1 }),
  clientSecret: text(500, { description: 'write-only: absent keeps the stored one, empty removes it' }),
  scopes: text(200, { description: 'space-separated; must include openid' }),
  claims: object({ username: claimName, nickname: claimName, email: claimName, mobile: claimName }, [], {
    additionalProperties: false,
  }),
  newUserRoles: arrayOf(text(64, { minLength: 1 }), { maxItems: 50 }),
  newUserOrgId: nullable(integer(1)),
  createUsers: bool({ description: 'make a user for an unknown subject (else refuse it)' }),
  allowPrivateNetwork: bool({
    description:
      'the issuer may be on a loopback or private address, or plain http (platform administrator only)',
  }),
  enabled: bool(),
  sequence: integer(0, 9999),
};

/**
 * OpenID Connect providers of the caller's tenant (permission: the URL grants, as every admin
 * route): list, add, update, delete. The client secret is written, never answered.
 */
export async function providerRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);

  api.get(
    `${BASE}/query`,
    {
      schema: {
        tags,
        summary: "The tenant's OpenID Connect providers, in their order",
        response: answer({ type: 'array', items: PROVIDER }),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return ok((await listProviders(ctx.db, auth.tenantCode)).map(viewOf));
    },
  );

  api.post(
    `${BASE}/add`,
    {
      schema: {
        tags,
        summary: 'Adds an OpenID Connect provider to the tenant',
        body: object(FIELDS, ['name', 'issuer', 'clientId'], { additionalProperties: false }),
        response: answer(PROVIDER),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return ok(await addProvider({ ctx, auth, input: request.body, l10n: localizerFor(request) }));
    },
  );

  api.post(
    `${BASE}/update`,
    {
      schema: {
        tags,
        summary: 'Changes a provider of the tenant (a field left out stays as it is)',
        body: object({ id: id('the provider'), ...FIELDS }, ['id', 'name', 'issuer', 'clientId'], {
          additionalProperties: false,
        }),
        response: answer(PROVIDER),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const { id: providerId, ...input } = request.body;
      return ok(await updateProvider({ ctx, auth, id: providerId, input, l10n: localizerFor(request) }));
    },
  );

  api.post(
    `${BASE}/delete`,
    {
      schema: {
        tags,
        summary: 'Deletes providers of the tenant (id repeatable), with their links to users',
        querystring: object({ id: separatedIds(100, 'provider ids', 1) }, ['id']),
        response: answer(object({ deleted: { type: 'integer' } }, ['deleted'])),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const ids = request.query.id;
      const l10n = localizerFor(request);
      assertAllFound({
        ids,
        found: await tenantProviderIds(ctx.db, auth.tenantCode, ids),
        subject: l10n.t('menus.sysoidc'),
      });
      return ok({ deleted: await deleteProviders({ ctx, auth, ids }) });
    },
  );
}
