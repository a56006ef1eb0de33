import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import { AppError } from '../../lib/errors.js';
import { bearerToken } from '../../lib/http.js';
import { currentRoles } from '../sessions/index.js';
import { isAddressAllowed, isApiKey } from './services/key-format.js';
import { lookUpKey, type KeyGrant } from './services/lookup.js';

const ONE_MINUTE_MS = 60_000;

/** The calls of a request made with an API key: which key, for the use log. */
const keyOfRequest = new WeakMap<FastifyRequest, KeyGrant>();

/** Whether the request was made with an API key (not a session). */
export function isKeyRequest(request: FastifyRequest): boolean {
  return keyOfRequest.has(request);
}

/**
 * What only a person's own session may do: sign-in and sign-out, the session's own registration,
 * a password change, managing API keys and linking an OpenID provider (a key could otherwise make
 * keys, or a provider sign-in, that outlive it). Two-factor checks its own routes (twofactor).
 */
const SESSION_ONLY = [
  '/api/uaa/oauth/',
  '/api/admin/sysuser/registerNewSession',
  '/api/account/sysuserdetail/updatePassword',
  '/api/admin/sysapikey/',
  '/api/oidc/',
];

/** A counter key of the shared store per API key (Redis when configured, else the database). */
export const keyRateCounter = (keyId: number): string => `apikey:${keyId}`;

/**
 * `Authorization: Bearer ek_…` on an /api route: the key stands for its user, in the key's roles
 * and tenant, checked by the same permission policy as a session (the caller has the session's
 * shape). Runs before the session hook, which leaves a caller this hook set alone. Expired,
 * revoked and wrong-address keys are 401s; past the key's rate, 429 with Retry-After. Every call
 * made with a known key is written to its use log, refused ones included.
 */
async function apiKeyPlugin(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/api/') || request.is404 || request.routeOptions.config.isPublic === true)
      return;
    const token = bearerToken(request);
    if (token === undefined || !isApiKey(token)) return;
    const found = await lookUpKey(ctx, token);
    if (!found) throw new AppError('invalidToken');
    keyOfRequest.set(request, found.grant);
    if (found.state !== 'live')
      throw new AppError(found.state === 'revoked' ? 'apiKeyRevoked' : 'apiKeyExpired');
    if (!isAddressAllowed(found.grant.allowList, request.ip)) throw new AppError('apiKeyAddress');
    const bare = request.url.split('?')[0] ?? '';
    if (SESSION_ONLY.some((path) => bare.startsWith(path))) throw new AppError('apiKeySessionOnly');
    const hit = await ctx.store.hit(keyRateCounter(found.grant.keyId), ONE_MINUTE_MS);
    if (hit.hits > found.grant.ratePerMinute) {
      const seconds = Math.max(1, Math.ceil(hit.ttlMs / 1000));
      reply.header('retry-after', String(seconds));
      throw new AppError('rateLimited', { seconds });
    }
    request.auth = {
      ...found.auth,
      roles: currentRoles(found.auth.roles, request.headers.rolecode),
      heldRoles: found.auth.roles,
    };
  });
  // Written before the answer leaves, so the log holds the call once the caller has its answer.
  app.addHook('onSend', async (request, reply, payload) => {
    const grant = keyOfRequest.get(request);
    if (!grant) return payload;
    const path = (request.url.split('?')[0] ?? '').slice(0, 500);
    await sql`with used as (
        insert into sys_api_key_use (tenant_code, key_id, method, path, status, ip)
        values (${grant.tenantCode}, ${grant.keyId}, ${request.method}, ${path}, ${reply.statusCode}, ${request.ip})
        returning key_id)
      update sys_api_key set last_used_at = now(), last_used_ip = ${request.ip}
      where id = (select key_id from used limit 1)`.execute(ctx.db);
    return payload;
  });
}

export const apiKeyHook = fp(apiKeyPlugin, { name: 'api-key-auth', dependencies: ['errors'] });
