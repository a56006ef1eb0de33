import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { ConfigError, readConfig } from '../../src/server/lib/config.js';

describe('REDIS_URL and REDIS_PREFIX', () => {
  it('keeps shared state in the database unless REDIS_URL is set, under the prefix ecobid:', () => {
    expect(readConfig({}).redisUrl).toBeUndefined();
    expect(readConfig({}).redisPrefix).toBe('ecobid:');
    const config = readConfig({ REDIS_URL: 'redis://cache:6379/2', REDIS_PREFIX: 'site-a:' });
    expect(config.redisUrl).toBe('redis://cache:6379/2');
    expect(config.redisPrefix).toBe('site-a:');
    expect(readConfig({ REDIS_URL: 'rediss://user:secret@cache:6380' }).redisUrl).toMatch(/^rediss:/);
  });

  it('names a bad value', () => {
    expect(() => readConfig({ REDIS_URL: 'http://cache:6379' })).toThrow(ConfigError);
    expect(() => readConfig({ REDIS_URL: 'http://cache:6379' })).toThrow(/REDIS_URL/);
    expect(() => readConfig({ REDIS_PREFIX: 'two words' })).toThrow(/REDIS_PREFIX/);
  });

  it('stops start-up with a message naming REDIS_URL when Redis cannot be reached', async () => {
    const failed: unknown = await buildApp({
      config: readConfig({ DATA_DIR: ':memory:', REDIS_URL: 'redis://user:secret@127.0.0.1:1' }),
    }).then(
      async ({ app }) => {
        await app.close();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toMatch(
      /^Cannot reach Redis at REDIS_URL \(redis:\/\/user:\*\*\*@127\.0\.0\.1:1\)/,
    );
    expect((failed as Error).message).not.toContain('secret');
  });
});
