import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { bpmn, call, complete, deploy, flow, instanceRow, openTasks, start } from '../support/workflow.js';

/**
 * Issue 36's compensation and transactions over the HTTP API: a compensation throw starts the
 * handlers of the completed activities of its scope in reverse order of completion (only those
 * that completed, each once) and waits for them; activityRef limits it to one activity, and a
 * completed sub-process without a handler is undone through what completed inside it; what a
 * canceled scope completed is never compensated; a cancel end event in a transaction ends its
 * other tokens, compensates what completed in it and leaves through the cancel boundary event.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const task = (id: string, extra = ''): string =>
  `<userTask id="${id}" name="${id}" camunda:assignee="admin"${extra}/>`;
/** A compensation boundary event on `activity` and its handler (a user task), linked by an association. */
const undo = (activity: string): string =>
  `<boundaryEvent id="on_${activity}" attachedToRef="${activity}"><compensateEventDefinition/></boundaryEvent>
   <userTask id="undo_${activity}" name="undo ${activity}" camunda:assignee="admin" isForCompensation="true"/>
   <association id="a_${activity}" associationDirection="One" sourceRef="on_${activity}" targetRef="undo_${activity}"/>`;

/** The instance's tasks in the order they were made: [activity, open]. */
const tasksInOrder = (instanceId: number): Promise<{ activity_id: string; open: boolean }[]> =>
  t.sql<{ activity_id: string; open: boolean }>(
    'select activity_id, end_time is null as open from wf_task where instance_id = $1 order by id',
    [instanceId],
  );

async function completeOpen(instanceId: number, activity: string, variables: Record<string, unknown> = {}) {
  const row = (await openTasks(t, instanceId)).find((open) => open.activity_id === activity);
  expect(row, `open task ${activity}`).toBeDefined();
  const response = await complete(t, t.auth, row?.id ?? 0, variables);
  expect(response.statusCode, response.body).toBe(200);
}

const openIds = async (instanceId: number): Promise<string[]> =>
  (await openTasks(t, instanceId)).map((row) => row.activity_id);

describe('compensation', () => {
  // fork → A, B (in parallel) → join → gateway: C only when takeC → throw (all) → check → throwAgain (all) → end
  const ORDER = bpmn(
    'compOrder',
    `<startEvent id="s"/>
     <parallelGateway id="fork"/>${task('A')}${task('B')}${task('C')}${task('check')}
     <parallelGateway id="join"/>
     <exclusiveGateway id="gw" default="toThrow"/>
     <intermediateThrowEvent id="throw"><compensateEventDefinition/></intermediateThrowEvent>
     <intermediateThrowEvent id="throwAgain"><compensateEventDefinition/></intermediateThrowEvent>
     <endEvent id="e"/>
     ${undo('A')}${undo('B')}${undo('C')}
     ${flow('f1', 's', 'fork')}${flow('f2', 'fork', 'A')}${flow('f3', 'fork', 'B')}
     ${flow('f4', 'A', 'join')}${flow('f5', 'B', 'join')}${flow('f6', 'join', 'gw')}
     ${flow('toC', 'gw', 'C', '${takeC}')}${flow('toThrow', 'gw', 'throw')}${flow('f7', 'C', 'throw')}
     ${flow('f8', 'throw', 'check')}${flow('f9', 'check', 'throwAgain')}${flow('f10', 'throwAgain', 'e')}`,
  );

  it('starts the handlers of the completed activities in reverse order of completion, once, and waits for them', async () => {
    await deploy(t, ORDER);
    const instance = await start(t, t.auth, 'compOrder', { takeC: false });
    expect(await openIds(instance.id)).toEqual(['A', 'B']);
    // B completes first, A last: A is undone first (not the order the tasks started in).
    await completeOpen(instance.id, 'B');
    await completeOpen(instance.id, 'A');
    const made = await tasksInOrder(instance.id);
    expect(made.map((row) => row.activity_id)).toEqual(['A', 'B', 'undo_A', 'undo_B']);
    // C never ran: nothing undoes it. The throw waits for both handlers.
    expect(await openIds(instance.id)).toEqual(['undo_A', 'undo_B']);
    const waiting = await t.sql<{ activity_id: string; state: string }>(
      "select activity_id, state from wf_execution where instance_id = $1 and activity_id = 'throw'",
      [instance.id],
    );
    expect(waiting).toEqual([{ activity_id: 'throw', state: 'compensating' }]);
    await completeOpen(instance.id, 'undo_A');
    expect(await openIds(instance.id)).toEqual(['undo_B']);
    await completeOpen(instance.id, 'undo_B');
    expect(await openIds(instance.id)).toEqual(['check']);
    // A second throw finds nothing left to undo: each completion is compensated once.
    await completeOpen(instance.id, 'check');
    expect((await instanceRow(t, instance.id)).end_time).not.toBeNull();
    expect(
      (await tasksInOrder(instance.id)).filter((row) => row.activity_id.startsWith('undo')),
    ).toHaveLength(2);
    const history = await t.sql<{ activity_id: string }>(
      "select activity_id from wf_hist_activity where instance_id = $1 and activity_id in ('throw', 'throwAgain') order by id",
      [instance.id],
    );
    expect(history.map((row) => row.activity_id)).toEqual(['throw', 'throwAgain']);
  });

  it('a throw with activityRef undoes that activity only; a sub-process without a handler is undone through what completed inside it; an end event compensates the rest', async () => {
    await deploy(
      t,
      bpmn(
        'compRef',
        `<startEvent id="s"/>
         <subProcess id="sub">
           <startEvent id="ss"/>${task('X')}<endEvent id="se"/>${undo('X')}
           ${flow('g1', 'ss', 'X')}${flow('g2', 'X', 'se')}
         </subProcess>
         ${task('Y')}${undo('Y')}
         <intermediateThrowEvent id="throwSub"><compensateEventDefinition activityRef="sub"/></intermediateThrowEvent>
         <endEvent id="e"><compensateEventDefinition/></endEvent>
         ${flow('f1', 's', 'sub')}${flow('f2', 'sub', 'Y')}${flow('f3', 'Y', 'throwSub')}${flow('f4', 'throwSub', 'e')}`,
      ),
    );
    const instance = await start(t, t.auth, 'compRef');
    await completeOpen(instance.id, 'X');
    await completeOpen(instance.id, 'Y');
    expect(await openIds(instance.id)).toEqual(['undo_X']);
    await completeOpen(instance.id, 'undo_X');
    // The end event compensates what is left in the process: Y (X was undone already).
    expect(await openIds(instance.id)).toEqual(['undo_Y']);
    expect((await instanceRow(t, instance.id)).end_time).toBeNull();
    await completeOpen(instance.id, 'undo_Y');
    expect((await instanceRow(t, instance.id)).end_time).not.toBeNull();
  });

  it('what a canceled sub-process completed is never compensated', async () => {
    await deploy(
      t,
      bpmn(
        'compCanceled',
        `<startEvent id="s"/>
         <subProcess id="sub">
           <startEvent id="ss"/>${task('X')}${task('Z')}<endEvent id="se"/>${undo('X')}
           ${flow('g1', 'ss', 'X')}${flow('g2', 'X', 'Z')}${flow('g3', 'Z', 'se')}
         </subProcess>
         <boundaryEvent id="stop" attachedToRef="sub"><messageEventDefinition messageRef="m"/></boundaryEvent>
         <intermediateThrowEvent id="throw"><compensateEventDefinition/></intermediateThrowEvent>
         ${task('after')}<endEvent id="e"/>
         ${flow('f1', 's', 'sub')}${flow('f2', 'sub', 'throw')}${flow('f3', 'stop', 'throw')}
         ${flow('f4', 'throw', 'after')}${flow('f5', 'after', 'e')}`,
      ).replace('<process ', '<message id="m" name="stop"/><process '),
    );
    const instance = await start(t, t.auth, 'compCanceled');
    await completeOpen(instance.id, 'X');
    const sent = await call(t, t.auth, 'POST', 'processinstance/message', {
      messageName: 'stop',
      processInstanceId: instance.id,
    });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(await openIds(instance.id)).toEqual(['after']);
    const rows = await t.sql('select id from wf_compensation where instance_id = $1', [instance.id]);
    expect(rows).toEqual([]);
  });
});

describe('transactions and cancel events', () => {
  // tx: fork → T1 → gw (ok: success end, else cancel end); fork → T2 → end. Cancel boundary → afterCancel.
  const TX = bpmn(
    'txCancel',
    `<startEvent id="s"/>
     <transaction id="tx">
       <startEvent id="ts"/><parallelGateway id="fork"/>${task('T1')}${task('T2')}
       <exclusiveGateway id="gw"/>
       <endEvent id="success"/><endEvent id="t2end"/>
       <endEvent id="cancelEnd"><cancelEventDefinition/></endEvent>
       ${undo('T1')}${undo('T2')}
       ${flow('g1', 'ts', 'fork')}${flow('g2', 'fork', 'T1')}${flow('g3', 'fork', 'T2')}
       ${flow('g4', 'T1', 'gw')}${flow('ok', 'gw', 'success', '${ok}')}${flow('nok', 'gw', 'cancelEnd', '${!ok}')}
       ${flow('g5', 'T2', 't2end')}
     </transaction>
     <boundaryEvent id="onCancel" attachedToRef="tx"><cancelEventDefinition/></boundaryEvent>
     ${task('afterCancel')}${task('afterSuccess')}<endEvent id="e"/>
     ${flow('f1', 's', 'tx')}${flow('f2', 'tx', 'afterSuccess')}${flow('f3', 'afterSuccess', 'e')}
     ${flow('f4', 'onCancel', 'afterCancel')}${flow('f5', 'afterCancel', 'e')}`,
  );

  it('a cancel end event ends the open work, compensates what completed and leaves through the cancel boundary', async () => {
    await deploy(t, TX);
    const instance = await start(t, t.auth, 'txCancel', { ok: false });
    expect(await openIds(instance.id)).toEqual(['T1', 'T2']);
    await completeOpen(instance.id, 'T1');
    // T2 was still open: canceled, not compensated; T1 completed: undone.
    expect(await openIds(instance.id)).toEqual(['undo_T1']);
    const t2 = await t.sql<{ status: string; end_reason: string }>(
      "select status, end_reason from wf_task where instance_id = $1 and activity_id = 'T2'",
      [instance.id],
    );
    expect(t2).toEqual([{ status: 'canceled', end_reason: 'cancelEnd' }]);
    await completeOpen(instance.id, 'undo_T1');
    expect(await openIds(instance.id)).toEqual(['afterCancel']);
    const tx = await t.sql<{ end_reason: string | null; ended: boolean }>(
      "select end_reason, end_time is not null as ended from wf_hist_activity where instance_id = $1 and activity_id = 'tx'",
      [instance.id],
    );
    expect(tx).toEqual([{ end_reason: 'cancelEnd', ended: true }]);
    await completeOpen(instance.id, 'afterCancel');
    expect((await instanceRow(t, instance.id)).end_time).not.toBeNull();
  });

  it('a transaction that completes leaves by its flow and compensates nothing', async () => {
    const instance = await start(t, t.auth, 'txCancel', { ok: true });
    await completeOpen(instance.id, 'T1');
    await completeOpen(instance.id, 'T2');
    expect(await openIds(instance.id)).toEqual(['afterSuccess']);
  });

  it('a cancel end with nothing to compensate leaves through the cancel boundary at once', async () => {
    await deploy(
      t,
      bpmn(
        'txAtOnce',
        `<startEvent id="s"/>
         <transaction id="tx"><startEvent id="ts"/><endEvent id="c"><cancelEventDefinition/></endEvent>${flow('g1', 'ts', 'c')}</transaction>
         <boundaryEvent id="onCancel" attachedToRef="tx"><cancelEventDefinition/></boundaryEvent>
         ${task('afterCancel')}<endEvent id="e1"/><endEvent id="e2"/>
         ${flow('f1', 's', 'tx')}${flow('f2', 'tx', 'e1')}${flow('f3', 'onCancel', 'afterCancel')}${flow('f4', 'afterCancel', 'e2')}`,
      ),
    );
    const instance = await start(t, t.auth, 'txAtOnce');
    expect(await openIds(instance.id)).toEqual(['afterCancel']);
  });

  it('refuses what it cannot run, naming the element', async () => {
    const refusals: [string, string][] = [
      [
        bpmn(
          'noHandler',
          `<startEvent id="s"/>${task('A')}<endEvent id="e"/>
           <boundaryEvent id="lonely" attachedToRef="A"><compensateEventDefinition/></boundaryEvent>
           ${flow('f1', 's', 'A')}${flow('f2', 'A', 'e')}`,
        ),
        'lonely',
      ],
      [
        bpmn(
          'cancelOutside',
          `<startEvent id="s"/><endEvent id="stray"><cancelEventDefinition/></endEvent>${flow('f1', 's', 'stray')}`,
        ),
        'stray',
      ],
      [
        bpmn(
          'cancelOnSub',
          `<startEvent id="s"/>
           <subProcess id="sub"><startEvent id="ss"/><endEvent id="se"/>${flow('g1', 'ss', 'se')}</subProcess>
           <boundaryEvent id="notTx" attachedToRef="sub"><cancelEventDefinition/></boundaryEvent>
           <endEvent id="e"/><endEvent id="e2"/>
           ${flow('f1', 's', 'sub')}${flow('f2', 'sub', 'e')}${flow('f3', 'notTx', 'e2')}`,
        ),
        'notTx',
      ],
    ];
    for (const [xml, id] of refusals) {
      const response = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml });
      expect(response.statusCode, response.body).toBe(400);
      const errors = response.json().errors as { field: string; message: string }[];
      expect(errors.map((error) => error.field)).toEqual([id]);
      expect(errors[0]?.message).toContain(id);
    }
  });
});
