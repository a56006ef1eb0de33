import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import {
  bpmn,
  call,
  complete,
  deploy,
  flow,
  inDialect,
  instanceRow,
  openTasks,
  start,
  tasksOf,
  withRoots,
} from '../support/workflow.js';

/**
 * Issue 36's errors and escalations beyond the sub-process boundary: event sub-processes started
 * by an error or escalation start event (in the process and in a sub-process, nearest scope
 * first, a named code before a catch-all), an error end event right after a task, and errors and
 * escalations a called process does not catch reaching its call activity's boundary event or its
 * caller's event sub-process. Deploy refusals name the element at fault.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const task = (id: string): string => `<userTask id="${id}" name="${id}" camunda:assignee="\${initiator}"/>`;
/** A task of a called process (which has no initiator). */
const adminTask = (id: string): string => `<userTask id="${id}" name="${id}" camunda:assignee="admin"/>`;
const ERRORS = '<error id="late" errorCode="LATE"/><error id="broken" errorCode="BROKEN"/>';

async function completeOnly(instanceId: number, activityId: string): Promise<void> {
  const row = (await openTasks(t, instanceId)).find((open) => open.activity_id === activityId);
  expect(row, `${activityId} is open`).toBeDefined();
  const response = await complete(t, t.auth, row?.id ?? 0);
  expect(response.statusCode, response.body).toBe(200);
}

async function refusal(xml: string): Promise<{ field: string; message: string }[]> {
  const response = await call(
    t,
    { ...t.auth, 'accept-language': 'en' } as { authorization: string },
    'POST',
    'deployment/deployXml',
    { xml },
  );
  expect(response.statusCode, response.body).toBe(400);
  return (response.json() as { errors: { field: string; message: string }[] }).errors;
}

describe('error event sub-processes', () => {
  /**
   * A sub-process whose "check" task ends in the error named by `thrown` (or goes on to "beside"
   * work in parallel); the process's event sub-processes catch LATE (named) and any error.
   */
  const process = (key: string, thrown: string): string =>
    withRoots(
      ERRORS,
      key,
      `<startEvent id="s"/>${flow('f1', 's', 'sub')}
       <subProcess id="sub"><startEvent id="ss"/>${flow('i1', 'ss', 'fork')}<parallelGateway id="fork"/>
         ${flow('i2', 'fork', 'check')}${flow('i3', 'fork', 'beside')}${task('check')}${task('beside')}
         ${flow('i4', 'check', 'fail')}<endEvent id="fail"><errorEventDefinition errorRef="${thrown}"/></endEvent>
         ${flow('i5', 'beside', 'se')}<endEvent id="se"/></subProcess>
       ${flow('f2', 'sub', 'e')}<endEvent id="e"/>
       <subProcess id="onLate" triggeredByEvent="true"><startEvent id="lateStart"><errorEventDefinition errorRef="late"/></startEvent>
         ${flow('l1', 'lateStart', 'handleLate')}${task('handleLate')}${flow('l2', 'handleLate', 'le')}<endEvent id="le"/></subProcess>
       <subProcess id="onAny" triggeredByEvent="true"><startEvent id="anyStart"><errorEventDefinition/></startEvent>
         ${flow('a1', 'anyStart', 'handleAny')}${task('handleAny')}</subProcess>`,
    );

  it('an error end event in a sub-process starts the process event sub-process of its code, which ends the rest', async () => {
    await deploy(t, process('error_esp_named', 'late'));
    const instance = await start(t, t.auth, 'error_esp_named');
    expect(await tasksOf(t, instance.id)).toEqual(['beside', 'check']);
    await completeOnly(instance.id, 'check');
    // Interrupting: "beside" is canceled with its sub-process; the LATE handler runs, not the catch-all.
    expect(await tasksOf(t, instance.id)).toEqual(['handleLate']);
    const canceled = await t.sql<{ end_reason: string }>(
      "select end_reason from wf_task where instance_id = $1 and activity_id = 'beside'",
      [instance.id],
    );
    expect(canceled.map((row) => row.end_reason)).toEqual(['eventSubProcess']);
    await completeOnly(instance.id, 'handleLate');
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('an error no event sub-process names is caught by the catch-all one', async () => {
    await deploy(t, process('error_esp_any', 'broken'));
    const instance = await start(t, t.auth, 'error_esp_any');
    await completeOnly(instance.id, 'check');
    expect(await tasksOf(t, instance.id)).toEqual(['handleAny']);
    // The handler's task has no flow out: the event sub-process, then the instance, end with it.
    await completeOnly(instance.id, 'handleAny');
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('the event sub-process inside the sub-process catches before the sub-process boundary event', async () => {
    await deploy(
      t,
      withRoots(
        ERRORS,
        'error_esp_nested',
        `<startEvent id="s"/>${flow('f1', 's', 'sub')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('i1', 'ss', 'check')}${task('check')}
           ${flow('i2', 'check', 'fail')}<endEvent id="fail"><errorEventDefinition errorRef="late"/></endEvent>
           <subProcess id="inner" triggeredByEvent="true"><startEvent id="innerStart"><errorEventDefinition errorRef="late"/></startEvent>
             ${flow('n1', 'innerStart', 'fixInside')}${task('fixInside')}${flow('n2', 'fixInside', 'ne')}<endEvent id="ne"/></subProcess></subProcess>
         <boundaryEvent id="caught" attachedToRef="sub"><errorEventDefinition errorRef="late"/></boundaryEvent>
         ${flow('f2', 'sub', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>
         ${flow('f4', 'caught', 'outside')}${task('outside')}${flow('f5', 'outside', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'error_esp_nested');
    await completeOnly(instance.id, 'check');
    expect(await tasksOf(t, instance.id)).toEqual(['fixInside']);
    // The event sub-process ends, and with it the sub-process: the token goes on after it.
    await completeOnly(instance.id, 'fixInside');
    expect(await tasksOf(t, instance.id)).toEqual(['after']);
  });

  it('an error end event right after a task reaches the process event sub-process', async () => {
    await deploy(
      t,
      withRoots(
        ERRORS,
        'error_esp_direct',
        `<startEvent id="s"/>${flow('f1', 's', 'check')}${task('check')}
         ${flow('f2', 'check', 'fail')}<endEvent id="fail"><errorEventDefinition errorRef="late"/></endEvent>
         <subProcess id="onLate" triggeredByEvent="true"><startEvent id="lateStart"><errorEventDefinition errorRef="late"/></startEvent>
           ${flow('l1', 'lateStart', 'handleLate')}${task('handleLate')}${flow('l2', 'handleLate', 'le')}<endEvent id="le"/></subProcess>`,
      ),
    );
    const instance = await start(t, t.auth, 'error_esp_direct');
    await completeOnly(instance.id, 'check');
    expect(await instanceRow(t, instance.id)).toMatchObject({ end_time: null, incident: null });
    expect(await tasksOf(t, instance.id)).toEqual(['handleLate']);
  });
});

describe('escalation event sub-processes', () => {
  it('a non-interrupting escalation event sub-process runs beside the thrower; an interrupting one ends its scope', async () => {
    await deploy(
      t,
      withRoots(
        '<escalation id="soft" escalationCode="301"/><escalation id="hard" escalationCode="302"/>',
        'escalation_esp',
        `<startEvent id="s"/>${flow('f1', 's', 'sub')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('i1', 'ss', 'tell')}
           <intermediateThrowEvent id="tell"><escalationEventDefinition escalationRef="soft"/></intermediateThrowEvent>
           ${flow('i2', 'tell', 'work')}${task('work')}${flow('i3', 'work', 'stop')}
           <endEvent id="stop"><escalationEventDefinition escalationRef="hard"/></endEvent></subProcess>
         ${flow('f2', 'sub', 'e')}<endEvent id="e"/>
         <subProcess id="onSoft" triggeredByEvent="true"><startEvent id="softStart" isInterrupting="false"><escalationEventDefinition escalationRef="soft"/></startEvent>
           ${flow('a1', 'softStart', 'note')}${task('note')}${flow('a2', 'note', 'ae')}<endEvent id="ae"/></subProcess>
         <subProcess id="onHard" triggeredByEvent="true"><startEvent id="hardStart"><escalationEventDefinition escalationRef="hard"/></startEvent>
           ${flow('b1', 'hardStart', 'rescue')}${task('rescue')}${flow('b2', 'rescue', 'be')}<endEvent id="be"/></subProcess>`,
      ),
    );
    const instance = await start(t, t.auth, 'escalation_esp');
    expect(await tasksOf(t, instance.id)).toEqual(['note', 'work']);
    await completeOnly(instance.id, 'work');
    // The interrupting one ends everything else in the process, the non-interrupting "note" too.
    expect(await tasksOf(t, instance.id)).toEqual(['rescue']);
    await completeOnly(instance.id, 'rescue');
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
  });
});

describe('throws from a called process', () => {
  const child = (key: string, throwXml: string): string =>
    withRoots(
      `${ERRORS}<escalation id="esc" escalationCode="ASK"/>`,
      key,
      `<startEvent id="cs"/>${flow('c1', 'cs', 'childWork')}${adminTask('childWork')}${flow('c2', 'childWork', 'throw')}${throwXml}`,
    );
  const called = async (callerId: number): Promise<{ id: number; status: string }[]> =>
    t.sql<{ id: number; status: string }>(
      'select id, status from wf_instance where super_instance_id = $1 order by id',
      [callerId],
    );

  it('an error the called process does not catch fires the error boundary event of its call activity', async () => {
    await deploy(
      t,
      child('throwing_child', '<endEvent id="throw"><errorEventDefinition errorRef="late"/></endEvent>'),
    );
    await deploy(
      t,
      withRoots(
        ERRORS,
        'catching_caller',
        `<startEvent id="s"/>${flow('f1', 's', 'call')}<callActivity id="call" calledElement="throwing_child"/>
         ${flow('f2', 'call', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>
         <boundaryEvent id="caught" attachedToRef="call"><errorEventDefinition errorRef="late"/></boundaryEvent>
         ${flow('f4', 'caught', 'recover')}${task('recover')}${flow('f5', 'recover', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const caller = await start(t, t.auth, 'catching_caller');
    const [childInstance] = await called(caller.id);
    expect(childInstance?.status).toBe('running');
    await completeOnly(childInstance?.id ?? 0, 'childWork');
    expect(await tasksOf(t, caller.id)).toEqual(['recover']);
    expect(await instanceRow(t, childInstance?.id ?? 0)).toMatchObject({ incident: null });
    expect((await instanceRow(t, childInstance?.id ?? 0)).end_time).not.toBeNull();
    expect((await instanceRow(t, caller.id)).incident).toBeNull();
  });

  const asActiviti = (xml: string): string => inDialect(xml, 'activiti');

  it('an error nobody catches, in an Activiti file, stays an incident in the called process; the deploy warns', async () => {
    const deployed = await deploy(
      t,
      asActiviti(
        child(
          'throwing_child_act',
          '<endEvent id="throw"><errorEventDefinition errorRef="late"/></endEvent>',
        ),
      ),
    );
    expect(deployed.warnings).toEqual([
      expect.objectContaining({ field: 'throw', message: expect.stringContaining('LATE') }),
    ]);
    await deploy(
      t,
      asActiviti(
        bpmn(
          'careless_caller_act',
          `<startEvent id="s"/>${flow('f1', 's', 'call')}<callActivity id="call" calledElement="throwing_child_act"/>
           ${flow('f2', 'call', 'e')}<endEvent id="e"/>`,
        ),
      ),
    );
    const caller = await start(t, t.auth, 'careless_caller_act');
    const [childInstance] = await called(caller.id);
    await completeOnly(childInstance?.id ?? 0, 'childWork');
    expect(await instanceRow(t, childInstance?.id ?? 0)).toMatchObject({
      end_time: null,
      incident: expect.objectContaining({ activityId: 'throw' }),
    });
    expect(await instanceRow(t, caller.id)).toMatchObject({ end_time: null, incident: null });
  });

  it('an error nobody catches, in a Camunda file, ends its path like a plain end event (Camunda’s rule): the caller goes on', async () => {
    const deployed = await deploy(
      t,
      child('throwing_child_cam', '<endEvent id="throw"><errorEventDefinition errorRef="late"/></endEvent>'),
    );
    expect(deployed.warnings).toEqual([
      expect.objectContaining({ field: 'throw', message: expect.stringContaining('LATE') }),
    ]);
    await deploy(
      t,
      bpmn(
        'careless_caller_cam',
        `<startEvent id="s"/>${flow('f1', 's', 'call')}<callActivity id="call" calledElement="throwing_child_cam"/>
         ${flow('f2', 'call', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>`,
      ),
    );
    const caller = await start(t, t.auth, 'careless_caller_cam');
    const [childInstance] = await called(caller.id);
    await completeOnly(childInstance?.id ?? 0, 'childWork');
    expect(await instanceRow(t, childInstance?.id ?? 0)).toMatchObject({ status: 'over', incident: null });
    expect(await tasksOf(t, caller.id)).toEqual(['after']);
    const history = await t.sql<{ activity_id: string }>(
      'select activity_id from wf_hist_activity where instance_id = $1 order by id',
      [childInstance?.id ?? 0],
    );
    expect(history.map((row) => row.activity_id)).toEqual(['cs', 'childWork', 'throw']);
  });

  it('an error a called process throws within its caller’s own step stays an incident there, in a Camunda file too', async () => {
    // The caller is in the middle of the call's step: it cannot take the error now, so the
    // called process does not end its path as if nobody caught it.
    await deploy(
      t,
      withRoots(
        ERRORS,
        'instant_thrower',
        '<startEvent id="cs"/>' +
          flow('c1', 'cs', 'throw') +
          '<endEvent id="throw"><errorEventDefinition errorRef="late"/></endEvent>',
      ),
    );
    await deploy(
      t,
      withRoots(
        ERRORS,
        'instant_caller',
        `<startEvent id="s"/>${flow('f1', 's', 'call')}<callActivity id="call" calledElement="instant_thrower"/>
         ${flow('f2', 'call', 'normal')}${task('normal')}${flow('f3', 'normal', 'e')}<endEvent id="e"/>
         <boundaryEvent id="caught" attachedToRef="call"><errorEventDefinition/></boundaryEvent>
         ${flow('f4', 'caught', 'recover')}${task('recover')}${flow('f5', 'recover', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const caller = await start(t, t.auth, 'instant_caller');
    const [childInstance] = await called(caller.id);
    expect(await instanceRow(t, childInstance?.id ?? 0)).toMatchObject({
      end_time: null,
      incident: expect.objectContaining({ activityId: 'throw' }),
    });
    expect(await tasksOf(t, caller.id)).toEqual([]);
  });

  it('warns at deploy of an error that nothing around its end event catches, not of one a scope catches', async () => {
    const warningsOf = async (key: string, body: string) =>
      (await deploy(t, withRoots(ERRORS, key, body))).warnings.map((warning) => warning.field);
    // A boundary for the code on another activity does not catch an end event outside it.
    expect(
      await warningsOf(
        'warn_elsewhere',
        `<startEvent id="s"/>${flow('f1', 's', 'work')}${task('work')}${flow('f2', 'work', 'fail')}
         <endEvent id="fail"><errorEventDefinition errorRef="late"/></endEvent>
         <boundaryEvent id="onWork" attachedToRef="work"><errorEventDefinition errorRef="late"/></boundaryEvent>
         ${flow('f3', 'onWork', 'e')}<endEvent id="e"/>`,
      ),
    ).toEqual(['fail']);
    // The sub-process's boundary catches its error, and an event sub-process of the process any.
    expect(
      await warningsOf(
        'warn_none',
        `<startEvent id="s"/>${flow('f1', 's', 'fork')}<parallelGateway id="fork"/>${flow('f2', 'fork', 'sub')}${flow('f3', 'fork', 'fail2')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('i1', 'ss', 'fail')}<endEvent id="fail"><errorEventDefinition errorRef="late"/></endEvent></subProcess>
         <boundaryEvent id="onSub" attachedToRef="sub"><errorEventDefinition errorRef="late"/></boundaryEvent>
         ${flow('f4', 'sub', 'e')}${flow('f5', 'onSub', 'e')}<endEvent id="e"/>
         <endEvent id="fail2"><errorEventDefinition errorRef="broken"/></endEvent>
         <subProcess id="onAny" triggeredByEvent="true"><startEvent id="anyStart"><errorEventDefinition/></startEvent>
           ${flow('a1', 'anyStart', 'ae')}<endEvent id="ae"/></subProcess>`,
      ),
    ).toEqual([]);
  });

  it("an escalation the called process throws starts the caller's escalation event sub-process", async () => {
    await deploy(
      t,
      child(
        'escalating_child',
        `<intermediateThrowEvent id="throw"><escalationEventDefinition escalationRef="esc"/></intermediateThrowEvent>${flow('c3', 'throw', 'childAfter')}${adminTask('childAfter')}`,
      ),
    );
    await deploy(
      t,
      withRoots(
        '<escalation id="ask" escalationCode="ASK"/>',
        'escalation_caller',
        `<startEvent id="s"/>${flow('f1', 's', 'call')}<callActivity id="call" calledElement="escalating_child"/>
         ${flow('f2', 'call', 'e')}<endEvent id="e"/>
         <subProcess id="onAsk" triggeredByEvent="true"><startEvent id="askStart"><escalationEventDefinition escalationRef="ask"/></startEvent>
           ${flow('a1', 'askStart', 'answer')}${task('answer')}</subProcess>`,
      ),
    );
    const caller = await start(t, t.auth, 'escalation_caller');
    const [childInstance] = await called(caller.id);
    await completeOnly(childInstance?.id ?? 0, 'childWork');
    // Interrupting: the call ends, and the called process with it.
    expect(await tasksOf(t, caller.id)).toEqual(['answer']);
    expect(await tasksOf(t, childInstance?.id ?? 0)).toEqual([]);
    expect((await instanceRow(t, childInstance?.id ?? 0)).end_time).not.toBeNull();
    await completeOnly(caller.id, 'answer');
    expect(await instanceRow(t, caller.id)).toMatchObject({ status: 'over' });
  });
});

describe("Flowable's event-registry catches", () => {
  it('a boundary event naming an eventType waits for a message of that name', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowable="http://flowable.org/bpmn" targetNamespace="test">
  <process id="registry_boundary" isExecutable="true">
    <startEvent id="s"/>${flow('f1', 's', 'work')}<userTask id="work" flowable:assignee="admin"/>
    <boundaryEvent id="arrived" attachedToRef="work"><extensionElements><flowable:eventType>orderArrived</flowable:eventType></extensionElements></boundaryEvent>
    ${flow('f2', 'work', 'e')}${flow('f3', 'arrived', 'unpack')}<userTask id="unpack" flowable:assignee="admin"/>${flow('f4', 'unpack', 'e')}<endEvent id="e"/>
  </process>
</definitions>`;
    await deploy(t, xml);
    const instance = await start(t, t.auth, 'registry_boundary');
    expect(await tasksOf(t, instance.id)).toEqual(['work']);
    const sent = await call(t, t.auth, 'POST', 'processinstance/message', {
      messageName: 'orderArrived',
      processInstanceId: instance.id,
    });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['unpack']);
  });
});

describe('refusals of throws and catches', () => {
  it('an error start event outside an event sub-process is refused naming it', async () => {
    const errors = await refusal(
      withRoots(
        ERRORS,
        'error_start_top',
        `<startEvent id="s"><errorEventDefinition errorRef="late"/></startEvent>${flow('f1', 's', 'a')}${task('a')}${flow('f2', 'a', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(errors).toContainEqual(expect.objectContaining({ field: 's' }));
    expect(errors.find((error) => error.field === 's')?.message).toMatch(/error or escalation StartEvent/);
  });

  it('a boundary event on a refused script task is refused by the script alone', async () => {
    const errors = await refusal(
      bpmn(
        'boundary_on_script',
        `<startEvent id="s"/>${flow('f1', 's', 'run')}<scriptTask id="run" scriptFormat="groovy"><script>1</script></scriptTask>
         ${flow('f2', 'run', 'e')}<endEvent id="e"/>
         <boundaryEvent id="caught" attachedToRef="run"><errorEventDefinition/></boundaryEvent>${flow('f3', 'caught', 'e')}`,
      ),
    );
    expect(errors.map((error) => error.field)).toEqual(['run']);
  });
});
