import { request as httpRequest } from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containsNul, parseListQuery } from '../../src/engine/index.js';
import { BROWSER_CLIENT, startTestApp, type TestApp } from '../support/app.js';

/**
 * Issue 11, points 1 to 3: no input causes a 500 or reaches SQL unchecked, and every answer,
 * even one Node's own HTTP parser gives, is the envelope. Each case failed before the fix.
 */
let t: TestApp;
// Boots a whole app: generous under a loaded CI machine.
beforeAll(async () => {
  t = await startTestApp();
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const json = { 'content-type': 'application/json' };
const DB_TEXT = /invalid byte sequence|syntax error at|violates|relation "|0x00/i;

/** `[[[…]]]` (or `{"a":{"a":…}}`) nested `depth` levels as JSON text, without recursion. */
function nested(depth: number, kind: 'array' | 'object' = 'array', leaf = '1'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
}

/** A 400 in the envelope naming exactly this field, with no database text. */
function expectRefused(response: LightMyRequestResponse, field: string, what: string): void {
  expect(response.statusCode, `${what}: ${response.body.slice(0, 300)}`).toBe(400);
  const body = response.json<{ code: number; message: string; errors: { field: string }[] }>();
  expect(body.code).toBe(400);
  expect(typeof body.message).toBe('string');
  expect(
    body.errors.map((error) => error.field),
    what,
  ).toContain(field);
  expect(response.body, what).not.toMatch(DB_TEXT);
}

describe('deeply nested JSON', () => {
  it('is refused with a 400 naming the field, signed in or not, before any handler runs', async () => {
    const deep = nested(5000);
    for (const url of [
      '/api/notification/home/show/detail',
      '/api/notification/home/order/detail',
      '/api/notification/notice/queryNoticeDetail',
    ]) {
      const response = await t.request({ method: 'POST', url, headers: json, payload: `{"id":${deep}}` });
      expectRefused(response, '/id', url);
    }
    const add = await t.request({
      method: 'POST',
      url: '/api/admin/sysparam/add',
      headers: { ...json, ...t.auth },
      payload: `{"paramKey":"deep","paramValue":${deep}}`,
    });
    expectRefused(add, '/paramValue', 'add');
    const exported = await t.request({
      method: 'POST',
      url: '/api/admin/sysuser/export',
      headers: { ...json, ...t.auth },
      payload: `{"username":${nested(5000, 'object')}}`,
    });
    expectRefused(exported, '/username', 'export');
  });

  it('refuses nested arrays where the portal expects one value', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/notification/home/show/detail',
      headers: json,
      payload: '{"id":[[1]]}',
    });
    expectRefused(response, '/id', 'nested id');
  });

  it('leaves the engine helpers safe on values nested far deeper than any parser allows', () => {
    const deep = JSON.parse(nested(100_000, 'array', '"x\\u0000"')) as unknown;
    expect(containsNul(deep)).toBe(true);
    const users = t.app.ctx.registry.require('sysuser');
    let error: unknown;
    try {
      parseListQuery(users, { username: JSON.parse(nested(100_000)) as unknown });
    } catch (caught) {
      error = caught;
    }
    // a refusal is fine; a stack overflow is what the export filter used to hit
    expect(error).not.toBeInstanceOf(RangeError);
  });
});

describe('free-form object fields', () => {
  const menuBase = {
    menuCode: 'deepmeta',
    menuName: 'Deep meta',
    menuPath: '/deepmeta',
    menuParent: 0,
    menuSequence: 1,
    menuStatus: '1',
  };
  const addMenu = (menuMeta: unknown) =>
    t.request({
      method: 'POST',
      url: '/api/admin/sysmenu/add',
      headers: t.auth,
      payload: { ...menuBase, menuMeta },
    });

  it('have a depth limit from the schema (sysmenu.menuMeta: x-maxDepth 3)', async () => {
    expectRefused(
      await addMenu(JSON.parse(nested(10, 'object', 'true'))),
      '/menuMeta/a/a/a',
      'menuMeta 10 deep',
    );
    expectRefused(await addMenu({ a: { b: { c: { d: 1 } } } }), '/menuMeta/a/b/c', 'menuMeta 4 deep');
  });

  it('have a size limit from the schema (maxProperties 20)', async () => {
    const wide = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, true]));
    expectRefused(await addMenu(wide), '/menuMeta', 'menuMeta with 21 keys');
  });

  it('still take the route meta the back-office writes', async () => {
    const response = await addMenu({ hidden: false, keepAlive: true, activeMenu: '/sysuser' });
    expect(response.statusCode, response.body).toBe(200);
  });
});

describe('NUL bytes outside the generated CRUD', () => {
  it('are refused by the declared schemas, naming the parameter', async () => {
    const nul = encodeURIComponent('a\u0000b');
    for (const [url, field] of [
      [`/api/admin/sysuser/queryUsername?username=${nul}`, '/username'],
      [`/api/admin/sysuser/queryOnlineSysUser?username=${nul}`, '/username'],
    ] as const) {
      expectRefused(await t.request({ method: 'GET', url, headers: t.auth }), field, url);
    }
    expectRefused(
      await t.request({
        method: 'POST',
        url: '/api/account/sysuserdetail/queryCompanyName',
        headers: json,
        payload: { companyName: 'a\u0000b' },
      }),
      '/companyName',
      'queryCompanyName',
    );
    for (const field of ['username', 'tenantCode']) {
      const params = new URLSearchParams({
        grant_type: 'password',
        scope: 'ui',
        client_id: 'browser',
        tenantCode: 'default',
        username: 'admin',
        password: 'x',
        [field]: 'a\u0000b',
      });
      expectRefused(
        await t.request({
          method: 'POST',
          url: '/api/uaa/oauth/token',
          headers: { authorization: BROWSER_CLIENT, 'content-type': 'application/x-www-form-urlencoded' },
          payload: params.toString(),
        }),
        `/${field}`,
        `token ${field}`,
      );
    }
  });
});

describe('answers outside the envelope', () => {
  it('a URL over 16 KB gets the envelope from the HTTP server itself', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port, path: `/api/notification/home/params?x=${'a'.repeat(17 * 1024)}` },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(answer.status).toBe(431);
    const body = JSON.parse(answer.body) as { code: number; message: string };
    expect(body.code).toBe(431);
    expect(body.message.length).toBeGreaterThan(0);
    expect(Object.keys(body).sort()).toEqual(['code', 'message']);
  });

  it('tree endpoints refuse a page size of -1 like the query endpoint', async () => {
    for (const url of [
      '/api/admin/sysmenu/querySysMenuTree?pageSize=-1',
      '/api/admin/sysorg/querySysOrgTree?currentPage=0',
      '/api/admin/sysmenu/query?pageSize=-1',
    ]) {
      const response = await t.request({ method: 'GET', url, headers: t.auth });
      expect(response.statusCode, url).toBe(400);
      expect(response.json<{ errors: { field: string }[] }>().errors[0]?.field, url).toMatch(
        /^\/(pageSize|currentPage)$/,
      );
    }
  });

  it('export refuses a null body and a page size of -1', async () => {
    const url = '/api/admin/sysuser/export';
    expectRefused(
      await t.request({ method: 'POST', url, headers: { ...json, ...t.auth }, payload: 'null' }),
      '/',
      'null',
    );
    expectRefused(
      await t.request({ method: 'POST', url, headers: { ...json, ...t.auth }, payload: { pageSize: -1 } }),
      '/pageSize',
      'pageSize -1',
    );
    const all = await t.request({ method: 'POST', url, headers: { ...json, ...t.auth }, payload: {} });
    expect(all.statusCode).toBe(200);
  });
});
