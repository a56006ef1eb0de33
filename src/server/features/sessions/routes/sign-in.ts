import type { FastifyInstance, FastifyRequest, onSendHookHandler } from 'fastify';
import { ok, requireAuth } from '../../../lib/http.js';
import { translatorFor } from '../../../lib/i18n.js';
import { answer, object, text, typed } from '../../../lib/route-schema.js';
import { liveRateLimit, registerRateLimit } from '../services/guard.js';
import { revokeSession } from '../services/session.js';
import { grantToken } from '../services/tokens.js';
import { GRANT_ANSWER } from '../answers.js';
import { currentUser } from '../services/users.js';

const tags = ['auth'];
const SELF = { isSelfService: true };

/** Token parameters come in the query string or a form body, as OAuth2 clients send them. */
const TOKEN_PARAMS = object({
  grant_type: text(32, {
    enum: ['password', 'mobile', 'refresh_token'],
    description: 'password | mobile | refresh_token',
  }),
  username: text(128, { examples: ['admin'] }),
  password: text(256),
  mobile: text(32),
  smsCaptcha: text(16),
  refresh_token: text(256),
  scope: text(64, { examples: ['server'] }),
  client_id: text(64, { examples: ['browser'] }),
  tenantCode: text(64, { examples: ['default'] }),
  type: text(32),
});

/** An answer without data (data: null). */
const NO_DATA = { type: 'null', description: 'nothing: the call succeeded' };

const nullableText = { type: ['string', 'null'] };

/** The signed-in user (engine CurrentUser). */
const CURRENT_USER = object(
  {
    id: { type: 'integer' },
    username: { type: 'string' },
    nickname: nullableText,
    name: { type: 'string', description: 'organisation name (docs/product.md §6)' },
    zname: {
      type: 'string',
      description: 'display name: the organisation name for a buyer sub-account, else the user name',
    },
    avatar: nullableText,
    mobile: nullableText,
    email: nullableText,
    roles: { type: 'array', items: { type: 'string' }, description: 'the roles of the session' },
    userType: { type: 'integer', description: 'kind of account: 1 buyer, 2 supplier, 0 any other' },
    orgName: { type: 'string' },
    tenantCode: { type: 'string' },
    currentRole: {
      type: ['string', 'null'],
      description: 'the role acted in now: the first the RoleCode header chose, else the first held',
    },
  },
  [
    'id',
    'username',
    'nickname',
    'name',
    'zname',
    'avatar',
    'mobile',
    'email',
    'roles',
    'userType',
    'orgName',
    'tenantCode',
    'currentRole',
  ],
);

function basicCredentials(request: FastifyRequest): { clientCode: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { clientCode: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

/** Sign-in (OAuth2-shaped token endpoint), sign-out and the current user. */
export async function authRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  await registerRateLimit(app);
  const api = typed(app);

  const tokenLimit = liveRateLimit(app, 'token');
  // RFC 6749 §5.1: no cache may keep a token answer, a refused one included.
  const noStore: onSendHookHandler = (_request, reply, payload, done) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    done(null, payload);
  };
  api.post(
    '/api/uaa/oauth/token',
    {
      config: { isPublic: true, rateLimit: tokenLimit },
      onSend: noStore,
      schema: {
        tags,
        summary:
          'Sign in: an access and a refresh token (OAuth2 password, mobile or refresh_token grant), or the challenge of a second step (two-factor)',
        security: [{ clientBasic: [] }],
        querystring: TOKEN_PARAMS,
        body: TOKEN_PARAMS,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        response: { 200: GRANT_ANSWER },
      },
    },
    async (request) =>
      grantToken({
        ctx,
        // The form body wins over the query string.
        params: { ...request.query, ...request.body },
        basic: basicCredentials(request),
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        t: translatorFor(request),
      }),
  );

  api.post(
    '/api/uaa/oauth/logout',
    {
      config: SELF,
      schema: { tags, summary: 'Sign out: revokes the bearer token', response: answer(NO_DATA) },
    },
    async (request) => {
      await revokeSession(ctx.db, requireAuth(request).sessionId);
      return ok(null);
    },
  );

  // The same current user for the back-office (getSysUser) and the portal (getBidUser).
  for (const path of ['/api/uaa/users/getSysUser', '/api/uaa/users/getBidUser']) {
    api.get(
      path,
      { config: SELF, schema: { tags, summary: 'The signed-in user', response: answer(CURRENT_USER) } },
      async (request) => ok(await currentUser({ ctx, auth: requireAuth(request) })),
    );
  }
}
