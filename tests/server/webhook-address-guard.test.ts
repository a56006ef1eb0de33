/** The SSRF guard of outbound webhooks (lib/address-guard.ts). */
import { describe, expect, it } from 'vitest';
import { addressGuard } from '../../src/server/features/events/index.js';

describe('the webhook address guard', () => {
  it('lets public addresses through and refuses loopback, private, link-local and mapped ones', () => {
    const guard = addressGuard([]);
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])
      expect(guard.isAllowed(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ])
      expect(guard.isAllowed(address), address).toBe(false);
  });

  it('lets through what the configuration allows (an address or a range)', () => {
    const guard = addressGuard(['127.0.0.1', '10.8.0.0/16']);
    expect(guard.isAllowed('127.0.0.1')).toBe(true);
    expect(guard.isAllowed('::ffff:127.0.0.1')).toBe(true);
    expect(guard.isAllowed('10.8.3.4')).toBe(true);
    expect(guard.isAllowed('10.9.0.1')).toBe(false);
    expect(guard.isAllowed('127.0.0.2')).toBe(false);
  });
});
