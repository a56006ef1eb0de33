/**
 * The Redis store keeps the promises of tests/support/store-contract.ts. It needs a Redis
 * (TEST_REDIS_URL, default redis://127.0.0.1:6379), so it runs with the suite on PostgreSQL and
 * Redis (vitest.config.ts), as .ci/run does; each run uses its own key prefix.
 */
import { randomBytes } from 'node:crypto';
import { describe } from 'vitest';
import { redisStore } from '../../src/server/lib/store/redis.js';
import { storeContract } from '../support/store-contract.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('with Redis', () => {
  storeContract('the Redis store', async () => {
    const prefix = `ecobid-test-${randomBytes(6).toString('hex')}:`;
    const store = await redisStore({ url: redisUrl ?? '', prefix });
    const { Redis } = await import('ioredis');
    return {
      store,
      close: async () => {
        const redis = new Redis(redisUrl ?? '');
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
        await store.close();
      },
    };
  });
});
