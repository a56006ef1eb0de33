import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { AppError } from '../errors.js';

/**
 * Counters against guessing and flooding, kept in the database (sys_counter) so that every
 * server process sees the same numbers. One row per key: hits within a window that ends at
 * window_ends_at, and for sign-in failures a lock until locked_until.
 */
export interface CounterHit {
  hits: number;
  /** Milliseconds until the window ends. */
  ttlMs: number;
}

/** Counts one hit of a key in a window of windowMs; a finished window starts again at 1. */
export async function hitCounter(db: Db, key: string, windowMs: number): Promise<CounterHit> {
  const result = await sql<{ hits: number; ttl_ms: number }>`
    insert into sys_counter (counter_key, hits, window_ends_at)
    values (${key}, 1, now() + make_interval(secs => ${windowMs / 1000}))
    on conflict (counter_key) do update set
      hits = case when sys_counter.window_ends_at <= now() then 1 else sys_counter.hits + 1 end,
      window_ends_at = case when sys_counter.window_ends_at <= now()
        then now() + make_interval(secs => ${windowMs / 1000}) else sys_counter.window_ends_at end
    returning hits, greatest(0, floor(extract(epoch from (window_ends_at - now())) * 1000))::float8 as ttl_ms`.execute(
    db,
  );
  const row = result.rows[0];
  // Now and then, forget counters whose window ended a day ago.
  if (Math.random() < 0.01) {
    await sql`delete from sys_counter where window_ends_at < now() - interval '1 day'
      and (locked_until is null or locked_until < now())`.execute(db);
  }
  return { hits: row?.hits ?? 1, ttlMs: Number(row?.ttl_ms ?? windowMs) };
}

/** A store for @fastify/rate-limit that keeps its counters in sys_counter. */
export function databaseRateLimitStore(db: Db): FastifyRateLimitStoreCtor {
  class DatabaseStore implements FastifyRateLimitStore {
    constructor(
      _options: unknown,
      private readonly prefix = 'rate:',
    ) {}

    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      hitCounter(db, `${this.prefix}${key}`, timeWindow).then(
        (hit) => callback(null, { current: hit.hits, ttl: hit.ttlMs }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(routeOptions: {
      method?: unknown;
      url?: unknown;
      routeInfo?: { method?: unknown; url?: unknown };
    }) {
      const info = routeOptions.routeInfo ?? routeOptions;
      return new DatabaseStore(undefined, `rate:${String(info.method)}:${String(info.url)}:`);
    }
  }
  return DatabaseStore as unknown as FastifyRateLimitStoreCtor;
}

/**
 * Registers @fastify/rate-limit in the calling plugin's context, for routes that ask for it in
 * config.rateLimit only, with counters in the database and the catalogue's 429 answer.
 */
export async function registerRateLimit(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    store: databaseRateLimitStore(app.ctx.db),
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

const signInKey = (tenantCode: string, username: string): string =>
  `sign-in:${tenantCode}:${username.toLowerCase()}`;

/**
 * Lockout after maxFailures failed sign-ins of one user within lockMinutes, for lockMinutes.
 * Unknown user names are counted the same way, so the answers do not tell which names exist.
 */
export function signInGuard(db: Db, limits: { maxFailures: number; lockMinutes: number }): SignInGuard {
  const lockError = (): AppError => new AppError('accountLocked', { minutes: limits.lockMinutes });
  return {
    async assertNotLocked(tenantCode, username) {
      const result = await sql<{
        minutes: number;
      }>`select ceil(extract(epoch from (locked_until - now())) / 60)::int as minutes
        from sys_counter where counter_key = ${signInKey(tenantCode, username)} and locked_until > now()`.execute(
        db,
      );
      const row = result.rows[0];
      if (row) throw new AppError('accountLocked', { minutes: Math.max(1, row.minutes) });
    },
    async recordFailure(tenantCode, username) {
      const key = signInKey(tenantCode, username);
      const hit = await hitCounter(db, key, limits.lockMinutes * ONE_MINUTE_MS);
      if (hit.hits < limits.maxFailures) return;
      await sql`update sys_counter set hits = 0, window_ends_at = now(),
        locked_until = now() + make_interval(mins => ${limits.lockMinutes}) where counter_key = ${key}`.execute(
        db,
      );
      throw lockError();
    },
    async reset(tenantCode, username) {
      await sql`delete from sys_counter where counter_key = ${signInKey(tenantCode, username)}`.execute(db);
    },
  };
}
