import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressGuard, runEventRound } from '../../src/server/features/events/index.js';
import { DISPATCH_BATCH } from '../../src/server/features/events/services/dispatch.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { bpmn, complete, deploy, flow, openTasks, start } from '../support/workflow.js';

/**
 * What the outbox costs a busy workflow (issue 36's bench): the writers' transactions send no
 * notification (a NOTIFY at commit waits for every other notifying commit of the server and
 * wakes every listening connection of the database); the dispatcher tells the live feeds of a
 * whole batch at once, and under a steady stream of work it takes what gathered once a round
 * instead of dispatching back to back every few events.
 */
let t: TestApp;
const isPostgres = Boolean(process.env.TEST_DATABASE_URL);

const TWO_TASKS = bpmn(
  'dispatch_two_tasks',
  `<startEvent id="s"/>${flow('f1', 's', 'first')}
   <userTask id="first" name="First" camunda:assignee="admin"/>${flow('f2', 'first', 'second')}
   <userTask id="second" name="Second" camunda:assignee="admin"/>${flow('f3', 'second', 'e')}<endEvent id="e"/>`,
);

/** Starts an instance and completes its two tasks (three transactions, six events). */
async function runInstance(): Promise<number> {
  const instance = await start(t, t.auth, 'dispatch_two_tasks');
  for (let step = 0; step < 2; step += 1) {
    const [task] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, Number(task?.id))).statusCode).toBe(200);
  }
  return instance.id;
}

const round = () =>
  runEventRound({
    ctx: t.app.ctx,
    i18n: t.app.i18n,
    guard: addressGuard([]),
    onError: (error) => {
      throw error;
    },
  });

const lastEventId = async (): Promise<number> =>
  Number((await t.sql<{ id: number | null }>('select max(id) as id from sys_event'))[0]?.id ?? 0);

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_POLL_MS: '1000' } });
  await deploy(t, TWO_TASKS);
  // What the start and the deploy wrote is out of the way.
  await round();
}, 180_000);

afterAll(async () => {
  await t?.close();
});

describe('the outbox under a busy workflow', () => {
  it("tells the live feeds of an instance's events once, when they are dispatched, not at each commit", async () => {
    const heard: string[] = [];
    // PostgreSQL: a connection of the test's own, as another server process would listen; the
    // embedded database: its one connection, as the app's own live feed listens.
    const listener = isPostgres
      ? new pg.Client({ connectionString: t.app.ctx.config.databaseUrl })
      : undefined;
    if (listener) {
      await listener.connect();
      listener.on('notification', (message) => heard.push(message.payload ?? ''));
      await listener.query('listen ecobid_event');
    } else await t.app.database.listen('ecobid_event', (payload) => heard.push(payload));
    try {
      const since = await lastEventId();
      await runInstance();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard).toEqual([]);
      await round();
      const ids = await t.sql<{ id: number }>('select id from sys_event where id > $1 order by id', [since]);
      // six of the workflow and a notice event for each of its two tasks
      expect(ids.length).toBe(8);
      for (let waited = 0; heard.length === 0 && waited < 3000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(heard).toEqual([ids.map((row) => row.id).join(',')]);
    } finally {
      await listener?.end();
    }
  });

  it('dispatches a steady stream of instances in rounds, not every few events', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const since = await lastEventId();
    const startedAt = Date.now();
    const until = startedAt + 2500;
    let instances = 0;
    while (Date.now() < until) {
      await runInstance();
      instances += 1;
    }
    let pending = 1;
    for (let waited = 0; pending > 0 && waited < 5000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      pending = Number(
        (
          await t.sql<{ n: number }>(
            'select count(*)::int as n from sys_event where id > $1 and dispatched_at is null',
            [since],
          )
        )[0]?.n,
      );
    }
    expect(pending).toBe(0);
    const rounds = Math.ceil((Date.now() - startedAt) / 1000) + 1;
    // Each dispatch stamps its events with its transaction's time.
    const [taken] = await t.sql<{ events: number; dispatches: number }>(
      `select count(*)::int as events, count(distinct dispatched_at)::int as dispatches
        from sys_event where id > $1`,
      [since],
    );
    console.log(
      `events-dispatch: ${instances} instances, ${taken?.events} events in ${taken?.dispatches} dispatches over ${rounds - 1} s`,
    );
    // six of the workflow and one notice event for each of its two tasks (the inbox is told too)
    expect(taken?.events).toBe(instances * 8);
    // About one round a second (WEBHOOK_POLL_MS) from the first instance until nothing is
    // pending (2.5 s of work, longer on a busy machine), each taking what gathered in batches of
    // DISPATCH_BATCH. Dispatching every few events would make it a dispatch a transaction.
    const events = taken?.events ?? 0;
    expect(taken?.dispatches).toBeLessThanOrEqual(rounds + Math.ceil(events / DISPATCH_BATCH));
    expect(taken?.dispatches).toBeLessThan(instances);
  });
});
