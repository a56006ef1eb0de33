import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/types.js';
import {
  MAX_CODE_ATTEMPTS,
  type CodeId,
  type CodeTarget,
  type IssueCode,
  type IssueOptions,
  type IssueResult,
  type SharedStore,
} from './types.js';

/**
 * One-time codes: SMS codes (target = mobile), character captchas (target = captcha id) and
 * password-reset codes (target = user id), kept in the shared store (database or Redis). A code
 * is stored as a salted SHA-256 only; it expires, dies after MAX_ATTEMPTS wrong guesses, and is
 * used once.
 */
export type { CodePurpose, IssueCode } from './types.js';

export const MAX_ATTEMPTS = MAX_CODE_ATTEMPTS;

function digest(salt: string, code: string): string {
  return createHash('sha256').update(`${salt}:${code}`).digest('base64url');
}

export function hashCode(code: string): string {
  const salt = randomBytes(12).toString('base64url');
  return `${salt}$${digest(salt, code)}`;
}

/** Whether code is the one hashed into stored (by hashCode), in constant time. */
export function codeMatches(code: string, stored: string): boolean {
  const [salt, hash] = stored.split('$');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash);
  const actual = Buffer.from(digest(salt, code));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A code of digits, drawn with a cryptographic generator. */
export function digitCode(length = 6): string {
  return Array.from({ length }, () => String(randomInt(10))).join('');
}

/**
 * Stores a new code (`issue`: its target, the code, its lifetime); earlier codes of the same
 * purpose and target stop working. The options (quota, deliver, trx) are SharedStore.issueCode's.
 */
export function issueCode({
  store,
  issue,
  ...options
}: { store: SharedStore; issue: IssueCode } & IssueOptions): Promise<IssueResult> {
  return store.issueCode(issue, options);
}

/** A code found right by checkCode; its id is what consumeCode and markVerified take. */
export interface LiveCode {
  id: CodeId;
}

/**
 * The live code of a purpose and target when `code` is right. A wrong guess counts against the
 * code (so that it sticks even when the caller's transaction rolls back) and gives undefined, as
 * do an expired, used or worn-out code.
 */
export async function checkCode(
  store: SharedStore,
  check: CodeTarget & { code: string },
): Promise<LiveCode | undefined> {
  const id = await store.checkCode(check);
  return id ? { id } : undefined;
}

/**
 * Uses a code up; false when another request used it first. On the database this happens in
 * trx, so it is undone when trx rolls back; in Redis it is final at once.
 */
export function consumeCode(trx: Db, id: CodeId): Promise<boolean> {
  return id.store.consumeCode(id, trx);
}

/** Marks a code as checked once (compareCaptcha); false when it was checked or used before. */
export function markVerified(id: CodeId): Promise<boolean> {
  return id.store.markVerified(id);
}

/** Kills the live code of a target (a wrong character captcha is not worth a second guess). */
export function burnCode(store: SharedStore, target: CodeTarget): Promise<void> {
  return store.burnCode(target);
}

/** A random, URL-safe secret for captcha ids and reset codes. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
