/**
 * The reconnecting LISTEN connection the event feed, the published forms and the session cache
 * share (src/server/lib/db/listener.ts), on a real PostgreSQL: it hears a notification, and after
 * its connection is killed (a restarted database, a pooler dropping it) it opens another, tells
 * its owner it listens again (notifications meanwhile are lost: the owner catches up) and hears
 * what comes next; closed, it leaves no connection behind.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startListener } from '../../src/server/lib/db/listener.js';

// Collected only with TEST_DATABASE_URL set (vitest.config.ts).
const url = process.env.TEST_DATABASE_URL ?? '';
const suffix = randomBytes(4).toString('hex');
const CHANNEL = `ecobid_listener_test_${suffix}`;
const NAME = `ecobid-listener-test-${suffix}`;

let admin: pg.Client;
beforeAll(async () => {
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
});

async function until(isDone: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const started = Date.now();
  while (!(await isDone())) {
    if (Date.now() - started > 10_000) throw new Error(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const notify = (payload: string) => admin.query('select pg_notify($1, $2)', [CHANNEL, payload]);
const connectionsNamed = async (): Promise<number> =>
  (
    await admin.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where application_name = $1',
      [NAME],
    )
  ).rows[0]?.n ?? 0;

it('hears, reconnects after its connection is killed, says so, hears again, and closes', async () => {
  const heard: string[] = [];
  const listening: boolean[] = [];
  let lost = 0;
  const listener = await startListener({
    url,
    channels: [CHANNEL],
    applicationName: NAME,
    onNotification: (channel, payload) => heard.push(`${channel}:${payload}`),
    onListening: (isReconnect) => listening.push(isReconnect),
    onLost: () => {
      lost += 1;
    },
  });
  expect(listening).toEqual([false]);
  expect(listener.isListening()).toBe(true);
  expect(await connectionsNamed()).toBe(1);
  await notify('one');
  await until(() => heard.includes(`${CHANNEL}:one`), 'the first notification');

  await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [
    NAME,
  ]);
  await until(() => lost === 1, 'the lost connection noticed');
  await until(() => listening.length === 2, 'listening again');
  expect(listening).toEqual([false, true]);
  expect(listener.isListening()).toBe(true);
  await notify('two');
  await until(() => heard.includes(`${CHANNEL}:two`), 'a notification after the reconnect');
  expect(heard).toEqual([`${CHANNEL}:one`, `${CHANNEL}:two`]);

  await listener.close();
  expect(listener.isListening()).toBe(false);
  await until(async () => (await connectionsNamed()) === 0, 'no connection left');
  expect(lost).toBe(1);
});

it('refuses a channel that is not a plain name', async () => {
  await expect(
    startListener({
      url,
      channels: ['x; drop table y'],
      applicationName: NAME,
      onNotification: () => undefined,
    }),
  ).rejects.toThrow(/bad channel name/);
});
