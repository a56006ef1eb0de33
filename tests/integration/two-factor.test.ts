/**
 * Two-factor sign-in (TOTP, README "Two-factor sign-in"): enrolment in 个人中心 (QR code, secret,
 * confirmation, recovery codes shown once), the second step after the password or the SMS code
 * (no session before it), wrong codes locked out like the password, a recovery code good once,
 * enforcement per role and per tenant (enrolment before the session), the administrator's reset
 * ending the user's sessions, another tenant's user refused. Codes are made from the secret the
 * API shows, as an authenticator app makes them. Run on PGlite and (TEST_DATABASE_URL) PostgreSQL.
 */
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, lastSmsCode, outboxEnv, sendSms, tokenRequest } from '../support/identity.js';
import { createUserWithRole, USER_PASSWORD } from '../support/users.js';

type Json = Record<string, unknown>;

let t: TestApp;
const outbox = outboxEnv();
const MAX_FAILURES = 3;

const dataOf = <T = Json>(response: LightMyRequestResponse): T => (response.json() as Json).data as T;

/** The code an authenticator app shows for the secret, `offsetSteps` periods from now. */
function codeOf(secret: string, offsetSteps = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

const post = (url: string, payload: Json, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url, payload, headers });

/** Enrols the signed-in user from 个人中心; answers the secret and the recovery codes. */
async function enrol(token: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await post('/api/account/twoFactor/setup', {}, bearer(token));
  expect(setup.statusCode, setup.body).toBe(200);
  const { secret, otpauthUrl, qrSvg } = dataOf<{ secret: string; otpauthUrl: string; qrSvg: string }>(setup);
  expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
  expect(otpauthUrl).toContain(`secret=${secret}`);
  expect(qrSvg).toContain('<svg');
  const enabled = await post('/api/account/twoFactor/enable', { code: codeOf(secret) }, bearer(token));
  expect(enabled.statusCode, enabled.body).toBe(200);
  const { recoveryCodes } = dataOf<{ recoveryCodes: string[] }>(enabled);
  expect(recoveryCodes).toHaveLength(10);
  return { secret, recoveryCodes };
}

beforeAll(async () => {
  t = await startTestApp({ env: { ...outbox.env, SIGN_IN_MAX_FAILURES: String(MAX_FAILURES) } });
});

afterAll(async () => {
  await t?.close();
});

describe('enrolment and the second step', () => {
  let secret = '';
  let recoveryCodes: string[] = [];
  const username = 'tf_alice';

  it('enrols from 个人中心 with a QR code, a confirming code and recovery codes', async () => {
    const { token } = await createUserWithRole(t, username, 'ROLE_SYS_BUYER');
    const before = await t.request({
      method: 'GET',
      url: '/api/account/twoFactor/status',
      headers: bearer(token),
    });
    expect(dataOf(before)).toMatchObject({ isEnabled: false, isRequired: false, recoveryCodesLeft: 0 });
    const wrong = await post('/api/account/twoFactor/setup', {}, bearer(token));
    const pending = dataOf<{ secret: string }>(wrong).secret;
    const refused = await post(
      '/api/account/twoFactor/enable',
      { code: codeOf(pending) === '000000' ? '111111' : '000000' },
      bearer(token),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([expect.objectContaining({ field: '/code' })]);
    ({ secret, recoveryCodes } = await enrol(token));
    const after = await t.request({
      method: 'GET',
      url: '/api/account/twoFactor/status',
      headers: bearer(token),
    });
    expect(dataOf(after)).toMatchObject({ isEnabled: true, recoveryCodesLeft: 10 });
    // Only hashes are kept: neither the recovery codes nor the challenge tokens are readable.
    const stored = await t.sql<{ code_hash: string }>(
      'select code_hash from sys_two_factor_recovery r join sys_user u on u.id = r.user_id where u.username = $1',
      [username],
    );
    expect(stored).toHaveLength(10);
    expect(stored.map((row) => row.code_hash)).not.toContain(recoveryCodes[0]);
  });

  it('the password alone opens no session: a challenge, then the code', async () => {
    const sessionsBefore = await t.sql<{ count: string }>(
      'select count(*) as count from sys_session s join sys_user u on u.id = s.user_id where u.username = $1 and s.revoked_at is null',
      [username],
    );
    const first = await t.signIn(username, USER_PASSWORD);
    expect(first.statusCode, first.body).toBe(200);
    const challenge = first.json() as Json;
    expect(challenge).toMatchObject({ second_step: 'totp', expires_in: 300 });
    expect(challenge).not.toHaveProperty('access_token');
    const sessionsAfter = await t.sql<{ count: string }>(
      'select count(*) as count from sys_session s join sys_user u on u.id = s.user_id where u.username = $1 and s.revoked_at is null',
      [username],
    );
    expect(sessionsAfter[0]?.count).toBe(sessionsBefore[0]?.count);
    // The challenge token is no bearer token.
    const notASession = await t.request({
      method: 'GET',
      url: '/api/uaa/users/getSysUser',
      headers: bearer(String(challenge.challenge_token)),
    });
    expect(notASession.statusCode).toBe(401);
    const verified = await post('/api/uaa/twoFactor/verify', {
      challengeToken: challenge.challenge_token,
      // The enrolment used this period's code, and a code is good once: the next period's (the window allows it).
      code: codeOf(secret, 1),
    });
    expect(verified.statusCode, verified.body).toBe(200);
    const token = String(verified.json().access_token);
    const me = await t.request({ method: 'GET', url: '/api/uaa/users/getSysUser', headers: bearer(token) });
    expect(dataOf(me)).toMatchObject({ username });
    // A challenge is good once.
    const again = await post('/api/uaa/twoFactor/verify', {
      challengeToken: challenge.challenge_token,
      code: codeOf(secret, 1),
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().errors).toEqual([expect.objectContaining({ field: '/challengeToken' })]);
  });

  it('the SMS code sign-in asks for the second step too', async () => {
    const [user] = await t.sql<{ mobile: string }>('select mobile from sys_user where username = $1', [
      username,
    ]);
    const mobile = user?.mobile ?? '';
    expect((await sendSms(t, mobile)).statusCode).toBe(200);
    const first = await tokenRequest(t, {
      grant_type: 'mobile',
      mobile,
      smsCaptcha: lastSmsCode(outbox.smsOutbox, mobile) ?? '',
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ second_step: 'totp' });
    expect(first.json()).not.toHaveProperty('access_token');
  });

  it('a recovery code signs in once', async () => {
    const code = recoveryCodes[0] ?? '';
    const first = await t.signIn(username, USER_PASSWORD);
    const used = await post('/api/uaa/twoFactor/verify', {
      challengeToken: first.json().challenge_token,
      code: code.toUpperCase(),
    });
    expect(used.statusCode, used.body).toBe(200);
    expect(used.json()).toHaveProperty('access_token');
    const second = await t.signIn(username, USER_PASSWORD);
    const reused = await post('/api/uaa/twoFactor/verify', {
      challengeToken: second.json().challenge_token,
      code,
    });
    expect(reused.statusCode).toBe(400);
    expect(reused.json().errors).toEqual([expect.objectContaining({ field: '/code' })]);
    const token = String(used.json().access_token);
    const status = await t.request({
      method: 'GET',
      url: '/api/account/twoFactor/status',
      headers: bearer(token),
    });
    expect(dataOf(status)).toMatchObject({ recoveryCodesLeft: 9 });
  });

  it('wrong codes lock the account like wrong passwords, and a new password step does not unlock it', async () => {
    const first = await t.signIn(username, USER_PASSWORD);
    const challengeToken = first.json().challenge_token as string;
    const wrong = codeOf(secret, 5);
    const answers: number[] = [];
    // The reused recovery code above was the first failure since the last sign-in.
    for (let attempt = 1; attempt < MAX_FAILURES; attempt += 1)
      answers.push((await post('/api/uaa/twoFactor/verify', { challengeToken, code: wrong })).statusCode);
    expect(answers).toEqual([...Array.from({ length: MAX_FAILURES - 2 }, () => 400), 429]);
    // Locked: the right code is refused, and so is the password step.
    const locked = await post('/api/uaa/twoFactor/verify', { challengeToken, code: codeOf(secret, 1) });
    expect(locked.statusCode).toBe(429);
    expect((await t.signIn(username, USER_PASSWORD)).statusCode).toBe(429);
  });
});

describe('enforcement and reset', () => {
  it('a role that requires two-factor makes its users enrol before their session', async () => {
    const { id } = await createUserWithRole(t, 'tf_bob', 'ROLE_SYS_SUPPLIER');
    const [role] = await t.sql<{ id: number; version: number }>(
      "select id, version from sys_role where role_code = 'ROLE_SYS_SUPPLIER' and tenant_code = 'default'",
    );
    const flagged = await t.request({
      method: 'PUT',
      url: '/api/admin/sysrole/update',
      headers: t.auth,
      payload: { id: role?.id, version: role?.version, requireTwoFactor: true },
    });
    expect(flagged.statusCode, flagged.body).toBe(200);
    const first = await t.signIn('tf_bob', USER_PASSWORD);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ second_step: 'enrol' });
    const challengeToken = first.json().challenge_token as string;
    // The enrolment challenge opens no session with a code alone.
    const skipped = await post('/api/uaa/twoFactor/verify', { challengeToken, code: '123456' });
    expect(skipped.statusCode).toBe(400);
    const setup = await post('/api/uaa/twoFactor/enrol', { challengeToken });
    expect(setup.statusCode, setup.body).toBe(200);
    const { secret } = dataOf<{ secret: string }>(setup);
    const confirmed = await post('/api/uaa/twoFactor/confirm', { challengeToken, code: codeOf(secret) });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json().recovery_codes).toHaveLength(10);
    const token = String(confirmed.json().access_token);
    const me = await t.request({ method: 'GET', url: '/api/uaa/users/getSysUser', headers: bearer(token) });
    expect(dataOf(me)).toMatchObject({ username: 'tf_bob' });
    const status = await t.request({
      method: 'GET',
      url: `/api/admin/sysuser/twoFactorStatus?userId=${id}`,
      headers: t.auth,
    });
    expect(dataOf(status)).toMatchObject({ isEnabled: true, isRequired: true });

    // The administrator's reset ends the user's sessions; the next sign-in enrols again.
    const reset = await post('/api/admin/sysuser/resetTwoFactor', { userId: id }, t.auth);
    expect(reset.statusCode, reset.body).toBe(200);
    const ended = await t.request({
      method: 'GET',
      url: '/api/uaa/users/getSysUser',
      headers: bearer(token),
    });
    expect(ended.statusCode).toBe(401);
    expect((await t.signIn('tf_bob', USER_PASSWORD)).json()).toMatchObject({ second_step: 'enrol' });

    const unflagged = await t.request({
      method: 'PUT',
      url: '/api/admin/sysrole/update',
      headers: t.auth,
      payload: { id: role?.id, version: (role?.version ?? 0) + 1, requireTwoFactor: false },
    });
    expect(unflagged.statusCode, unflagged.body).toBe(200);
    expect((await t.signIn('tf_bob', USER_PASSWORD)).json()).toHaveProperty('access_token');
  });

  it('the tenant param requires two-factor of every user of the tenant', async () => {
    await createUserWithRole(t, 'tf_carol', 'ROLE_SYS_BUYER');
    const param = await t.request({
      method: 'POST',
      url: '/api/admin/sysparam/add',
      headers: t.auth,
      payload: { paramKey: 'twoFactorRequired', paramValue: '1', paramName: 'Two-factor required' },
    });
    expect(param.statusCode, param.body).toBe(200);
    expect((await t.signIn('tf_carol', USER_PASSWORD)).json()).toMatchObject({ second_step: 'enrol' });
    const added = dataOf<{ id: number; version: number }>(param);
    const removed = await t.request({
      method: 'PUT',
      url: '/api/admin/sysparam/update',
      headers: t.auth,
      payload: { id: added.id, version: added.version, paramValue: '0' },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await t.signIn('tf_carol', USER_PASSWORD)).json()).toHaveProperty('access_token');
  });

  it('disabling needs the password and a code', async () => {
    const { token } = await createUserWithRole(t, 'tf_dave', 'ROLE_SYS_BUYER');
    const { secret } = await enrol(token);
    const badPassword = await post(
      '/api/account/twoFactor/disable',
      { password: 'not-it', code: codeOf(secret, 1) },
      bearer(token),
    );
    expect(badPassword.statusCode).toBe(400);
    expect(badPassword.json().errors).toEqual([expect.objectContaining({ field: '/password' })]);
    const disabled = await post(
      '/api/account/twoFactor/disable',
      { password: USER_PASSWORD, code: codeOf(secret, 1) },
      bearer(token),
    );
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect((await t.signIn('tf_dave', USER_PASSWORD)).json()).toHaveProperty('access_token');
  });

  it("another tenant's administrator cannot read or reset a user's two-factor (404)", async () => {
    const tenant = await post(
      '/api/admin/systenant/add',
      { tenantCode: 'tfbeta', tenantName: 'TF Beta' },
      t.auth,
    );
    expect(tenant.statusCode, tenant.body).toBe(200);
    const admin = dataOf<{ admin: { username: string; initialPassword: string } }>(tenant).admin;
    const signedIn = await t.signIn(admin.username, admin.initialPassword, 'tfbeta');
    const beta = bearer(String(signedIn.json().access_token));
    const [alice] = await t.sql<{ id: number }>("select id from sys_user where username = 'tf_alice'");
    const read = await t.request({
      method: 'GET',
      url: `/api/admin/sysuser/twoFactorStatus?userId=${alice?.id}`,
      headers: beta,
    });
    expect(read.statusCode).toBe(404);
    const reset = await post('/api/admin/sysuser/resetTwoFactor', { userId: alice?.id }, beta);
    expect(reset.statusCode).toBe(404);
    const kept = await t.sql<{ count: string }>(
      'select count(*) as count from sys_two_factor where user_id = $1 and enabled_at is not null',
      [alice?.id],
    );
    expect(Number(kept[0]?.count)).toBe(1);
  });
});
