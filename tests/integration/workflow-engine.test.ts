import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import {
  bpmn,
  call,
  complete,
  deploy,
  fixture,
  flow,
  instanceRow,
  openTasks,
  start,
} from '../support/workflow.js';

/**
 * The token interpreter: gateway semantics with their joins, incidents, terminate
 * ends, built-in service tasks, instance suspend/activate/terminate, and the history rows.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await deploy(t, fixture('activiti-leave.bpmn20.xml'));
  await deploy(t, fixture('flowable-purchase.bpmn20.xml'));
  await deploy(t, fixture('camunda-approval.bpmn'));
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const task = (id: string, extra = ''): string =>
  `<userTask id="${id}" name="${id}" camunda:assignee="\${initiator}" ${extra}/>`;

async function onlyTask(instanceId: number, activityId: string): Promise<number> {
  const tasks = await openTasks(t, instanceId);
  expect(tasks.map((row) => row.activity_id)).toEqual([activityId]);
  return tasks[0]?.id ?? 0;
}

describe('exclusive gateway', () => {
  it('runs the Activiti leave process: a long leave goes to HR, a short one ends after approval', async () => {
    for (const [days, next] of [
      [5, 'hr'],
      [2, undefined],
    ] as const) {
      const instance = await start(t, t.auth, 'leave');
      expect((await complete(t, t.auth, await onlyTask(instance.id, 'apply'), { days })).statusCode).toBe(
        200,
      );
      const approve = await onlyTask(instance.id, 'approve');
      // approve has candidate groups only (ROLE_ADMIN among them): claimed before it is completed
      expect((await complete(t, t.auth, approve)).statusCode).toBe(403);
      expect((await call(t, t.auth, 'POST', `task/claimTask?id=${approve}`)).statusCode).toBe(200);
      expect((await complete(t, t.auth, approve)).statusCode).toBe(200);
      if (next) {
        await onlyTask(instance.id, next);
        expect(
          await t.sql(
            'select user_name from wf_identity_link l join wf_task k on k.id = l.task_id where k.instance_id = $1 and k.activity_id = $2',
            [instance.id, next],
          ),
        ).toEqual([{ user_name: 'hruser' }]);
      } else {
        expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
      }
    }
  });

  it('routes by the condition and by the default flow', async () => {
    const xml = bpmn(
      'excl',
      `<startEvent id="s"/>${flow('f0', 's', 'g')}<exclusiveGateway id="g" default="fDefault"/>
       ${flow('fBig', 'g', 'big', '${amount > 100}')}${flow('fHuge', 'g', 'huge', '${amount > 1000}')}${flow('fDefault', 'g', 'small')}
       ${task('big')}${task('huge')}${task('small')}
       ${flow('f1', 'big', 'e')}${flow('f2', 'huge', 'e')}${flow('f3', 'small', 'e')}<endEvent id="e"/>`,
    );
    await deploy(t, xml);
    const big = await start(t, t.auth, 'excl', { amount: 5000 });
    await onlyTask(big.id, 'big'); // the first true condition in order, not also huge
    const small = await start(t, t.auth, 'excl', { amount: 3 });
    const smallTask = await onlyTask(small.id, 'small');
    expect((await complete(t, t.auth, smallTask)).statusCode).toBe(200);
    expect(await instanceRow(t, small.id)).toMatchObject({ status: 'over', incident: null });
    expect((await instanceRow(t, small.id)).end_time).not.toBeNull();
  });

  it('refuses a start no flow can leave; a condition that fails puts the instance into a visible incident', async () => {
    const xml = bpmn(
      'stuck',
      `<startEvent id="s"/>${flow('f0', 's', 'g')}<exclusiveGateway id="g"/>
       ${flow('fYes', 'g', 'yes', '${choice == "yes"}')}${flow('fNo', 'g', 'no', '${choice == "no"}')}
       ${task('yes')}${task('no')}${flow('f1', 'yes', 'e')}${flow('f2', 'no', 'e')}<endEvent id="e"/>`,
    );
    await deploy(t, xml);
    // As Activiti, Flowable and Camunda: no way on is refused, and no instance is left behind.
    const none = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'stuck',
      description: 'no way on',
      variables: { choice: 'maybe' },
    });
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toContain('g');

    const failing = await start(t, t.auth, 'stuck');
    expect(failing.incident).toEqual({
      activityId: 'g',
      flowId: 'fYes',
      message: expect.stringContaining('choice'),
      variable: 'choice',
    });
    const detail = await call(t, t.auth, 'GET', `processinstance/detail?id=${failing.id}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.json().data).toMatchObject({ status: 'running', incident: { flowId: 'fYes' }, tasks: [] });
    expect(await t.sql('select state from wf_execution where instance_id = $1', [failing.id])).toEqual([
      { state: 'incident' },
    ]);
  });
});

describe('parallel gateway', () => {
  it('forks to every branch and its join waits for all of them', async () => {
    const instance = await start(t, t.auth, 'purchase');
    const tasks = await openTasks(t, instance.id);
    expect(tasks.map((row) => row.activity_id)).toEqual(['finance', 'tech']);
    // the built-in service task set its variables on the way
    const variables = await call(
      t,
      t.auth,
      'GET',
      `history/variableinstance/query?processInstanceId=${instance.id}`,
    );
    expect(variables.json().data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'stage', value: 'review' }),
        expect.objectContaining({ name: 'requester', value: 'admin' }),
      ]),
    );
    const [finance, tech] = tasks;
    expect((await complete(t, t.auth, finance?.id ?? 0)).statusCode).toBe(200);
    expect(
      await t.sql('select activity_id, state from wf_execution where instance_id = $1', [instance.id]),
    ).toEqual(
      expect.arrayContaining([
        { activity_id: 'join', state: 'joining' },
        { activity_id: 'tech', state: 'active' },
      ]),
    );
    expect((await instanceRow(t, instance.id)).status).toBe('running');
    expect((await complete(t, t.auth, tech?.id ?? 0)).statusCode).toBe(200);
    expect((await instanceRow(t, instance.id)).status).toBe('over');
    expect(await t.sql('select 1 from wf_execution where instance_id = $1', [instance.id])).toEqual([]);
    const joins = await t.sql(
      "select 1 from wf_hist_activity where instance_id = $1 and activity_id = 'join'",
      [instance.id],
    );
    expect(joins).toHaveLength(1);
  });
});

describe('inclusive gateway', () => {
  it('takes every flow whose condition holds and its join waits for the taken ones only', async () => {
    const instance = await start(t, t.auth, 'contract_review', { amount: 50_000, technical: false });
    const tasks = await openTasks(t, instance.id);
    expect(tasks.map((row) => row.activity_id)).toEqual(['Task_finance']);
    await complete(t, t.auth, tasks[0]?.id ?? 0);
    await onlyTask(instance.id, 'Task_sign');
  });

  it('with two branches taken, the join waits for the second', async () => {
    const instance = await start(t, t.auth, 'contract_review', { amount: 50_000, technical: true });
    const tasks = await openTasks(t, instance.id);
    expect(tasks.map((row) => row.activity_id)).toEqual(['Task_finance', 'Task_tech']);
    await complete(t, t.auth, tasks[1]?.id ?? 0);
    await onlyTask(instance.id, 'Task_finance');
    await complete(t, t.auth, tasks[0]?.id ?? 0);
    await onlyTask(instance.id, 'Task_sign');
  });

  it('takes the default flow when no condition holds', async () => {
    const instance = await start(t, t.auth, 'contract_review', { amount: 10, technical: false });
    await onlyTask(instance.id, 'Task_legal');
  });

  it("an Activiti flow's skip expression decides in place of its condition while skipping is enabled (issue 36)", async () => {
    // Activiti's InclusiveGatewayTest.testSkipExpression: input 10 meets flow3's condition
    // (input >= 2), flow2's skip expression (input == 10) and neither of flow4's.
    const answer = await deploy(
      t,
      fixture(
        'activiti/org/activiti/engine/test/bpmn/gateway/InclusiveGatewayTest.testSkipExpression.bpmn20.xml',
      ),
    );
    expect(answer.warnings).toEqual([]);
    const skipping = await start(t, t.auth, 'inclusiveGwSkipExpression', {
      _ACTIVITI_SKIP_EXPRESSION_ENABLED: true,
      input: 10,
    });
    await onlyTask(skipping.id, 'theTask1');
    // Flowable's variable of the same meaning; a skip expression that holds, or none, on an
    // exclusive gateway whose only other flow's condition also holds.
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowable="http://flowable.org/bpmn"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" targetNamespace="test">
  <process id="exclusiveSkip" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="x"/>
    <exclusiveGateway id="x"/>
    <sequenceFlow id="f1" sourceRef="x" targetRef="a" flowable:skipExpression="\${go == 'a'}">
      <conditionExpression xsi:type="tFormalExpression">\${false}</conditionExpression>
    </sequenceFlow>
    <sequenceFlow id="f2" sourceRef="x" targetRef="b">
      <conditionExpression xsi:type="tFormalExpression">\${true}</conditionExpression>
    </sequenceFlow>
    <userTask id="a" flowable:assignee="admin"/>
    <userTask id="b" flowable:assignee="admin"/>
    <sequenceFlow id="f3" sourceRef="a" targetRef="e"/>
    <sequenceFlow id="f4" sourceRef="b" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`;
    expect((await deploy(t, xml)).warnings).toEqual([]);
    const flowable = await start(t, t.auth, 'exclusiveSkip', {
      _FLOWABLE_SKIP_EXPRESSION_ENABLED: true,
      go: 'a',
    });
    await onlyTask(flowable.id, 'a');
    const skipNotHolding = await start(t, t.auth, 'exclusiveSkip', {
      _FLOWABLE_SKIP_EXPRESSION_ENABLED: true,
      go: 'b',
    });
    await onlyTask(skipNotHolding.id, 'b');
    // Not enabled: the conditions decide, as in Camunda, which has no skip expressions.
    const notEnabled = await start(t, t.auth, 'inclusiveGwSkipExpression', { input: 10 });
    await onlyTask(notEnabled.id, 'theTask2');
    const conditionOnly = await start(t, t.auth, 'exclusiveSkip', { go: 'a' });
    await onlyTask(conditionOnly.id, 'b');
  });

  it("passes a task whose skip expression holds while skip expressions are enabled (Activiti's, Flowable's); an unreadable one is an incident", async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowable="http://flowable.org/bpmn"
  targetNamespace="test">
  <process id="taskSkip" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="review"/>
    <userTask id="review" flowable:assignee="admin" flowable:skipExpression="\${amount < 100}"/>
    <sequenceFlow id="f1" sourceRef="review" targetRef="mail"/>
    <serviceTask id="mail" flowable:type="mail" flowable:skipExpression="\${quiet}">
      <extensionElements><flowable:field name="to" stringValue="boss@example.com"/></extensionElements>
    </serviceTask>
    <sequenceFlow id="f2" sourceRef="mail" targetRef="sign"/>
    <userTask id="sign" flowable:assignee="admin"/>
    <sequenceFlow id="f3" sourceRef="sign" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`;
    // Read, not warned as ignored.
    expect((await deploy(t, xml)).warnings).toEqual([]);
    const small = await start(t, t.auth, 'taskSkip', {
      _FLOWABLE_SKIP_EXPRESSION_ENABLED: true,
      amount: 50,
      quiet: true,
    });
    // No review task and no mail call: straight to sign; the history names the passed tasks.
    await onlyTask(small.id, 'sign');
    expect(await t.sql('select 1 from wf_job where instance_id = $1', [small.id])).toEqual([]);
    const passed = await t.sql<{ activity_id: string }>(
      'select activity_id from wf_hist_activity where instance_id = $1 and end_time is not null order by id',
      [small.id],
    );
    expect(passed.map((row) => row.activity_id)).toEqual(['s', 'review', 'mail']);
    // The expression does not hold, or skip expressions are not enabled: the task is made.
    await onlyTask(
      (await start(t, t.auth, 'taskSkip', { _ACTIVITI_SKIP_EXPRESSION_ENABLED: true, amount: 500 })).id,
      'review',
    );
    await onlyTask((await start(t, t.auth, 'taskSkip', { amount: 50 })).id, 'review');
    // Enabled, but the expression names a variable nobody set: an incident naming it.
    const unset = await start(t, t.auth, 'taskSkip', { _FLOWABLE_SKIP_EXPRESSION_ENABLED: true });
    expect(await openTasks(t, unset.id)).toEqual([]);
    const [row] = await t.sql<{ incident: { activityId: string; variable?: string } }>(
      'select incident from wf_instance where id = $1',
      [unset.id],
    );
    expect(row?.incident).toMatchObject({ activityId: 'review', variable: 'amount' });
  });

  it('a terminate end ends every branch', async () => {
    const xml = bpmn(
      'terminating',
      `<startEvent id="s"/>${flow('f0', 's', 'fork')}<parallelGateway id="fork"/>
       ${flow('fa', 'fork', 'a')}${flow('fb', 'fork', 'b')}${task('a')}${task('b')}
       ${flow('fa2', 'a', 'stop')}${flow('fb2', 'b', 'e')}<endEvent id="stop"><terminateEventDefinition/></endEvent><endEvent id="e"/>`,
    );
    await deploy(t, xml);
    const instance = await start(t, t.auth, 'terminating');
    const tasks = await openTasks(t, instance.id);
    await complete(t, t.auth, tasks[0]?.id ?? 0);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
    expect(await openTasks(t, instance.id)).toEqual([]);
    expect(await t.sql('select status, end_reason from wf_task where id = $1', [tasks[1]?.id])).toEqual([
      { status: 'canceled', end_reason: 'terminateEnd' },
    ]);
  });
});

describe('instances', () => {
  it('suspend refuses task actions with 409 until activated; terminate closes the open tasks', async () => {
    const instance = await start(t, t.auth, 'purchase');
    const [first] = await openTasks(t, instance.id);
    expect(
      (await call(t, t.auth, 'POST', `processinstance/suspend?id=${instance.id}`)).json().data.suspended,
    ).toBe(true);
    expect((await complete(t, t.auth, first?.id ?? 0)).statusCode).toBe(409);
    expect(
      (await call(t, t.auth, 'POST', `processinstance/activate?id=${instance.id}`)).json().data.suspended,
    ).toBe(false);
    expect((await complete(t, t.auth, first?.id ?? 0)).statusCode).toBe(200);
    const terminated = await call(t, t.auth, 'POST', 'processinstance/terminate', {
      id: instance.id,
      comment: '不再需要',
    });
    expect(terminated.json().data).toMatchObject({ status: 'terminated', ended: true });
    expect(await openTasks(t, instance.id)).toEqual([]);
    expect(
      (await call(t, t.auth, 'POST', 'processinstance/terminate', { id: instance.id, comment: 'again' }))
        .statusCode,
    ).toBe(409);
    const query = await call(t, t.auth, 'GET', 'processinstance/query?status=terminated');
    expect(query.json().data.records.map((row: { id: number }) => row.id)).toContain(instance.id);
  });

  it('starts by definition id, answers 404 for an unknown key and 400 without a description', async () => {
    const [definition] = await t.sql<{ id: number }>(
      "select id from wf_definition where process_key = 'purchase'",
    );
    const byId = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionId: definition?.id,
      description: 'x',
    });
    expect(byId.statusCode, byId.body).toBe(200);
    expect(
      (
        await call(t, t.auth, 'POST', 'processinstance/start', {
          processDefinitionKey: 'nope',
          description: 'x',
        })
      ).statusCode,
    ).toBe(404);
    const noDescription = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'purchase',
    });
    expect(noDescription.statusCode).toBe(400);
    expect(noDescription.json().errors[0].field).toBe('/description');
  });

  it("checks the start form with the entity's validators (formKey sysparam)", async () => {
    const bad = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'purchase',
      description: 'with a form',
      formData: { paramName: 'n' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((error: { field: string }) => error.field)).toEqual(
      expect.arrayContaining(['/paramKey']),
    );
    const good = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'purchase',
      description: 'with a form',
      formData: { paramName: 'Budget', paramKey: 'budget', paramValue: '100' },
    });
    expect(good.statusCode, good.body).toBe(200);
    const variables = await t.sql<{ name: string; value: unknown }>(
      'select name, value from wf_variable where instance_id = $1 order by name',
      [good.json().data.id],
    );
    expect(variables).toEqual(expect.arrayContaining([{ name: 'paramKey', value: 'budget' }]));
  });

  it('keeps the history: activities in order, variable changes, the detail view', async () => {
    const instance = await start(t, t.auth, 'excl', { amount: 200 });
    const taskId = await onlyTask(instance.id, 'big');
    await complete(t, t.auth, taskId, { approved: true });
    const activities = await call(
      t,
      t.auth,
      'GET',
      `history/activityinstance/query?processInstanceId=${instance.id}`,
    );
    expect(
      activities.json().data.map((row: { key: string; type: string }) => `${row.type}:${row.key}`),
    ).toEqual(['startEvent:s', 'exclusiveGateway:g', 'userTask:big', 'endEvent:e']);
    expect(activities.json().data[2]).toMatchObject({
      assignee: 'admin',
      taskId,
      endTime: expect.any(String),
    });
    const details = await call(t, t.auth, 'GET', `history/detail/query?processInstanceId=${instance.id}`);
    expect(details.json().data.map((row: { name: string }) => row.name)).toEqual([
      'amount',
      'initiator',
      'approved',
    ]);
    expect(details.json().data[2]).toMatchObject({
      taskId,
      activityId: 'big',
      username: 'admin',
      value: true,
    });
    const tasks = await call(t, t.auth, 'GET', `history/taskinstance/query?processInstanceId=${instance.id}`);
    expect(tasks.json().data.records).toEqual([
      expect.objectContaining({ id: taskId, status: 'completed', assignee: 'admin' }),
    ]);
    const historic = await call(
      t,
      t.auth,
      'GET',
      `history/processinstance/query?processInstanceId=${instance.id}&finished=true`,
    );
    expect(historic.json().data.records).toEqual([
      expect.objectContaining({ id: instance.id, status: 'over', ended: true }),
    ]);
    const detail = await call(t, t.auth, 'GET', `processinstance/detail?id=${instance.id}`);
    expect(detail.json().data.comments).toEqual([
      expect.objectContaining({ action: 'complete', message: 'ok', username: 'admin' }),
    ]);
  });
});
