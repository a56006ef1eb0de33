import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * The one list of addresses outside the public internet (loopback, private, link-local, shared,
 * documentation, multicast, reserved), for every place the server connects where a client said
 * (SSRF guards): outbound webhooks and the OpenID providers' issuers.
 */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
// IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are checked as the IPv4 address they carry; a
// BlockList rule on ::ffff:0:0/96 would match every IPv4 address.
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** Whether an IP address is outside the public internet (a text that is no address counts as outside). */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return NON_PUBLIC.check(mapped[1], 'ipv4');
  // a mapped IPv4 address written in hex (::ffff:7f00:1): refused rather than decoded
  if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/i.test(address)) return true;
  return NON_PUBLIC.check(address, 'ipv6');
}

/**
 * The SSRF guard of outbound webhooks: a non-public address is refused unless the platform's
 * configuration allows it (WEBHOOK_ALLOWED_ADDRESSES). It is checked where the connection is made
 * (the lookup of the request itself), so a name that resolves elsewhere later (DNS rebinding) is
 * caught too.
 */
export interface AddressGuard {
  /** Whether a connection to this address is allowed. */
  isAllowed(address: string): boolean;
  /** A lookup for http.request that refuses forbidden addresses (error code EADDRFORBIDDEN). */
  lookup: typeof dnsLookup;
}

/** `allowed`: addresses or CIDR ranges the configuration lets through (the tests' own receiver). */
export function addressGuard(allowed: readonly string[]): AddressGuard {
  const allow = new BlockList();
  for (const item of allowed) {
    const [network = '', prefix] = item.split('/');
    const family = isIP(network) === 6 ? 'ipv6' : 'ipv4';
    if (isIP(network) === 0) continue;
    if (prefix === undefined) allow.addAddress(network, family);
    else allow.addSubnet(network, Number(prefix), family);
  }
  const isAllowed = (raw: string): boolean => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(raw);
    const address = mapped?.[1] ?? raw;
    const family = isIP(address);
    if (family === 0) return false;
    return allow.check(address, family === 6 ? 'ipv6' : 'ipv4') || !isNonPublicAddress(address);
  };
  const lookup = ((hostname: string, options: unknown, callback: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    const wantsAll =
      typeof options === 'object' && options !== null && 'all' in options && options.all === true;
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) return done(error, wantsAll ? [] : '');
      const refused = addresses.find((item) => !isAllowed(item.address));
      if (refused || addresses.length === 0) {
        const problem: NodeJS.ErrnoException = new Error(
          `address ${refused?.address ?? hostname} is not allowed`,
        );
        problem.code = 'EADDRFORBIDDEN';
        return done(problem, wantsAll ? [] : '');
      }
      if (wantsAll) return done(null, addresses);
      const first = addresses[0] as LookupAddress;
      return done(null, first.address, first.family);
    });
  }) as typeof dnsLookup;
  return { isAllowed, lookup };
}

/** Resolves a host name (or takes an IP literal) and says whether every address it has is allowed. */
export async function isHostAllowed(guard: AddressGuard, hostname: string): Promise<boolean> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0) return guard.isAllowed(bare);
  return new Promise((resolve) => {
    dnsLookup(bare, { all: true }, (error, addresses) => {
      resolve(!error && addresses.length > 0 && addresses.every((item) => guard.isAllowed(item.address)));
    });
  });
}
