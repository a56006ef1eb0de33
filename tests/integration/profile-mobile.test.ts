import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, freshMobile, lastSmsCode, outboxEnv, sendSms } from '../support/identity.js';
import { createUserWithRole } from '../support/users.js';

let t: TestApp;
const outbox = outboxEnv();
beforeAll(async () => {
  t = await startTestApp({ env: outbox.env });
});
afterAll(async () => {
  await t.close();
});

const update = (headers: { authorization: string }, payload: Record<string, unknown>) =>
  t.request({ method: 'PUT', url: '/api/account/sysuserdetail/updateSysUserDetail', headers, payload });

async function codeFor(mobile: string): Promise<string> {
  expect((await sendSms(t, mobile)).statusCode).toBe(200);
  const code = lastSmsCode(outbox.smsOutbox, mobile);
  if (!code) throw new Error(`no SMS for ${mobile}`);
  return code;
}

describe('changing one’s mobile number', () => {
  it('needs the SMS code sent to the new number, once', async () => {
    const { id, token } = await createUserWithRole(t, 'mover', 'ROLE_SYS_BUYER');
    const headers = bearer(token);
    const mobileOf = async () =>
      (await t.sql<{ mobile: string }>('select mobile from sys_user where id = $1', [id]))[0]?.mobile;
    const before = await mobileOf();
    const newMobile = freshMobile();

    const noCode = await update(headers, { mobile: newMobile, nickname: 'Mover' });
    expect(noCode.statusCode).toBe(400);
    expect(noCode.json().errors).toEqual([{ field: '/smsCaptcha', message: expect.any(String) }]);

    const code = await codeFor(newMobile);
    const wrong = await update(headers, {
      mobile: newMobile,
      smsCaptcha: code === '000000' ? '111111' : '000000',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors[0].field).toBe('/smsCaptcha');
    // a code sent to another number proves nothing about this one
    const elsewhere = await codeFor(freshMobile());
    expect((await update(headers, { mobile: newMobile, smsCaptcha: elsewhere })).statusCode).toBe(400);
    expect(await mobileOf()).toBe(before);

    const changed = await update(headers, { mobile: newMobile, smsCaptcha: code, nickname: 'Mover' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toMatchObject({ mobile: newMobile, nickname: 'Mover' });
    expect(await mobileOf()).toBe(newMobile);

    // the code is used up: it cannot move the number again
    const back = await update(headers, { mobile: before, smsCaptcha: code });
    expect(back.statusCode).toBe(400);
    expect(await mobileOf()).toBe(newMobile);

    // the current number, or other fields alone, need no code
    expect((await update(headers, { mobile: newMobile, address: '上海' })).statusCode).toBe(200);
    expect((await update(headers, { nickname: 'Mover 2' })).statusCode).toBe(200);
    // and the number cannot be removed
    expect((await update(headers, { mobile: '' })).statusCode).toBe(400);
  });
});
