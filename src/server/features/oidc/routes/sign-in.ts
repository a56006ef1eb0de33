import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { cookieValue, ok, requireAuth } from '../../../lib/http.js';
import { localizerFor, translatorFor } from '../../../lib/i18n.js';
import { answer, id, object, oneOf, PUBLIC_SECURITY, text, typed } from '../../../lib/route-schema.js';
import { BUDGETS } from '../../../lib/budgets.js';
import { liveRateLimit, registerRateLimit, TOKEN_ANSWER } from '../../sessions/index.js';

import { endSessionUrl, finishFlow, redeemTicket, startFlow } from '../services/flow.js';
import { ownLinks, unlink } from '../services/links.js';
import { listProviders } from '../services/providers.js';
import { GO_TO, LINK, PROVIDER_BUTTON } from './schemas.js';

const tags = ['oidc'];
const PUBLIC = { isPublic: true };
const SELF = { isSelfService: true };
/** The cookie binding a flow to the browser that started it (sent to /api/oidc/* only). */
const BROWSER_COOKIE = 'ecobid_oidc';
const CALLBACK_PATH = '/api/oidc/callback';

/** This site's address as the browser sees it: PUBLIC_URL, else the request's own. */
function siteOf(request: FastifyRequest): string {
  return request.server.ctx.config.publicUrl ?? `${request.protocol}://${request.host}`;
}

function setBrowserCookie(request: FastifyRequest, reply: FastifyReply, value: string): void {
  const secure = siteOf(request).startsWith('https:') ? '; Secure' : '';
  void reply.header(
    'set-cookie',
    `${BROWSER_COOKIE}=${value}; Path=/api/oidc; HttpOnly; SameSite=Lax; Max-Age=${BUDGETS.oidc.flowMinutes * 60}${secure}`,
  );
}

const browserOf = (request: FastifyRequest): string | undefined =>
  cookieValue(request.headers.cookie, BROWSER_COOKIE);

/**
 * OpenID Connect sign-in: the tenant's providers for the sign-in pages, the start of a flow (the
 * provider's address), the provider's answer (a redirect to the sign-in page with a one-time
 * ticket) and the ticket's redemption (the session's tokens); and, for the signed-in user, the
 * links of 个人中心 and the provider's end-session address.
 */
export async function signInRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  await registerRateLimit(app);
  const api = typed(app);
  // the start and the answer make the server call the provider: limited like the token endpoint
  const limit = liveRateLimit(app, 'token');

  api.get(
    '/api/oidc/providers',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: "The tenant's OpenID Connect providers, for the sign-in pages",
        security: PUBLIC_SECURITY,
        querystring: object({ tenantCode: text(64) }),
        response: answer({ type: 'array', items: PROVIDER_BUTTON }),
      },
    },
    async (request) => {
      const tenantCode = request.query.tenantCode?.trim() || ctx.config.defaultTenant;
      const providers = await listProviders(ctx.db, tenantCode, { isEnabledOnly: true });
      return ok(providers.map((provider) => ({ id: Number(provider.id), name: provider.name })));
    },
  );

  api.post(
    '/api/oidc/start',
    {
      config: { ...PUBLIC, rateLimit: limit },
      schema: {
        tags,
        summary: 'Starts a sign-in at a provider: the address to go to (state, nonce and PKCE kept here)',
        security: PUBLIC_SECURITY,
        body: object(
          {
            tenantCode: text(64),
            providerId: id('the provider'),
            app: oneOf(['admin', 'portal'] as const),
            redirect: text(500, { description: 'the page to open after signing in (a path of this site)' }),
          },
          ['providerId', 'app'],
          { additionalProperties: false },
        ),
        response: answer(GO_TO),
      },
    },
    async (request, reply) => {
      const { body } = request;
      const started = await startFlow({
        ctx,
        tenantCode: body.tenantCode?.trim() || ctx.config.defaultTenant,
        providerId: body.providerId,
        app: body.app,
        returnTo: body.redirect,
        linkUserId: undefined,
        redirectUri: `${siteOf(request)}${CALLBACK_PATH}`,
      });
      setBrowserCookie(request, reply, started.browser);
      return ok({ url: started.url });
    },
  );

  api.get(
    CALLBACK_PATH,
    {
      config: { ...PUBLIC, rateLimit: limit },
      schema: {
        tags,
        summary:
          "The provider's answer: a redirect to the sign-in page with a one-time ticket (or the error's code); 400 for an unknown state",
        security: PUBLIC_SECURITY,
        querystring: object({ state: text(512), code: text(4096), error: text(256) }),
        produces: 'text/html',
        response: {},
      },
    },
    async (request, reply) => {
      const currentUrl = new URL(request.url, siteOf(request));
      if (!request.query.state)
        throw new AppError('oidcStateInvalid', {}, [
          { field: '/state', message: translatorFor(request)('validation.required') },
        ]);
      try {
        const page = await finishFlow({ ctx, currentUrl, browser: browserOf(request) });
        return reply.redirect(page, 302);
      } catch (error) {
        if (error instanceof AppError && error.code === 'oidcStateInvalid')
          throw new AppError('oidcStateInvalid', {}, [
            { field: '/state', message: translatorFor(request)('errors.oidc.stateInvalid') },
          ]);
        throw error;
      }
    },
  );

  api.post(
    '/api/oidc/ticket',
    {
      config: { ...PUBLIC, rateLimit: limit },
      schema: {
        tags,
        summary:
          "Redeems the callback's one-time ticket, in the browser that signed in: the session's tokens",
        security: PUBLIC_SECURITY,
        body: object({ ticket: text(128, { minLength: 1 }) }, ['ticket'], { additionalProperties: false }),
        response: { 200: TOKEN_ANSWER },
      },
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      return redeemTicket({
        ctx,
        ticket: request.body.ticket,
        browser: browserOf(request),
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        t: translatorFor(request),
      });
    },
  );

  api.get(
    '/api/oidc/links',
    {
      config: SELF,
      schema: {
        tags,
        summary: "The tenant's providers, each linked to the signed-in user or not",
        response: answer({ type: 'array', items: LINK }),
      },
    },
    async (request) => ok(await ownLinks(ctx, requireAuth(request))),
  );

  api.post(
    '/api/oidc/link',
    {
      config: { ...SELF, rateLimit: limit },
      schema: {
        tags,
        summary: 'Starts linking the signed-in user to a provider of the tenant: the address to go to',
        body: object(
          { providerId: id('the provider'), app: oneOf(['admin', 'portal'] as const) },
          ['providerId', 'app'],
          { additionalProperties: false },
        ),
        response: answer(GO_TO),
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const started = await startFlow({
        ctx,
        tenantCode: auth.tenantCode,
        providerId: request.body.providerId,
        app: request.body.app,
        returnTo: undefined,
        linkUserId: auth.userId,
        redirectUri: `${siteOf(request)}${CALLBACK_PATH}`,
      });
      setBrowserCookie(request, reply, started.browser);
      return ok({ url: started.url });
    },
  );

  api.post(
    '/api/oidc/unlink',
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Unlinks the signed-in user from a provider of the tenant',
        body: object({ providerId: id('the provider') }, ['providerId'], { additionalProperties: false }),
        response: answer(object({ unlinked: { type: 'boolean' } }, ['unlinked'])),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const unlinked = await unlink(ctx, auth, request.body.providerId);
      if (!unlinked)
        throw new AppError('notFound', {}, [
          { field: '/providerId', message: localizerFor(request).t('errors.notFound') },
        ]);
      return ok({ unlinked });
    },
  );

  api.get(
    '/api/oidc/logoutUrl',
    {
      config: SELF,
      schema: {
        tags,
        summary:
          'Where to end the session at its provider too (its end-session address), for a session opened through one; else null',
        querystring: object({ app: oneOf(['admin', 'portal'] as const) }),
        response: answer(object({ url: { type: ['string', 'null'] } }, ['url'])),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return ok({
        url: await endSessionUrl({
          ctx,
          sessionId: auth.sessionId,
          postLogoutRedirectUri: `${siteOf(request)}/`,
        }),
      });
    },
  );
}
