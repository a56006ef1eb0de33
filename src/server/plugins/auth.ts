import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../lib/errors.js';
import { bearerToken } from '../lib/http.js';
import { findSession } from '../services/sessions/session.js';

export type { RequestAuth } from '../lib/auth.js';

/**
 * The RoleCode header (SPEC §6) names the roles the caller acts in now, comma-separated: switching
 * role (SPEC §4) is sending one role there. Without the header the caller acts in every role of
 * the session; a header naming a role the session does not hold is refused (403), never widened
 * or silently ignored. Only the session's own roles count: a client-side "<ROLE>-token" or any
 * other client state is never a credential.
 */
export function currentRoles(held: string[], header: string | string[] | undefined): string[] {
  const named = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((code) => code.trim())
    .filter((code) => code !== '');
  const foreign = named.find((code) => !held.includes(code));
  if (foreign !== undefined) throw new AppError('roleNotHeld', { role: foreign.slice(0, 64) });
  const chosen = held.filter((code) => named.includes(code));
  return chosen.length > 0 ? chosen : held;
}

/**
 * Every /api route needs a live bearer token unless its route config says isPublic. The token
 * is read from the Authorization header only, never from a cookie.
 */
async function authPlugin(app: FastifyInstance): Promise<void> {
  app.decorateRequest('auth', null);
  const { db, registry } = app.ctx;
  const userTable = registry.require('sysuser').table;
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/api/')) return;
    if (request.is404 || request.routeOptions.config.isPublic === true) return;
    const token = bearerToken(request);
    const session = token
      ? await findSession({ db, userTable, accessToken: token, cache: app.ctx.sessionCache })
      : undefined;
    if (!session) throw new AppError('invalidToken');
    request.auth = {
      ...session,
      roles: currentRoles(session.roles, request.headers.rolecode),
      heldRoles: session.roles,
    };
  });
}

export const authHook = fp(authPlugin, { name: 'auth', dependencies: ['errors'] });
