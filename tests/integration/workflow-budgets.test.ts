import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setWorkflowClock } from '../../src/server/features/workflow/services/clock.js';
import { runDueJobs } from '../../src/server/features/workflow/services/jobs.js';
import { workflowTableSpecs } from '../../src/server/features/workflow/tables.js';
import { migrate } from '../../src/server/lib/db/migrate.js';
import { BUDGETS } from '../../src/server/lib/budgets.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { loopingProcess, nestedProcess } from '../support/workflow-hostile.js';
import { bpmn, complete, deploy, flow, instanceRow, openTasks, start, WF } from '../support/workflow.js';

/**
 * Issue 31, findings 1 and 5: the budgets of the workflow engine (BUDGETS.workflow). A process
 * that loops for ever is refused by a request with a 400 naming the step budget and nothing
 * written, and stops in an incident naming it when a timer runs it; an instance past its
 * lifetime steps stops in an incident; a variable is bounded; a BPMN file too deep or too large
 * is refused before its parse.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  // start → gateway → (skip: end) work → end
  await deploy(
    t,
    bpmn(
      'counted',
      `<startEvent id="s"/>${flow('f0', 's', 'g')}<exclusiveGateway id="g" default="f2"/>
         ${flow('f1', 'g', 'e', '${skip == true}')}${flow('f2', 'g', 'work')}
         <userTask id="work" name="work" camunda:assignee="admin"/>${flow('f3', 'work', 'e')}<endEvent id="e"/>`,
    ),
  );
}, 300_000);
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  setWorkflowClock(t.app.ctx, undefined);
});

const { stepsPerTransaction, stepsPerInstance, bpmnDepth, bpmnXmlDepth, bpmnElements, variableBytes } =
  BUDGETS.workflow;

const count = async (text: string, params: unknown[] = []): Promise<number> =>
  Number((await t.sql<{ n: number | string }>(text, params))[0]?.n ?? 0);

const startAs = (language: string, key: string, variables: Record<string, unknown> = {}) =>
  t.request({
    method: 'POST',
    url: `${WF}/processinstance/start`,
    headers: { ...t.auth, 'accept-language': language },
    payload: { processDefinitionKey: key, description: key, variables },
  });

const deployAs = (language: string, xml: string) =>
  t.request({
    method: 'POST',
    url: `${WF}/deployment/deployXml`,
    headers: { ...t.auth, 'accept-language': language },
    payload: { xml },
  });

describe('steps per transaction', () => {
  it('refuses the start of a process that loops for ever: 400 naming the budget in each language, nothing written', async () => {
    await deploy(t, loopingProcess('loopsForEver'));
    const before = await count('select count(*) as n from wf_instance');
    const messages: Record<string, string> = {};
    for (const language of ['zh-CN', 'zh-TW', 'en']) {
      const response = await startAs(language, 'loopsForEver');
      expect(response.statusCode, response.body).toBe(400);
      messages[language] = response.json().message;
    }
    expect(messages.en).toContain(`more than ${stepsPerTransaction} steps in one operation`);
    expect(messages['zh-CN']).toContain(`超过 ${stepsPerTransaction} 步`);
    expect(messages['zh-TW']).toContain(`超過 ${stepsPerTransaction} 步`);
    expect(await count('select count(*) as n from wf_instance')).toBe(before);
    expect(
      await count(
        `select count(*) as n from wf_hist_detail where instance_id not in (select id from wf_instance)`,
      ),
    ).toBe(0);
  });

  it('refuses a task completion that runs into the loop, and the task stays open', async () => {
    await deploy(t, loopingProcess('loopsAfterTask', { wait: true }));
    const instance = await start(t, t.auth, 'loopsAfterTask');
    const [task] = await openTasks(t, instance.id);
    const response = await complete(t, { ...t.auth }, task?.id ?? 0, { note: 'x' });
    expect(response.statusCode, response.body).toBe(400);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['wait']);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'running', incident: null });
    expect(
      await count(`select count(*) as n from wf_variable where instance_id = $1 and name = 'note'`, [
        instance.id,
      ]),
    ).toBe(0);
  });

  it('a timer start that loops stops in an incident naming the budget; the job is done, not retried', async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    await deploy(
      t,
      loopingProcess('loopsOnTimer', {
        start: `<startEvent id="s"><timerEventDefinition><timeDate>${at}</timeDate></timerEventDefinition></startEvent>`,
      }),
    );
    const later = new Date(Date.now() + 2 * 3_600_000);
    setWorkflowClock(t.app.ctx, () => later);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    const rows = await t.sql<{
      id: number;
      status: string;
      incident: { message: string; activityId: string };
      steps: number;
    }>(`select id, status, incident, steps from wf_instance where process_key = 'loopsOnTimer'`);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row?.status).toBe('running');
    expect(row?.incident.message).toContain('workflow.stepsPerTransaction');
    expect(row?.incident.message).toContain(String(stepsPerTransaction));
    expect(row?.steps).toBe(stepsPerTransaction + 1);
    expect(await t.sql(`select state from wf_execution where instance_id = $1`, [row?.id])).toEqual([
      { state: 'incident' },
    ]);
    expect(await count(`select count(*) as n from wf_start_timer where process_key = 'loopsOnTimer'`)).toBe(
      0,
    );
    expect(await runDueJobs(t.app.ctx)).toBe(0);
  });
});

describe('steps per instance', () => {
  it('counts the steps of an instance in its row', async () => {
    const instance = await start(t, t.auth, 'counted', { skip: false });
    // the gateway and the user task
    expect(await t.sql('select steps from wf_instance where id = $1', [instance.id])).toEqual([{ steps: 2 }]);
  });

  it('an instance past its lifetime steps stops in an incident naming the budget', async () => {
    await deploy(t, loopingProcess('loopsLate', { wait: true }));
    const instance = await start(t, t.auth, 'loopsLate');
    await t.sql('update wf_instance set steps = $1 where id = $2', [stepsPerInstance - 10, instance.id]);
    const [task] = await openTasks(t, instance.id);
    const response = await complete(t, t.auth, task?.id ?? 0);
    expect(response.statusCode, response.body).toBe(200);
    const row = await instanceRow(t, instance.id);
    expect(row).toMatchObject({ status: 'running', end_time: null });
    expect(JSON.stringify(row.incident)).toContain('workflow.stepsPerInstance');
    expect(await t.sql('select steps from wf_instance where id = $1', [instance.id])).toEqual([
      { steps: stepsPerInstance + 1 },
    ]);
  });

  it('an existing database gets the steps column, 0 on the instances it has', async () => {
    await start(t, t.auth, 'counted', { skip: false });
    await t.sql('alter table wf_instance drop column steps');
    const migrated = await migrate(t.app.ctx.db, workflowTableSpecs());
    expect(migrated.applied).toEqual([expect.stringMatching(/alter table "wf_instance" add column "steps"/)]);
    expect(await count('select count(*) as n from wf_instance where steps <> 0')).toBe(0);
  });
});

describe('variables', () => {
  it(`refuses a value over ${variableBytes / 1024} KB with a 400 naming the variable`, async () => {
    const response = await startAs('en', 'counted', { skip: false, big: 'x'.repeat(variableBytes) });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().message).toContain('big');
    expect(response.json().message).toContain(`${variableBytes / 1024} KB`);
  });

  it('a service task doubling a variable at every turn stops in an incident naming the budget', async () => {
    await deploy(t, loopingProcess('doubles', { field: { name: 'v', value: '+${v}${v}' } }));
    const instance = await start(t, t.auth, 'doubles', { n: 'again', v: 'x'.repeat(1000) });
    expect(instance.incident?.message).toContain('workflow.variableBytes');
    const [variable] = await t.sql<{ length: number }>(
      `select length(value #>> '{}') as length from wf_variable where instance_id = $1 and name = 'v'`,
      [instance.id],
    );
    expect(Number(variable?.length)).toBeLessThanOrEqual(variableBytes);
  });
});

describe('size of a BPMN file', () => {
  it(`refuses sub-processes nested more than ${bpmnDepth} deep, naming the depth; ${bpmnDepth} deep deploys and runs`, async () => {
    const refused = await deployAs('en', nestedProcess('tooDeep', bpmnDepth + 1));
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().message).toContain(`nested more than ${bpmnDepth} deep`);
    expect(refused.json().errors).toEqual([{ field: 'xml', message: refused.json().message }]);
    await deploy(t, nestedProcess('deepEnough', bpmnDepth));
    const instance = await start(t, t.auth, 'deepEnough');
    expect(instance).toMatchObject({ status: 'over', ended: true });
  });

  it(`refuses more than ${bpmnElements} elements, naming the budget`, async () => {
    const tasks = Array.from(
      { length: Math.ceil(bpmnElements / 2) },
      (_, index) =>
        `<userTask id="t${index}" camunda:assignee="admin"/>${flow(`f${index}`, `t${index}`, `t${index + 1}`)}`,
    );
    const xml = bpmn(
      'tooLarge',
      `<startEvent id="s"/>${flow('f', 's', 't0')}${tasks.join('')}<endEvent id="t${tasks.length}"/>`,
    );
    const refused = await deployAs('zh-CN', xml);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().message).toContain(`超过 ${bpmnElements} 个元素`);
  });

  it(`refuses XML elements nested more than ${bpmnXmlDepth} deep`, async () => {
    const nested = `${'<x:a>'.repeat(bpmnXmlDepth)}${'</x:a>'.repeat(bpmnXmlDepth)}`;
    const xml = bpmn(
      'xmlTooDeep',
      `<startEvent id="s"><extensionElements>${nested}</extensionElements></startEvent>${flow('f', 's', 'e')}<endEvent id="e"/>`,
    ).replace('<definitions ', '<definitions xmlns:x="urn:x" ');
    const refused = await deployAs('en', xml);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().message).toContain(`more than ${bpmnXmlDepth} deep`);
  });

  it('reads past comments, CDATA and quoted ">" without miscounting', async () => {
    const xml = bpmn(
      'tricky',
      `<!-- <subProcess> --><startEvent id="s" name="a > b"/>${flow('f0', 's', 'w', '${1 < 2}')}
       <userTask id="w" name="&lt;subProcess&gt;" camunda:assignee="admin"/>${flow('f1', 'w', 'e')}<endEvent id="e"/>`,
    );
    expect((await deploy(t, xml)).key).toBe('tricky');
  });
});
