import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setWorkflowClock } from '../../src/server/features/workflow/services/clock.js';
import { runDueJobs } from '../../src/server/features/workflow/services/jobs.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { addRoleWithMenus, createUserWithRole, signedInTenantAdmin } from '../support/users.js';
import {
  bearer,
  bpmn,
  call,
  complete,
  deploy,
  flow,
  instanceRow,
  openTasks,
  start,
  startWithKey,
  tasksOf,
  withRoots,
} from '../support/workflow.js';

/**
 * Issue 36's messages and signals over the HTTP API: POST …/processinstance/message correlates by
 * message name and business key (or instance) to one waiting token or message start (404 none,
 * 409 several), receive tasks and message catches go on, message boundary events interrupt or
 * not, an event-based gateway takes the first event, a signal reaches catches of other instances
 * of the tenant (never another tenant's) and starts signal start events, and event sub-processes
 * start on their message, signal or timer.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 300_000);
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  setWorkflowClock(t.app.ctx, undefined);
});

const task = (id: string): string => `<userTask id="${id}" name="${id}" camunda:assignee="\${initiator}"/>`;

const message = (payload: Record<string, unknown>) =>
  call(t, t.auth, 'POST', 'processinstance/message', payload);
const signal = (payload: Record<string, unknown>) =>
  call(t, t.auth, 'POST', 'processinstance/signal', payload);

/** start → wait for "payment" (catch) → receive "shipped" (receive task) → check → end. */
const ORDER = withRoots(
  '<message id="mPay" name="payment"/><message id="mShip" name="shipped"/>',
  'order_flow',
  `<startEvent id="s"/>${flow('f1', 's', 'pay')}
   <intermediateCatchEvent id="pay"><messageEventDefinition messageRef="mPay"/></intermediateCatchEvent>${flow('f2', 'pay', 'ship')}
   <receiveTask id="ship" messageRef="mShip"/>${flow('f3', 'ship', 'check')}
   ${task('check')}${flow('f4', 'check', 'e')}<endEvent id="e"/>`,
);

describe('message correlation (POST …/processinstance/message)', () => {
  beforeAll(async () => {
    await deploy(t, ORDER);
  });

  it('moves the one token waiting for the message of the business key; the variables sent are set', async () => {
    const first = await startWithKey(t, 'order_flow', 'PO-1');
    const second = await startWithKey(t, 'order_flow', 'PO-2');
    const executions = await call(t, t.auth, 'GET', `processinstance/executions?id=${first}`);
    expect(executions.json().data).toMatchObject([
      {
        activityId: 'pay',
        state: 'waiting',
        waitsFor: [{ kind: 'message', name: 'payment', activityId: 'pay' }],
      },
    ]);
    const paid = await message({ messageName: 'payment', businessKey: 'PO-2', variables: { amount: 12 } });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().data).toEqual({ processInstanceIds: [second], startedInstanceIds: [] });
    const at = await t.sql<{ activity_id: string }>(
      'select activity_id from wf_execution where instance_id = $1',
      [second],
    );
    expect(at).toEqual([{ activity_id: 'ship' }]);
    const [amount] = await t.sql<{ value: unknown }>(
      "select value from wf_variable where instance_id = $1 and name = 'amount'",
      [second],
    );
    expect(amount?.value).toBe(12);
    // the first still waits; the receive task of the second takes "shipped", then the task is open
    expect((await message({ messageName: 'shipped', processInstanceId: second })).statusCode).toBe(200);
    expect(await tasksOf(t, second)).toEqual(['check']);
    const [check] = await openTasks(t, second);
    expect((await complete(t, t.auth, check?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, second)).toMatchObject({ status: 'over' });
    const history = await t.sql<{ activity_id: string; ended: boolean }>(
      'select activity_id, end_time is not null as ended from wf_hist_activity where instance_id = $1 order by id',
      [second],
    );
    expect(history.map((row) => row.activity_id)).toEqual(['s', 'pay', 'ship', 'check', 'e']);
    expect(history.every((row) => row.ended)).toBe(true);
    // its subscriptions are gone with it
    const left = await t.sql('select 1 from wf_event_subscription where instance_id = $1', [second]);
    expect(left).toEqual([]);
    expect(await instanceRow(t, first)).toMatchObject({ status: 'running' });
  });

  it('404 when nobody waits for the message, 409 naming the count when several do; nothing moves', async () => {
    const a = await startWithKey(t, 'order_flow', 'PO-A');
    const b = await startWithKey(t, 'order_flow', 'PO-B');
    const none = await message({ messageName: 'no such message' });
    expect(none.statusCode).toBe(404);
    expect(none.json().message).toContain('no such message');
    const several = await message({ messageName: 'payment' });
    expect(several.statusCode, several.body).toBe(409);
    expect(several.json().message).toContain('payment');
    for (const id of [a, b])
      expect(await t.sql('select activity_id from wf_execution where instance_id = $1', [id])).toEqual([
        { activity_id: 'pay' },
      ]);
    // all: every waiting token goes on
    const all = await message({ messageName: 'payment', all: true });
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().data.processInstanceIds).toEqual(expect.arrayContaining([a, b]));
  });

  it('a message for an instance that does not wait for it is a 404, and a missing name a 400 naming the field', async () => {
    const id = await startWithKey(t, 'order_flow', 'PO-X');
    expect((await message({ messageName: 'shipped', processInstanceId: id })).statusCode).toBe(404);
    const bad = await message({ businessKey: 'PO-X' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('messageName');
  });

  it('another tenant cannot reach the instances of this one', async () => {
    const other = await signedInTenantAdmin(t, 'msgother');
    const id = await startWithKey(t, 'order_flow', 'PO-T');
    const answer = await call(t, other, 'POST', 'processinstance/message', {
      messageName: 'payment',
      businessKey: 'PO-T',
    });
    expect(answer.statusCode).toBe(404);
    expect(await t.sql('select activity_id from wf_execution where instance_id = $1', [id])).toEqual([
      { activity_id: 'pay' },
    ]);
  });
});

describe('message start events and boundary events', () => {
  it('a message start event starts the latest version with the business key and variables', async () => {
    await deploy(
      t,
      withRoots(
        '<message id="m" name="new complaint"/>',
        'complaint',
        `<startEvent id="byMessage"><messageEventDefinition messageRef="m"/></startEvent>${flow('f1', 'byMessage', 'handle')}
         ${task('handle')}${flow('f2', 'handle', 'e')}<endEvent id="e"/>`,
      ),
    );
    const started = await message({
      messageName: 'new complaint',
      businessKey: 'C-7',
      variables: { level: 2 },
    });
    expect(started.statusCode, started.body).toBe(200);
    const [id] = started.json().data.startedInstanceIds as number[];
    const [row] = await t.sql<{ business_key: string; status: string }>(
      'select business_key, status from wf_instance where id = $1',
      [id],
    );
    expect(row).toEqual({ business_key: 'C-7', status: 'running' });
    expect(await tasksOf(t, id ?? 0)).toEqual(['handle']);
  });

  it('an interrupting message boundary cancels the task; a non-interrupting one adds a token beside it', async () => {
    await deploy(
      t,
      withRoots(
        '<message id="mCancel" name="cancel"/><message id="mRemind" name="remind"/>',
        'boundaries',
        `<startEvent id="s"/>${flow('f1', 's', 'work')}${task('work')}
         <boundaryEvent id="stop" attachedToRef="work"><messageEventDefinition messageRef="mCancel"/></boundaryEvent>
         <boundaryEvent id="nudge" attachedToRef="work" cancelActivity="false"><messageEventDefinition messageRef="mRemind"/></boundaryEvent>
         ${flow('f2', 'work', 'e')}${flow('f3', 'stop', 'canceled')}${task('canceled')}${flow('f4', 'canceled', 'e2')}<endEvent id="e2"/>
         ${flow('f5', 'nudge', 'reminder')}${task('reminder')}${flow('f6', 'reminder', 'e3')}<endEvent id="e3"/><endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'boundaries');
    expect((await message({ messageName: 'remind', processInstanceId: instance.id })).statusCode).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['reminder', 'work']);
    expect((await message({ messageName: 'cancel', processInstanceId: instance.id })).statusCode).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['canceled', 'reminder']);
    const [work] = await t.sql<{ status: string; end_reason: string }>(
      "select status, end_reason from wf_task where instance_id = $1 and activity_id = 'work'",
      [instance.id],
    );
    expect(work).toEqual({ status: 'canceled', end_reason: 'boundaryMessage' });
    // the boundaries went with the task: nobody waits for "cancel" any more
    expect((await message({ messageName: 'cancel', processInstanceId: instance.id })).statusCode).toBe(404);
  });
});

describe('event-based gateway', () => {
  const RACE = withRoots(
    '<message id="m" name="answer"/><signal id="sig" name="alarm"/>',
    'race',
    `<startEvent id="s"/>${flow('f1', 's', 'g')}<eventBasedGateway id="g"/>
     ${flow('g1', 'g', 'answer')}<intermediateCatchEvent id="answer"><messageEventDefinition messageRef="m"/></intermediateCatchEvent>
     ${flow('g2', 'g', 'alarm')}<intermediateCatchEvent id="alarm"><signalEventDefinition signalRef="sig"/></intermediateCatchEvent>
     ${flow('g3', 'g', 'late')}<intermediateCatchEvent id="late"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
     ${flow('a1', 'answer', 'answered')}${task('answered')}${flow('a2', 'answered', 'e')}
     ${flow('a3', 'alarm', 'alarmed')}${task('alarmed')}${flow('a4', 'alarmed', 'e')}
     ${flow('a5', 'late', 'timedOut')}${task('timedOut')}${flow('a6', 'timedOut', 'e')}<endEvent id="e"/>`,
  );
  beforeAll(async () => {
    await deploy(t, RACE);
  });

  it('the message takes its way; the timer and the signal are dropped', async () => {
    const instance = await start(t, t.auth, 'race');
    expect((await message({ messageName: 'answer', processInstanceId: instance.id })).statusCode).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['answered']);
    expect(await t.sql('select 1 from wf_job where instance_id = $1', [instance.id])).toEqual([]);
    expect(await t.sql('select 1 from wf_event_subscription where instance_id = $1', [instance.id])).toEqual(
      [],
    );
  });

  it('the timer takes its way when it fires first', async () => {
    const instance = await start(t, t.auth, 'race');
    const at = new Date(Date.now() + 2 * 3_600_000);
    setWorkflowClock(t.app.ctx, () => at);
    expect(await runDueJobs(t.app.ctx)).toBeGreaterThanOrEqual(1);
    expect(await tasksOf(t, instance.id)).toEqual(['timedOut']);
    expect((await message({ messageName: 'answer', processInstanceId: instance.id })).statusCode).toBe(404);
  });

  it('a signal thrown over the API takes the signal way in every waiting instance of the tenant', async () => {
    const first = await start(t, t.auth, 'race');
    const second = await start(t, t.auth, 'race');
    const thrown = await signal({ signalName: 'alarm' });
    expect(thrown.statusCode, thrown.body).toBe(200);
    expect(thrown.json().data.processInstanceIds).toEqual(expect.arrayContaining([first.id, second.id]));
    expect(await tasksOf(t, first.id)).toEqual(['alarmed']);
    expect(await tasksOf(t, second.id)).toEqual(['alarmed']);
  });
});

describe('signals across instances and signal starts', () => {
  it('a signal thrown in one instance releases the catches of another instance and starts a signal start process', async () => {
    await deploy(
      t,
      withRoots(
        '<signal id="sig" name="stock low"/>',
        'stock_waiter',
        `<startEvent id="s"/>${flow('f1', 's', 'wait')}<intermediateCatchEvent id="wait"><signalEventDefinition signalRef="sig"/></intermediateCatchEvent>
         ${flow('f2', 'wait', 'reorder')}${task('reorder')}${flow('f3', 'reorder', 'e')}<endEvent id="e"/>`,
      ),
    );
    await deploy(
      t,
      withRoots(
        '<signal id="sig" name="stock low"/>',
        'stock_report',
        `<startEvent id="bySignal"><signalEventDefinition signalRef="sig"/></startEvent>${flow('f1', 'bySignal', 'report')}
         ${task('report')}${flow('f2', 'report', 'e')}<endEvent id="e"/>`,
      ),
    );
    await deploy(
      t,
      withRoots(
        '<signal id="sig" name="stock low"/>',
        'stock_thrower',
        `<startEvent id="s"/>${flow('f1', 's', 'count')}${task('count')}${flow('f2', 'count', 'tell')}
         <intermediateThrowEvent id="tell"><signalEventDefinition signalRef="sig"/></intermediateThrowEvent>${flow('f3', 'tell', 'e')}<endEvent id="e"/>`,
      ),
    );
    const waiter = await start(t, t.auth, 'stock_waiter');
    const thrower = await start(t, t.auth, 'stock_thrower');
    const before = await t.sql<{ n: number }>(
      "select count(*)::int as n from wf_instance where process_key = 'stock_report'",
    );
    const [count] = await openTasks(t, thrower.id);
    expect((await complete(t, t.auth, count?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, thrower.id)).toMatchObject({ status: 'over' });
    expect(await tasksOf(t, waiter.id)).toEqual(['reorder']);
    const after = await t.sql<{ n: number }>(
      "select count(*)::int as n from wf_instance where process_key = 'stock_report'",
    );
    expect(after[0]?.n).toBe((before[0]?.n ?? 0) + 1);
  });
});

describe('event sub-processes', () => {
  it('a non-interrupting message event sub-process adds its task; an interrupting one ends the rest', async () => {
    await deploy(
      t,
      withRoots(
        '<message id="mInfo" name="info"/><message id="mAbort" name="abort"/>',
        'with_events',
        `<startEvent id="s"/>${flow('f1', 's', 'work')}${task('work')}${flow('f2', 'work', 'e')}<endEvent id="e"/>
         <subProcess id="onInfo" triggeredByEvent="true">
           <startEvent id="infoStart" isInterrupting="false"><messageEventDefinition messageRef="mInfo"/></startEvent>
           ${flow('i1', 'infoStart', 'read')}${task('read')}${flow('i2', 'read', 'infoEnd')}<endEvent id="infoEnd"/>
         </subProcess>
         <subProcess id="onAbort" triggeredByEvent="true">
           <startEvent id="abortStart"><messageEventDefinition messageRef="mAbort"/></startEvent>
           ${flow('a1', 'abortStart', 'cleanUp')}${task('cleanUp')}${flow('a2', 'cleanUp', 'abortEnd')}<endEvent id="abortEnd"/>
         </subProcess>`,
      ),
    );
    const instance = await start(t, t.auth, 'with_events');
    expect(await tasksOf(t, instance.id)).toEqual(['work']);
    expect((await message({ messageName: 'info', processInstanceId: instance.id })).statusCode).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['read', 'work']);
    expect((await message({ messageName: 'abort', processInstanceId: instance.id })).statusCode).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['cleanUp']);
    const [cleanUp] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, cleanUp?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
  });

  it('an instance whose tasks are done ends though its event sub-processes still wait', async () => {
    const instance = await start(t, t.auth, 'with_events');
    const [work] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, work?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
    expect(await t.sql('select 1 from wf_event_subscription where instance_id = $1', [instance.id])).toEqual(
      [],
    );
  });
});

describe('multi-instance sub-process', () => {
  it('runs its body once per item in parallel and goes on when every child is done', async () => {
    await deploy(
      t,
      bpmn(
        'mi_sub',
        `<startEvent id="s"/>${flow('f1', 's', 'sub')}
         <subProcess id="sub"><multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics>
           <startEvent id="ss"/>${flow('i1', 'ss', 'inner')}${task('inner')}${flow('i2', 'inner', 'se')}<endEvent id="se"/>
         </subProcess>${flow('f2', 'sub', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'mi_sub');
    expect(await tasksOf(t, instance.id)).toEqual(['inner', 'inner', 'inner']);
    for (const row of await openTasks(t, instance.id))
      expect((await complete(t, t.auth, row.id)).statusCode).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['after']);
  });
});

describe('call activity', () => {
  beforeAll(async () => {
    await deploy(
      t,
      bpmn(
        'called_check',
        `<startEvent id="s"/>${flow('f1', 's', 'check')}<userTask id="check" name="check" camunda:assignee="admin"/>
         ${flow('f2', 'check', 'e')}<endEvent id="e"/>`,
      ),
    );
    await deploy(
      t,
      bpmn(
        'caller',
        `<startEvent id="s"/>${flow('f1', 's', 'call')}
         <callActivity id="call" name="Check the order" calledElement="\${child}">
           <extensionElements><camunda:in source="amount" target="total"/><camunda:in businessKey="#{execution.processBusinessKey}"/><camunda:out source="verdict" target="result"/></extensionElements>
         </callActivity>${flow('f2', 'call', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>`,
      ),
    );
  });

  const called = (callerId: number) =>
    t.sql<{ id: number; status: string }>(
      'select id, status from wf_instance where super_instance_id = $1 order by id',
      [callerId],
    );

  it('starts the called process with the variables mapped in, and goes on with those mapped out when it ends', async () => {
    const started = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'caller',
      description: 'order ORDER-7',
      businessKey: 'ORDER-7',
      variables: { child: 'called_check', amount: 40 },
    });
    expect(started.statusCode, started.body).toBe(200);
    const caller = started.json().data as { id: number };
    const [child] = await called(caller.id);
    expect(child?.status).toBe('running');
    // camunda:in businessKey: the called instance carries the caller's business key.
    const [keys] = await t.sql<{ business_key: string | null }>(
      'select business_key from wf_instance where id = $1',
      [child?.id],
    );
    expect(keys?.business_key).toBe('ORDER-7');
    const [total] = await t.sql<{ value: unknown }>(
      "select value from wf_variable where instance_id = $1 and name = 'total'",
      [child?.id],
    );
    expect(total?.value).toBe(40);
    // the caller's tasks with those of what it called
    const tree = await call(t, t.auth, 'GET', `task/query?rootProcessInstanceId=${caller.id}&finished=false`);
    expect(
      tree.json().data.records.map((row: { taskDefinitionKey: string }) => row.taskDefinitionKey),
    ).toEqual(['check']);
    const [check] = await openTasks(t, child?.id ?? 0);
    expect((await complete(t, t.auth, check?.id ?? 0, { verdict: 'fine' })).statusCode).toBe(200);
    expect(await instanceRow(t, child?.id ?? 0)).toMatchObject({ status: 'over' });
    expect(await tasksOf(t, caller.id)).toEqual(['after']);
    const [result] = await t.sql<{ value: unknown }>(
      "select value from wf_variable where instance_id = $1 and name = 'result'",
      [caller.id],
    );
    expect(result?.value).toBe('fine');
  });

  it('a business key written as an expression of the caller’s variables is the called instance’s', async () => {
    await deploy(
      t,
      bpmn(
        'caller_keyed',
        `<startEvent id="s"/>${flow('f1', 's', 'call')}
         <callActivity id="call" calledElement="called_check">
           <extensionElements><camunda:in businessKey="#{orderRef}"/></extensionElements>
         </callActivity>${flow('f2', 'call', 'e')}<endEvent id="e"/>`,
      ),
    );
    const caller = await start(t, t.auth, 'caller_keyed', { orderRef: 'PO-9' });
    const [child] = await called(caller.id);
    const [keys] = await t.sql<{ business_key: string | null }>(
      'select business_key from wf_instance where id = $1',
      [child?.id],
    );
    expect(keys?.business_key).toBe('PO-9');
  });

  it('a called process that is not deployed stops the caller in an incident naming the call activity', async () => {
    const caller = await start(t, t.auth, 'caller', { child: 'nowhere', amount: 1 });
    const [row] = await t.sql<{ incident: { activityId: string; message: string } | null }>(
      'select incident from wf_instance where id = $1',
      [caller.id],
    );
    expect(row?.incident?.activityId).toBe('call');
    expect(row?.incident?.message).toContain('nowhere');
  });

  it('a multi-instance call activity calls once per item and goes on when every call has ended', async () => {
    await deploy(
      t,
      bpmn(
        'mi_caller',
        `<startEvent id="s"/>${flow('f1', 's', 'calls')}
         <callActivity id="calls" calledElement="called_check"><multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></callActivity>
         ${flow('f2', 'calls', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>`,
      ),
    );
    const caller = await start(t, t.auth, 'mi_caller');
    for (let round = 0; round < 2; round++) {
      const running = (await called(caller.id)).filter((row) => row.status === 'running');
      expect(running).toHaveLength(1);
      const [check] = await openTasks(t, running[0]?.id ?? 0);
      expect((await complete(t, t.auth, check?.id ?? 0)).statusCode).toBe(200);
    }
    expect((await called(caller.id)).map((row) => row.status)).toEqual(['over', 'over']);
    expect(await tasksOf(t, caller.id)).toEqual(['after']);
  });

  it('terminating the caller terminates what it called', async () => {
    const caller = await start(t, t.auth, 'caller', { child: 'called_check', amount: 2 });
    const terminated = await call(t, t.auth, 'POST', 'processinstance/terminate', {
      id: caller.id,
      comment: 'stop',
    });
    expect(terminated.statusCode, terminated.body).toBe(200);
    expect((await called(caller.id)).map((row) => row.status)).toEqual(['terminated']);
  });
});

describe('escalations', () => {
  it('an escalation end event inside a sub-process fires the boundary that catches it; one nobody catches is passed', async () => {
    await deploy(
      t,
      withRoots(
        '<escalation id="esc" escalationCode="late"/>',
        'escalating',
        `<startEvent id="s"/>${flow('f1', 's', 'tell')}<intermediateThrowEvent id="tell"><escalationEventDefinition escalationRef="esc"/></intermediateThrowEvent>
         ${flow('f2', 'tell', 'sub')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('i1', 'ss', 'inner')}${task('inner')}${flow('i2', 'inner', 'se')}<endEvent id="se"><escalationEventDefinition escalationRef="esc"/></endEvent></subProcess>
         <boundaryEvent id="caught" attachedToRef="sub"><escalationEventDefinition escalationRef="esc"/></boundaryEvent>
         ${flow('f3', 'sub', 'e')}<endEvent id="e"/>${flow('f4', 'caught', 'handle')}${task('handle')}${flow('f5', 'handle', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'escalating');
    expect(await tasksOf(t, instance.id)).toEqual(['inner']);
    const [inner] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, inner?.id ?? 0)).statusCode).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['handle']);
  });

  it('a join without a flow out ends the merged token', async () => {
    await deploy(
      t,
      bpmn(
        'ending_join',
        `<startEvent id="s"/>${flow('f1', 's', 'fork')}<parallelGateway id="fork"/>${flow('f2', 'fork', 'a')}${flow('f3', 'fork', 'b')}
         <task id="a"/><task id="b"/>${flow('f4', 'a', 'join')}${flow('f5', 'b', 'join')}<parallelGateway id="join"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'ending_join');
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
  });
});

describe('conditional events', () => {
  it('a conditional catch waits until a task completion sets what its condition reads', async () => {
    await deploy(
      t,
      bpmn(
        'conditional',
        `<startEvent id="s"/>${flow('f1', 's', 'fork')}<parallelGateway id="fork"/>${flow('f2', 'fork', 'wait')}${flow('f3', 'fork', 'decide')}
         <intermediateCatchEvent id="wait"><conditionalEventDefinition><condition xsi:type="tFormalExpression">\${approved == true}</condition></conditionalEventDefinition></intermediateCatchEvent>
         ${flow('f4', 'wait', 'go')}${task('go')}${flow('f5', 'go', 'e')}<endEvent id="e"/>
         ${task('decide')}${flow('f6', 'decide', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'conditional', { approved: false });
    expect(await tasksOf(t, instance.id)).toEqual(['decide']);
    const [decide] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, decide?.id ?? 0, { approved: true })).statusCode).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['go']);
  });
});

describe('variables set from outside (POST …/processinstance/variables)', () => {
  const setVariables = (payload: Record<string, unknown>, caller = t.auth) =>
    call(t, caller, 'POST', 'processinstance/variables', payload);
  const condition = (text: string) =>
    `<conditionalEventDefinition><condition xsi:type="tFormalExpression">${text}</condition></conditionalEventDefinition>`;

  beforeAll(async () => {
    // Flowable's ConditionalIntermediateCatchEventTest: a catch waits for myVar to be 'test'.
    await deploy(
      t,
      bpmn(
        'outside_catch',
        `<startEvent id="s"/>${flow('f1', 's', 'wait')}
         <intermediateCatchEvent id="wait">${condition("${myVar == 'test'}")}</intermediateCatchEvent>
         ${flow('f2', 'wait', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>`,
      ),
    );
  });

  it('moves a conditional catch on once its condition holds, and not before; each change is in the history', async () => {
    const instance = await start(t, t.auth, 'outside_catch', { myVar: 'empty' });
    const unrelated = await setVariables({ id: instance.id, variables: { note: 'checked' } });
    expect(unrelated.statusCode, unrelated.body).toBe(200);
    expect(unrelated.json().data).toMatchObject({ id: instance.id, status: 'running' });
    expect(await tasksOf(t, instance.id)).toEqual([]);
    expect(await t.sql('select activity_id from wf_execution where instance_id = $1', [instance.id])).toEqual(
      [{ activity_id: 'wait' }],
    );
    const met = await setVariables({ id: instance.id, variables: { myVar: 'test' } });
    expect(met.statusCode, met.body).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['after']);
    const changes = await t.sql<{ name: string; value: unknown; username: string }>(
      "select name, value, username from wf_hist_detail where instance_id = $1 and name <> 'initiator' order by id",
      [instance.id],
    );
    expect(changes).toEqual([
      { name: 'myVar', value: 'empty', username: 'admin' },
      { name: 'note', value: 'checked', username: 'admin' },
      { name: 'myVar', value: 'test', username: 'admin' },
    ]);
    const comments = await t.sql<{ action: string; message: string }>(
      "select action, message from wf_comment where instance_id = $1 and action = 'variables' order by id",
      [instance.id],
    );
    expect(comments).toEqual([
      { action: 'variables', message: 'note' },
      { action: 'variables', message: 'myVar' },
    ]);
    const [after] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, after?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('fires an interrupting conditional boundary event on a user task', async () => {
    await deploy(
      t,
      bpmn(
        'outside_boundary',
        `<startEvent id="s"/>${flow('f1', 's', 'work')}${task('work')}${flow('f2', 'work', 'e')}<endEvent id="e"/>
         <boundaryEvent id="called_off" attachedToRef="work">${condition('${cancelled == true}')}</boundaryEvent>
         ${flow('f3', 'called_off', 'tidy')}${task('tidy')}${flow('f4', 'tidy', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'outside_boundary');
    expect(await tasksOf(t, instance.id)).toEqual(['work']);
    const set = await setVariables({ id: instance.id, variables: { cancelled: true } });
    expect(set.statusCode, set.body).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['tidy']);
  });

  it('is refused, with nothing written, when the way on stops in an incident; set together it goes on', async () => {
    await deploy(
      t,
      bpmn(
        'outside_gateway',
        `<startEvent id="s"/>${flow('f1', 's', 'wait')}
         <intermediateCatchEvent id="wait">${condition('${delivered == true}')}</intermediateCatchEvent>
         ${flow('f2', 'wait', 'size')}<exclusiveGateway id="size" name="按金额"/>
         ${flow('big', 'size', 'boss', '${amount > 10}')}${flow('small', 'size', 'e', '${amount <= 10}')}
         ${task('boss')}${flow('f3', 'boss', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'outside_gateway');
    const written = () =>
      t.sql<{ n: number }>(
        `select (select count(*) from wf_hist_detail where instance_id = $1)
          + (select count(*) from wf_comment where instance_id = $1) as n`,
        [instance.id],
      );
    const before = await written();
    const refused = await setVariables({ id: instance.id, variables: { delivered: true } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toContain('按金额');
    expect(refused.json().message).toContain('amount');
    expect(await written()).toEqual(before);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'running', incident: null });
    expect(
      await t.sql('select activity_id, state from wf_execution where instance_id = $1', [instance.id]),
    ).toEqual([{ activity_id: 'wait', state: 'waiting' }]);
    const both = await setVariables({ id: instance.id, variables: { delivered: true, amount: 20 } });
    expect(both.statusCode, both.body).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['boss']);
  });

  it('clears the incident whose scope an interrupting conditional boundary event took', async () => {
    await deploy(
      t,
      bpmn(
        'outside_stale',
        `<startEvent id="s"/>${flow('f1', 's', 'review')}
         <subProcess id="review"><startEvent id="rs"/>${flow('r1', 'rs', 'check')}
           <userTask id="check" name="复核" camunda:assignee="\${reviewer}"/>${flow('r2', 'check', 're')}<endEvent id="re"/>
         </subProcess>${flow('f2', 'review', 'e')}<endEvent id="e"/>
         <boundaryEvent id="abort" attachedToRef="review">${condition('${abort == true}')}</boundaryEvent>
         ${flow('f3', 'abort', 'tidy')}${task('tidy')}${flow('f4', 'tidy', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'outside_stale');
    expect(await instanceRow(t, instance.id)).toMatchObject({
      incident: { activityId: 'check', variable: 'reviewer' },
    });
    const set = await setVariables({ id: instance.id, variables: { abort: true } });
    expect(set.statusCode, set.body).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['tidy']);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'running', incident: null });
  });

  it('may be used by a role given 流程实例 with its 终止 button, not without the button', async () => {
    await addRoleWithMenus(t, 'ROLE_WF_OPERATOR', ['processinstance'], ['processinstance:terminate']);
    await addRoleWithMenus(t, 'ROLE_WF_VIEWER', ['processinstance']);
    const operator = bearer((await createUserWithRole(t, 'wfoperator', 'ROLE_WF_OPERATOR')).token);
    const viewer = bearer((await createUserWithRole(t, 'wfviewer', 'ROLE_WF_VIEWER')).token);
    const instance = await start(t, t.auth, 'outside_catch', { myVar: 'empty' });
    expect((await setVariables({ id: instance.id, variables: { myVar: 'test' } }, viewer)).statusCode).toBe(
      403,
    );
    const done = await setVariables({ id: instance.id, variables: { myVar: 'test' } }, operator);
    expect(done.statusCode, done.body).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['after']);
  });

  it('refuses what it cannot do, names the field, and writes nothing', async () => {
    const instance = await start(t, t.auth, 'outside_catch', { myVar: 'empty' });
    const variableRows = () =>
      t.sql<{ name: string; value: unknown }>(
        "select name, value from wf_variable where instance_id = $1 and name <> 'initiator' order by name",
        [instance.id],
      );
    const empty = await setVariables({ id: instance.id, variables: {} });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors).toEqual([{ field: '/variables', message: expect.stringContaining('1') }]);
    const badName = await setVariables({ id: instance.id, variables: { 'not a name': 1 } });
    expect(badName.statusCode).toBe(400);
    const huge = await setVariables({
      id: instance.id,
      variables: { myVar: 'test', blob: 'x'.repeat(300_000) },
    });
    expect(huge.statusCode).toBe(400);
    expect(huge.body).toContain('blob');
    expect(await variableRows()).toEqual([{ name: 'myVar', value: 'empty' }]);
    expect(await tasksOf(t, instance.id)).toEqual([]);

    // a user without the instances' screen may not; another tenant's administrator finds nothing
    const plain = bearer((await createUserWithRole(t, 'varsplain', 'ROLE_SYS_BUYER')).token);
    expect((await setVariables({ id: instance.id, variables: { myVar: 'test' } }, plain)).statusCode).toBe(
      403,
    );
    const other = await signedInTenantAdmin(t, 'varsother');
    expect((await setVariables({ id: instance.id, variables: { myVar: 'test' } }, other)).statusCode).toBe(
      404,
    );

    // suspended: 409; ended: refused
    expect((await call(t, t.auth, 'POST', `processinstance/suspend?id=${instance.id}`)).statusCode).toBe(200);
    expect((await setVariables({ id: instance.id, variables: { myVar: 'test' } })).statusCode).toBe(409);
    expect((await call(t, t.auth, 'POST', `processinstance/activate?id=${instance.id}`)).statusCode).toBe(
      200,
    );
    expect(
      (await call(t, t.auth, 'POST', 'processinstance/terminate', { id: instance.id, comment: 'done' }))
        .statusCode,
    ).toBe(200);
    const ended = await setVariables({ id: instance.id, variables: { myVar: 'test' } });
    expect(ended.statusCode).toBe(409);
    expect(await variableRows()).toEqual([{ name: 'myVar', value: 'empty' }]);
  });
});

describe('more kinds of events run through the API (issue 36)', () => {
  it('a non-interrupting signal boundary adds its path and leaves the task open', async () => {
    await deploy(
      t,
      withRoots(
        '<signal id="sig" name="recall"/>',
        'nonint_signal',
        `<startEvent id="s"/>${flow('f1', 's', 'work')}${task('work')}${flow('f2', 'work', 'e')}<endEvent id="e"/>
         <boundaryEvent id="onRecall" attachedToRef="work" cancelActivity="false"><signalEventDefinition signalRef="sig"/></boundaryEvent>
         ${flow('f3', 'onRecall', 'recheck')}${task('recheck')}${flow('f4', 'recheck', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'nonint_signal');
    expect((await signal({ signalName: 'recall' })).statusCode).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['recheck', 'work']);
    for (const row of await openTasks(t, instance.id))
      expect((await complete(t, t.auth, row.id)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
  });

  it('a signal starts an interrupting event sub-process, which ends the task it interrupts', async () => {
    await deploy(
      t,
      withRoots(
        '<signal id="sig" name="halt all"/>',
        'signal_event_sub',
        `<startEvent id="s"/>${flow('f1', 's', 'work')}${task('work')}${flow('f2', 'work', 'e')}<endEvent id="e"/>
         <subProcess id="onHalt" triggeredByEvent="true">
           <startEvent id="hs" isInterrupting="true"><signalEventDefinition signalRef="sig"/></startEvent>
           ${flow('h1', 'hs', 'wrapUp')}${task('wrapUp')}${flow('h2', 'wrapUp', 'he')}<endEvent id="he"/>
         </subProcess>`,
      ),
    );
    const instance = await start(t, t.auth, 'signal_event_sub');
    expect((await signal({ signalName: 'halt all' })).statusCode).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['wrapUp']);
    const [canceled] = await t.sql<{ end_reason: string }>(
      "select end_reason from wf_task where instance_id = $1 and activity_id = 'work'",
      [instance.id],
    );
    expect(canceled?.end_reason).toBe('eventSubProcess');
    const [wrapUp] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, wrapUp?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
  });

  it('a message throw event and a send task without code pass on, each written to the history', async () => {
    await deploy(
      t,
      withRoots(
        '<message id="mDone" name="done"/>',
        'message_throws',
        `<startEvent id="s"/>${flow('f1', 's', 'tell')}
         <intermediateThrowEvent id="tell"><messageEventDefinition messageRef="mDone"/></intermediateThrowEvent>
         ${flow('f2', 'tell', 'send')}<sendTask id="send" messageRef="mDone"/>${flow('f3', 'send', 'check')}
         ${task('check')}${flow('f4', 'check', 'e')}<endEvent id="e"><messageEventDefinition messageRef="mDone"/></endEvent>`,
      ),
    );
    const instance = await start(t, t.auth, 'message_throws');
    expect(await tasksOf(t, instance.id)).toEqual(['check']);
    const [check] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, check?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
    const history = await t.sql<{ activity_id: string }>(
      'select activity_id from wf_hist_activity where instance_id = $1 order by id',
      [instance.id],
    );
    expect(history.map((row) => row.activity_id)).toEqual(['s', 'tell', 'send', 'check', 'e']);
  });
});

/** An instance's open tasks by name (id and name), in order of name. */
const openTasksByName = (instanceId: number): Promise<{ id: number; name: string }[]> =>
  t.sql<{ id: number; name: string }>(
    'select id, name from wf_task where instance_id = $1 and end_time is null order by name',
    [instanceId],
  );

/** The id of the instance's open task of that name (0 when none). */
const openTaskNamed = async (instanceId: number, name: string): Promise<number> =>
  (await openTasksByName(instanceId)).find((row) => row.name === name)?.id ?? 0;

describe('loops, escalations and other dialects’ mappings through the API (issue 36)', () => {
  const calledBy = (callerId: number) =>
    t.sql<{ id: number }>('select id from wf_instance where super_instance_id = $1 order by id', [callerId]);

  it('a parallel multi-instance sub-process over a collection runs its body once per item', async () => {
    await deploy(
      t,
      bpmn(
        'mi_sub_collection',
        `<startEvent id="s"/>${flow('f1', 's', 'each')}
         <subProcess id="each">
           <multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${parts}" camunda:elementVariable="part"/>
           <startEvent id="ss"/>${flow('i1', 'ss', 'fit')}<userTask id="fit" name="Fit \${part}" camunda:assignee="admin"/>${flow('i2', 'fit', 'se')}<endEvent id="se"/>
         </subProcess>${flow('f2', 'each', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'mi_sub_collection', { parts: ['pump', 'valve'] });
    const names = await t.sql<{ name: string }>(
      'select name from wf_task where instance_id = $1 and end_time is null order by name',
      [instance.id],
    );
    expect(names.map((row) => row.name)).toEqual(['Fit pump', 'Fit valve']);
    for (const row of await openTasks(t, instance.id))
      expect((await complete(t, t.auth, row.id)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
  });

  it('a multi-instance service task runs once per item, one after another, and the token goes on', async () => {
    await deploy(
      t,
      bpmn(
        'mi_service_task',
        `<startEvent id="s"/>${flow('f1', 's', 'note')}
         <serviceTask id="note" camunda:type="setVariables">
           <extensionElements><camunda:field name="total"><camunda:expression>\${total + item}</camunda:expression></camunda:field></extensionElements>
           <multiInstanceLoopCharacteristics isSequential="true" camunda:collection="\${items}" camunda:elementVariable="item"/>
         </serviceTask>
         ${flow('f2', 'note', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'mi_service_task', { items: [1, 2, 3], total: 0 });
    expect(await tasksOf(t, instance.id)).toEqual(['after']);
    // Each item added to what the one before left: 1 + 2 + 3.
    const [total] = await t.sql<{ value: unknown }>(
      "select value from wf_variable where instance_id = $1 and name = 'total'",
      [instance.id],
    );
    expect(total?.value).toBe(6);
    // Each item is a row of the history, as each is an activity instance in the peers' engines.
    const passed = await t.sql<{ count: number }>(
      "select count(*)::int as count from wf_hist_activity where instance_id = $1 and activity_id = 'note'",
      [instance.id],
    );
    expect(passed[0]?.count).toBe(3);
  });

  it('a multi-instance task in the body of a multi-instance sub-process runs over the outer item', async () => {
    await deploy(
      t,
      bpmn(
        'mi_nested_collection',
        `<startEvent id="s"/>${flow('f1', 's', 'orders')}
         <subProcess id="orders">
           <multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${orderList}" camunda:elementVariable="order"/>
           <startEvent id="ss"/>${flow('i1', 'ss', 'pack')}
           <userTask id="pack" name="Pack \${order.ref} \${line}" camunda:assignee="admin">
             <multiInstanceLoopCharacteristics isSequential="true" camunda:collection="\${order.lines}" camunda:elementVariable="line"/>
           </userTask>${flow('i2', 'pack', 'se')}<endEvent id="se"/>
         </subProcess>${flow('f2', 'orders', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'mi_nested_collection', {
      orderList: [
        { ref: 'A', lines: ['pump', 'valve'] },
        { ref: 'B', lines: ['hose'] },
      ],
    });
    const openNames = async () => (await openTasksByName(instance.id)).map((row) => row.name);
    // Sequential inside each order: its first line now, the next once that one is done.
    expect(await openNames()).toEqual(['Pack A pump', 'Pack B hose']);
    const byName = (name: string) => openTaskNamed(instance.id, name);
    expect((await complete(t, t.auth, await byName('Pack A pump'))).statusCode).toBe(200);
    expect(await openNames()).toEqual(['Pack A valve', 'Pack B hose']);
    for (const name of ['Pack A valve', 'Pack B hose'])
      expect((await complete(t, t.auth, await byName(name))).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('the body of a multi-instance sub-process reads the loop’s counts as they are now', async () => {
    await deploy(
      t,
      bpmn(
        'mi_counts_now',
        `<startEvent id="s"/>${flow('f1', 's', 'each')}
         <subProcess id="each">
           <multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${parts}" camunda:elementVariable="part"/>
           <startEvent id="ss"/>${flow('i1', 'ss', 'fit')}<userTask id="fit" name="Fit \${part}" camunda:assignee="admin"/>
           ${flow('i2', 'fit', 'report')}<userTask id="report" name="Report \${part}: \${nrOfCompletedInstances} of \${nrOfInstances} done" camunda:assignee="admin"/>
           ${flow('i3', 'report', 'se')}<endEvent id="se"/>
         </subProcess>${flow('f2', 'each', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'mi_counts_now', { parts: ['pump', 'valve'] });
    const byName = (name: string) => openTaskNamed(instance.id, name);
    expect((await complete(t, t.auth, await byName('Fit pump'))).statusCode).toBe(200);
    expect((await complete(t, t.auth, await byName('Report pump: 0 of 2 done'))).statusCode).toBe(200);
    // The pump's body is done: the valve's report, made now, counts it.
    expect((await complete(t, t.auth, await byName('Fit valve'))).statusCode).toBe(200);
    expect((await complete(t, t.auth, await byName('Report valve: 1 of 2 done'))).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('a conditional catch in the body of a multi-instance sub-process reads the body’s item', async () => {
    await deploy(
      t,
      bpmn(
        'mi_conditional_body',
        `<startEvent id="s"/>${flow('f1', 's', 'each')}
         <subProcess id="each">
           <multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${parts}" camunda:elementVariable="part"/>
           <startEvent id="ss"/>${flow('i1', 'ss', 'ready')}
           <intermediateCatchEvent id="ready"><conditionalEventDefinition><condition xsi:type="tFormalExpression">\${part == 'stock' || delivered}</condition></conditionalEventDefinition></intermediateCatchEvent>
           ${flow('i2', 'ready', 'fit')}<userTask id="fit" name="Fit \${part}" camunda:assignee="admin"/>${flow('i3', 'fit', 'se')}<endEvent id="se"/>
         </subProcess>${flow('f2', 'each', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'mi_conditional_body', {
      parts: ['stock', 'order'],
      delivered: false,
    });
    const openNames = () => openTasksByName(instance.id);
    // The part in stock goes on at once; the ordered one waits for its delivery.
    const first = await openNames();
    expect(first.map((row) => row.name)).toEqual(['Fit stock']);
    expect((await complete(t, t.auth, first[0]?.id ?? 0, { delivered: true })).statusCode).toBe(200);
    const second = await openNames();
    expect(second.map((row) => row.name)).toEqual(['Fit order']);
    expect((await complete(t, t.auth, second[0]?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('a non-interrupting escalation boundary adds its path while the sub-process goes on', async () => {
    await deploy(
      t,
      withRoots(
        '<escalation id="esc" escalationCode="slow"/>',
        'nonint_escalation',
        `<startEvent id="s"/>${flow('f1', 's', 'sub')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('i1', 'ss', 'warn')}
           <intermediateThrowEvent id="warn"><escalationEventDefinition escalationRef="esc"/></intermediateThrowEvent>
           ${flow('i2', 'warn', 'inner')}${task('inner')}${flow('i3', 'inner', 'se')}<endEvent id="se"/></subProcess>
         <boundaryEvent id="noted" attachedToRef="sub" cancelActivity="false"><escalationEventDefinition escalationRef="esc"/></boundaryEvent>
         ${flow('f2', 'sub', 'e')}<endEvent id="e"/>${flow('f3', 'noted', 'followUp')}${task('followUp')}${flow('f4', 'followUp', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'nonint_escalation');
    expect(await tasksOf(t, instance.id)).toEqual(['followUp', 'inner']);
    for (const row of await openTasks(t, instance.id))
      expect((await complete(t, t.auth, row.id)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
  });

  it('reads activiti:in and activiti:out of an Activiti file, and flowable:in and flowable:out of a Flowable one', async () => {
    for (const [prefix, uri] of [
      ['activiti', 'http://activiti.org/bpmn'],
      ['flowable', 'http://flowable.org/bpmn'],
    ] as const) {
      const key = `${prefix}_mapping`;
      await deploy(
        t,
        `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:${prefix}="${uri}" targetNamespace="test">
  <process id="${key}_child" isExecutable="true">
    <startEvent id="cs"/>${flow('c1', 'cs', 'answer')}<userTask id="answer" ${prefix}:assignee="admin"/>${flow('c2', 'answer', 'ce')}<endEvent id="ce"/>
  </process>
  <process id="${key}" isExecutable="true">
    <startEvent id="s"/>${flow('f1', 's', 'ask')}
    <callActivity id="ask" calledElement="${key}_child">
      <extensionElements><${prefix}:in source="question" target="q"/><${prefix}:out source="reply" target="answered"/></extensionElements>
    </callActivity>${flow('f2', 'ask', 'read')}<userTask id="read" ${prefix}:assignee="admin"/>${flow('f3', 'read', 'e')}<endEvent id="e"/>
  </process>
</definitions>`,
      );
      const caller = await start(t, t.auth, key, { question: 'how many?' });
      const [child] = await calledBy(caller.id);
      const [q] = await t.sql<{ value: unknown }>(
        "select value from wf_variable where instance_id = $1 and name = 'q'",
        [child?.id],
      );
      expect(q?.value, prefix).toBe('how many?');
      const [answer] = await openTasks(t, child?.id ?? 0);
      expect((await complete(t, t.auth, answer?.id ?? 0, { reply: 'three' })).statusCode).toBe(200);
      const [answered] = await t.sql<{ value: unknown }>(
        "select value from wf_variable where instance_id = $1 and name = 'answered'",
        [caller.id],
      );
      expect(answered?.value, prefix).toBe('three');
      expect(await tasksOf(t, caller.id)).toEqual(['read']);
    }
  });
});
