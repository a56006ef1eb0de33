import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

/**
 * Publisher and publish time of a notification are the server's (x-auto actor / now): set on
 * create from the caller and the clock, in the create's transaction. A value a client sends for
 * them is ignored (dropped like any read-only field, as an edit form sends the record back), and
 * an update never changes them.
 */
let t: TestApp;
let editor: { id: number; token: string };

beforeAll(async () => {
  t = await startTestApp();
  editor = await createUserWithRole(t, 'editor', 'ROLE_ADMIN');
});
afterAll(async () => {
  await t.close();
});

const BODY = { content: '<p>body</p>', type: 'system', priority: '2' };

async function add(headers: Record<string, string>, payload: Record<string, unknown>) {
  return t.request({ method: 'POST', url: '/api/admin/notification/add', headers, payload });
}

describe('publishing a notification', () => {
  it('sets publisher to the caller and publish time to now', async () => {
    const before = Date.now();
    const added = await add(t.auth, { ...BODY, title: 'by admin' });
    const after = Date.now();
    expect(added.statusCode, added.body).toBe(200);
    const record = added.json().data as { id: number; publisher: string; publishTime: string };
    expect(record.publisher).toBe('admin');
    const published = new Date(record.publishTime).getTime();
    expect(published).toBeGreaterThanOrEqual(before - 1000);
    expect(published).toBeLessThanOrEqual(after + 1000);

    const byEditor = await add({ authorization: `Bearer ${editor.token}` }, { ...BODY, title: 'by editor' });
    expect(byEditor.statusCode, byEditor.body).toBe(200);
    expect(byEditor.json().data.publisher).toBe('editor');

    // stored, not only answered
    const [row] = await t.sql<{ publisher: string; publish_time: Date }>(
      'select publisher, publish_time from sys_notification where id = $1',
      [record.id],
    );
    expect(row?.publisher).toBe('admin');
    expect(new Date(row?.publish_time ?? 0).getTime()).toBe(published);
  });

  it('ignores a publisher and publish time the client sends, on create and on update', async () => {
    const added = await add(t.auth, {
      ...BODY,
      title: 'forged',
      publisher: 'mallory',
      publishTime: '2000-01-01T00:00:00Z',
    });
    expect(added.statusCode, added.body).toBe(200);
    const record = added.json().data as {
      id: number;
      version: number;
      publisher: string;
      publishTime: string;
    };
    expect(record.publisher).toBe('admin');
    expect(Math.abs(new Date(record.publishTime).getTime() - Date.now())).toBeLessThan(60_000);

    const updated = await t.request({
      method: 'PUT',
      url: '/api/admin/notification/update',
      headers: { authorization: `Bearer ${editor.token}` },
      payload: {
        id: record.id,
        version: record.version,
        title: 'forged, edited',
        publisher: 'mallory',
        publishTime: '2000-01-01T00:00:00Z',
      },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().data).toMatchObject({
      title: 'forged, edited',
      publisher: 'admin',
      publishTime: record.publishTime,
    });
  });

  it('describes them as read-only in the API: not in the create body of the OpenAPI document', async () => {
    const response = await t.request({ method: 'GET', url: '/api/openapi.json', headers: t.auth });
    expect(response.statusCode).toBe(200);
    const text = JSON.stringify(response.json().paths['/api/admin/notification/add']);
    expect(text).toContain('publishObject');
    expect(text).not.toContain('"publisher"');
  });
});
