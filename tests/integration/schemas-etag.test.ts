import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('the schemas every back-office load needs are checked, not downloaded again (issue 19.2)', () => {
  it.each(['/api/schemas', '/api/schemas/validators.js'])(
    '%s answers 304 to the ETag it gave',
    async (url) => {
      const first = await t.app.inject({ method: 'GET', url });
      expect(first.statusCode).toBe(200);
      const etag = first.headers.etag;
      expect(etag).toMatch(/^"[\w-]+"$/);
      expect(first.headers['cache-control']).toBe('no-cache');
      expect(first.body.length).toBeGreaterThan(1000);

      const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(etag) } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');

      const other = await t.app.inject({
        method: 'GET',
        url,
        headers: { 'if-none-match': '"something-else"' },
      });
      expect(other.statusCode).toBe(200);
      expect(other.body).toBe(first.body);
    },
  );

  it('still answers the schemas in the envelope', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/schemas' });
    const body = JSON.parse(response.body) as { code: number; data: { entities: { name: string }[] } };
    expect(body.code).toBe(200);
    expect(body.data.entities.map((entity) => entity.name)).toContain('sysuser');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });
});
