import rateLimit, {
  type FastifyRateLimitStore,
  type FastifyRateLimitStoreCtor,
  type RateLimitOptions,
} from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import type { SharedStore } from '../../../lib/store/index.js';
import { ruleLimit, type RuleName } from '../../monitor/index.js';
import { RATE_COUNTER_PREFIX, rateCounterKey, signInKey } from '../../../lib/store/counter-keys.js';

/**
 * Counters against guessing and flooding live in the shared store (the database, or Redis when
 * REDIS_URL is set), so that every server process sees the same numbers.
 */

/** A store for @fastify/rate-limit that keeps its counters in the shared store. */
export function sharedRateLimitStore(shared: SharedStore): FastifyRateLimitStoreCtor {
  class SharedRateLimitStore implements FastifyRateLimitStore {
    constructor(
      _options: unknown,
      private readonly prefix = RATE_COUNTER_PREFIX,
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
        return new SharedRateLimitStore(undefined, `${RATE_COUNTER_PREFIX}group:${routeOptions.groupId}:`);
      const info = routeOptions.routeInfo ?? routeOptions;
      return new SharedRateLimitStore(
        undefined,
        `${RATE_COUNTER_PREFIX}${String(info.method)}:${String(info.url)}:`,
      );
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

/** The rate limit of a route group, as its route config carries it. */
export type RouteRateLimit = RateLimitOptions;

/**
 * A per-minute limit read from its param on every request (features/monitor/services/settings.ts), so an
 * edit on the flow-control page holds on every process at once; refusals are counted per rule.
 */
export function liveRateLimit(app: FastifyInstance, rule: RuleName): RouteRateLimit {
  const { ctx } = app;
  return {
    max: () => ruleLimit(ctx, rule),
    timeWindow: ONE_MINUTE_MS,
    // The rule in the key, so that the flow-control page can list each rule's counters.
    keyGenerator: (request) => rateCounterKey(rule, request.ip),
    onExceeded: () => app.monitor?.rateLimited(rule),
  };
}

export interface SignInGuard {
  /** Refuses with 429 while the user is locked. */
  assertNotLocked(tenantCode: string, username: string): Promise<void>;
  /** Counts a failed sign-in; the failure that reaches the limit locks the user and answers 429. */
  recordFailure(tenantCode: string, username: string): Promise<void>;
  /** A successful sign-in forgets earlier failures. */
  reset(tenantCode: string, username: string): Promise<void>;
}

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
