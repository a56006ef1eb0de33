import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/server/lib/config.js';

describe('abuse limits in the configuration', () => {
  it('has the documented defaults', () => {
    expect(readConfig({}).abuse).toEqual({
      signInMaxFailures: 5,
      signInLockMinutes: 15,
      smsIntervalSeconds: 60,
      smsDailyLimit: 10,
      smsCodeSeconds: 300,
      captchaSeconds: 300,
      resetCodeMinutes: 30,
      tokenPerMinute: 60,
      captchaPerMinute: 30,
    });
    expect(readConfig({}).publicUrl).toBeUndefined();
  });

  it('reads each variable and names a bad one', () => {
    const config = readConfig({
      SIGN_IN_MAX_FAILURES: '3',
      SIGN_IN_LOCK_MINUTES: '30',
      PUBLIC_URL: 'https://ecobid.example/',
    });
    expect(config.abuse.signInMaxFailures).toBe(3);
    expect(config.abuse.signInLockMinutes).toBe(30);
    expect(config.publicUrl).toBe('https://ecobid.example');
    expect(() => readConfig({ SMS_DAILY_LIMIT: 'lots' })).toThrow(ConfigError);
    expect(() => readConfig({ SMS_DAILY_LIMIT: '0' })).toThrow(/SMS_DAILY_LIMIT/);
    expect(() => readConfig({ PUBLIC_URL: 'ftp://x' })).toThrow(/PUBLIC_URL/);
  });
});
