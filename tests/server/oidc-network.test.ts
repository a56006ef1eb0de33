/**
 * The address guard of OpenID provider calls (features/oidc/services/network.ts): what a tenant's
 * administrator types as an issuer may not reach the server's own network.
 */
import { describe, expect, it } from 'vitest';
import { isNonPublicAddress } from '../../src/server/lib/address-guard.js';
import { checkFetchable } from '../../src/server/features/oidc/services/network.js';

describe('the OpenID provider address guard', () => {
  it('tells public addresses from loopback, private, link-local and mapped ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.2.3.4',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ])
      expect(isNonPublicAddress(address), address).toBe(true);
    for (const address of ['8.8.8.8', '20.190.128.1', '2606:4700::1111'])
      expect(isNonPublicAddress(address), address).toBe(false);
  });

  it('refuses http, and names resolving to the server’s own network, unless the platform allows it', async () => {
    await expect(checkFetchable(new URL('http://sso.example.com'), false)).rejects.toMatchObject({
      code: 'oidcIssuerRefused',
    });
    await expect(checkFetchable(new URL('https://localhost/realms/x'), false)).rejects.toMatchObject({
      code: 'oidcIssuerRefused',
    });
    await expect(checkFetchable(new URL('https://[::1]:8443/'), false)).rejects.toMatchObject({
      code: 'oidcIssuerRefused',
    });
    await expect(checkFetchable(new URL('https://169.254.169.254/latest'), false)).rejects.toMatchObject({
      code: 'oidcIssuerRefused',
    });
    await expect(checkFetchable(new URL('http://127.0.0.1:8080'), true)).resolves.toBeUndefined();
    await expect(checkFetchable(new URL('https://8.8.8.8/'), false)).resolves.toBeUndefined();
  });
});
