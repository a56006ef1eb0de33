import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { TwoFactorSetup } from '../../../../engine/index.js';

/** RFC 6238 defaults, the ones every authenticator app reads: SHA-1, 6 digits, 30 seconds. */
const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** A code of the step before or after is accepted too: phone clocks drift. */
const WINDOW = 1;
const RECOVERY_CODE_COUNT = 10;

const totpOf = (secret: string, label = '', issuer = ''): TOTP =>
  new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });

/** A new secret (160 bits, RFC 4226 §4), in base32 as the apps take it. */
export const newSecret = (): string => new Secret({ size: 20 }).base32;

/** The secret, its otpauth:// address (named by the product and the user) and the QR code of it. */
export async function setupOf(secret: string, issuer: string, account: string): Promise<TwoFactorSetup> {
  const otpauthUrl = totpOf(secret, account, issuer).toString();
  const qrSvg = await QRCode.toString(otpauthUrl, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return { secret, otpauthUrl, qrSvg };
}

/** Six digits, spaces allowed (apps show 123 456). */
export const looksLikeTotp = (code: string): boolean => /^\d{6}$/.test(code.replace(/\s+/g, ''));

/**
 * The time step of a correct code newer than `lastStep`, else undefined: a code already used
 * (or an older one) is refused, so a code seen over a shoulder cannot be replayed.
 */
export function acceptedStep(secret: string, code: string, lastStep: number | null): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!looksLikeTotp(token)) return undefined;
  const now = Date.now();
  const delta = totpOf(secret).validate({ token, timestamp: now, window: WINDOW });
  if (delta === null) return undefined;
  const step = Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
  return lastStep !== null && step <= lastStep ? undefined : step;
}

/** Recovery codes: 10 of 10 random base32 characters each, shown as xxxxx-xxxxx. */
export function newRecoveryCodes(): string[] {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = [...randomBytes(10)].map((byte) => alphabet[byte % alphabet.length]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** A recovery code's hash: 50 random bits need no slow hash; case, spaces and dashes do not count. */
export const recoveryHash = (code: string): string =>
  createHash('sha256')
    .update(code.toLowerCase().replace(/[\s-]+/g, ''))
    .digest('base64url');
