import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * A long text field (rich text up to its maxLength) is stored whole: it has no btree list index,
 * whose entries hold at most 2,704 bytes, and its "contains" filter still finds it.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** Text that does not compress: hex digests, as long as asked. */
function incompressible(length: number): string {
  let text = '';
  for (let n = 0; text.length < length; n += 1) text += createHash('sha256').update(String(n)).digest('hex');
  return text.slice(0, length);
}

describe('long text', () => {
  it('adds, edits and finds a notification whose content is 19,000 characters', async () => {
    const content = `<p>${incompressible(19_000)}</p>`;
    const added = await t.request({
      method: 'POST',
      url: '/api/admin/notification/add',
      headers: t.auth,
      payload: { title: 'long body', content, type: 'system', priority: '2' },
    });
    expect(added.statusCode, added.body).toBe(200);
    const record = added.json().data as { id: number; version: number; content: string };
    expect(record.content).toBe(content);

    const edited = `<p>${incompressible(19_500)}</p>`;
    const updated = await t.request({
      method: 'PUT',
      url: '/api/admin/notification/update',
      headers: t.auth,
      payload: { ...record, content: edited },
    });
    expect(updated.statusCode, updated.body).toBe(200);

    const needle = edited.slice(10_000, 10_012);
    const found = await t.request({
      method: 'GET',
      url: `/api/admin/notification/query?content=${needle}`,
      headers: t.auth,
    });
    expect(found.statusCode, found.body).toBe(200);
    expect((found.json().data as { records: { id: number }[] }).records.map((row) => row.id)).toEqual([
      record.id,
    ]);
  });
});
