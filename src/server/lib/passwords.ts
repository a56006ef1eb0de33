import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { BUDGETS } from './budgets.js';

const scrypt = (password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    scryptCallback(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });

// scrypt is memory-hard: N=2^14, r=8 uses 16 MiB per hash.
const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

/** Hashes a secret as scrypt$N$r$p$salt$hash (base64url). */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(secret, salt, KEY_LENGTH, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Hashes many secrets (an import's password column), each off the event loop in libuv's thread
 * pool, at most BUDGETS.passwords.hashConcurrency at a time (and never more than the cores): the
 * pool's other threads stay free for the file reads and sign-ins of other requests. Answers the
 * hashes in the order of the secrets.
 */
export async function hashSecretsConcurrently(secrets: readonly string[]): Promise<string[]> {
  const hashes = new Array<string>(secrets.length);
  const lanes = Math.max(
    1,
    Math.min(BUDGETS.passwords.hashConcurrency, availableParallelism(), secrets.length),
  );
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < secrets.length) {
        const at = next++;
        hashes[at] = await hashSecret(secrets[at] ?? '');
      }
    }),
  );
  return hashes;
}

export async function verifySecret(secret: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored) return false;
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(secret, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let dummyHash: Promise<string> | undefined;

/**
 * Checks a password of a user who may not exist: without a stored hash it hashes against a dummy
 * computed once, so that an unknown name costs the same work as a wrong password and the time of
 * the answer does not tell which names exist. Always false without a stored hash.
 */
export async function verifySecretOrDummy(
  secret: string,
  stored: string | null | undefined,
): Promise<boolean> {
  if (stored) return verifySecret(secret, stored);
  dummyHash ??= hashSecret('dummy password');
  await verifySecret(secret, await dummyHash);
  return false;
}
