import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/app.js';
import { bearer, tokenRequest } from '../support/identity.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { SIGN_IN_MAX_FAILURES: '5', SIGN_IN_LOCK_MINUTES: '15' } });
});
afterAll(async () => {
  await t.close();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const whoAmI = (token: string) =>
  t.request({ method: 'GET', url: '/api/uaa/users/getSysUser', headers: bearer(token) });

async function addUser(username: string, password = 'secret-1'): Promise<void> {
  const added = await t.request({
    method: 'POST',
    url: '/api/admin/sysuser/add',
    headers: t.auth,
    payload: {
      username,
      nickname: username,
      password,
      email: `${username}@example.com`,
      mobile: `1360000${String(Math.floor(Math.random() * 10000)).padStart(4, '0')}`,
      phone: '010-1234',
      roleId: 1,
      orgId: 1,
    },
  });
  expect(added.statusCode).toBe(200);
}

/** A client of its own, written straight to the table so that lifetimes below the form's minimum are possible. */
async function addClient(code: string, grants: string[], tokenSeconds: number, refreshSeconds: number) {
  await t.sql(
    `insert into sys_app_client (client_code, auth_type, auth_scope, token_seconds, refresh_seconds, tenant_code)
     values ($1, $2::jsonb, 'ui', $3, $4, 'default')`,
    [code, JSON.stringify(grants), tokenSeconds, refreshSeconds],
  );
  return `Basic ${Buffer.from(`${code}:`).toString('base64')}`;
}

describe('refresh_token grant', () => {
  it('rotates: a new pair works, the old access and refresh tokens stop working', async () => {
    const first = (await t.signIn('admin', ADMIN_PASSWORD)).json();
    expect((await whoAmI(first.access_token)).statusCode).toBe(200);
    const refreshed = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
    });
    expect(refreshed.statusCode).toBe(200);
    const second = refreshed.json();
    expect(second).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: 'ui', message: 'success' });
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await whoAmI(second.access_token)).json().data.username).toBe('admin');
    const oldAccess = await whoAmI(first.access_token);
    expect(oldAccess.statusCode).toBe(401);
    expect(oldAccess.json().error).toBe('invalid_token');
    const reused = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(reused.statusCode).toBe(400);
    expect(reused.json()).toMatchObject({
      code: 400,
      message: '登录已过期，请重新登录',
      errors: [{ field: '/refresh_token' }],
    });
    expect(reused.json().access_token).toBeUndefined();
  });

  it('refuses a missing, unknown or logged-out refresh token, and one of another client', async () => {
    const missing = await tokenRequest(t, { grant_type: 'refresh_token' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors).toEqual([{ field: '/refresh_token', message: '不能为空' }]);
    const unknown = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: 'x'.repeat(43) });
    expect(unknown.statusCode).toBe(400);

    const session = (await t.signIn('admin', ADMIN_PASSWORD)).json();
    const other = await addClient('other-app', ['password', 'refresh_token'], 7200, 7200);
    const foreign = await tokenRequest(
      t,
      { grant_type: 'refresh_token', refresh_token: session.refresh_token, client_id: 'other-app' },
      other,
    );
    expect(foreign.statusCode).toBe(400);
    await t.request({ method: 'POST', url: '/api/uaa/oauth/logout', headers: bearer(session.access_token) });
    const afterLogout = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: session.refresh_token,
    });
    expect(afterLogout.statusCode).toBe(400);
  });

  it('honours tokenSeconds and refreshSeconds of the client: expired tokens get 401, expired refresh 400', async () => {
    const client = await addClient('tiny', ['password', 'refresh_token'], 1, 3);
    const signIn = await tokenRequest(
      t,
      { grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD, client_id: 'tiny' },
      client,
    );
    expect(signIn.statusCode).toBe(200);
    const tokens = signIn.json();
    expect(tokens.expires_in).toBe(1);
    expect((await whoAmI(tokens.access_token)).statusCode).toBe(200);
    await sleep(1200);
    const expired = await whoAmI(tokens.access_token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({
      code: 401,
      error: 'invalid_token',
      message: '登录失效，请重新登录',
    });
    // The refresh token outlives the access token...
    const refreshed = await tokenRequest(
      t,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'tiny' },
      client,
    );
    expect(refreshed.statusCode).toBe(200);
    expect((await whoAmI(refreshed.json().access_token)).statusCode).toBe(200);
    // ...until its own lifetime ends.
    await sleep(3200);
    const late = await tokenRequest(
      t,
      { grant_type: 'refresh_token', refresh_token: refreshed.json().refresh_token, client_id: 'tiny' },
      client,
    );
    expect(late.statusCode).toBe(400);
    expect(late.json().message).toBe('登录已过期，请重新登录');
  });

  it('offers only the grants the client allows', async () => {
    const client = await addClient('password-only', ['password'], 7200, 7200);
    const session = (await t.signIn('admin', ADMIN_PASSWORD)).json();
    const refused = await tokenRequest(
      t,
      { grant_type: 'refresh_token', refresh_token: session.refresh_token, client_id: 'password-only' },
      client,
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].field).toBe('/grant_type');
    const mobile = await tokenRequest(
      t,
      { grant_type: 'mobile', mobile: '13800000000', smsCaptcha: '123456', client_id: 'password-only' },
      client,
    );
    expect(mobile.statusCode).toBe(400);
    expect(mobile.json().message).toMatch(/mobile/);
    const unknown = await tokenRequest(t, { grant_type: 'client_credentials' });
    expect(unknown.statusCode).toBe(400);
  });

  it('checks the client secret through the Basic header', async () => {
    await t.sql(`update sys_app_client set client_secret = $1 where client_code = 'password-only'`, [
      // scrypt hash of "s3cret", made with the app's own hasher
      await (await import('../../src/server/lib/passwords.js')).hashSecret('s3cret'),
    ]);
    const params = {
      grant_type: 'password',
      username: 'admin',
      password: ADMIN_PASSWORD,
      client_id: 'password-only',
    };
    const wrong = await tokenRequest(
      t,
      params,
      `Basic ${Buffer.from('password-only:nope').toString('base64')}`,
    );
    expect(wrong.statusCode).toBe(401);
    const right = await tokenRequest(
      t,
      params,
      `Basic ${Buffer.from('password-only:s3cret').toString('base64')}`,
    );
    expect(right.statusCode).toBe(200);
    const mismatch = await tokenRequest(
      t,
      { ...params, client_id: 'browser' },
      `Basic ${Buffer.from('password-only:s3cret').toString('base64')}`,
    );
    expect(mismatch.statusCode).toBe(401);
  });
});

describe('brute force', () => {
  it('locks a user after 5 failed sign-ins with 429, even for the right password, and not others', async () => {
    await addUser('victim');
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const failed = await t.signIn('victim', `wrong-${attempt}`);
      expect(failed.statusCode).toBe(400);
    }
    const fifth = await t.signIn('victim', 'wrong-5');
    expect(fifth.statusCode).toBe(429);
    expect(fifth.json()).toEqual({ code: 429, message: '登录失败次数过多，账号已锁定，请 15 分钟后再试' });
    const right = await t.signIn('victim', 'secret-1');
    expect(right.statusCode).toBe(429);
    expect(right.json().access_token).toBeUndefined();
    // The lock is per user: the admin still signs in.
    expect((await t.signIn('admin', ADMIN_PASSWORD)).statusCode).toBe(200);
    // The counter lives in the database (shared by every server process), and the lock ends.
    const [row] = await t.sql<{ locked: boolean }>(
      "select locked_until > now() + interval '14 minutes' as locked from sys_counter where counter_key = 'sign-in:default:victim'",
    );
    expect(row?.locked).toBe(true);
    await t.sql(
      "update sys_counter set locked_until = now() - interval '1 second' where counter_key = 'sign-in:default:victim'",
    );
    expect((await t.signIn('victim', 'secret-1')).statusCode).toBe(200);
  });

  it('forgets failures after a successful sign-in, and counts unknown user names too', async () => {
    await addUser('forgetful');
    for (let attempt = 1; attempt <= 4; attempt += 1)
      expect((await t.signIn('forgetful', 'nope-nope')).statusCode).toBe(400);
    expect((await t.signIn('forgetful', 'secret-1')).statusCode).toBe(200);
    for (let attempt = 1; attempt <= 4; attempt += 1)
      expect((await t.signIn('forgetful', 'nope-nope')).statusCode).toBe(400);
    expect((await t.signIn('forgetful', 'secret-1')).statusCode).toBe(200);
    const codes = [];
    for (let attempt = 1; attempt <= 6; attempt += 1)
      codes.push((await t.signIn('nobody-here', 'nope-nope')).statusCode);
    expect(codes).toEqual([400, 400, 400, 400, 429, 429]);
  });

  it('rate-limits the token endpoint per client address, with headers', async () => {
    const response = await t.signIn('admin', ADMIN_PASSWORD);
    expect(Number(response.headers['x-ratelimit-limit'])).toBe(60);
    expect(Number(response.headers['x-ratelimit-remaining'])).toBeLessThan(60);
  });
});
