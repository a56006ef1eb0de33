import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('sign-in closes the API', () => {
  it('answers the password grant in the OAuth2 shape', async () => {
    const response = await t.signIn('admin', ADMIN_PASSWORD);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: 'ui', message: 'success' });
    expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(body.refresh_token).not.toBe(body.access_token);
  });

  it('refuses a wrong password with a readable 400 and no token', async () => {
    const response = await t.signIn('admin', 'wrong-password');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 400,
      message: expect.stringMatching(/用户名或密码错误/),
      errors: [],
    });
  });

  it('stores no plain token and no plain password', async () => {
    const response = await t.signIn('admin', ADMIN_PASSWORD);
    const token = response.json().access_token as string;
    const sessions = await t.sql<{ token_hash: string }>('select token_hash from sys_session');
    expect(sessions.some((row) => row.token_hash === token)).toBe(false);
    const users = await t.sql<{ password: string }>('select password from sys_user where username = $1', [
      'admin',
    ]);
    expect(users[0]?.password).toMatch(/^scrypt\$/);
    expect(users[0]?.password).not.toContain(ADMIN_PASSWORD);
  });

  it('answers 401 invalid_token without a token, with a bad one, and after logout', async () => {
    const anonymous = await t.request({ method: 'GET', url: '/api/admin/sysuser/query' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ code: 401, error: 'invalid_token' });
    const forged = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/query',
      headers: { authorization: 'Bearer aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
    });
    expect(forged.statusCode).toBe(401);

    const token = (await t.signIn('admin', ADMIN_PASSWORD)).json().access_token as string;
    const headers = { authorization: `Bearer ${token}` };
    expect((await t.request({ method: 'GET', url: '/api/admin/sysuser/query', headers })).statusCode).toBe(
      200,
    );
    expect((await t.request({ method: 'POST', url: '/api/uaa/oauth/logout', headers })).statusCode).toBe(200);
    const after = await t.request({ method: 'GET', url: '/api/admin/sysuser/query', headers });
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toBe('invalid_token');
  });

  it('never accepts the token from a cookie', async () => {
    const token = (await t.signIn('admin', ADMIN_PASSWORD)).json().access_token as string;
    const response = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/query',
      headers: { cookie: `token=${token}` },
    });
    expect(response.statusCode).toBe(401);
  });

  it('returns the current user with the name rules of SPEC §6', async () => {
    const response = await t.request({ method: 'GET', url: '/api/uaa/users/getSysUser', headers: t.auth });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      username: 'admin',
      zname: 'admin',
      roles: ['ROLE_ADMIN'],
      tenantCode: 'default',
    });
    expect(response.json().data).not.toHaveProperty('password');
  });

  it('lets no cache keep what a signed-in caller is answered: the current user, personal data, lists', async () => {
    for (const url of [
      '/api/uaa/users/getSysUser',
      '/api/uaa/users/getBidUser',
      '/api/account/sysuserdetail/querySysUserDetail',
      '/api/admin/sysuser/query',
      '/api/admin/sysuser/queryOnlineSysUser',
      '/api/admin/sysuser/query?status=nope',
    ]) {
      const response = await t.request({ method: 'GET', url, headers: t.auth });
      expect({ url, cache: response.headers['cache-control'] }).toEqual({ url, cache: 'no-store' });
    }
    // a refused call too, and an export (a file of personal data)
    const refused = await t.request({ method: 'GET', url: '/api/uaa/users/getSysUser' });
    expect(refused.headers['cache-control']).toBe('no-store');
    const exported = await t.request({
      method: 'POST',
      url: '/api/admin/sysuser/export',
      headers: t.auth,
      payload: {},
    });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['cache-control']).toBe('no-store');
    // public, shared answers keep their own caching
    const schemas = await t.request({ method: 'GET', url: '/api/schemas' });
    expect(schemas.headers['cache-control']).toBe('no-cache');
  });
});

describe('security headers', () => {
  it('are on every answer, errors included', async () => {
    for (const response of [
      await t.request({ method: 'GET', url: '/api/admin/sysuser/query', headers: t.auth }),
      await t.request({ method: 'GET', url: '/api/admin/sysuser/query' }),
    ]) {
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    }
  });
});

describe('a session lives only as long as its user', () => {
  it('refuses the token of a user disabled or deleted after signing in, at once', async () => {
    const { id, token } = await createUserWithRole(t, 'shortlived', 'ROLE_SYS_BUYER');
    const headers = { authorization: `Bearer ${token}` };
    const roleInfo = { method: 'POST' as const, url: '/api/account/sysuserdetail/queryRoleInfo', headers };
    expect((await t.request(roleInfo)).statusCode).toBe(200);
    expect((await t.request(roleInfo)).statusCode).toBe(200); // served again (cached on the embedded database)
    const [user] = await t.sql<{ version: number }>('select version from sys_user where id = $1', [id]);
    const disabled = await t.request({
      method: 'PUT',
      url: '/api/admin/sysuser/update',
      headers: t.auth,
      payload: { id, version: user?.version, status: '0' },
    });
    expect(disabled.statusCode).toBe(200);
    expect((await t.request(roleInfo)).statusCode).toBe(401);
    const enabled = await t.request({
      method: 'PUT',
      url: '/api/admin/sysuser/update',
      headers: t.auth,
      payload: { id, version: disabled.json().data.version, status: '1' },
    });
    expect(enabled.statusCode).toBe(200);
    // Disabling ended the session: enabled again, the user signs in anew.
    expect((await t.request(roleInfo)).statusCode).toBe(401);
    const again = await t.signIn('shortlived', 'secret-1');
    expect(again.statusCode).toBe(200);
    const fresh = { ...roleInfo, headers: { authorization: `Bearer ${again.json().access_token}` } };
    expect((await t.request(fresh)).statusCode).toBe(200);
    expect(
      (await t.request({ method: 'POST', url: `/api/admin/sysuser/delete?id=${id}`, headers: t.auth }))
        .statusCode,
    ).toBe(200);
    expect((await t.request(fresh)).statusCode).toBe(401);
  });
});

describe('getBidUser', () => {
  it('returns the same current user as getSysUser, for the portal', async () => {
    const sys = await t.request({ method: 'GET', url: '/api/uaa/users/getSysUser', headers: t.auth });
    const bid = await t.request({ method: 'GET', url: '/api/uaa/users/getBidUser', headers: t.auth });
    expect(bid.statusCode).toBe(200);
    expect(bid.json().data).toEqual(sys.json().data);
  });
});
