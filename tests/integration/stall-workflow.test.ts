import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGETS } from '../../src/server/lib/budgets.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { measureStall, PING_BUDGET_MS, stallReport } from '../support/stall.js';
import { loopingProcess, nestedProcess } from '../support/workflow-hostile.js';
import { deploy, WF } from '../support/workflow.js';

/**
 * Issue 31, findings 1 and 5 under the stall check: while a process that loops for ever is
 * started, and while a BPMN of 2,000 nested sub-processes is deployed, a second client's simple
 * request is still answered within PING_BUDGET_MS, and the hostile request ends with its 400
 * naming the budget, within its own time budget, with nothing written.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 300_000);
afterAll(async () => {
  await t?.close();
});

/** How long the refused request itself may take: the work up to the budget and its rollback. */
const HOSTILE_MS = 10_000;

const count = async (text: string, params: unknown[] = []): Promise<number> =>
  Number((await t.sql<{ n: number | string }>(text, params))[0]?.n ?? 0);

describe('stall: workflow', () => {
  it('a start of a process that loops for ever ends with a 400 naming the step budget; pings still answer', async () => {
    await deploy(t, loopingProcess('looping'));
    const instancesBefore = await count('select count(*) as n from wf_instance');
    const measure = await measureStall(t, () =>
      t.request({
        method: 'POST',
        url: `${WF}/processinstance/start`,
        headers: { ...t.auth, 'accept-language': 'en' },
        payload: { processDefinitionKey: 'looping', description: 'loops', variables: {} },
      }),
    );
    console.log(
      stallReport(
        'workflow loop (finding 1)',
        `${BUDGETS.workflow.stepsPerTransaction} steps per transaction, ${HOSTILE_MS} ms`,
        measure,
      ),
    );
    expect(measure.hostile.status, measure.hostile.body).toBe(400);
    expect(JSON.parse(measure.hostile.body).message).toContain(String(BUDGETS.workflow.stepsPerTransaction));
    expect(JSON.parse(measure.hostile.body).message).toMatch(/step/);
    expect(measure.hostile.ms).toBeLessThan(HOSTILE_MS);
    expect(measure.worstPingMs).toBeLessThan(PING_BUDGET_MS);
    // Rolled back: no instance, token, variable or history row of it.
    expect(await count('select count(*) as n from wf_instance')).toBe(instancesBefore);
    for (const table of ['wf_execution', 'wf_variable', 'wf_hist_activity', 'wf_hist_detail'])
      expect(
        await count(
          `select count(*) as n from ${table} where instance_id not in (select id from wf_instance)`,
        ),
      ).toBe(0);
    if (t.app.ctx.dbKind === 'postgres') {
      // The refused start left no connection holding a transaction open.
      const idle = await count(
        `select count(*) as n from pg_stat_activity
          where datname = current_database() and state like 'idle in transaction%'`,
      );
      expect(idle).toBe(0);
    }
  }, 120_000);

  it('a deploy of 2,000 nested sub-processes ends with a 400 naming the depth; pings still answer', async () => {
    const xml = nestedProcess('deep', 2_000);
    const measure = await measureStall(t, () =>
      t.request({
        method: 'POST',
        url: `${WF}/deployment/deployXml`,
        headers: { ...t.auth, 'accept-language': 'en' },
        payload: { xml },
      }),
    );
    console.log(
      stallReport(
        `deep BPMN, 2,000 nested sub-processes, ${Math.round(xml.length / 1024)} KB (finding 5)`,
        `depth ${BUDGETS.workflow.bpmnDepth}, ${HOSTILE_MS} ms`,
        measure,
      ),
    );
    expect(measure.hostile.status, measure.hostile.body).toBe(400);
    expect(JSON.parse(measure.hostile.body).message).toContain(String(BUDGETS.workflow.bpmnDepth));
    expect(measure.hostile.ms).toBeLessThan(HOSTILE_MS);
    expect(measure.worstPingMs).toBeLessThan(PING_BUDGET_MS);
    expect(await count(`select count(*) as n from wf_definition where process_key = 'deep'`)).toBe(0);
  }, 120_000);
});
