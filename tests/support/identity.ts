import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { hashCode } from '../../src/server/lib/store/codes.js';
import { BROWSER_CLIENT, type TestApp } from './app.js';

/** Outbox files of one test app, in a directory of their own (it does not exist until a first send). */
export function outboxEnv(): { env: Record<string, string>; smsOutbox: string; mailOutbox: string } {
  const dir = join(tmpdir(), `ecobid-outbox-${randomBytes(6).toString('hex')}`, 'nested');
  const smsOutbox = join(dir, 'sms.jsonl');
  const mailOutbox = join(dir, 'mail.jsonl');
  return { env: { SMS_OUTBOX: smsOutbox, MAIL_OUTBOX: mailOutbox }, smsOutbox, mailOutbox };
}

export function readJsonLines<T = Record<string, unknown>>(path: string): T[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** The last SMS code the outbox holds for a mobile number. */
export function lastSmsCode(path: string, mobile: string): string | undefined {
  return readJsonLines<{ mobile: string; code: string }>(path)
    .filter((line) => line.mobile === mobile)
    .at(-1)?.code;
}

export function tokenRequest(
  t: TestApp,
  params: Record<string, string>,
  client = BROWSER_CLIENT,
): Promise<LightMyRequestResponse> {
  return t.request({
    method: 'POST',
    url: '/api/uaa/oauth/token',
    headers: { authorization: client, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      scope: 'ui',
      client_id: 'browser',
      tenantCode: 'default',
      ...params,
    }).toString(),
  });
}

/**
 * A character captcha solved as a person would: the image cannot be read back and only a hash of
 * the answer is stored, so the test gives it an answer of its own.
 */
export async function solvedCaptcha(
  t: TestApp,
  answer = 'k7pm',
): Promise<{ captchaId: string; charCaptcha: string }> {
  const issued = await t.request({ method: 'GET', url: '/api/account/captcha/getCharCaptcha' });
  const { captchaId } = issued.json<{ data: { captchaId: string } }>().data;
  await t.sql('update sys_verification_code set code_hash = $1 where target = $2', [
    hashCode(answer),
    captchaId,
  ]);
  return { captchaId, charCaptcha: answer };
}

/**
 * GET getSmsCaptcha?mobile=, with a solved character captcha as the registration form sends it
 * (a number no user has needs one); `captcha: false` sends none.
 */
export async function sendSms(
  t: TestApp,
  mobile: string,
  options: { captcha?: boolean } = {},
): Promise<LightMyRequestResponse> {
  const captcha = options.captcha === false ? {} : await solvedCaptcha(t);
  const query = new URLSearchParams({ mobile, ...captcha });
  return t.request({ method: 'GET', url: `/api/account/captcha/getSmsCaptcha?${query}` });
}

let mobiles = 0;
/** A mobile number no other test of the process uses. */
export function freshMobile(): string {
  mobiles += 1;
  return `137${String(process.pid % 10000).padStart(4, '0')}${String(mobiles).padStart(4, '0')}`;
}

export const bearer = (token: string): { authorization: string } => ({ authorization: `Bearer ${token}` });
