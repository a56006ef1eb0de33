import { randomBytes } from 'node:crypto';
import { codeMatches, hashCode } from './codes.js';
import {
  MAX_CODE_ATTEMPTS,
  type CodeId,
  type CodeTarget,
  type IssueResult,
  type SharedStore,
} from './types.js';

const DAY_MS = 86_400_000;
/** Keys a listing of counters looks at, at most (the page shows the highest ones). */
const MAX_SCANNED_COUNTERS = 5000;

/** Counts a hit; the first hit of a window sets the window's end. Returns {hits, ms left}. */
const HIT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl}`;

/**
 * Issues a code (KEYS[1], a hash) within the quota of its target (KEYS[2], a sorted set of the
 * codes sent in the last day, scored by time). ARGV: serial, hash, code ms, interval ms, daily
 * limit (0: no quota). Returns {'issued'}, {'tooSoon', ms to wait} or {'dailyLimit'}.
 */
const ISSUE = `
if tonumber(ARGV[5]) > 0 then
  local clock = redis.call('TIME')
  local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - ${DAY_MS})
  local last = redis.call('ZREVRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if last[2] then
    local wait = tonumber(last[2]) + tonumber(ARGV[4]) - now
    if wait > 0 then return {'tooSoon', wait} end
  end
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return {'dailyLimit', 0} end
  redis.call('ZADD', KEYS[2], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ${DAY_MS})
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'serial', ARGV[1], 'hash', ARGV[2], 'attempts', 0, 'verified', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {'issued', 0}`;

/** Takes back a code whose delivery failed: the code goes and its place in the quota too. */
const UNDO_ISSUE = `
if redis.call('HGET', KEYS[1], 'serial') == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`;

/** A wrong guess counts against the code it was made at (not a newer one). */
const WRONG_GUESS = `
if redis.call('HGET', KEYS[1], 'serial') == ARGV[1] then return redis.call('HINCRBY', KEYS[1], 'attempts', 1) end
return 0`;

const CONSUME = `
if redis.call('HGET', KEYS[1], 'serial') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

const MARK_VERIFIED = `
if redis.call('HGET', KEYS[1], 'serial') == ARGV[1] and redis.call('HGET', KEYS[1], 'verified') == '0' then
  redis.call('HSET', KEYS[1], 'verified', 1)
  return 1
end
return 0`;

export interface RedisStoreOptions {
  url: string;
  /** Put before every key, so that several products (or test runs) can share one Redis. */
  prefix: string;
}

/**
 * The shared store in Redis (REDIS_URL): counters and locks are keys that expire with their
 * window; a code is a hash (serial, salted hash, attempts, verified) that expires with the code
 * and is deleted when used; the SMS quota of a target is a sorted set of the last day's codes.
 * Every read-modify-write is one Lua script, so parallel calls on any process cannot race.
 */
export async function redisStore(options: RedisStoreOptions): Promise<SharedStore> {
  // Loaded only when Redis is configured, so that a start without it does not pay for the client.
  const { Redis } = await import('ioredis');
  const redis = new Redis(options.url, {
    keyPrefix: options.prefix,
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    connectTimeout: 5000,
  });
  // Failures reach the caller of each command; the event itself needs no second report.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot reach Redis at REDIS_URL (${redactedUrl(options.url)}): ${reason}`);
  }

  const counterKey = (key: string): string => `count:${key}`;
  const lockKey = (key: string): string => `lock:${key}`;
  // Tenant codes are slugs and purposes fixed words, so the target may hold any character.
  const codeKey = (target: CodeTarget): string =>
    `code:${target.tenantCode}:${target.purpose}:${target.target}`;
  const sentKey = (target: CodeTarget): string =>
    `sent:${target.tenantCode}:${target.purpose}:${target.target}`;

  const store: SharedStore = {
    kind: 'redis',

    async hit(key, windowMs) {
      const [hits, ttl] = (await redis.eval(HIT, 1, counterKey(key), Math.ceil(windowMs))) as [
        number,
        number,
      ];
      return { hits, ttlMs: ttl };
    },

    async lock(key, ms) {
      await redis.multi().set(lockKey(key), '1', 'PX', Math.ceil(ms)).del(counterKey(key)).exec();
    },

    async lockedMs(key) {
      return Math.max(0, await redis.pttl(lockKey(key)));
    },

    async forget(key) {
      await redis.del(counterKey(key), lockKey(key));
    },

    async counters(prefix, limit) {
      // SCAN matches whole key names: the client's keyPrefix is not put before the pattern.
      const glob = prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
      const found = new Set<string>();
      for (const kind of ['count:', 'lock:']) {
        const match = `${options.prefix}${kind}${glob}*`;
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
          cursor = next;
          for (const key of keys) found.add(key.slice(options.prefix.length + kind.length));
        } while (cursor !== '0' && found.size < MAX_SCANNED_COUNTERS);
      }
      const keys = [...found];
      const batch = redis.pipeline();
      for (const key of keys) batch.get(counterKey(key)).pttl(counterKey(key)).pttl(lockKey(key));
      const replies = (await batch.exec()) ?? [];
      const value = (index: number): number => Number(replies[index]?.[1] ?? 0);
      return keys
        .map((key, index) => ({
          key: key.slice(prefix.length),
          hits: value(index * 3),
          ttlMs: Math.max(0, value(index * 3 + 1)),
          lockedMs: Math.max(0, value(index * 3 + 2)),
        }))
        .filter((counter) => counter.hits > 0 || counter.lockedMs > 0)
        .sort((a, b) => Number(b.lockedMs > 0) - Number(a.lockedMs > 0) || b.hits - a.hits)
        .slice(0, limit);
    },

    async sentCodes(purpose, tenantCode, limit) {
      const glob = (text: string): string => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
      const prefix = `${options.prefix}sent:`;
      const match = `${prefix}${tenantCode === undefined ? '*' : glob(tenantCode)}:${glob(purpose)}:*`;
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
        cursor = next;
        keys.push(...found.map((key) => key.slice(options.prefix.length)));
      } while (cursor !== '0' && keys.length < MAX_SCANNED_COUNTERS);
      const [time] = (await redis.time()) as [number | string, number | string];
      const since = Number(time) * 1000 - DAY_MS;
      const batch = redis.pipeline();
      for (const key of keys) batch.zcount(key, since, '+inf').zrevrange(key, 0, 0, 'WITHSCORES');
      const replies = (await batch.exec()) ?? [];
      return keys
        .map((key, index) => {
          // sent:<tenant>:<purpose>:<target>; tenant codes are slugs and purposes fixed words.
          const [, tenant = '', , ...rest] = key.split(':');
          const last = replies[index * 2 + 1]?.[1] as string[] | undefined;
          return {
            tenantCode: tenant,
            target: rest.join(':'),
            sent: Number(replies[index * 2]?.[1] ?? 0),
            lastAt: new Date(Number(last?.[1] ?? 0)),
          };
        })
        .filter((entry) => entry.sent > 0)
        .sort((a, b) => b.sent - a.sent || b.lastAt.getTime() - a.lastAt.getTime())
        .slice(0, limit);
    },

    async issueCode(issue, issueOptions = {}) {
      const { quota, deliver } = issueOptions;
      const serial = randomBytes(9).toString('base64url');
      const keys = [codeKey(issue), sentKey(issue)];
      const [status, waitMs] = (await redis.eval(
        ISSUE,
        2,
        ...keys,
        serial,
        hashCode(issue.code),
        issue.seconds * 1000,
        (quota?.intervalSeconds ?? 0) * 1000,
        quota?.dailyLimit ?? 0,
      )) as [string, number];
      if (status === 'tooSoon') {
        return { issued: false, reason: 'tooSoon', seconds: Math.max(1, Math.ceil(waitMs / 1000)) };
      }
      if (status === 'dailyLimit') return { issued: false, reason: 'dailyLimit' };
      if (deliver) {
        try {
          await deliver();
        } catch (error) {
          await redis.eval(UNDO_ISSUE, 2, ...keys, serial);
          throw error;
        }
      }
      return { issued: true } satisfies IssueResult;
    },

    async checkCode(check) {
      if (check.code === '' || check.target === '') return undefined;
      const key = codeKey(check);
      const fields = await redis.hgetall(key);
      const { serial, hash } = fields;
      if (!serial || !hash || Number(fields.attempts ?? 0) >= MAX_CODE_ATTEMPTS) return undefined;
      if (!codeMatches(check.code, hash)) {
        await redis.eval(WRONG_GUESS, 1, key, serial);
        return undefined;
      }
      return codeId(check, serial);
    },

    async consumeCode(id) {
      return Number(await redis.eval(CONSUME, 1, codeKey(id), id.serial)) > 0;
    },

    async markVerified(id) {
      return Number(await redis.eval(MARK_VERIFIED, 1, codeKey(id), id.serial)) > 0;
    },

    async burnCode(target) {
      await redis.del(codeKey(target));
    },

    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
  const codeId = (target: CodeTarget, serial: string): CodeId => ({
    tenantCode: target.tenantCode,
    purpose: target.purpose,
    target: target.target,
    serial,
    store,
  });
  return store;
}

/** The URL without its password, for messages. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an invalid URL';
  }
}
