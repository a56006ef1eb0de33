import type { FastifyInstance, FastifyRequest, onSendHookHandler } from 'fastify';
import { ok, queryOf, requireAuth } from '../../../lib/http.js';
import { translatorFor } from '../../../lib/i18n.js';
import { liveRateLimit, registerRateLimit } from '../services/guard.js';
import { revokeSession } from '../services/session.js';
import { grantToken } from '../services/tokens.js';
import { currentUser } from '../services/users.js';

/** Token parameters may come in the query string or a form body, as OAuth2 clients send them. */
function tokenParams(request: FastifyRequest): Record<string, string> {
  const merged: Record<string, string> = {};
  const add = (source: unknown): void => {
    if (typeof source !== 'object' || source === null) return;
    for (const [name, value] of Object.entries(source)) {
      const first = Array.isArray(value) ? value[0] : value;
      if (typeof first === 'string') merged[name] = first;
    }
  };
  add(queryOf(request));
  add(request.body);
  return merged;
}

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

  const tokenLimit = liveRateLimit(app, 'token');
  // RFC 6749 §5.1: no cache may keep a token answer, a refused one included.
  const noStore: onSendHookHandler = (_request, reply, payload, done) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    done(null, payload);
  };
  app.post(
    '/api/uaa/oauth/token',
    { config: { isPublic: true, rateLimit: tokenLimit }, onSend: noStore },
    async (request) =>
      grantToken({
        ctx,
        params: tokenParams(request),
        basic: basicCredentials(request),
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        t: translatorFor(request),
      }),
  );

  app.post('/api/uaa/oauth/logout', { config: { isSelfService: true } }, async (request) => {
    await revokeSession(ctx.db, requireAuth(request).sessionId);
    return ok(null);
  });

  // The same current user for the back-office (getSysUser) and the portal (getBidUser).
  for (const path of ['/api/uaa/users/getSysUser', '/api/uaa/users/getBidUser']) {
    app.get(path, { config: { isSelfService: true } }, async (request) =>
      ok(await currentUser({ ctx, auth: requireAuth(request) })),
    );
  }
}
