import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lockInstance } from '../../src/server/features/workflow/services/store.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';
import { bearer, bpmn, call, complete, deploy, flow, openTasks, start } from '../support/workflow.js';

/**
 * A task action reads the task in the statement that takes its instance's lock; when it had to
 * wait for that lock, what it read may be stale, and it must read the task again.
 * PostgreSQL only (run by the suite on PostgreSQL, vitest.config.ts): on PGlite the one
 * connection is held by the transaction below, so the waiting complete could never start.
 */
let t: TestApp;
let alice: { authorization: string };
let bob: { authorization: string };

// apply (the initiator) → review (bob) → end
const FLOW = bpmn(
  'lock_wait_flow',
  `<startEvent id="s" camunda:initiator="starter"/>${flow('f0', 's', 'apply')}
   <userTask id="apply" name="申请" camunda:assignee="\${starter}"/>${flow('f1', 'apply', 'review')}
   <userTask id="review" name="审核" camunda:candidateUsers="bob"/>${flow('f2', 'review', 'e')}<endEvent id="e"/>`,
);

beforeAll(async () => {
  t = await startTestApp();
  alice = bearer((await createUserWithRole(t, 'alice', 'ROLE_SYS_BUYER')).token);
  bob = bearer((await createUserWithRole(t, 'bob', 'ROLE_SYS_BUYER')).token);
  await deploy(t, FLOW);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

it('a complete that waits for another holder of the instance sees what that holder did (409)', async () => {
  const instance = await start(t, alice, 'lock_wait_flow');
  const [apply] = await openTasks(t, instance.id);
  expect((await complete(t, alice, apply?.id ?? 0)).statusCode).toBe(200);
  const [review] = await openTasks(t, instance.id);
  const reviewId = review?.id ?? 0;
  expect(review).toMatchObject({ activity_id: 'review' });
  expect((await call(t, bob, 'POST', `task/claimTask?id=${reviewId}`)).statusCode).toBe(200);
  let answer: Promise<{ statusCode: number }> | undefined;
  await t.app.ctx.db.transaction().execute(async (trx) => {
    // Another action holds the instance (as every action takes it) and ends the task...
    const locked = await lockInstance({ trx, tenantCode: 'default', id: instance.id });
    expect(locked.id).toBe(instance.id);
    await sql`update wf_task set end_time = now(), status = 'completed' where id = ${reviewId}`.execute(trx);
    // ...while bob's complete has already started and waits for the instance.
    answer = complete(t, bob, reviewId);
    for (let waited = 0; waited < 10_000; waited += 50) {
      const waiting = await t.sql(
        "select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      if (waiting.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  expect((await answer)?.statusCode).toBe(409);
  expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual([]);
  expect(
    await t.sql("select 1 from wf_comment where task_id = $1 and action = 'complete'", [reviewId]),
  ).toHaveLength(0);
});
