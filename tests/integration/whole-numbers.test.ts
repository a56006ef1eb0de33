import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, data, errorFields, type Row } from '../support/api.js';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/app.js';

/**
 * Whole numbers of the hand-written routes are read by their route schemas: decimal digits only
 * ("1e3", "+1", "0x10", "1.0" are refused naming the parameter, as the hand-written parsers did),
 * empty text means "not given" where it did, and a portal body may send a number as its digits.
 */
let t: TestApp;
let api: Api;
let notice: Row;
let adminId: number;

const NOT_DECIMAL = ['1e3', '+1', '0x10', '1.0', '1,5', 'abc'];

const call = (
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  payload?: Record<string, unknown>,
): Promise<LightMyRequestResponse> =>
  t.request({ method, url, headers: t.auth, ...(payload === undefined ? {} : { payload }) });
const visit = (url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> =>
  t.request({ method: 'POST', url, ...(payload === undefined ? {} : { payload }) });

function expectRefused(response: LightMyRequestResponse, field: string, what: string): void {
  expect(response.statusCode, `${what}: ${response.body}`).toBe(400);
  expect(response.json()).toMatchObject({ code: 400 });
  expect(errorFields(response), what).toEqual([field]);
}

beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t);
  const added = await api.add(t.app.ctx.registry.require('notice'), {
    title: 'whole numbers notice',
    content: '<p>x</p>',
    publishTime: '2031-01-02T08:00:00Z',
    published: true,
  });
  expect(added.statusCode, added.body).toBe(200);
  notice = data(added);
  const me = await call('GET', '/api/uaa/users/getSysUser');
  adminId = Number(data(me).id);
});
afterAll(async () => {
  await t?.close();
});

describe('queryCurrentAuthority', () => {
  const url = '/api/account/sysuserdetail/queryCurrentAuthority';

  it('refuses a parentId or userId that is not written in decimal digits, naming it', async () => {
    for (const value of [...NOT_DECIMAL, '-1']) {
      expectRefused(await call('POST', `${url}?parentId=${encodeURIComponent(value)}`), '/parentId', value);
      expectRefused(await call('POST', `${url}?userId=${encodeURIComponent(value)}`), '/userId', value);
    }
  });

  it('takes an empty parentId as none, and the caller’s own userId with spaces around', async () => {
    const all = await call('POST', `${url}?parentId=`);
    expect(all.statusCode, all.body).toBe(200);
    const own = await call('POST', `${url}?userId=${encodeURIComponent(` ${adminId} `)}&parentId=`);
    expect(own.statusCode, own.body).toBe(200);
    expect(data(own)).toEqual(data(all));
    expect((await call('POST', `${url}?userId=${adminId + 1000}`)).statusCode).toBe(403);
  });
});

describe('updatePassword', () => {
  const url = '/api/account/sysuserdetail/updatePassword?password=wrong-one&newPassword=secret-2';

  it('refuses an id that is not a whole number and another user’s id', async () => {
    for (const value of NOT_DECIMAL)
      expectRefused(await call('PUT', `${url}&id=${encodeURIComponent(value)}`), '/id', value);
    expect((await call('PUT', `${url}&id=${adminId + 1000}`)).statusCode).toBe(403);
    expect((await call('PUT', `${url}&id=-${adminId}`)).statusCode).toBe(403);
  });
});

describe('delete keys', () => {
  it('refuses keys that are not decimal digits, naming the key', async () => {
    const user = t.app.ctx.registry.require('sysuser');
    for (const value of NOT_DECIMAL)
      expectRefused(
        await call('POST', `/api/${user.api}/delete?id=${encodeURIComponent(value)}`),
        '/id',
        value,
      );
  });
});

describe('portal', () => {
  const detail = '/api/notification/notice/queryNoticeDetail';

  it('reads a body id sent as its digits as the number', async () => {
    const asNumber = await visit(detail, { id: notice.id });
    expect(asNumber.statusCode, asNumber.body).toBe(200);
    const asText = await visit(detail, { id: ` ${String(notice.id)} ` });
    expect(asText.statusCode, asText.body).toBe(200);
    expect(data(asText)).toEqual(data(asNumber));
    const inQuery = await visit(`${detail}?id=${String(notice.id)}`);
    expect(data(inQuery)).toEqual(data(asNumber));
  });

  it('refuses numbers out of range or not written in digits, in the body and in the query', async () => {
    for (const value of [...NOT_DECIMAL, '', '0', '-1', '2000000001'])
      expectRefused(await visit(detail, { id: value }), '/id', `body ${value}`);
    for (const value of [true, null, [1], 1.5, 0])
      expectRefused(await visit(detail, { id: value }), '/id', String(value));
    for (const value of [...NOT_DECIMAL, '', '0'])
      expectRefused(
        await t.request({
          method: 'GET',
          url: `/api/notification/notice/queryNotices?pageSize=${encodeURIComponent(value)}`,
        }),
        '/pageSize',
        `query ${value}`,
      );
    expectRefused(await visit('/api/notification/home/pictures', { limit: '21' }), '/limit', 'limit 21');
    const pictures = await visit('/api/notification/home/pictures', { limit: '2' });
    expect(pictures.statusCode, pictures.body).toBe(200);
    expect(data<Row[]>(pictures).length).toBeLessThanOrEqual(2);
  });
});

describe('password reset code', () => {
  it('refuses a code whose user id is not one, as any wrong code', async () => {
    for (const code of ['abc.secret', '1e3.secret', '.secret', 'nodot']) {
      const response = await visit('/api/account/sysuserdetail/resetPassword', {
        code,
        newPassword: 'secret-9',
      });
      expectRefused(response, '/code', code);
    }
  });
});

describe('forceLogout', () => {
  const url = '/api/admin/sysuser/forceLogout';

  it('ends the sessions of ids sent comma-separated and repeated, skipping empty parts', async () => {
    const tokens: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const signedIn = await t.signIn('admin', ADMIN_PASSWORD);
      expect(signedIn.statusCode, signedIn.body).toBe(200);
      tokens.push((signedIn.json() as { access_token: string }).access_token);
    }
    const sessions = await t.sql<{ id: number }>(
      'select id from sys_session where revoked_at is null order by id desc limit 3',
    );
    const [third, second, first] = sessions.map((row) => Number(row.id));
    const ids = `${encodeURIComponent(` ${String(first)} ,, ${String(second)} ,`)}&id=${String(third)}&id=`;
    const ended = await call('POST', `${url}?id=${ids}`);
    expect(ended.statusCode, ended.body).toBe(200);
    expect(data(ended)).toEqual({ revoked: 3 });
    for (const token of tokens) {
      const after = await t.request({
        method: 'GET',
        url: '/api/uaa/users/getSysUser',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(after.statusCode).toBe(401);
    }
    expect((await call('GET', '/api/uaa/users/getSysUser')).statusCode).toBe(200);
  });

  it('refuses an id that is not written in decimal digits, naming the list', async () => {
    for (const value of ['1e3', '+1', '0x10', '1.0', 'abc', '1,abc'])
      expectRefused(await call('POST', `${url}?id=${encodeURIComponent(value)}`), '/id', value);
    expectRefused(await call('POST', `${url}?userId=2,-1`), '/userId', 'userId -1');
    // Nothing named at all (or only empty parts) is still a missing id.
    expectRefused(await call('POST', `${url}?id=,`), '/id', 'only a comma');
    // a whole number naming no session of the tenant is a 404
    const none = await call('POST', `${url}?id=0`);
    expect(none.statusCode, none.body).toBe(404);
  });
});

describe('updateSysUserDetail', () => {
  const url = '/api/account/sysuserdetail/updateSysUserDetail';

  it('reads the own id sent as digits, refuses another id (403) and one that is no number (400)', async () => {
    const me = data(await call('GET', '/api/uaa/users/getSysUser'));
    const asText = await call('PUT', url, { id: ` ${String(adminId)} `, nickname: me.nickname });
    expect(asText.statusCode, asText.body).toBe(200);
    expect(data(asText)).toMatchObject({ id: adminId, nickname: me.nickname });
    expect((await call('PUT', url, { id: String(adminId + 1000), nickname: 'x' })).statusCode).toBe(403);
    expect((await call('PUT', url, { id: adminId + 1000, nickname: 'x' })).statusCode).toBe(403);
    for (const value of [...NOT_DECIMAL, '', true])
      expectRefused(await call('PUT', url, { id: value, nickname: 'x' }), '/id', String(value));
  });
});

describe('queryMyPurchase', () => {
  const url = '/api/notification/purchase/queryMyPurchase';

  it('reads the paging as whole numbers, empty as not given', async () => {
    const given = await call('GET', `${url}?currentPage=${encodeURIComponent(' 2 ')}&pageSize=5`);
    expect(given.statusCode, given.body).toBe(200);
    expect(data(given)).toMatchObject({ currentPage: 2, pageSize: 5 });
    const empty = await call('GET', `${url}?currentPage=&pageSize=`);
    expect(empty.statusCode, empty.body).toBe(200);
    expect(data(empty)).toMatchObject({ currentPage: 1, pageSize: 20 });
    for (const value of [...NOT_DECIMAL, '0', '10001'])
      expectRefused(
        await call('GET', `${url}?pageSize=${encodeURIComponent(value)}`),
        '/pageSize',
        `pageSize ${value}`,
      );
    expectRefused(await call('GET', `${url}?currentPage=-1`), '/currentPage', 'currentPage -1');
  });
});
