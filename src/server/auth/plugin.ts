import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../errors.js';
import { findSession } from './session.js';

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+([A-Za-z0-9_-]{20,200})\s*$/i.exec(header);
  return match?.[1];
}

/**
 * The RoleCode header (SPEC §6) names the roles the caller acts in now: only roles the user
 * holds count, and a header naming none of them is ignored.
 */
export function currentRoles(held: string[], header: string | string[] | undefined): string[] {
  const named = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((code) => code.trim())
    .filter((code) => code !== '');
  const chosen = held.filter((code) => named.includes(code));
  return chosen.length > 0 ? chosen : held;
}

/**
 * Every /api route needs a live bearer token unless its route config says isPublic. The token
 * is read from the Authorization header only, never from a cookie.
 */
async function authPlugin(app: FastifyInstance): Promise<void> {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/api/')) return;
    if (request.is404 || request.routeOptions.config.isPublic === true) return;
    const token = bearerToken(request);
    const session = token ? await findSession(app.ctx.db, token, app.ctx.sessionCache) : undefined;
    if (!session) throw new AppError('invalidToken');
    request.auth = { ...session, roles: currentRoles(session.roles, request.headers.rolecode) };
  });
}

export const authHook = fp(authPlugin, { name: 'auth', dependencies: ['errors'] });
