/**
 * API keys for integrations (issue 38): an administrator makes a key for a user in some of its
 * roles; the key, sent as a bearer, is checked like a session by the permission policy, with its
 * expiry, revocation (at once), address allow-list, per-key rate limit and use log; tenants do
 * not see each other's keys. Run on PGlite and (TEST_DATABASE_URL) on PostgreSQL.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

type Json = Record<string, unknown>;
type Headers = Record<string, string>;

let t: TestApp;
/** A service account of the default tenant acting as ROLE_SYS_BUYER (granted the regions). */
let botId = 0;
/** The administrator of tenant beta. */
let beta: Headers;
let betaAdminId = 0;
let betaUsername = '';

const dataOf = <T = Json>(response: LightMyRequestResponse): T => (response.json() as Json).data as T;
const bearer = (key: string): Headers => ({ authorization: `Bearer ${key}` });
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

interface Made {
  key: string;
  record: { id: number; prefix: string; status: string; roles: string[] };
}

async function makeKey(headers: Headers, body: Json): Promise<Made> {
  const made = await t.request({ method: 'POST', url: '/api/admin/sysapikey/add', headers, payload: body });
  expect(made.statusCode, made.body).toBe(200);
  return dataOf<Made>(made);
}

const regions = (key: string, extra: { remoteAddress?: string } = {}) =>
  t.request({
    method: 'GET',
    url: '/api/admin/sysregion/query?regionParent=0',
    headers: bearer(key),
    ...extra,
  });

beforeAll(async () => {
  t = await startTestApp();
  botId = (await createUserWithRole(t, 'integration_bot', 'ROLE_SYS_BUYER')).id;
  // ROLE_SYS_BUYER may read the regions (a URL grant), nothing of the users.
  const url = await t.request({
    method: 'POST',
    url: '/api/admin/sysurl/add',
    headers: t.auth,
    payload: { url: '/api/admin/sysregion/**', description: 'regions' },
  });
  expect(url.statusCode, url.body).toBe(200);
  const [role] = await t.sql<{ id: number }>(
    "select id from sys_role where role_code = 'ROLE_SYS_BUYER' and tenant_code = 'default'",
  );
  const granted = await t.request({
    method: 'POST',
    url: '/api/admin/sysurl/authorizeRoleToUrl',
    headers: t.auth,
    payload: { urlId: dataOf<{ id: number }>(url).id, roleIds: [role?.id] },
  });
  expect(granted.statusCode, granted.body).toBe(200);
  const tenant = await t.request({
    method: 'POST',
    url: '/api/admin/systenant/add',
    headers: t.auth,
    payload: { tenantCode: 'beta', tenantName: 'Beta Co.' },
  });
  expect(tenant.statusCode, tenant.body).toBe(200);
  const admin = dataOf<{ admin: { username: string; initialPassword: string } }>(tenant).admin;
  const signedIn = await t.signIn(admin.username, admin.initialPassword, 'beta');
  expect(signedIn.statusCode, signedIn.body).toBe(200);
  beta = bearer(signedIn.json().access_token as string);
  const [betaAdmin] = await t.sql<{ id: number }>(
    "select id from sys_user where tenant_code = 'beta' and username = $1",
    [admin.username],
  );
  betaAdminId = Number(betaAdmin?.id);
  betaUsername = admin.username;
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('a key made by an administrator', () => {
  it('has its page under 系统管理 with its buttons, as do the webhooks and single sign-on pages', async () => {
    const menus = await t.sql<{ code: string; parent: string; buttons: string[] }>(
      `select m.menu_code as code, p.menu_code as parent, m.menu_button as buttons
         from sys_menu m join sys_menu p on p.id = m.menu_parent
        where m.menu_code in ('sysapikey', 'syswebhook', 'sysoidc') order by m.menu_code`,
    );
    expect(menus).toEqual([
      { code: 'sysapikey', parent: 'admin', buttons: ['view', 'add', 'revoke'] },
      { code: 'sysoidc', parent: 'admin', buttons: ['view', 'add', 'edit', 'delete'] },
      { code: 'syswebhook', parent: 'admin', buttons: ['view', 'add', 'edit', 'delete'] },
    ]);
  });

  it('is shown once, then listed by its prefix only, and its making is audited', async () => {
    const { key, record } = await makeKey(t.auth, {
      name: 'ERP sync',
      userId: botId,
      roles: ['ROLE_SYS_BUYER'],
      expiresAt: inAnHour(),
    });
    expect(key).toMatch(/^ek_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    expect(key.startsWith(`ek_${record.prefix}_`)).toBe(true);
    expect(record).toMatchObject({ status: 'active', roles: ['ROLE_SYS_BUYER'] });
    const listed = await t.request({ method: 'GET', url: '/api/admin/sysapikey/query', headers: t.auth });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.body).not.toContain(key.slice(12));
    expect(listed.body).not.toMatch(/hash/i);
    const row = dataOf<{ records: Json[] }>(listed).records.find((item) => item.id === record.id);
    expect(row).toMatchObject({ name: 'ERP sync', username: 'integration_bot', lastUsedAt: null });
    const [stored] = await t.sql<{ key_hash: string }>('select key_hash from sys_api_key where id = $1', [
      record.id,
    ]);
    expect(stored?.key_hash).not.toContain(key.slice(12));
    const audit = await t.sql<{ action: string; username: string }>(
      "select action, username from sys_audit_log where entity = 'sysapikey' and record_key = $1",
      [String(record.id)],
    );
    expect(audit).toEqual([{ action: 'add', username: 'admin' }]);
  });

  it("calls what the key's roles are granted and is refused beyond them", async () => {
    const { key } = await makeKey(t.auth, {
      name: 'regions reader',
      userId: botId,
      roles: ['ROLE_SYS_BUYER'],
      expiresAt: inAnHour(),
    });
    expect((await regions(key)).statusCode).toBe(200);
    const me = await t.request({ method: 'GET', url: '/api/uaa/users/getSysUser', headers: bearer(key) });
    expect(me.statusCode, me.body).toBe(200);
    expect(dataOf(me)).toMatchObject({ username: 'integration_bot', roles: ['ROLE_SYS_BUYER'] });
    const users = await t.request({ method: 'GET', url: '/api/admin/sysuser/query', headers: bearer(key) });
    expect(users.statusCode).toBe(403);
    const unknown = await regions(`${key.slice(0, -4)}AAAA`);
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toMatchObject({ code: 401, error: 'invalid_token' });
  });

  it('refuses roles the user does not hold, a user of another tenant, a past expiry and a bad address (400 naming the field)', async () => {
    const refused = async (body: Json, field: string) => {
      const answer = await t.request({
        method: 'POST',
        url: '/api/admin/sysapikey/add',
        headers: t.auth,
        payload: { name: 'bad', userId: botId, roles: ['ROLE_SYS_BUYER'], expiresAt: inAnHour(), ...body },
      });
      expect(answer.statusCode, answer.body).toBe(400);
      expect((answer.json() as { errors: { field: string }[] }).errors.map((error) => error.field)).toEqual([
        field,
      ]);
    };
    await refused({ roles: ['ROLE_SYS_BUYER', 'ROLE_ADMIN'] }, '/roles');
    await refused({ userId: betaAdminId }, '/userId');
    await refused({ expiresAt: new Date(Date.now() - 1000).toISOString() }, '/expiresAt');
    await refused({ allowList: ['10.0.0.0/8', 'not-an-address'] }, '/allowList/1');
    await refused({ ratePerMinute: 0 }, '/ratePerMinute');
    expect(await t.sql("select 1 from sys_api_key where name = 'bad'")).toEqual([]);
  });
});

describe('a key stops working', () => {
  it('when it expires', async () => {
    const { key } = await makeKey(t.auth, {
      name: 'short-lived',
      userId: botId,
      roles: ['ROLE_SYS_BUYER'],
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    expect((await regions(key)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1700));
    const expired = await regions(key);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({ code: 401, error: 'invalid_token', message: 'API 密钥已过期' });
  });

  it('at once when revoked, and the revoke is audited', async () => {
    const { key, record } = await makeKey(t.auth, {
      name: 'to revoke',
      userId: botId,
      roles: ['ROLE_SYS_BUYER'],
      expiresAt: inAnHour(),
    });
    // Used twice: the second answer comes from the process's cache of checked keys.
    expect((await regions(key)).statusCode).toBe(200);
    expect((await regions(key)).statusCode).toBe(200);
    const revoked = await t.request({
      method: 'POST',
      url: `/api/admin/sysapikey/revoke?id=${record.id}`,
      headers: t.auth,
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(dataOf(revoked)).toEqual({ revoked: 1 });
    const refused = await regions(key);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error: 'invalid_token', message: 'API 密钥已吊销' });
    const listed = dataOf<{ records: Json[] }>(
      await t.request({ method: 'GET', url: '/api/admin/sysapikey/query', headers: t.auth }),
    ).records.find((item) => item.id === record.id);
    expect(listed).toMatchObject({ status: 'revoked', revokedAt: expect.any(String) });
    const audit = await t.sql<{ action: string }>(
      "select action from sys_audit_log where entity = 'sysapikey' and record_key = $1 order by id",
      [String(record.id)],
    );
    expect(audit.map((row) => row.action)).toEqual(['add', 'update']);
  });

  it('when its user is disabled', async () => {
    const { key } = await makeKey(t.auth, {
      name: 'user goes',
      userId: botId,
      roles: ['ROLE_SYS_BUYER'],
      expiresAt: inAnHour(),
    });
    expect((await regions(key)).statusCode).toBe(200);
    await t.sql("update sys_user set status = '0' where id = $1", [botId]);
    try {
      expect((await regions(key)).statusCode).toBe(401);
    } finally {
      await t.sql("update sys_user set status = '1' where id = $1", [botId]);
    }
    expect((await regions(key)).statusCode).toBe(200);
  });
});

describe('the rules of a key', () => {
  it('answers only from the addresses on its allow-list', async () => {
    const { key } = await makeKey(t.auth, {
      name: 'office only',
      userId: botId,
      roles: ['ROLE_SYS_BUYER'],
      expiresAt: inAnHour(),
      allowList: ['10.1.0.0/16', '192.0.2.7'],
    });
    expect((await regions(key, { remoteAddress: '10.1.2.3' })).statusCode).toBe(200);
    expect((await regions(key, { remoteAddress: '192.0.2.7' })).statusCode).toBe(200);
    const elsewhere = await regions(key, { remoteAddress: '10.2.0.1' });
    expect(elsewhere.statusCode).toBe(401);
    expect(elsewhere.json()).toMatchObject({ error: 'invalid_token', message: 'API 密钥不允许从此地址调用' });
  });

  it('is rate limited per key: 429 with Retry-After past its rate, other keys unaffected', async () => {
    const limited = await makeKey(t.auth, {
      name: 'three a minute',
      userId: botId,
      roles: ['ROLE_SYS_BUYER'],
      expiresAt: inAnHour(),
      ratePerMinute: 3,
    });
    const other = await makeKey(t.auth, {
      name: 'neighbour',
      userId: botId,
      roles: ['ROLE_SYS_BUYER'],
      expiresAt: inAnHour(),
    });
    for (let call = 0; call < 3; call += 1) expect((await regions(limited.key)).statusCode).toBe(200);
    const refused = await regions(limited.key);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 429 });
    const wait = Number(refused.headers['retry-after']);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect((await regions(other.key)).statusCode).toBe(200);
  });

  it('logs every call made with it, refused ones too, listed by the administrator', async () => {
    const { key, record } = await makeKey(t.auth, {
      name: 'logged',
      userId: botId,
      roles: ['ROLE_SYS_BUYER'],
      expiresAt: inAnHour(),
    });
    await regions(key, { remoteAddress: '10.9.8.7' });
    await t.request({ method: 'GET', url: '/api/admin/sysuser/query?username=x', headers: bearer(key) });
    const uses = await t.request({
      method: 'GET',
      url: `/api/admin/sysapikey/queryUses?id=${record.id}&pageSize=10`,
      headers: t.auth,
    });
    expect(uses.statusCode, uses.body).toBe(200);
    const page = dataOf<{ records: Json[]; total: number }>(uses);
    expect(page.total).toBe(2);
    expect(page.records).toMatchObject([
      { method: 'GET', path: '/api/admin/sysuser/query', status: 403 },
      { method: 'GET', path: '/api/admin/sysregion/query', status: 200, ip: '10.9.8.7' },
    ]);
    const listed = dataOf<{ records: Json[] }>(
      await t.request({ method: 'GET', url: '/api/admin/sysapikey/query', headers: t.auth }),
    ).records.find((item) => item.id === record.id);
    expect(listed).toMatchObject({ lastUsedAt: expect.any(String), lastUsedIp: '127.0.0.1' });
  });

  it('cannot manage keys, link an OpenID provider or set up two-factor (a signed-in session must)', async () => {
    const { key } = await makeKey(beta, {
      name: 'beta admin key',
      userId: betaAdminId,
      roles: ['ROLE_ADMIN'],
      expiresAt: inAnHour(),
    });
    const made = await t.request({
      method: 'POST',
      url: '/api/admin/sysapikey/add',
      headers: bearer(key),
      payload: { name: 'child', userId: betaAdminId, roles: ['ROLE_ADMIN'], expiresAt: inAnHour() },
    });
    expect(made.statusCode).toBe(403);
    const listed = await t.request({
      method: 'GET',
      url: '/api/admin/sysapikey/query',
      headers: bearer(key),
    });
    expect(listed.statusCode).toBe(403);
    const logout = await t.request({ method: 'POST', url: '/api/uaa/oauth/logout', headers: bearer(key) });
    expect(logout.statusCode).toBe(403);
    expect(await t.sql("select 1 from sys_api_key where name = 'child'")).toEqual([]);
    // a provider linked with a key would be a sign-in that outlives the key's revocation
    for (const [url, payload] of [
      ['/api/oidc/link', { providerId: 1, app: 'admin' }],
      ['/api/oidc/unlink', { providerId: 1 }],
      ['/api/account/twoFactor/setup', {}],
    ] as const) {
      const refused = await t.request({ method: 'POST', url, headers: bearer(key), payload });
      expect(refused.statusCode, url).toBe(403);
    }
  });
});

describe('the tenant wall', () => {
  it("keeps a tenant's administrator out of another tenant's keys, and a key in its tenant", async () => {
    const { key, record } = await makeKey(t.auth, {
      name: 'default only',
      userId: botId,
      roles: ['ROLE_SYS_BUYER'],
      expiresAt: inAnHour(),
    });
    const betaList = dataOf<{ records: Json[] }>(
      await t.request({ method: 'GET', url: '/api/admin/sysapikey/query', headers: beta }),
    ).records;
    expect(betaList.map((item) => item.id)).not.toContain(record.id);
    const revoke = await t.request({
      method: 'POST',
      url: `/api/admin/sysapikey/revoke?id=${record.id}`,
      headers: beta,
    });
    expect(revoke.statusCode).toBe(404);
    const uses = await t.request({
      method: 'GET',
      url: `/api/admin/sysapikey/queryUses?id=${record.id}`,
      headers: beta,
    });
    expect(uses.statusCode).toBe(404);
    expect((await regions(key)).statusCode).toBe(200);
    // A key of tenant beta (its administrator's) reads beta's users only.
    const betaKey = await makeKey(beta, {
      name: 'beta reader',
      userId: betaAdminId,
      roles: ['ROLE_ADMIN'],
      expiresAt: inAnHour(),
    });
    const users = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/query?pageSize=500',
      headers: bearer(betaKey.key),
    });
    expect(users.statusCode, users.body).toBe(200);
    const names = dataOf<{ records: { username: string }[] }>(users).records.map((user) => user.username);
    // Only beta's own administrator: not the default tenant's admin nor its service account.
    expect(names).toEqual([betaUsername]);
  });
});
