import { sql, type CompiledQuery, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lockTask } from '../../src/server/features/workflow/services/store.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';
import { bearer, bpmn, call, flow, deploy, openTasks, start } from '../support/workflow.js';

/**
 * The statement a task action takes its instance's lock with (store.ts lockTask) is a prepared
 * statement on PostgreSQL: after a few calls a connection keeps one generic plan for it, made
 * with the table as it was then, and (without an ANALYZE) keeps it for its life. That plan must
 * read the task through its primary key even when it was made on a nearly empty wf_task (a new
 * database, as here): a plan made then that found the task through a tenant index read every
 * task of the tenant at every action, a cost that grew with the table (issue 36's benchmark fell
 * from round to round). The generic plan is asked for explicitly (plan_cache_mode), so this holds
 * on PGlite too, where the statement is the same text, only not prepared by the driver.
 */
let t: TestApp;
let alice: { authorization: string };

const FLOW = bpmn(
  'lock_plan_flow',
  `<startEvent id="s" camunda:initiator="starter"/>${flow('f0', 's', 'first')}
   <userTask id="first" name="一" camunda:assignee="\${starter}"/>${flow('f1', 'first', 'e')}<endEvent id="e"/>`,
);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** Every scan of `table` in a plan (not the update itself): its node type and index. */
function scansOf(plan: PlanNode, table: string): { type: string; index: string | undefined }[] {
  const own =
    plan['Relation Name'] === table && plan['Node Type'].endsWith('Scan')
      ? [{ type: plan['Node Type'], index: plan['Index Name'] }]
      : [];
  return [...own, ...(plan.Plans ?? []).flatMap((child) => scansOf(child, table))];
}

/** A value written into SQL text (the probe's EXECUTE takes literals). */
const literal = (value: unknown): string =>
  typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`;

beforeAll(async () => {
  t = await startTestApp();
  alice = bearer((await createUserWithRole(t, 'alice', 'ROLE_SYS_BUYER')).token);
  await deploy(t, FLOW);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

it('a task action finds its task by the primary key in the generic plan made on a nearly empty table', async () => {
  const instance = await start(t, alice, 'lock_plan_flow');
  const [task] = await openTasks(t, instance.id);
  const taskId = task?.id ?? 0;
  expect(taskId).toBeGreaterThan(0);
  const db = t.app.ctx.db;
  for (const withVariables of [false, true]) {
    const plan = await db.transaction().execute(async (trx) => {
      const sent: CompiledQuery[] = [];
      const executor = trx.getExecutor();
      const capture: KyselyPlugin = {
        transformQuery: ({ node, queryId }) => {
          sent.push(executor.compileQuery(node, queryId));
          return node;
        },
        transformResult: ({ result }) => Promise.resolve(result),
      };
      const locked = await lockTask({
        trx: trx.withPlugin(capture),
        tenantCode: 'default',
        id: taskId,
        withVariables,
      });
      expect(locked.task.id).toBe(taskId);
      // One statement: nobody else held the instance.
      expect(sent).toHaveLength(1);
      const [statement] = sent;
      if (!statement) throw new Error('no statement sent');
      await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
      await sql.raw(`prepare wf_lock_plan_probe as ${statement.sql}`).execute(trx);
      const explained = await sql
        .raw<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>(
          `explain (format json) execute wf_lock_plan_probe(${statement.parameters.map(literal).join(', ')})`,
        )
        .execute(trx);
      await sql`deallocate wf_lock_plan_probe`.execute(trx);
      const answer = explained.rows[0]?.['QUERY PLAN'];
      const parsed = (typeof answer === 'string' ? JSON.parse(answer) : answer) as [{ Plan: PlanNode }];
      return parsed[0].Plan;
    });
    // wf_task is read once, through its primary key (not through an index on the tenant), and the
    // instance through its own: no scan whose rows grow with the tenant's tasks or instances.
    const byKey = (index: string) => ({
      type: expect.stringMatching(/^Index (Only )?Scan$/) as unknown as string,
      index,
    });
    expect(scansOf(plan, 'wf_task'), JSON.stringify(plan)).toEqual([byKey('wf_task_pkey')]);
    expect(scansOf(plan, 'wf_instance'), JSON.stringify(plan)).toEqual([
      byKey('wf_instance_pkey'),
      byKey('wf_instance_pkey'),
    ]);
  }
});

it("a task of another tenant is not found, and its instance's lock is not taken", async () => {
  const instance = await start(t, alice, 'lock_plan_flow');
  const [task] = await openTasks(t, instance.id);
  const taskId = task?.id ?? 0;
  const [before] = await t.sql<{ row_version: number }>('select row_version from wf_instance where id = $1', [
    instance.id,
  ]);
  await expect(
    t.app.ctx.db
      .transaction()
      .execute((trx) => lockTask({ trx, tenantCode: 'other_tenant', id: taskId, withVariables: true })),
  ).rejects.toMatchObject({ code: 'notFound' });
  const [after] = await t.sql<{ row_version: number }>('select row_version from wf_instance where id = $1', [
    instance.id,
  ]);
  expect(after?.row_version).toBe(before?.row_version);
  // The task's own tenant still takes it.
  expect((await call(t, alice, 'POST', 'task/completeTask', { id: taskId, comment: 'ok' })).statusCode).toBe(
    200,
  );
});
