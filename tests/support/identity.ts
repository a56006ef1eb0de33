import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
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

export async function sendSms(t: TestApp, mobile: string): Promise<LightMyRequestResponse> {
  return t.request({ method: 'GET', url: `/api/account/captcha/getSmsCaptcha?mobile=${mobile}` });
}

let mobiles = 0;
/** A mobile number no other test of the process uses. */
export function freshMobile(): string {
  mobiles += 1;
  return `137${String(process.pid % 10000).padStart(4, '0')}${String(mobiles).padStart(4, '0')}`;
}

export const bearer = (token: string): { authorization: string } => ({ authorization: `Bearer ${token}` });
