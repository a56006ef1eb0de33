/**
 * A form published on one server process is live on another process of the same PostgreSQL
 * database within a second, without a restart (LISTEN/NOTIFY on ecobid_form), and an unpublish
 * hides it there too. The second process is a real `node src/server/main.ts`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_PASSWORD, BROWSER_CLIENT, startTestApp, type TestApp } from '../support/app.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

let t: TestApp;
let other: ServerProcess;
let token = '';

beforeAll(async () => {
  t = await startTestApp();
  const databaseUrl = t.app.ctx.config.databaseUrl;
  if (!databaseUrl) throw new Error('needs TEST_DATABASE_URL');
  other = await startServerProcess({ DATABASE_URL: databaseUrl, DATA_DIR: ':memory:', ADMIN_PASSWORD });
  const signedIn = await fetch(`${other.url}/api/uaa/oauth/token`, {
    method: 'POST',
    headers: { authorization: BROWSER_CLIENT, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      scope: 'ui',
      client_id: 'browser',
      tenantCode: 'default',
      username: 'admin',
      password: ADMIN_PASSWORD,
    }).toString(),
  });
  token = ((await signedIn.json()) as { access_token: string }).access_token;
});
afterAll(async () => {
  await other?.stop();
  await t?.close();
});

const onOther = async (
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(`${other.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: response.status, body: await response.json() };
};

/** Asks until the answer has the status, at most `limitMs`; the time it took. */
async function within(
  limitMs: number,
  ask: () => Promise<{ status: number }>,
  status: number,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    const answer = await ask();
    if (answer.status === status) return Date.now() - started;
    if (Date.now() - started > limitMs) throw new Error(`still ${answer.status} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('publishes on one process and the other serves it within a second, then hides it on unpublish', async () => {
  const added = await t.request({
    method: 'POST',
    url: '/api/generator/form/add',
    headers: t.auth,
    payload: {
      formCode: 'visitor',
      formName: 'Visitor log',
      formContent: {
        type: 'object',
        required: ['visitorName'],
        properties: { visitorName: { type: 'string', maxLength: 40 }, company: { type: 'string' } },
      },
    },
  });
  expect(added.statusCode, added.body).toBe(200);
  const id = (added.json() as { data: { id: number } }).data.id;
  expect((await onOther('GET', '/api/online/visitor/query')).status).toBe(404);

  const published = await t.request({
    method: 'POST',
    url: '/api/generator/form/publish',
    headers: t.auth,
    payload: { id, menuParent: 'formgenerator', roles: [] },
  });
  expect(published.statusCode, published.body).toBe(200);
  const took = await within(
    1000,
    () => onOther('POST', '/api/online/visitor/add', { visitorName: 'Chen' }),
    200,
  );
  expect(took).toBeLessThan(1000);
  console.info(`forms: the other process served the published form ${took} ms after the publish answered`);
  const listed = await onOther('GET', '/api/online/visitor/query');
  expect(listed.body).toMatchObject({
    data: { total: 1, records: [expect.objectContaining({ visitorName: 'Chen' })] },
  });
  const schemas = await onOther('GET', '/api/schemas');
  expect(JSON.stringify(schemas.body)).toContain('"visitor"');
  // validated there by the same schema
  expect((await onOther('POST', '/api/online/visitor/add', { company: 'x' })).status).toBe(400);

  const unpublished = await t.request({
    method: 'POST',
    url: `/api/generator/form/unpublish?id=${id}`,
    headers: t.auth,
  });
  expect(unpublished.statusCode, unpublished.body).toBe(200);
  expect(await within(1000, () => onOther('GET', '/api/online/visitor/query'), 404)).toBeLessThan(1000);
});
