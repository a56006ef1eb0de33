import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../lib/errors.js';
import type { SharedStore } from '../../lib/store/index.js';

/**
 * Counters against guessing and flooding live in the shared store (the database, or Redis when
 * REDIS_URL is set), so that every server process sees the same numbers.
 */

/** A store for @fastify/rate-limit that keeps its counters in the shared store. */
export function sharedRateLimitStore(shared: SharedStore): FastifyRateLimitStoreCtor {
  class SharedRateLimitStore implements FastifyRateLimitStore {
    constructor(
      _options: unknown,
      private readonly prefix = 'rate:',
    ) {}

    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      shared.hit(`${this.prefix}${key}`, timeWindow).then(
        (hit) => callback(null, { current: hit.hits, ttl: hit.ttlMs }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(routeOptions: {
      method?: unknown;
      url?: unknown;
      groupId?: unknown;
      routeInfo?: { method?: unknown; url?: unknown };
    }) {
      // Routes of one group (config.rateLimit.groupId) count on one counter, whatever their method.
      if (typeof routeOptions.groupId === 'string')
        return new SharedRateLimitStore(undefined, `rate:group:${routeOptions.groupId}:`);
      const info = routeOptions.routeInfo ?? routeOptions;
      return new SharedRateLimitStore(undefined, `rate:${String(info.method)}:${String(info.url)}:`);
    }
  }
  return SharedRateLimitStore as unknown as FastifyRateLimitStoreCtor;
}

/**
 * Registers @fastify/rate-limit in the calling plugin's context, for routes that ask for it in
 * config.rateLimit only, with counters in the shared store and the catalogue's 429 answer.
 */
export async function registerRateLimit(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    store: sharedRateLimitStore(app.ctx.store),
    errorResponseBuilder: (_request, context) =>
      new AppError('rateLimited', { seconds: Math.max(1, Math.ceil(context.ttl / 1000)) }),
  });
}

export const ONE_MINUTE_MS = 60_000;

export interface SignInGuard {
  /** Refuses with 429 while the user is locked. */
  assertNotLocked(tenantCode: string, username: string): Promise<void>;
  /** Counts a failed sign-in; the failure that reaches the limit locks the user and answers 429. */
  recordFailure(tenantCode: string, username: string): Promise<void>;
  /** A successful sign-in forgets earlier failures. */
  reset(tenantCode: string, username: string): Promise<void>;
}

/** The counter of a user's failed sign-ins (a password reset forgets it: SignInGuard.reset). */
export const signInKey = (tenantCode: string, username: string): string =>
  `sign-in:${tenantCode}:${username.toLowerCase()}`;

/**
 * Lockout after maxFailures failed sign-ins of one user within lockMinutes, for lockMinutes.
 * Unknown user names are counted the same way, so the answers do not tell which names exist.
 */
export function signInGuard(
  store: SharedStore,
  limits: { maxFailures: number; lockMinutes: number },
): SignInGuard {
  const lockMs = limits.lockMinutes * ONE_MINUTE_MS;
  return {
    async assertNotLocked(tenantCode, username) {
      const ms = await store.lockedMs(signInKey(tenantCode, username));
      if (ms > 0)
        throw new AppError('accountLocked', { minutes: Math.max(1, Math.ceil(ms / ONE_MINUTE_MS)) });
    },
    async recordFailure(tenantCode, username) {
      const key = signInKey(tenantCode, username);
      const hit = await store.hit(key, lockMs);
      if (hit.hits < limits.maxFailures) return;
      await store.lock(key, lockMs);
      throw new AppError('accountLocked', { minutes: limits.lockMinutes });
    },
    async reset(tenantCode, username) {
      await store.forget(signInKey(tenantCode, username));
    },
  };
}
