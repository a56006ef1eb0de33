import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import {
  bearer,
  freshMobile,
  lastSmsCode,
  outboxEnv,
  readJsonLines,
  sendSms,
  solvedCaptcha,
  tokenRequest,
} from '../support/identity.js';

let t: TestApp;
const outbox = outboxEnv();
beforeAll(async () => {
  t = await startTestApp({ env: { ...outbox.env, SMS_DAILY_LIMIT: '3', RATE_LIMIT_CAPTCHA: '100' } });
});
afterAll(async () => {
  await t.close();
});

async function userWithMobile(username: string, mobile: string): Promise<void> {
  const added = await t.request({
    method: 'POST',
    url: '/api/admin/sysuser/add',
    headers: t.auth,
    payload: {
      username,
      nickname: username,
      password: 'secret-1',
      email: `${username}@example.com`,
      mobile,
      phone: '010-1234',
      roleId: 1,
      orgId: 1,
    },
  });
  expect(added.statusCode).toBe(200);
}

/** Lets the 60-second gap between two codes pass without waiting for it. */
const ageCodes = (mobile: string) =>
  t.sql(
    "update sys_verification_code set created_at = created_at - interval '61 seconds' where target = $1",
    [mobile],
  );

describe('SMS sign-in', () => {
  it('sends a code through the outbox and signs in with it once, trimming mobile and code', async () => {
    expect(existsSync(outbox.smsOutbox)).toBe(false);
    const mobile = freshMobile();
    await userWithMobile('texter', mobile);
    const sent = await sendSms(t, mobile);
    expect(sent.statusCode).toBe(200);
    expect(sent.json().data).toEqual({ mobile, expiresIn: 300, interval: 60 });
    const lines = readJsonLines<{ mobile: string; code: string; text: string; tenantCode: string }>(
      outbox.smsOutbox,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ mobile, tenantCode: 'default' });
    const code = lines[0]?.code ?? '';
    expect(code).toMatch(/^\d{6}$/);
    expect(lines[0]?.text).toContain(code);
    expect(sent.body).not.toContain(code);
    // Only a salted hash is stored.
    const stored = await t.sql<{ code_hash: string }>(
      'select code_hash from sys_verification_code where target = $1',
      [mobile],
    );
    expect(stored[0]?.code_hash).not.toContain(code);

    const signedIn = await tokenRequest(t, {
      grant_type: 'mobile',
      mobile: ` ${mobile} `,
      smsCaptcha: ` ${code} `,
    });
    expect(signedIn.statusCode).toBe(200);
    const token = signedIn.json().access_token as string;
    const me = await t.request({ method: 'GET', url: '/api/uaa/users/getSysUser', headers: bearer(token) });
    expect(me.json().data.username).toBe('texter');

    const again = await tokenRequest(t, { grant_type: 'mobile', mobile, smsCaptcha: code });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({
      message: '短信验证码错误或已失效',
      errors: [{ field: '/smsCaptcha' }],
    });
  });

  it('refuses a wrong, expired or replaced code, and a code for an unknown mobile', async () => {
    const mobile = freshMobile();
    await userWithMobile('texter2', mobile);
    await sendSms(t, mobile);
    const code = lastSmsCode(outbox.smsOutbox, mobile) ?? '';
    const wrong = await tokenRequest(t, {
      grant_type: 'mobile',
      mobile,
      smsCaptcha: code === '000000' ? '111111' : '000000',
    });
    expect(wrong.statusCode).toBe(400);
    // A newer code replaces the older one.
    await ageCodes(mobile);
    await sendSms(t, mobile);
    const newer = lastSmsCode(outbox.smsOutbox, mobile) ?? '';
    if (newer !== code) {
      expect((await tokenRequest(t, { grant_type: 'mobile', mobile, smsCaptcha: code })).statusCode).toBe(
        400,
      );
    }
    await t.sql(
      "update sys_verification_code set expires_at = now() - interval '1 second' where target = $1",
      [mobile],
    );
    const expired = await tokenRequest(t, { grant_type: 'mobile', mobile, smsCaptcha: newer });
    expect(expired.statusCode).toBe(400);

    const stranger = freshMobile();
    await sendSms(t, stranger);
    const strangerCode = lastSmsCode(outbox.smsOutbox, stranger) ?? '';
    const unknown = await tokenRequest(t, {
      grant_type: 'mobile',
      mobile: stranger,
      smsCaptcha: strangerCode,
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ message: '该手机号尚未注册', errors: [{ field: '/mobile' }] });

    const missing = await tokenRequest(t, { grant_type: 'mobile', mobile: ' ' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors.map((e: { field: string }) => e.field)).toEqual(['/mobile', '/smsCaptcha']);
  });

  it('lets a code die after 5 wrong guesses', async () => {
    const mobile = freshMobile();
    await userWithMobile('guessed', mobile);
    await sendSms(t, mobile);
    const code = lastSmsCode(outbox.smsOutbox, mobile) ?? '';
    const wrongCode = code === '999999' ? '999998' : '999999';
    const statuses = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      statuses.push(
        (await tokenRequest(t, { grant_type: 'mobile', mobile, smsCaptcha: wrongCode })).statusCode,
      );
    }
    // The fifth failure also locks the user (same lockout as passwords).
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    await t.sql("delete from sys_counter where counter_key like 'sign-in:%'");
    const right = await tokenRequest(t, { grant_type: 'mobile', mobile, smsCaptcha: code });
    expect(right.statusCode).toBe(400);
  });
});

describe('getSmsCaptcha limits', () => {
  it('sends one code per mobile per 60 s, answered 429 with a readable message, GET and POST alike', async () => {
    const mobile = freshMobile();
    expect((await sendSms(t, mobile)).statusCode).toBe(200);
    const tooSoon = await t.request({
      method: 'POST',
      url: '/api/account/captcha/getSmsCaptcha',
      payload: { mobile, ...(await solvedCaptcha(t)) },
    });
    expect(tooSoon.statusCode).toBe(429);
    expect(tooSoon.json()).toEqual({
      code: 429,
      message: expect.stringMatching(/^短信发送过于频繁，请 (59|60) 秒后再试$/),
    });
    expect(
      readJsonLines<{ mobile: string }>(outbox.smsOutbox).filter((line) => line.mobile === mobile),
    ).toHaveLength(1);
    await ageCodes(mobile);
    const posted = await t.request({
      method: 'POST',
      url: '/api/account/captcha/getSmsCaptcha',
      payload: { mobile, ...(await solvedCaptcha(t)) },
    });
    expect(posted.statusCode).toBe(200);
  });

  it('caps the codes of one mobile per day (SMS_DAILY_LIMIT)', async () => {
    const mobile = freshMobile();
    for (let sent = 0; sent < 3; sent += 1) {
      expect((await sendSms(t, mobile)).statusCode).toBe(200);
      await ageCodes(mobile);
    }
    const capped = await sendSms(t, mobile);
    expect(capped.statusCode).toBe(429);
    expect(capped.json().message).toBe('该手机号今日获取验证码次数已达上限（3 次），请明天再试');
    const english = await t.request({
      method: 'GET',
      url: `/api/account/captcha/getSmsCaptcha?${new URLSearchParams({ mobile, ...(await solvedCaptcha(t)) })}`,
      headers: { 'accept-language': 'en' },
    });
    expect(english.json().message).toMatch(/tomorrow/);
    // A day later the cap is lifted.
    await t.sql(
      "update sys_verification_code set created_at = created_at - interval '1 day' where target = $1",
      [mobile],
    );
    expect((await sendSms(t, mobile)).statusCode).toBe(200);
  });

  it('refuses a malformed or missing mobile with 400 naming it', async () => {
    const bad = await sendSms(t, 'abc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('/mobile');
    const none = await t.request({ method: 'POST', url: '/api/account/captcha/getSmsCaptcha', payload: {} });
    expect(none.statusCode).toBe(400);
    expect(none.json().errors).toEqual([{ field: '/mobile', message: '不能为空' }]);
    const array = await t.request({
      method: 'POST',
      url: '/api/account/captcha/getSmsCaptcha',
      payload: [1],
    });
    expect(array.statusCode).toBe(400);
  });

  it('keeps the counts in the database: parallel sends to one mobile give one code', async () => {
    const mobile = freshMobile();
    const answers = await Promise.all(Array.from({ length: 5 }, () => sendSms(t, mobile)));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 429, 429, 429, 429]);
  });
});

describe('getSmsCaptcha abuse (issue 11, point 6)', () => {
  const sentTo = (mobile: string): number =>
    readJsonLines<{ mobile: string }>(outbox.smsOutbox).filter((line) => line.mobile === mobile).length;

  it('sends to a number no user has only with a solved character captcha, used up by the send', async () => {
    const stranger = freshMobile();
    const bare = await sendSms(t, stranger, { captcha: false });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().errors.map((error: { field: string }) => error.field)).toEqual([
      '/charCaptcha',
      '/captchaId',
    ]);
    const wrong = await t.request({
      method: 'POST',
      url: '/api/account/captcha/getSmsCaptcha',
      payload: {
        mobile: stranger,
        captchaId: (await solvedCaptcha(t, 'ab3d')).captchaId,
        charCaptcha: 'zzzz',
      },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors).toEqual([
      { field: '/charCaptcha', message: '图形验证码错误或已失效，请刷新后重试' },
    ]);
    expect(sentTo(stranger)).toBe(0);

    const captcha = await solvedCaptcha(t);
    const solved = await t.request({
      method: 'POST',
      url: '/api/account/captcha/getSmsCaptcha',
      payload: { mobile: stranger, ...captcha },
    });
    expect(solved.statusCode, solved.body).toBe(200);
    expect(sentTo(stranger)).toBe(1);
    // One captcha, one send: it does not open the way to a second number.
    const reused = await t.request({
      method: 'POST',
      url: '/api/account/captcha/getSmsCaptcha',
      payload: { mobile: freshMobile(), ...captcha },
    });
    expect(reused.statusCode).toBe(400);
    expect(reused.json().errors[0].field).toBe('/charCaptcha');
  });

  it('needs no captcha for a number a user of the tenant has, or for a signed-in caller', async () => {
    const mobile = freshMobile();
    await userWithMobile('registered_texter', mobile);
    expect((await sendSms(t, mobile, { captcha: false })).statusCode).toBe(200);
    const newNumber = freshMobile();
    const signedIn = await t.request({
      method: 'GET',
      url: `/api/account/captcha/getSmsCaptcha?mobile=${newNumber}`,
      headers: t.auth,
    });
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    // A number registered in one tenant is a stranger's in another.
    const otherTenant = await t.request({
      method: 'GET',
      url: `/api/account/captcha/getSmsCaptcha?mobile=${mobile}&tenantCode=nosuchtenant`,
    });
    expect(otherTenant.statusCode).toBe(400);
    expect(otherTenant.json().errors[0].field).toBe('/tenantCode');
  });

  it('counts GET and POST on one rate limit per client address', async () => {
    await t.sql("delete from sys_counter where counter_key like 'rate:%'");
    // RATE_LIMIT_CAPTCHA=100 calls a minute, half by GET and half by POST (refused for a missing number).
    for (let call = 0; call < 100; call += 1) {
      const answer =
        call % 2 === 0
          ? await t.request({ method: 'GET', url: '/api/account/captcha/getSmsCaptcha' })
          : await t.request({ method: 'POST', url: '/api/account/captcha/getSmsCaptcha', payload: {} });
      expect(answer.statusCode).toBe(400);
    }
    for (const method of ['GET', 'POST'] as const) {
      const limited = await t.request({
        method,
        url: '/api/account/captcha/getSmsCaptcha',
        payload: method === 'POST' ? {} : undefined,
      });
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ code: 429 });
    }
  });
});
