import { createHash, randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

/**
 * An API key is `ek_<prefix>_<secret>`: a prefix of 8 hex digits that the list shows to tell
 * keys apart, and a secret of 32 random bytes (base64url). Only the SHA-256 of the whole key is
 * stored: with 256 bits of randomness nobody can guess a key from its hash, so a slow password
 * hash (which protects guessable passwords) would only cost every request its time, and a fast
 * hash lets a request be checked by one indexed lookup.
 */
export const KEY_PREFIX = 'ek_';
const KEY_PATTERN = /^ek_([0-9a-f]{8})_([A-Za-z0-9_-]{43})$/;

export function isApiKey(token: string): boolean {
  return KEY_PATTERN.test(token);
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

export function newKey(): { key: string; prefix: string } {
  const prefix = randomBytes(4).toString('hex');
  return { key: `${KEY_PREFIX}${prefix}_${randomBytes(32).toString('base64url')}`, prefix };
}

/** An allow-list entry: an IPv4 or IPv6 address, or a network in CIDR notation. */
export function parseAllowEntry(
  entry: string,
): { address: string; bits?: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', bits, ...rest] = entry.trim().split('/');
  if (rest.length > 0) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) return { address, family };
  if (!/^\d{1,3}$/.test(bits)) return undefined;
  const size = Number(bits);
  if (size > (version === 4 ? 32 : 128)) return undefined;
  return { address, bits: size, family };
}

/** Whether a caller's address is on the allow-list (an empty list allows every address). */
export function isAddressAllowed(allowList: readonly string[], ip: string): boolean {
  if (allowList.length === 0) return true;
  const list = new BlockList();
  for (const entry of allowList) {
    const parsed = parseAllowEntry(entry);
    if (!parsed) continue;
    if (parsed.bits === undefined) list.addAddress(parsed.address, parsed.family);
    else list.addSubnet(parsed.address, parsed.bits, parsed.family);
  }
  // An IPv4 caller seen through an IPv6 socket (::ffff:10.0.0.1) is checked as IPv4.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  const address = mapped ?? ip;
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (isIP(address) === 0) return false;
  return list.check(address, family);
}
