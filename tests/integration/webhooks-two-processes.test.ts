/**
 * Webhooks on two server processes of one PostgreSQL database (docs/extending.md "Events"): both
 * poll the outbox and the deliveries (SKIP LOCKED), and the test's receiver gets every event
 * exactly once per delivery attempt, signed; a 500 is tried again once due; a change rolled back
 * and a disabled webhook send nothing. The processes are real `node src/server/main.ts`.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { data } from '../support/api.js';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/app.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

interface Received {
  body: string;
  timestamp: string;
  signature: string;
  event: { id: number; type: string; key: string; delivery: { id: number; attempt: number } };
}

const SECRET = 'two-process-secret-0001';
let t: TestApp;
let processes: ServerProcess[] = [];
let server: Server;
const received: Received[] = [];
const answers: number[] = [];
let hookId = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        body,
        timestamp: String(request.headers['x-ecobid-timestamp']),
        signature: String(request.headers['x-ecobid-signature']),
        event: JSON.parse(body) as Received['event'],
      });
      response.statusCode = answers.shift() ?? 200;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  t = await startTestApp({ env: { WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1' } });
  const databaseUrl = t.app.ctx.config.databaseUrl;
  if (!databaseUrl) throw new Error('needs TEST_DATABASE_URL');
  const added = await t.request({
    method: 'POST',
    url: '/api/admin/syswebhook/add',
    headers: t.auth,
    payload: { name: 'two', url, secret: SECRET, entities: ['sysparam'] },
  });
  expect(added.statusCode, added.body).toBe(200);
  hookId = Number(data(added).id);
  const env = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: ':memory:',
    ADMIN_PASSWORD,
    WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
    WEBHOOK_POLL_MS: '100',
  };
  processes = await Promise.all([startServerProcess(env), startServerProcess(env)]);
});

afterAll(async () => {
  await Promise.all(processes.map((item) => item.stop()));
  await t?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const isSigned = (item: Received): boolean =>
  item.signature ===
  `sha256=${createHmac('sha256', SECRET).update(`${item.timestamp}.${item.body}`).digest('hex')}`;

async function until(check: () => boolean, limitMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > limitMs) throw new Error('not within the time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500));

async function addParams(prefix: string, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const added = await t.request({
      method: 'POST',
      url: '/api/admin/sysparam/add',
      headers: t.auth,
      payload: { paramKey: `${prefix}${index}`, paramName: `${prefix}${index}`, paramValue: 'v' },
    });
    expect(added.statusCode, added.body).toBe(200);
  }
}

it('delivers every event exactly once per attempt, signed, with two processes polling', async () => {
  await addParams('twoProc', 30);
  await until(() => received.length >= 30);
  await settle();
  expect(received).toHaveLength(30);
  expect(new Set(received.map((item) => item.event.id)).size).toBe(30);
  expect(received.every((item) => item.event.delivery.attempt === 1 && isSigned(item))).toBe(true);
});

it('tries a delivery answered 500 again once due, once', async () => {
  received.length = 0;
  answers.push(500);
  await addParams('twoRetry', 1);
  await until(() => received.length >= 1);
  await t.sql(`update sys_webhook_delivery set next_at = now() where status = 'pending'`);
  await until(() => received.length >= 2);
  await settle();
  expect(received.map((item) => item.event.delivery.attempt)).toEqual([1, 2]);
  expect(received[1]?.event.delivery.id).toBe(received[0]?.event.delivery.id);
});

it('sends nothing for a change rolled back, nor to a disabled webhook', async () => {
  received.length = 0;
  const clash = await t.request({
    method: 'POST',
    url: '/api/admin/sysparam/add',
    headers: t.auth,
    payload: { paramKey: 'twoProc0', paramName: 'again', paramValue: 'v' },
  });
  expect(clash.statusCode).toBeGreaterThanOrEqual(400);
  expect(clash.statusCode).toBeLessThan(500);
  const disabled = await t.request({
    method: 'PUT',
    url: '/api/admin/syswebhook/update',
    headers: t.auth,
    payload: { id: hookId, isEnabled: false },
  });
  expect(disabled.statusCode, disabled.body).toBe(200);
  await addParams('twoOff', 2);
  await settle();
  expect(received).toHaveLength(0);
});
