import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

let t: TestApp;
let reader: { id: number; token: string };
let other: { id: number; token: string };
const ids: Record<string, number> = {};

const hours = (n: number): string => new Date(Date.now() + n * 3_600_000).toISOString();

async function notify(title: string, extra: Record<string, unknown> = {}): Promise<void> {
  const added = await t.request({
    method: 'POST',
    url: '/api/admin/notification/add',
    headers: t.auth,
    payload: { title, content: `<p>${title}</p>`, type: 'system', priority: '2', ...extra },
  });
  expect(added.statusCode, added.body).toBe(200);
  ids[title] = added.json().data.id as number;
}

beforeAll(async () => {
  t = await startTestApp();
  reader = await createUserWithRole(t, 'reader', 'ROLE_SYS_BUYER');
  other = await createUserWithRole(t, 'other', 'ROLE_SYS_SUPPLIER');
  // publishTime is the server's (the time of the add): the newest is the last added
  await notify('everyone', { type: 'announcement', priority: '1' });
  await notify('only reader', { publishObject: [reader.id] });
  await notify('only other', { publishObject: [other.id] });
  await notify('not yet', { startTime: hours(1) });
  await notify('over', { endTime: hours(-1) });
  await notify('in its period', { startTime: hours(-1), endTime: hours(1) });
});
afterAll(async () => {
  await t.close();
});

const mine = (token: string, query = '') =>
  t.request({
    method: 'GET',
    url: `/api/admin/notification/queryMyNotification${query}`,
    headers: { authorization: `Bearer ${token}` },
  });
const markRead = (token: string, query: string) =>
  t.request({
    method: 'POST',
    url: `/api/admin/notification/markNotificationRead${query}`,
    headers: { authorization: `Bearer ${token}` },
  });
const titles = (response: Awaited<ReturnType<typeof mine>>): string[] =>
  (response.json().data.records as { title: string }[]).map((row) => row.title);

describe('my notifications', () => {
  it('lists what is addressed to the caller, published and within its period, newest first', async () => {
    const response = await mine(reader.token);
    expect(response.statusCode).toBe(200);
    expect(titles(response)).toEqual(['in its period', 'only reader', 'everyone']);
    expect(response.json().data).toMatchObject({ total: 3, currentPage: 1, unread: 3 });
    expect(response.json().data.records[0]).toMatchObject({
      isRead: false,
      readAt: null,
      content: '<p>in its period</p>',
    });
    expect(titles(await mine(other.token))).toEqual(['in its period', 'only other', 'everyone']);
    const paged = await mine(reader.token, '?currentPage=2&pageSize=2');
    expect(titles(paged)).toEqual(['everyone']);
    expect(paged.json().data).toMatchObject({ total: 3, currentPage: 2, pageSize: 2 });
  });

  it('marks notifications read for the caller only, and filters on read, type and priority', async () => {
    const marked = await markRead(reader.token, `?id=${ids.everyone}&id=${ids['only reader']}`);
    expect(marked.statusCode).toBe(200);
    expect(marked.json().data).toEqual({ read: 2 });
    expect((await markRead(reader.token, `?id=${ids.everyone}`)).json().data).toEqual({ read: 0 });

    const unread = await mine(reader.token, '?read=false');
    expect(titles(unread)).toEqual(['in its period']);
    expect(unread.json().data.unread).toBe(1);
    const read = await mine(reader.token, '?read=true');
    expect(titles(read)).toEqual(['only reader', 'everyone']);
    expect(read.json().data.records[0].isRead).toBe(true);
    expect(typeof read.json().data.records[0].readAt).toBe('string');
    // another user's marks are their own
    expect((await mine(other.token, '?read=true')).json().data.total).toBe(0);

    expect(titles(await mine(reader.token, '?type=announcement'))).toEqual(['everyone']);
    expect(titles(await mine(reader.token, '?priority=2'))).toEqual(['in its period', 'only reader']);
    expect(titles(await mine(reader.token, '?read=false&priority=2'))).toEqual(['in its period']);
    expect((await mine(reader.token, '?type=no-such-type')).json().data.total).toBe(0);
  });

  it('refuses to mark what is not the caller’s, and bad parameters', async () => {
    for (const title of ['only other', 'not yet', 'over']) {
      const response = await markRead(reader.token, `?id=${ids[title]}`);
      expect({ title, status: response.statusCode }).toEqual({ title, status: 404 });
    }
    // all or nothing: a good id next to a bad one marks neither
    expect(
      (await markRead(reader.token, `?id=${ids['in its period']}&id=${ids['only other']}`)).statusCode,
    ).toBe(404);
    expect((await mine(reader.token, '?read=false')).json().data.total).toBe(1);
    expect((await markRead(reader.token, '')).statusCode).toBe(400);
    expect((await markRead(reader.token, '?id=abc')).statusCode).toBe(400);
    expect((await mine(reader.token, '?read=maybe')).statusCode).toBe(400);
    expect((await mine(reader.token, '?pageSize=0')).statusCode).toBe(400);
    expect((await mine(reader.token, '?password=x')).statusCode).toBe(400);
  });

  it('keeps each tenant’s notifications to itself', async () => {
    const tenant = await t.request({
      method: 'POST',
      url: '/api/admin/systenant/add',
      headers: t.auth,
      payload: { tenantCode: 'notifb', tenantName: 'Notif B' },
    });
    expect(tenant.statusCode, tenant.body).toBe(200);
    const { username, initialPassword } = tenant.json().data.admin as {
      username: string;
      initialPassword: string;
    };
    const token = (await t.signIn(username, initialPassword, 'notifb')).json().access_token as string;
    const response = await mine(token);
    expect(response.json().data.total).toBe(0);
    expect((await markRead(token, `?id=${ids.everyone}`)).statusCode).toBe(404);
  });
});
