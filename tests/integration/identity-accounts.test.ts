import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCode } from '../../src/server/lib/store/codes.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, freshMobile, lastSmsCode, outboxEnv, readJsonLines, sendSms } from '../support/identity.js';

let t: TestApp;
const outbox = outboxEnv();
beforeAll(async () => {
  t = await startTestApp({ env: { ...outbox.env, RATE_LIMIT_CAPTCHA: '200' } });
});
afterAll(async () => {
  await t.close();
});

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url, payload: payload as Record<string, unknown>, headers });

/** Sends an SMS code to a fresh mobile number and reads it from the outbox. */
async function smsFor(mobile = freshMobile()): Promise<{ mobile: string; smsCaptcha: string }> {
  expect((await sendSms(t, mobile)).statusCode).toBe(200);
  return { mobile, smsCaptcha: lastSmsCode(outbox.smsOutbox, mobile) ?? '' };
}

async function registration(username: string, extra: Record<string, unknown>) {
  return {
    username,
    password: 'secret-1',
    confirmPassword: 'secret-1',
    email: `${username}@example.com`,
    ...(await smsFor()),
    ...extra,
  };
}

async function userRow(username: string) {
  const [row] = await t.sql<{
    id: number;
    user_type: number;
    role_code: string;
    org_name: string;
    status: string;
  }>(
    `select u.id, u.user_type, r.role_code, o.org_name, u.status from sys_user u
     join sys_role r on r.id = u.role_id join sys_org o on o.id = u.org_id where u.username = $1`,
    [username],
  );
  return row;
}

describe('registration', () => {
  it('registers a buyer with its organisation, role ROLE_SYS_BUYER and userType 1, who can then sign in', async () => {
    const body = await registration('buyer_one', { userType: 1, companyName: '绿源环保科技有限公司' });
    const response = await post('/api/account/sysuserdetail/registerAccount', body);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      username: 'buyer_one',
      userType: 1,
      roleCode: 'ROLE_SYS_BUYER',
    });
    expect(await userRow('buyer_one')).toMatchObject({
      user_type: 1,
      role_code: 'ROLE_SYS_BUYER',
      org_name: '绿源环保科技有限公司',
      status: '1',
    });
    const signedIn = await t.signIn('buyer_one', 'secret-1');
    expect(signedIn.statusCode).toBe(200);
    const me = await t.request({
      method: 'GET',
      url: '/api/uaa/users/getSysUser',
      headers: bearer(signedIn.json().access_token),
    });
    expect(me.json().data).toMatchObject({
      userType: 1,
      roles: ['ROLE_SYS_BUYER'],
      orgName: '绿源环保科技有限公司',
    });
    const taken = await post('/api/account/sysuserdetail/queryCompanyName', {
      companyName: '绿源环保科技有限公司',
    });
    expect(taken.json().data).toEqual({ companyName: '绿源环保科技有限公司', isTaken: true });
    const free = await post('/api/account/sysuserdetail/queryCompanyName', { companyName: '无人使用的公司' });
    expect(free.json().data.isTaken).toBe(false);
  });

  it('registers a supplier (register, userType "supplier") and a tourist without an organisation of its own', async () => {
    const supplier = await post(
      '/api/account/sysuserdetail/register',
      await registration('supplier_one', { userType: 'supplier', orgName: '清水设备有限公司' }),
    );
    expect(supplier.statusCode).toBe(200);
    expect(await userRow('supplier_one')).toMatchObject({
      user_type: 2,
      role_code: 'ROLE_SYS_SUPPLIER',
      org_name: '清水设备有限公司',
    });

    const tourist = await post(
      '/api/account/sysuserdetail/register',
      await registration('tourist_one', { userType: 'tourist' }),
    );
    expect(tourist.statusCode).toBe(200);
    expect(await userRow('tourist_one')).toMatchObject({
      user_type: 0,
      role_code: 'ROLE_SYS_TOURIST',
      org_name: '游客',
    });
    const second = await post(
      '/api/account/sysuserdetail/register',
      await registration('tourist_two', { userType: 0 }),
    );
    expect(second.statusCode).toBe(200);
    expect((await userRow('tourist_two'))?.org_name).toBe('游客');
    expect((await t.signIn('tourist_two', 'secret-1')).statusCode).toBe(200);
  });

  it('refuses bad input with 400 naming each field, before using the SMS code', async () => {
    const sms = await smsFor();
    const bad = await post('/api/account/sysuserdetail/registerAccount', {
      userType: 7,
      username: 'x',
      password: '123',
      confirmPassword: '456',
      email: 'not-an-email',
      ...sms,
    });
    expect(bad.statusCode).toBe(400);
    const fields = bad.json().errors.map((error: { field: string }) => error.field);
    expect(fields).toEqual(
      expect.arrayContaining(['/userType', '/username', '/password', '/email', '/confirmPassword']),
    );
    const noCompany = await post('/api/account/sysuserdetail/registerAccount', {
      userType: 'buyer',
      username: 'buyer_nocompany',
      password: 'secret-1',
      email: 'a@example.com',
      ...sms,
    });
    expect(noCompany.statusCode).toBe(400);
    expect(noCompany.json().errors.map((error: { field: string }) => error.field)).toEqual(['/orgName']);
    const notObject = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/register',
      headers: { 'content-type': 'application/json' },
      payload: '"just a string"',
    });
    expect(notObject.statusCode).toBe(400);
    // The code is still good.
    const good = await post('/api/account/sysuserdetail/registerAccount', {
      userType: 'buyer',
      username: 'buyer_after_errors',
      password: 'secret-1',
      email: 'b@example.com',
      companyName: '再试一次有限公司',
      ...sms,
    });
    expect(good.statusCode).toBe(200);
  });

  it('checks the SMS code of the mobile number and uses it once', async () => {
    const body = await registration('buyer_code', { userType: 1, companyName: '验证码公司' });
    const wrong = await post('/api/account/sysuserdetail/registerAccount', {
      ...body,
      smsCaptcha: body.smsCaptcha === '000000' ? '000001' : '000000',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors).toEqual([{ field: '/smsCaptcha', message: '短信验证码错误或已失效' }]);
    expect(await userRow('buyer_code')).toBeUndefined();
    expect((await post('/api/account/sysuserdetail/registerAccount', body)).statusCode).toBe(200);
    const replay = await post('/api/account/sysuserdetail/registerAccount', {
      ...body,
      username: 'buyer_code2',
      companyName: '另一家公司',
    });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().errors[0].field).toBe('/smsCaptcha');
  });

  it('answers a taken user name, mobile or company name with 409 naming the field, creating nothing', async () => {
    const first = await registration('dup_user', { userType: 2, companyName: '重复公司' });
    expect((await post('/api/account/sysuserdetail/registerAccount', first)).statusCode).toBe(200);
    const sameName = await post(
      '/api/account/sysuserdetail/registerAccount',
      await registration('dup_user', { userType: 2, companyName: '不重复公司' }),
    );
    expect(sameName.statusCode).toBe(409);
    expect(sameName.json().errors.map((error: { field: string }) => error.field)).toEqual(['/username']);
    const sameCompany = await post(
      '/api/account/sysuserdetail/registerAccount',
      await registration('dup_user2', { userType: 2, companyName: '重复公司' }),
    );
    expect(sameCompany.statusCode).toBe(409);
    expect(sameCompany.json().errors.map((error: { field: string }) => error.field)).toEqual([
      '/companyName',
    ]);
    const orgs = await t.sql("select id from sys_org where org_name = '不重复公司'");
    expect(orgs).toEqual([]);
  });
});

describe('password retrieval by mail', () => {
  async function captcha(): Promise<{ captchaId: string; charCaptcha: string }> {
    const { captchaId } = (
      await t.request({ method: 'GET', url: '/api/account/captcha/getCharCaptcha' })
    ).json().data;
    await t.sql('update sys_verification_code set code_hash = $1 where target = $2', [
      hashCode('k7pm'),
      captchaId,
    ]);
    return { captchaId, charCaptcha: 'k7pm' };
  }

  it('mails a one-time, expiring code after a captcha; the code sets a new password and ends sessions', async () => {
    await post(
      '/api/account/sysuserdetail/registerAccount',
      await registration('forgetter', { userType: 1, companyName: '健忘公司' }),
    );
    const oldSession = (await t.signIn('forgetter', 'secret-1')).json().access_token as string;
    const compared = await captcha();
    // compareCaptcha first (as the form does), then the action uses the same captcha once.
    expect((await post('/api/account/sysuserdetail/compareCaptcha', compared)).statusCode).toBe(200);
    const asked = await post(
      '/api/account/sysuserdetail/retrievePassword',
      { email: 'FORGETTER@example.com', ...compared },
      { host: 'evil.example' },
    );
    expect(asked.statusCode).toBe(200);
    const mails = readJsonLines<{
      to: string;
      subject: string;
      text: string;
      data: { code: string; link: string };
    }>(outbox.mailOutbox);
    const mail = mails.at(-1);
    expect(mail).toMatchObject({ to: 'forgetter@example.com', subject: '找回密码' });
    // Without PUBLIC_URL the link is site-relative; it never comes from the Host header.
    expect(mail?.data.link).toMatch(/^\/forgetPwd\?code=/);
    expect(mail?.text).not.toContain('evil.example');
    expect(mail?.text).toContain(mail?.data.code);
    const code = mail?.data.code ?? '';
    // The captcha is used up.
    const again = await post('/api/account/sysuserdetail/retrievePassword', {
      email: 'forgetter@example.com',
      ...compared,
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().errors[0].field).toBe('/charCaptcha');

    const short = await post('/api/account/sysuserdetail/resetPassword', { code, newPassword: '123' });
    expect(short.statusCode).toBe(400);
    expect(short.json().errors[0].field).toBe('/newPassword');
    const reset = await post('/api/account/sysuserdetail/resetPassword', { code, newPassword: 'secret-9' });
    expect(reset.statusCode).toBe(200);
    expect((await t.signIn('forgetter', 'secret-1')).statusCode).toBe(400);
    expect((await t.signIn('forgetter', 'secret-9')).statusCode).toBe(200);
    const ended = await t.request({
      method: 'GET',
      url: '/api/uaa/users/getSysUser',
      headers: bearer(oldSession),
    });
    expect(ended.statusCode).toBe(401);
    const reused = await post('/api/account/sysuserdetail/resetPassword', { code, newPassword: 'secret-8' });
    expect(reused.statusCode).toBe(400);
    expect(reused.json()).toMatchObject({
      message: '重置码错误或已失效，请重新找回密码',
      errors: [{ field: '/code' }],
    });
  });

  it('refuses an expired code, and answers alike for an unknown address (no mail)', async () => {
    const before = readJsonLines(outbox.mailOutbox).length;
    const unknown = await post('/api/account/sysuserdetail/retrievePassword', {
      email: 'nobody@example.com',
      ...(await captcha()),
    });
    expect(unknown.statusCode).toBe(200);
    expect(readJsonLines(outbox.mailOutbox)).toHaveLength(before);

    await post('/api/account/sysuserdetail/retrievePassword', {
      email: 'forgetter@example.com',
      ...(await captcha()),
    });
    const code = readJsonLines<{ data: { code: string } }>(outbox.mailOutbox).at(-1)?.data.code ?? '';
    await t.sql(
      "update sys_verification_code set expires_at = now() - interval '1 second' where purpose = 'reset'",
    );
    const late = await post('/api/account/sysuserdetail/resetPassword', { code, newPassword: 'secret-7' });
    expect(late.statusCode).toBe(400);
    const wrongCaptcha = await post('/api/account/sysuserdetail/retrievePassword', {
      email: 'forgetter@example.com',
      captchaId: (await captcha()).captchaId,
      charCaptcha: 'wrong',
    });
    expect(wrongCaptcha.statusCode).toBe(400);
    const badEmail = await post('/api/account/sysuserdetail/retrievePassword', {
      email: 'nope',
      ...(await captcha()),
    });
    expect(badEmail.statusCode).toBe(400);
    expect(badEmail.json().errors[0].field).toBe('/email');
  });
});

describe('password by SMS', () => {
  it('checks mobile and code (checkMobileAndSms), then sets the password with the code once (editPassword)', async () => {
    const body = await registration('mobile_forgetter', { userType: 2, companyName: '短信公司' });
    expect((await post('/api/account/sysuserdetail/registerAccount', body)).statusCode).toBe(200);
    await t.sql(
      "update sys_verification_code set created_at = created_at - interval '2 minutes' where target = $1",
      [body.mobile],
    );
    const sms = await smsFor(body.mobile);
    const checked = await post('/api/account/sysuserdetail/checkMobileAndSms', sms);
    expect(checked.statusCode).toBe(200);
    expect(checked.json().data).toEqual({ mobile: body.mobile, username: 'mobile_forgetter' });
    const mismatch = await post('/api/account/sysuserdetail/editPassword', {
      ...sms,
      newPassword: 'secret-5',
      confirmPassword: 'other-5',
    });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().errors[0].field).toBe('/confirmPassword');
    const edited = await post('/api/account/sysuserdetail/editPassword', {
      ...sms,
      newPassword: 'secret-5',
      confirmPassword: 'secret-5',
    });
    expect(edited.statusCode).toBe(200);
    expect((await t.signIn('mobile_forgetter', 'secret-5')).statusCode).toBe(200);
    const replay = await post('/api/account/sysuserdetail/editPassword', { ...sms, newPassword: 'secret-6' });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().errors[0].field).toBe('/smsCaptcha');
    const unknownMobile = await smsFor();
    const notRegistered = await post('/api/account/sysuserdetail/checkMobileAndSms', unknownMobile);
    expect(notRegistered.statusCode).toBe(400);
    expect(notRegistered.json().errors[0].field).toBe('/mobile');
  });
});

describe('own profile', () => {
  it('changes only the own profile fields, checked by the user schema', async () => {
    await post(
      '/api/account/sysuserdetail/registerAccount',
      await registration('profiler', { userType: 1, companyName: '资料公司' }),
    );
    const headers = bearer((await t.signIn('profiler', 'secret-1')).json().access_token);
    const updated = await t.request({
      method: 'PUT',
      url: '/api/account/sysuserdetail/updateSysUserDetail',
      headers,
      payload: {
        nickname: '小资',
        address: '北京市',
        profile: '',
        geographic: '110000',
        username: 'profiler',
      },
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().data).toMatchObject({ nickname: '小资', address: '北京市', geographic: '110000' });
    expect(updated.json().data.password).toBeUndefined();
    const refused = await t.request({
      method: 'PUT',
      url: '/api/account/sysuserdetail/updateSysUserDetail',
      headers,
      payload: { nickname: 'x', password: 'hacked-1', roleId: 1, status: '0' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors.map((error: { field: string }) => error.field)).toEqual([
      '/password',
      '/roleId',
      '/status',
    ]);
    const invalid = await t.request({
      method: 'PUT',
      url: '/api/account/sysuserdetail/updateSysUserDetail',
      headers,
      payload: { email: 'not-an-email', nickname: '' },
    });
    expect(invalid.statusCode).toBe(400);
    expect(
      invalid
        .json()
        .errors.map((error: { field: string }) => error.field)
        .sort(),
    ).toEqual(['/email', '/nickname']);
    const takenMobile = await t.request({
      method: 'PUT',
      url: '/api/account/sysuserdetail/updateSysUserDetail',
      headers,
      // another user's number, confirmed by its SMS code: still refused, as a clash
      payload: await smsFor('13800000000'),
    });
    expect(takenMobile.statusCode).toBe(409);
    expect(takenMobile.json().errors[0].field).toBe('/mobile');
    const version = updated.json().data.version as number;
    const stale = await t.request({
      method: 'PUT',
      url: '/api/account/sysuserdetail/updateSysUserDetail',
      headers,
      payload: { nickname: '旧表单', version: version - 1 },
    });
    expect(stale.statusCode).toBe(409);
    const current = await t.request({
      method: 'PUT',
      url: '/api/account/sysuserdetail/updateSysUserDetail',
      headers,
      payload: { phone: '010-5678', version },
    });
    expect(current.statusCode).toBe(200);
    const someoneElse = await t.request({
      method: 'PUT',
      url: '/api/account/sysuserdetail/updateSysUserDetail',
      headers,
      payload: { id: 1, nickname: 'x' },
    });
    expect(someoneElse.statusCode).toBe(403);
    const [row] = await t.sql<{ status: string; nickname: string }>(
      "select status, nickname from sys_user where username = 'profiler'",
    );
    expect(row).toEqual({ status: '1', nickname: '小资' });
  });
});

describe('online users', () => {
  it('lists live sessions of the tenant with last_seen_at, and a forced logout ends one', async () => {
    await post(
      '/api/account/sysuserdetail/registerAccount',
      await registration('onliner', { userType: 1, companyName: '在线公司' }),
    );
    const token = (await t.signIn('onliner', 'secret-1')).json().access_token as string;
    const registered = await post('/api/admin/sysuser/registerNewSession', {}, bearer(token));
    expect(registered.statusCode).toBe(200);
    expect(registered.json().data.sessionId).toBeGreaterThan(0);

    const list = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/queryOnlineSysUser?username=onliner',
      headers: t.auth,
    });
    expect(list.statusCode).toBe(200);
    const records = list.json().data.records as {
      id: number;
      username: string;
      lastSeenAt: string;
      ip: string;
    }[];
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ username: 'onliner', ip: '127.0.0.1' });
    expect(Number.isNaN(Date.parse(records[0]?.lastSeenAt ?? ''))).toBe(false);
    const all = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/queryOnlineSysUser?pageSize=500',
      headers: t.auth,
    });
    expect(all.json().data.total).toBeGreaterThanOrEqual(2);

    // Only a role granted 在线用户 (ROLE_ADMIN, or the menu and its kickout button) may see or end sessions.
    const notAdmin = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/queryOnlineSysUser',
      headers: bearer(token),
    });
    expect(notAdmin.statusCode).toBe(403);
    const kickAdmin = await post('/api/admin/sysuser/forceLogout?userId=1', {}, bearer(token));
    expect(kickAdmin.statusCode).toBe(403);

    const kicked = await t.request({
      method: 'POST',
      url: `/api/admin/sysuser/forceLogout?id=${records[0]?.id}`,
      headers: t.auth,
    });
    expect(kicked.statusCode).toBe(200);
    expect(kicked.json().data).toEqual({ revoked: 1 });
    const after = await t.request({
      method: 'GET',
      url: '/api/uaa/users/getSysUser',
      headers: bearer(token),
    });
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toBe('invalid_token');
    const gone = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/queryOnlineSysUser?username=onliner',
      headers: t.auth,
    });
    expect(gone.json().data.records).toEqual([]);
    const bad = await t.request({
      method: 'POST',
      url: '/api/admin/sysuser/forceLogout?id=abc',
      headers: t.auth,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('/id');
    const none = await t.request({ method: 'POST', url: '/api/admin/sysuser/forceLogout', headers: t.auth });
    expect(none.statusCode).toBe(400);
  });

  it('tells whether a user name is taken', async () => {
    const taken = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/queryUsername?username=admin',
      headers: t.auth,
    });
    expect(taken.json().data).toEqual({ username: 'admin', isTaken: true });
    const free = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/queryUsername?username=free_name',
      headers: t.auth,
    });
    expect(free.json().data.isTaken).toBe(false);
    const missing = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/queryUsername',
      headers: t.auth,
    });
    expect(missing.statusCode).toBe(400);
  });
});
