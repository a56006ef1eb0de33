import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/app.js';
import { bearer, tokenRequest } from '../support/identity.js';
import { createUserWithRole, USER_PASSWORD } from '../support/users.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

interface SignInDay {
  day: string;
  signIns: number;
  users: number;
}

const perDay = async (query = '', headers = t.auth) => {
  const response = await t.request({
    method: 'GET',
    url: `/api/admin/sysuser/querySignInsPerDay${query}`,
    headers,
  });
  return { status: response.statusCode, body: response.json() as { data: SignInDay[]; errors?: unknown } };
};

/** YYYY-MM-DD of now at a UTC offset in minutes. */
const today = (offset: number): string => new Date(Date.now() + offset * 60_000).toISOString().slice(0, 10);

describe('sign-ins per day (workbench chart)', () => {
  it('counts each password sign-in and the users behind them, today, in the caller time zone', async () => {
    const before = await perDay('?days=7&utcOffset=480');
    expect(before.status).toBe(200);
    expect(before.body.data).toHaveLength(7);
    expect(before.body.data.at(-1)?.day).toBe(today(480));
    // consecutive days, oldest first
    const days = before.body.data.map((entry) => entry.day);
    expect([...days].sort()).toEqual(days);
    expect(new Set(days).size).toBe(7);
    const startToday = before.body.data.at(-1) ?? { signIns: 0, users: 0 };
    // the admin signed in when the test app started
    expect(startToday.signIns).toBeGreaterThanOrEqual(1);

    const { token } = await createUserWithRole(t, 'signincounter', 'ROLE_SYS_BUYER');
    expect(token).toBeTruthy();
    expect((await t.signIn('signincounter', USER_PASSWORD)).statusCode).toBe(200);
    expect((await t.signIn('signincounter', 'wrong-password')).statusCode).toBe(400);

    const after = (await perDay('?days=7&utcOffset=480')).body.data.at(-1);
    expect(after?.signIns).toBe(startToday.signIns + 2);
    expect(after?.users).toBe(startToday.users + 1);
  });

  it('does not count a refreshed token as a sign-in', async () => {
    const signedIn = await t.signIn('admin', ADMIN_PASSWORD);
    expect(signedIn.statusCode).toBe(200);
    const before = (await perDay()).body.data.at(-1)?.signIns ?? 0;
    const refreshed = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: signedIn.json().refresh_token as string,
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect((await perDay()).body.data.at(-1)?.signIns).toBe(before);
  });

  it('puts sign-ins on the day of the caller time zone and leaves other tenants out', async () => {
    const todayBefore = (await perDay('?days=5&utcOffset=480')).body.data.at(-1)?.signIns;
    await t.sql(
      `insert into sys_audit_log (tenant_code, entity, record_key, action, user_id, username, at) values
        ('default', 'sysuser', '1', 'signIn', 1, 'admin', $1),
        ('other', 'sysuser', '99', 'signIn', 99, 'stranger', $2)`,
      // 20:00 UTC three days ago is already the next day in China (UTC+8), not in London
      [new Date(Date.parse(`${today(0)}T20:00:00Z`) - 3 * 86_400_000), new Date()],
    );
    const china = (await perDay('?days=5&utcOffset=480')).body.data;
    const london = (await perDay('?days=5&utcOffset=0')).body.data;
    const threeDaysAgo = (offset: number): string =>
      new Date(Date.now() - 3 * 86_400_000 + offset * 60_000).toISOString().slice(0, 10);
    const utcDay = threeDaysAgo(0);
    const nextDay = new Date(Date.parse(`${utcDay}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect(london.find((entry) => entry.day === utcDay)?.signIns).toBe(1);
    expect(china.find((entry) => entry.day === nextDay)?.signIns).toBe(1);
    expect(china.find((entry) => entry.day === utcDay)?.signIns ?? 0).toBe(0);
    expect(china.at(-1)?.signIns).toBe(todayBefore);
  });

  it('refuses bad parameters with 400 naming the field, and callers without the URL permission', async () => {
    for (const [query, field] of [
      ['?days=0', '/days'],
      ['?days=1000', '/days'],
      ['?days=abc', '/days'],
      ['?utcOffset=100000', '/utcOffset'],
      ['?utcOffset=8h', '/utcOffset'],
    ] as const) {
      const response = await perDay(query);
      expect(response.status, query).toBe(400);
      expect(response.body.errors).toEqual([{ field, message: expect.any(String) }]);
    }
    const { token } = await createUserWithRole(t, 'signinbuyer', 'ROLE_SYS_BUYER');
    expect((await perDay('', bearer(token))).status).toBe(403);
  });
});
