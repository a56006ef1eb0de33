/**
 * Two real server processes (node src/server/main.ts) on one PostgreSQL database and one Redis:
 * what one process knows, the other knows too. Sessions (sign-in, logout, password change,
 * a disabled user), captchas, SMS quotas, rate limits and sign-in locks.
 *
 * Needs PostgreSQL (TEST_DATABASE_URL, as the rest of the suite on PostgreSQL) and Redis
 * (TEST_REDIS_URL, default redis://127.0.0.1:6379); with TEST_DATABASE_URL set, an unreachable
 * Redis fails the suite. Keys go under a prefix of their own, removed at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCode } from '../../src/server/lib/store/codes.js';
import { ADMIN_PASSWORD, BROWSER_CLIENT } from '../support/app.js';
import { lastSmsCode } from '../support/identity.js';
import { startServerProcess as startServer, type ServerProcess } from '../support/server-process.js';

// Collected only with TEST_DATABASE_URL set (vitest.config.ts): PostgreSQL and Redis are needed.
const serverUrl = process.env.TEST_DATABASE_URL ?? '';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

type Server = ServerProcess;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(
  server: Server,
  method: string,
  path: string,
  options: { token?: string; form?: Record<string, string>; json?: unknown; basic?: boolean } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.basic) headers.authorization = BROWSER_CLIENT;
  if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  } else if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const signIn = (server: Server, username: string, password: string): Promise<Answer> =>
  call(server, 'POST', '/api/uaa/oauth/token', {
    basic: true,
    form: {
      grant_type: 'password',
      scope: 'ui',
      client_id: 'browser',
      tenantCode: 'default',
      username,
      password,
    },
  });

async function tokenOf(server: Server, username: string, password: string): Promise<string> {
  const answer = await signIn(server, username, password);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.access_token as string;
}

const whoAmI = (server: Server, token: string): Promise<Answer> =>
  call(server, 'POST', '/api/account/sysuserdetail/queryRoleInfo', { token });

function expectRefused(answer: Answer): void {
  expect(answer.status).toBe(401);
  expect(answer.body).toMatchObject({ error: 'invalid_token' });
}

describe('two server processes on one PostgreSQL and one Redis', () => {
  const prefix = `ecobid-test-${randomBytes(6).toString('hex')}:`;
  const database = `ecobid_test_two_${randomBytes(6).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'ecobid-two-'));
  const smsOutbox = join(dir, 'sms.jsonl');
  let redis: Redis;
  let a: Server;
  let b: Server;

  const admin = async (statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  const sqlRows = async <T>(text: string, params: unknown[] = []): Promise<T[]> => {
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined);
    await redis.connect().catch((error: unknown) => {
      throw new Error(`Redis is needed at ${redisUrl} (TEST_REDIS_URL): ${String(error)}`);
    });
    await admin(`create database ${database}`);
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    const env = {
      DATABASE_URL: url.toString(),
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      DATA_DIR: dir,
      ADMIN_PASSWORD,
      SMS_OUTBOX: smsOutbox,
      MAIL_OUTBOX: join(dir, 'mail.jsonl'),
      RATE_LIMIT_CAPTCHA: '5',
    };
    // One after the other: the first creates and seeds the database.
    a = await startServer(env);
    b = await startServer(env);
  }, 240_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await admin(`drop database if exists ${database} with (force)`);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a token from one works on the other; logged out on the other, it is refused on both at once', async () => {
    const token = await tokenOf(a, 'admin', ADMIN_PASSWORD);
    // Both processes have checked (and may hold) the session before it ends.
    for (const server of [a, b, a, b]) expect((await whoAmI(server, token)).status).toBe(200);
    const loggedOut = await call(b, 'POST', '/api/uaa/oauth/logout', { token });
    expect(loggedOut.status).toBe(200);
    expectRefused(await whoAmI(a, token));
    expectRefused(await whoAmI(b, token));
  });

  it('a password change on one ends the sessions on both, the changing one answered a fresh one; a disabled user is refused on both', async () => {
    const changer = await tokenOf(a, 'admin', ADMIN_PASSWORD);
    const other = await tokenOf(b, 'admin', ADMIN_PASSWORD);
    for (const server of [a, b]) expect((await whoAmI(server, other)).status).toBe(200);
    const changed = await call(
      b,
      'PUT',
      `/api/account/sysuserdetail/updatePassword?${new URLSearchParams({ password: ADMIN_PASSWORD, newPassword: 'admin-pass-2' })}`,
      { token: changer },
    );
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expectRefused(await whoAmI(a, other));
    expectRefused(await whoAmI(a, changer));
    const kept = String((changed.body.data as { access_token?: string } | null)?.access_token);
    for (const server of [a, b]) expect((await whoAmI(server, kept)).status).toBe(200);

    const [role] = await sqlRows<{ id: number }>(
      "select id from sys_role where role_code = 'ROLE_ADMIN' and tenant_code = 'default'",
    );
    const added = await call(a, 'POST', '/api/admin/sysuser/add', {
      token: kept,
      json: {
        username: 'second_admin',
        nickname: 'second',
        password: 'secret-1',
        email: 'second@example.com',
        mobile: '13700000001',
        phone: '010-1234',
        roleId: Number(role?.id),
        orgId: 1,
      },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const user = (added.body.data ?? {}) as { id: number; version: number };
    const second = await tokenOf(b, 'second_admin', 'secret-1');
    for (const server of [a, b]) expect((await whoAmI(server, second)).status).toBe(200);
    const disabled = await call(b, 'PUT', '/api/admin/sysuser/update', {
      token: kept,
      json: { id: user.id, version: user.version, status: '0' },
    });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expectRefused(await whoAmI(a, second));
    expectRefused(await whoAmI(b, second));
  });

  it('a password set or a role taken away by an administrator on one reaches the sessions on both at once', async () => {
    const kept = await tokenOf(a, 'admin', 'admin-pass-2');
    const [buyer] = await sqlRows<{ id: number }>(
      "select id from sys_role where role_code = 'ROLE_SYS_BUYER' and tenant_code = 'default'",
    );
    const [adminRole] = await sqlRows<{ id: number }>(
      "select id from sys_role where role_code = 'ROLE_ADMIN' and tenant_code = 'default'",
    );
    const added = await call(a, 'POST', '/api/admin/sysuser/add', {
      token: kept,
      json: {
        username: 'third_user',
        nickname: 'third',
        password: 'secret-1',
        email: 'third@example.com',
        mobile: '13700000003',
        phone: '010-1234',
        roleId: Number(buyer?.id),
        orgId: 1,
      },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const user = (added.body.data ?? {}) as { id: number; version: number };
    const authorize = (roleIds: number[]): Promise<Answer> =>
      call(b, 'POST', '/api/admin/sysrole/authorizeRoleToUser', {
        token: kept,
        json: { userId: user.id, roleIds },
      });
    expect((await authorize([Number(adminRole?.id)])).status).toBe(200);
    const signedIn = await signIn(a, 'third_user', 'secret-1');
    const token = signedIn.body.access_token as string;
    const listUsers = (server: Server): Promise<Answer> =>
      call(server, 'GET', '/api/admin/sysuser/query', { token });
    for (const server of [a, b]) expect((await listUsers(server)).status).toBe(200);
    // Taken away on b: neither process grants it on the user's next request.
    expect((await authorize([])).status).toBe(200);
    for (const server of [a, b]) expect((await listUsers(server)).status).toBe(403);

    // A password set by the administrator on b ends the session on both; its refresh token mints nothing.
    const reset = await call(b, 'PUT', '/api/admin/sysuser/update', {
      token: kept,
      json: { id: user.id, version: user.version, password: 'secret-2' },
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expectRefused(await whoAmI(a, token));
    expectRefused(await whoAmI(b, token));
    const refreshed = await call(a, 'POST', '/api/uaa/oauth/token', {
      basic: true,
      form: { grant_type: 'refresh_token', refresh_token: signedIn.body.refresh_token as string },
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.access_token).toBeUndefined();
  });

  it('a captcha issued by one is checked by the other, once; it lives in Redis, not in the database', async () => {
    const issued = await call(a, 'GET', '/api/account/captcha/getCharCaptcha');
    expect(issued.status).toBe(200);
    const captchaId = (issued.body.data as { captchaId: string }).captchaId;
    const key = `${prefix}code:default:captcha:${captchaId}`;
    expect(await redis.exists(key)).toBe(1);
    expect(await sqlRows('select id from sys_verification_code')).toEqual([]);
    // The image is for people; the test gives the captcha an answer it knows.
    await redis.hset(key, 'hash', hashCode('ab3d'));
    const compare = (server: Server): Promise<Answer> =>
      call(server, 'POST', '/api/account/sysuserdetail/compareCaptcha', {
        json: { captchaId, charCaptcha: 'AB3D' },
      });
    const first = await compare(b);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toBe(true);
    const again = await compare(a);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ message: '图形验证码错误或已失效，请刷新后重试' });
  });

  /** A character captcha issued by one process, given an answer the test knows (in Redis). */
  const solvedCaptcha = async (server: Server): Promise<{ captchaId: string; charCaptcha: string }> => {
    const issued = await call(server, 'GET', '/api/account/captcha/getCharCaptcha');
    const captchaId = (issued.body.data as { captchaId: string }).captchaId;
    await redis.hset(`${prefix}code:default:captcha:${captchaId}`, 'hash', hashCode('k7pm'));
    return { captchaId, charCaptcha: 'k7pm' };
  };

  it('counts SMS codes to one number across both, and the code sent by one signs in on the other', async () => {
    // Nobody has this number: each request for a code carries a solved captcha.
    const mobile = '13700000002';
    const first = await call(
      a,
      'GET',
      `/api/account/captcha/getSmsCaptcha?${new URLSearchParams({ mobile, ...(await solvedCaptcha(b)) })}`,
    );
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const tooSoon = await call(b, 'POST', '/api/account/captcha/getSmsCaptcha', {
      json: { mobile, ...(await solvedCaptcha(a)) },
    });
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body.message).toMatch(/^短信发送过于频繁，请 (59|60) 秒后再试$/);
    const code = lastSmsCode(smsOutbox, mobile);
    expect(code).toMatch(/^\d{6}$/);
    const known = await call(a, 'GET', `/api/account/captcha/getSmsCaptcha?mobile=13700000001`);
    expect(known.status).toBe(200);
    const signedIn = await call(b, 'POST', '/api/uaa/oauth/token', {
      basic: true,
      form: {
        grant_type: 'mobile',
        scope: 'ui',
        client_id: 'browser',
        tenantCode: 'default',
        mobile: '13700000001',
        smsCaptcha: lastSmsCode(smsOutbox, '13700000001') ?? '',
      },
    });
    // second_admin was disabled above: the code was right, the account is not usable.
    expect(signedIn.status).toBe(400);
    expect(signedIn.body).toMatchObject({ message: '账号已被停用，请联系管理员' });
    expect(await redis.exists(`${prefix}sent:default:sms:${mobile}`)).toBe(1);
  });

  it('rate limits and sign-in locks are counted across both', async () => {
    // RATE_LIMIT_CAPTCHA=5 per minute and address: three calls on one, two on the other, then 429.
    for (const server of [a, b, a, b, a]) {
      const answer = await call(server, 'POST', '/api/account/sysuserdetail/retrievePassword', { json: {} });
      expect(answer.status).toBe(400);
    }
    const limited = await call(b, 'POST', '/api/account/sysuserdetail/retrievePassword', { json: {} });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ message: '请求过于频繁，请稍后再试' });

    // Five failed sign-ins of one name, on either process, lock it on both.
    for (const server of [a, b, a, b]) expect((await signIn(server, 'ghost', 'wrong-pass')).status).toBe(400);
    expect((await signIn(b, 'ghost', 'wrong-pass')).status).toBe(429);
    const locked = await signIn(a, 'ghost', 'wrong-pass');
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ message: '登录失败次数过多，账号已锁定，请 15 分钟后再试' });
    expect(await redis.pttl(`${prefix}lock:sign-in:default:ghost`)).toBeGreaterThan(14 * 60_000);
    expect(await sqlRows('select counter_key from sys_counter')).toEqual([]);
  });
  it('a rate limit edited on one process is in force on the other at once; the dashboard shows both', async () => {
    // The administrator's password was changed above.
    const token = await tokenOf(a, 'admin', 'admin-pass-2');
    const setLimit = async (server: Server, limit: number): Promise<void> => {
      const answer = await call(server, 'PUT', '/api/monitor/flowcontrol/rule', {
        token,
        json: { name: 'captcha', limit },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    };
    const retrieve = (server: Server) =>
      call(server, 'POST', '/api/account/sysuserdetail/retrievePassword', { json: {} });
    // The address used up RATE_LIMIT_CAPTCHA=5 above: raised on a, b lets it through.
    expect((await retrieve(b)).status).toBe(429);
    await setLimit(a, 1000);
    expect((await retrieve(b)).status).toBe(400);
    // Lowered on b, a refuses.
    await setLimit(b, 1);
    expect((await retrieve(a)).status).toBe(429);
    const rules = await call(a, 'GET', '/api/monitor/flowcontrol/rules', { token });
    expect(
      (rules.body.data as { name: string; limit: number }[]).find((rule) => rule.name === 'captcha')?.limit,
    ).toBe(1);
    await setLimit(a, 5);

    // Both processes cache the limits; a param written with SQL (not through either process)
    // reaches both through the trigger's notice, without a restart.
    const limitOn = async (server: Server): Promise<number | undefined> => {
      const answer = await call(server, 'GET', '/api/monitor/flowcontrol/rules', { token });
      return (answer.body.data as { name: string; limit: number }[]).find((rule) => rule.name === 'captcha')
        ?.limit;
    };
    expect([await limitOn(a), await limitOn(b)]).toEqual([5, 5]);
    await sqlRows("update sys_param set param_value = '7' where param_key = 'rateLimit.captcha'");
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && ((await limitOn(a)) !== 7 || (await limitOn(b)) !== 7))
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect([await limitOn(a), await limitOn(b)]).toEqual([7, 7]);
    await setLimit(a, 5);

    // Each process stores its own samples (every 5 s); either one shows both.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const samples = await call(b, 'GET', '/api/monitor/metrics/samples?minutes=5', { token });
    const instances = (samples.body.data as { instances: { instance: string }[] }).instances;
    expect(instances.length).toBe(2);
  }, 60_000);
  it('the dashboard and the database page show the routes and slow statements of both processes', async () => {
    const token = await tokenOf(a, 'admin', 'admin-pass-2');
    const get = async <T>(server: Server, path: string): Promise<T> => {
      const answer = await call(server, 'GET', path, { token });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.data as T;
    };
    const setSlow = async (value: number): Promise<void> => {
      const answer = await call(a, 'PUT', '/api/monitor/settings', {
        token,
        json: { name: 'slowQueryMs', value },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    };
    // Every statement of 1 ms or more is slow: a at once, b from its next sample (every 5 s).
    await setSlow(1);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    try {
      // A route each process alone has answered, and the database page (its size queries are slow).
      await get(a, '/api/monitor/audit/query?pageSize=5');
      await get(b, '/api/monitor/logs/query?limit=5');
      await get(a, '/api/monitor/database');
      await get(b, '/api/monitor/database');
      // Each process publishes its routes and slow statements with its samples (every 5 s).
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      interface RouteRow {
        route: string;
        method: string;
        count: number;
      }
      const samples = await get<{
        instance: string;
        instanceRoutes: { instance: string; routes: RouteRow[] }[];
      }>(a, '/api/monitor/metrics/samples?minutes=5');
      const names = samples.instanceRoutes.map((entry) => entry.instance);
      expect(names).toHaveLength(2);
      const own = samples.instanceRoutes.find((entry) => entry.instance === samples.instance);
      const other = samples.instanceRoutes.find((entry) => entry.instance !== samples.instance);
      const routesOf = (entry: { routes: RouteRow[] } | undefined): string[] =>
        (entry?.routes ?? []).map((row) => `${row.method} ${row.route}`);
      expect(routesOf(own)).toContain('GET /api/monitor/audit/query');
      expect(routesOf(own)).not.toContain('GET /api/monitor/logs/query');
      expect(routesOf(other)).toContain('GET /api/monitor/logs/query');
      expect(routesOf(other)).not.toContain('GET /api/monitor/audit/query');
      // b answers the same, from its side.
      const fromB = await get<{ instance: string; instanceRoutes: { instance: string }[] }>(
        b,
        '/api/monitor/metrics/samples?minutes=5',
      );
      expect(fromB.instance).toBe(other?.instance);
      expect(fromB.instanceRoutes.map((entry) => entry.instance).sort()).toEqual([...names].sort());

      const database = await get<{ slowStatements: { instance: string; sql: string; maxMs: number }[] }>(
        b,
        '/api/monitor/database',
      );
      expect(new Set(database.slowStatements.map((row) => row.instance))).toEqual(new Set(names));
      const times = database.slowStatements.map((row) => row.maxMs);
      expect(times).toEqual([...times].sort((x, y) => y - x));
    } finally {
      await setSlow(200);
    }
  }, 90_000);
});
