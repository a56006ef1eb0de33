import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/server/lib/config.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * docs/product.md §7 "Mock search user, transaction list, login, info, logout" and §8's mock
 * error codes 60204 and 50008: the template's user mocks, in development only (issue 39 point 11).
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const MOCKS = '/api/vue-element-admin';

describe('the template user mocks in development', () => {
  it('signs a demo account in with a mock token, and answers 60204 to anyone else', async () => {
    const admin = await t.request({
      method: 'POST',
      url: `${MOCKS}/user/login`,
      payload: { username: 'admin', password: 'any' },
    });
    expect(admin.statusCode).toBe(200);
    expect(admin.json()).toEqual({ code: 200, message: 'success', data: { token: 'admin-token' } });
    const stranger = await t.request({
      method: 'POST',
      url: `${MOCKS}/user/login`,
      payload: { username: 'nobody', password: 'x' },
    });
    expect(stranger.statusCode).toBe(200);
    expect(stranger.json()).toEqual({ code: 60204, message: 'Account and password are incorrect.' });
  });

  it('gives the user details of a mock token, and 50008 for any other token', async () => {
    const editor = await t.request({ method: 'GET', url: `${MOCKS}/user/info?token=editor-token` });
    expect(editor.json().code).toBe(200);
    expect(editor.json().data).toMatchObject({
      roles: ['ROLE_EDITOR'],
      name: expect.any(String),
      avatar: expect.any(String),
    });
    const stale = await t.request({ method: 'GET', url: `${MOCKS}/user/info?token=stale` });
    expect(stale.json()).toEqual({ code: 50008, message: 'Login failed, unable to get user details.' });
    // the mock token is good for the mock only: the real API does not take it
    const real = await t.request({
      method: 'GET',
      url: '/api/uaa/users/getSysUser',
      headers: { authorization: 'Bearer admin-token' },
    });
    expect(real.statusCode).toBe(401);
  });

  it('logs out', async () => {
    const response = await t.request({ method: 'POST', url: `${MOCKS}/user/logout` });
    expect(response.json()).toEqual({ code: 200, message: 'success', data: 'success' });
  });

  it('searches the tenant user names and lists transactions for a signed-in caller', async () => {
    const found = await t.request({ method: 'GET', url: `${MOCKS}/search/user?name=adm`, headers: t.auth });
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json().data.items).toContainEqual({ name: 'admin' });
    const none = await t.request({
      method: 'GET',
      url: `${MOCKS}/search/user?name=${encodeURIComponent('%')}`,
      headers: t.auth,
    });
    expect(none.json().data.items).toEqual([]);
    const list = await t.request({ method: 'GET', url: `${MOCKS}/transaction/list`, headers: t.auth });
    expect(list.statusCode, list.body).toBe(200);
    const { total, items } = list.json().data as { total: number; items: Record<string, unknown>[] };
    expect(total).toBeGreaterThanOrEqual(1);
    expect(items[0]).toMatchObject({
      order_no: expect.stringMatching(/^ORD\d{8}$/),
      username: expect.any(String),
      price: expect.any(Number),
      status: expect.stringMatching(/^(success|pending)$/),
    });
    const anonymous = await t.request({ method: 'GET', url: `${MOCKS}/transaction/list` });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('outside development', () => {
  it('are on unless NODE_ENV is production, and DEV_MOCKS decides when set', () => {
    expect(readConfig({}).isDevMocks).toBe(true);
    expect(readConfig({ NODE_ENV: 'production' }).isDevMocks).toBe(false);
    expect(readConfig({ NODE_ENV: 'production', DEV_MOCKS: 'on' }).isDevMocks).toBe(true);
    expect(() => readConfig({ DEV_MOCKS: 'maybe' })).toThrow(/DEV_MOCKS/);
  });

  it('are not there in production', async () => {
    const production = await startTestApp({ env: { DEV_MOCKS: 'off' } });
    try {
      for (const [method, url] of [
        ['POST', `${MOCKS}/user/login`],
        ['GET', `${MOCKS}/user/info?token=admin-token`],
        ['POST', `${MOCKS}/user/logout`],
        ['GET', `${MOCKS}/search/user?name=a`],
        ['GET', `${MOCKS}/transaction/list`],
      ] as const) {
        const response = await production.request({
          method,
          url,
          headers: production.auth,
          ...(method === 'POST' ? { payload: {} } : {}),
        });
        expect({ url, status: response.statusCode }).toEqual({ url, status: 404 });
      }
    } finally {
      await production.close();
    }
  }, 120_000);
});
