import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/**
 * One-time codes in sys_verification_code: SMS codes (target = mobile), character captchas
 * (target = captcha id) and password-reset codes (target = user id). A code is stored as a
 * salted SHA-256 only; it expires, dies after MAX_ATTEMPTS wrong guesses, and is used once.
 */
export type CodePurpose = 'sms' | 'captcha' | 'reset';

export const MAX_ATTEMPTS = 5;

function digest(salt: string, code: string): string {
  return createHash('sha256').update(`${salt}:${code}`).digest('base64url');
}

export function hashCode(code: string): string {
  const salt = randomBytes(12).toString('base64url');
  return `${salt}$${digest(salt, code)}`;
}

function matches(code: string, stored: string): boolean {
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

export interface IssueCode {
  tenantCode: string;
  purpose: CodePurpose;
  target: string;
  code: string;
  seconds: number;
  ip: string | null;
}

/** Stores a new code; earlier unused codes of the same purpose and target stop working. */
export async function issueCode(db: Db, issue: IssueCode): Promise<number> {
  await sql`update sys_verification_code set used_at = now()
    where purpose = ${issue.purpose} and target = ${issue.target} and tenant_code = ${issue.tenantCode}
      and used_at is null`.execute(db);
  const inserted = await sql<{ id: number }>`insert into sys_verification_code
      (tenant_code, purpose, target, code_hash, expires_at, ip)
    values (${issue.tenantCode}, ${issue.purpose}, ${issue.target}, ${hashCode(issue.code)},
      now() + make_interval(secs => ${issue.seconds}), ${issue.ip})
    returning id`.execute(db);
  if (Math.random() < 0.01) {
    await sql`delete from sys_verification_code where created_at < now() - interval '2 days'`.execute(db);
  }
  return inserted.rows[0]?.id ?? 0;
}

export interface LiveCode {
  id: number;
  isVerified: boolean;
}

/**
 * The live code of a purpose and target when `code` is right. A wrong guess counts against the
 * code (in its own statement, so that it sticks even when the caller's transaction rolls back)
 * and gives undefined, as do an expired, used or worn-out code.
 */
export async function checkCode(
  db: Db,
  check: { tenantCode: string; purpose: CodePurpose; target: string; code: string },
): Promise<LiveCode | undefined> {
  if (check.code === '' || check.target === '') return undefined;
  const found = await sql<{ id: number; code_hash: string; is_verified: boolean }>`
    select id, code_hash, verified_at is not null as is_verified from sys_verification_code
    where purpose = ${check.purpose} and target = ${check.target} and tenant_code = ${check.tenantCode}
      and used_at is null and expires_at > now() and attempts < ${MAX_ATTEMPTS}
    order by id desc limit 1`.execute(db);
  const row = found.rows[0];
  if (!row) return undefined;
  if (!matches(check.code, row.code_hash)) {
    await sql`update sys_verification_code set attempts = attempts + 1 where id = ${row.id}`.execute(db);
    return undefined;
  }
  return { id: row.id, isVerified: row.is_verified };
}

/** Uses a code up; false when another request used it first. */
export async function consumeCode(db: Db, id: number): Promise<boolean> {
  const result = await sql`update sys_verification_code set used_at = now()
    where id = ${id} and used_at is null and expires_at > now() returning id`.execute(db);
  return result.rows.length > 0;
}

/** Marks a code as checked once (compareCaptcha); false when it was checked or used before. */
export async function markVerified(db: Db, id: number): Promise<boolean> {
  const result = await sql`update sys_verification_code set verified_at = now()
    where id = ${id} and verified_at is null and used_at is null returning id`.execute(db);
  return result.rows.length > 0;
}

/** Kills a code (a wrong character captcha is not worth a second guess). */
export async function burnCode(
  db: Db,
  purpose: CodePurpose,
  target: string,
  tenantCode: string,
): Promise<void> {
  await sql`update sys_verification_code set used_at = now()
    where purpose = ${purpose} and target = ${target} and tenant_code = ${tenantCode} and used_at is null`.execute(
    db,
  );
}

/** A random, URL-safe secret for captcha ids and reset codes. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
