import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../lib/errors.js';
import { bearerToken } from '../../lib/http.js';
import type { AuthContext } from '../../lib/auth.js';
import { cachedSession, findSession } from './services/session.js';

export type { RequestAuth } from '../../lib/auth.js';

/**
 * The RoleCode header (docs/product.md §6) names the roles the caller acts in now,
 * comma-separated: switching role (docs/product.md §4) is sending one role there. Without the
 * header the caller acts in every role of the session; a header naming a role the session does
 * not hold is refused (403), never widened or silently ignored. Only the session's own roles
 * count: a client-side "<ROLE>-token" or any other client state is never a credential.
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
  const { db, registry, sessionCache } = app.ctx;
  const userTable = registry.require('sysuser').table;
  /** The caller as a route sees it: the session, acting in the roles the RoleCode header names. */
  const signIn = (request: FastifyRequest, session: AuthContext | undefined): void => {
    if (!session) throw new AppError('invalidToken');
    request.auth = {
      ...session,
      roles: currentRoles(session.roles, request.headers.rolecode),
      heldRoles: session.roles,
    };
  };
  // Synchronous when this process checked the token lately (most requests): no promise, no
  // turn of the event loop; otherwise the database decides (findSession).
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.startsWith('/api/') || request.is404 || request.routeOptions.config.isPublic === true) {
      done();
      return;
    }
    // An API key's caller, set by the apikeys feature's hook (it runs first).
    if (request.auth) {
      done();
      return;
    }
    const token = bearerToken(request);
    const cached = token === undefined ? undefined : cachedSession(sessionCache, token);
    if (cached || token === undefined) {
      signIn(request, cached);
      done();
      return;
    }
    findSession({ db, userTable, accessToken: token, cache: sessionCache })
      .then((session) => signIn(request, session))
      .then(() => done(), done);
  });
  // What a signed-in caller is answered is theirs (their user, their tenant's rows): no cache,
  // the browser's included, may keep it (docs/http-contract.md "Caching"). A route that set its
  // own policy (a file's private revalidation by ETag) keeps it.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (
      request.url.startsWith('/api/') &&
      request.routeOptions.config.isPublic !== true &&
      !reply.hasHeader('cache-control')
    )
      reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}

export const authHook = fp(authPlugin, { name: 'auth', dependencies: ['errors'] });
