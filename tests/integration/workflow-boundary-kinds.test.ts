import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setWorkflowClock } from '../../src/server/features/workflow/services/clock.js';
import { runDueJobs } from '../../src/server/features/workflow/services/jobs.js';
import { startTestApp, type TestApp } from '../support/app.js';
import {
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
 * Issue 36's kinds of boundary event and event sub-process that the engine parses and no other
 * test ran: timer event sub-processes (interrupting, at the instance and inside a sub-process, and
 * non-interrupting with a duration), timer and message boundaries on a receive task, and
 * interrupting and non-interrupting message boundaries on an embedded sub-process. Timers fire
 * through the injectable clock and the job poller, messages through POST …/processinstance/message.
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

const HOUR = 3_600_000;
/** Moves the engine's clock to some time from now. */
const clockIn = (ms: number): void => {
  const at = new Date(Date.now() + ms);
  setWorkflowClock(t.app.ctx, () => at);
};

const task = (id: string): string => `<userTask id="${id}" name="${id}" camunda:assignee="\${initiator}"/>`;
const timer = (duration: string): string =>
  `<timerEventDefinition><timeDuration>${duration}</timeDuration></timerEventDefinition>`;

const message = (payload: Record<string, unknown>) =>
  call(t, t.auth, 'POST', 'processinstance/message', payload);

const jobsOf = async (instanceId: number): Promise<string[]> =>
  (
    await t.sql<{ activity_id: string }>(
      'select activity_id from wf_job where instance_id = $1 order by activity_id',
      [instanceId],
    )
  ).map((row) => row.activity_id);

const subscriptionsOf = async (instanceId: number): Promise<string[]> =>
  (
    await t.sql<{ activity_id: string }>(
      'select activity_id from wf_event_subscription where instance_id = $1 order by activity_id',
      [instanceId],
    )
  ).map((row) => row.activity_id);

interface HistoryRow {
  activity_id: string;
  ended: boolean;
  end_reason: string | null;
}
const historyOf = (instanceId: number) =>
  t.sql<HistoryRow>(
    'select activity_id, end_time is not null as ended, end_reason from wf_hist_activity where instance_id = $1 order by id',
    [instanceId],
  );
/** The end reasons of the history rows of these activities, by activity. */
const endReasonsOf = async (instanceId: number, activityIds: string[]): Promise<Record<string, unknown>> =>
  Object.fromEntries(
    (await historyOf(instanceId))
      .filter((row) => activityIds.includes(row.activity_id))
      .map((row) => [row.activity_id, row.end_reason]),
  );

const taskRow = async (instanceId: number, activityId: string) => {
  const [row] = await t.sql<{ status: string; end_reason: string | null }>(
    'select status, end_reason from wf_task where instance_id = $1 and activity_id = $2',
    [instanceId, activityId],
  );
  return row;
};

async function completeAll(instanceId: number): Promise<void> {
  for (const row of await openTasks(t, instanceId))
    expect((await complete(t, t.auth, row.id)).statusCode).toBe(200);
}

describe('timer event sub-processes', () => {
  it('an interrupting one cancels the open task when its timer fires; completing its task ends the instance', async () => {
    await deploy(
      t,
      bpmn(
        'timer_event_sub',
        `<startEvent id="s"/>${flow('f1', 's', 'work')}${task('work')}${flow('f2', 'work', 'e')}<endEvent id="e"/>
         <subProcess id="onLate" triggeredByEvent="true">
           <startEvent id="lateStart">${timer('PT1H')}</startEvent>
           ${flow('l1', 'lateStart', 'chase')}${task('chase')}${flow('l2', 'chase', 'lateEnd')}<endEvent id="lateEnd"/>
         </subProcess>`,
      ),
    );
    const instance = await start(t, t.auth, 'timer_event_sub');
    expect(await tasksOf(t, instance.id)).toEqual(['work']);
    expect(await jobsOf(instance.id)).toEqual(['lateStart']);
    expect(await runDueJobs(t.app.ctx)).toBe(0); // not due yet
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await tasksOf(t, instance.id)).toEqual(['chase']);
    expect(await taskRow(instance.id, 'work')).toEqual({ status: 'canceled', end_reason: 'eventSubProcess' });
    expect(await jobsOf(instance.id)).toEqual([]);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'running' });
    const [chase] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, chase?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
    // The main path's end was never reached: the event sub-process ended the instance.
    expect(await historyOf(instance.id)).toEqual([
      { activity_id: 's', ended: true, end_reason: null },
      { activity_id: 'work', ended: true, end_reason: 'eventSubProcess' },
      { activity_id: 'onLate', ended: true, end_reason: null },
      { activity_id: 'lateStart', ended: true, end_reason: null },
      { activity_id: 'chase', ended: true, end_reason: 'completed' },
      { activity_id: 'lateEnd', ended: true, end_reason: null },
    ]);
  });

  it('an interrupting one ends every kind of wait of the instance, a non-interrupting event sub-process’s task too', async () => {
    await deploy(
      t,
      withRoots(
        '<message id="mGoods" name="goods for the timer"/><message id="mInfo" name="info for the timer"/>',
        'timer_event_sub_wide',
        `<startEvent id="s"/>${flow('f1', 's', 'fork')}<parallelGateway id="fork"/>
         ${flow('f2', 'fork', 'work')}${flow('f3', 'fork', 'receive')}${flow('f4', 'fork', 'sub')}
         ${task('work')}<boundaryEvent id="workLate" attachedToRef="work">${timer('PT5H')}</boundaryEvent>
         <receiveTask id="receive" messageRef="mGoods"/>
         <subProcess id="sub"><startEvent id="ss"/>${flow('c1', 'ss', 'inner')}${task('inner')}${flow('c2', 'inner', 'se')}<endEvent id="se"/></subProcess>
         ${flow('f5', 'work', 'e')}${flow('f6', 'receive', 'e')}${flow('f7', 'sub', 'e')}${flow('f8', 'workLate', 'e')}<endEvent id="e"/>
         <subProcess id="onInfo" triggeredByEvent="true">
           <startEvent id="infoStart" isInterrupting="false"><messageEventDefinition messageRef="mInfo"/></startEvent>
           ${flow('i1', 'infoStart', 'read')}${task('read')}${flow('i2', 'read', 'infoEnd')}<endEvent id="infoEnd"/>
         </subProcess>
         <subProcess id="onLate" triggeredByEvent="true">
           <startEvent id="lateStart" isInterrupting="true">${timer('PT1H')}</startEvent>
           ${flow('l1', 'lateStart', 'chase')}${task('chase')}${flow('l2', 'chase', 'lateEnd')}<endEvent id="lateEnd"/>
         </subProcess>`,
      ),
    );
    const instance = await start(t, t.auth, 'timer_event_sub_wide');
    const info = await message({ messageName: 'info for the timer', processInstanceId: instance.id });
    expect(info.statusCode, info.body).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['inner', 'read', 'work']);
    expect(await jobsOf(instance.id)).toEqual(['lateStart', 'workLate']);
    expect(await subscriptionsOf(instance.id)).toEqual(['infoStart', 'receive']);
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await tasksOf(t, instance.id)).toEqual(['chase']);
    expect(await jobsOf(instance.id)).toEqual([]);
    expect(await subscriptionsOf(instance.id)).toEqual([]);
    expect(await endReasonsOf(instance.id, ['work', 'receive', 'sub', 'inner', 'onInfo', 'read'])).toEqual({
      work: 'eventSubProcess',
      receive: 'eventSubProcess',
      sub: 'eventSubProcess',
      inner: 'eventSubProcess',
      onInfo: 'eventSubProcess',
      read: 'eventSubProcess',
    });
    const tokens = await t.sql<{ activity_id: string }>(
      'select activity_id from wf_execution where instance_id = $1 order by id',
      [instance.id],
    );
    expect(tokens.map((row) => row.activity_id)).toEqual(['onLate', 'chase']);
    expect(
      (await message({ messageName: 'goods for the timer', processInstanceId: instance.id })).statusCode,
    ).toBe(404);
    await completeAll(instance.id);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('an interrupting one inside a sub-process ends that sub-process’s work only; the flow goes on after it', async () => {
    await deploy(
      t,
      withRoots(
        '<message id="mAbort" name="abort the inner timer"/>',
        'timer_event_sub_inner',
        `<startEvent id="s"/>${flow('f1', 's', 'sub')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('c1', 'ss', 'inner')}${task('inner')}${flow('c2', 'inner', 'se')}<endEvent id="se"/>
           <subProcess id="onLate" triggeredByEvent="true">
             <startEvent id="lateStart">${timer('PT1H')}</startEvent>
             ${flow('l1', 'lateStart', 'chase')}${task('chase')}${flow('l2', 'chase', 'lateEnd')}<endEvent id="lateEnd"/>
           </subProcess>
         </subProcess>
         <boundaryEvent id="aborted" attachedToRef="sub"><messageEventDefinition messageRef="mAbort"/></boundaryEvent>
         ${flow('f2', 'sub', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>${flow('f4', 'aborted', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'timer_event_sub_inner');
    expect(await jobsOf(instance.id)).toEqual(['lateStart']);
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await tasksOf(t, instance.id)).toEqual(['chase']);
    expect(await taskRow(instance.id, 'inner')).toEqual({
      status: 'canceled',
      end_reason: 'eventSubProcess',
    });
    // The sub-process itself goes on (its own boundary still waits) with the event sub-process in it.
    expect(await subscriptionsOf(instance.id)).toEqual(['aborted']);
    expect(await endReasonsOf(instance.id, ['sub'])).toEqual({ sub: null });
    expect((await historyOf(instance.id)).find((row) => row.activity_id === 'sub')?.ended).toBe(false);
    const [chase] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, chase?.id ?? 0)).statusCode).toBe(200);
    expect(await tasksOf(t, instance.id)).toEqual(['after']);
    expect(await subscriptionsOf(instance.id)).toEqual([]);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'running', incident: null });
    await completeAll(instance.id);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('a completed main path drops the interrupting timer: it never fires', async () => {
    const instance = await start(t, t.auth, 'timer_event_sub');
    await completeAll(instance.id);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
    expect(await jobsOf(instance.id)).toEqual([]);
    clockIn(2 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect(await tasksOf(t, instance.id)).toEqual([]);
  });

  it('a non-interrupting one with a duration opens its task beside the main task, once', async () => {
    await deploy(
      t,
      bpmn(
        'timer_event_sub_beside',
        `<startEvent id="s"/>${flow('f1', 's', 'work')}${task('work')}${flow('f2', 'work', 'e')}<endEvent id="e"/>
         <subProcess id="onLate" triggeredByEvent="true">
           <startEvent id="lateStart" isInterrupting="false">${timer('PT1H')}</startEvent>
           ${flow('l1', 'lateStart', 'chase')}${task('chase')}${flow('l2', 'chase', 'lateEnd')}<endEvent id="lateEnd"/>
         </subProcess>`,
      ),
    );
    const instance = await start(t, t.auth, 'timer_event_sub_beside');
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await tasksOf(t, instance.id)).toEqual(['chase', 'work']);
    expect(await taskRow(instance.id, 'work')).toEqual({ status: 'assigned', end_reason: null });
    // A duration fires once.
    expect(await jobsOf(instance.id)).toEqual([]);
    clockIn(3 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    // Completing the chase leaves the instance running on its main task.
    const chase = (await openTasks(t, instance.id)).find((row) => row.activity_id === 'chase');
    expect((await complete(t, t.auth, chase?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'running' });
    expect(await tasksOf(t, instance.id)).toEqual(['work']);
    await completeAll(instance.id);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });
});

describe('boundary events on a receive task', () => {
  /** start → receive "goods arrived" → store → end; 1 h timer → chase; "order canceled" → refund. */
  const RECEIVE = withRoots(
    '<message id="mGoods" name="goods arrived"/><message id="mCancel" name="order canceled"/>',
    'receive_bounded',
    `<startEvent id="s"/>${flow('f1', 's', 'receive')}<receiveTask id="receive" messageRef="mGoods"/>
     <boundaryEvent id="late" attachedToRef="receive">${timer('PT1H')}</boundaryEvent>
     <boundaryEvent id="canceled" attachedToRef="receive"><messageEventDefinition messageRef="mCancel"/></boundaryEvent>
     ${flow('f2', 'receive', 'store')}${task('store')}${flow('f3', 'store', 'e')}<endEvent id="e"/>
     ${flow('f4', 'late', 'chase')}${task('chase')}${flow('f5', 'chase', 'e2')}<endEvent id="e2"/>
     ${flow('f6', 'canceled', 'refund')}${task('refund')}${flow('f7', 'refund', 'e3')}<endEvent id="e3"/>`,
  );
  beforeAll(async () => {
    await deploy(t, RECEIVE);
  });

  it('an interrupting timer ends the wait for the message and leaves by the timer', async () => {
    const id = await startWithKey(t, 'receive_bounded', 'RCV-1');
    expect(await tasksOf(t, id)).toEqual([]);
    expect(await jobsOf(id)).toEqual(['late']);
    expect(await subscriptionsOf(id)).toEqual(['canceled', 'receive']);
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await tasksOf(t, id)).toEqual(['chase']);
    // The receive task waits no more: neither its message nor the other boundary finds anyone.
    expect(await subscriptionsOf(id)).toEqual([]);
    expect((await message({ messageName: 'goods arrived', businessKey: 'RCV-1' })).statusCode).toBe(404);
    expect((await message({ messageName: 'order canceled', businessKey: 'RCV-1' })).statusCode).toBe(404);
    const [chase] = await openTasks(t, id);
    expect((await complete(t, t.auth, chase?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, id)).toMatchObject({ status: 'over', incident: null });
    expect(await historyOf(id)).toEqual([
      { activity_id: 's', ended: true, end_reason: null },
      { activity_id: 'receive', ended: true, end_reason: 'boundaryTimer' },
      { activity_id: 'late', ended: true, end_reason: null },
      { activity_id: 'chase', ended: true, end_reason: 'completed' },
      { activity_id: 'e2', ended: true, end_reason: null },
    ]);
  });

  it('a message boundary (another message than the one received) ends the wait and leaves by the boundary', async () => {
    const id = await startWithKey(t, 'receive_bounded', 'RCV-2');
    const other = await startWithKey(t, 'receive_bounded', 'RCV-3');
    const canceled = await message({ messageName: 'order canceled', businessKey: 'RCV-2' });
    expect(canceled.statusCode, canceled.body).toBe(200);
    expect(canceled.json().data).toEqual({ processInstanceIds: [id], startedInstanceIds: [] });
    expect(await tasksOf(t, id)).toEqual(['refund']);
    expect(await jobsOf(id)).toEqual([]);
    expect(await subscriptionsOf(id)).toEqual([]);
    expect((await message({ messageName: 'goods arrived', businessKey: 'RCV-2' })).statusCode).toBe(404);
    // The instance of another business key still waits at its receive task.
    expect(await subscriptionsOf(other)).toEqual(['canceled', 'receive']);
    clockIn(2 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(1); // the other instance's timer only
    expect(await tasksOf(t, id)).toEqual(['refund']);
    expect(await tasksOf(t, other)).toEqual(['chase']);
    await completeAll(id);
    expect(await instanceRow(t, id)).toMatchObject({ status: 'over', incident: null });
    expect(await historyOf(id)).toEqual([
      { activity_id: 's', ended: true, end_reason: null },
      { activity_id: 'receive', ended: true, end_reason: 'boundaryMessage' },
      { activity_id: 'canceled', ended: true, end_reason: null },
      { activity_id: 'refund', ended: true, end_reason: 'completed' },
      { activity_id: 'e3', ended: true, end_reason: null },
    ]);
  });

  it('the message received in time drops both boundaries and the flow goes on by the task', async () => {
    const id = await startWithKey(t, 'receive_bounded', 'RCV-4');
    expect((await message({ messageName: 'goods arrived', businessKey: 'RCV-4' })).statusCode).toBe(200);
    expect(await tasksOf(t, id)).toEqual(['store']);
    expect(await jobsOf(id)).toEqual([]);
    expect(await subscriptionsOf(id)).toEqual([]);
    clockIn(2 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect((await message({ messageName: 'order canceled', businessKey: 'RCV-4' })).statusCode).toBe(404);
    await completeAll(id);
    expect(await instanceRow(t, id)).toMatchObject({ status: 'over', incident: null });
    expect(await endReasonsOf(id, ['receive'])).toEqual({ receive: null });
  });

  it('a message boundary on a receive task inside a sub-process leaves inside it; the sub-process then ends', async () => {
    await deploy(
      t,
      withRoots(
        '<message id="mGoods" name="inner goods"/><message id="mCancel" name="inner cancel"/>',
        'receive_in_sub',
        `<startEvent id="s"/>${flow('f1', 's', 'sub')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('c1', 'ss', 'receive')}<receiveTask id="receive" messageRef="mGoods"/>
           <boundaryEvent id="canceled" attachedToRef="receive"><messageEventDefinition messageRef="mCancel"/></boundaryEvent>
           ${flow('c2', 'receive', 'se')}${flow('c3', 'canceled', 'refund')}${task('refund')}${flow('c4', 'refund', 'se')}<endEvent id="se"/>
         </subProcess>${flow('f2', 'sub', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>`,
      ),
    );
    const id = await startWithKey(t, 'receive_in_sub', 'RCV-5');
    expect((await message({ messageName: 'inner cancel', businessKey: 'RCV-5' })).statusCode).toBe(200);
    expect(await tasksOf(t, id)).toEqual(['refund']);
    expect(await endReasonsOf(id, ['receive', 'sub'])).toEqual({ receive: 'boundaryMessage', sub: null });
    await completeAll(id);
    expect(await tasksOf(t, id)).toEqual(['after']);
    expect(await endReasonsOf(id, ['sub'])).toEqual({ sub: null });
    expect((await historyOf(id)).find((row) => row.activity_id === 'sub')?.ended).toBe(true);
  });
});

describe('message boundaries on an embedded sub-process', () => {
  /** start → sub (fork → a, b) → after → end; the message boundary on sub → report → end. */
  const onSub = (key: string, interrupting: boolean): string =>
    withRoots(
      '<message id="mStop" name="stop checks"/>',
      key,
      `<startEvent id="s"/>${flow('f1', 's', 'sub')}
       <subProcess id="sub"><startEvent id="ss"/>${flow('c1', 'ss', 'fork')}<parallelGateway id="fork"/>
         ${flow('c2', 'fork', 'a')}${flow('c3', 'fork', 'b')}${task('a')}${task('b')}
         ${flow('c4', 'a', 'se')}${flow('c5', 'b', 'se2')}<endEvent id="se"/><endEvent id="se2"/></subProcess>
       <boundaryEvent id="stopped" attachedToRef="sub" cancelActivity="${interrupting}"><messageEventDefinition messageRef="mStop"/></boundaryEvent>
       ${flow('f2', 'sub', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>
       ${flow('f4', 'stopped', 'report')}${task('report')}${flow('f5', 'report', 'e2')}<endEvent id="e2"/>`,
    );

  it('an interrupting one cancels every task inside and leaves by the boundary', async () => {
    await deploy(t, onSub('sub_message_stop', true));
    const id = await startWithKey(t, 'sub_message_stop', 'SUB-1');
    expect(await tasksOf(t, id)).toEqual(['a', 'b']);
    expect(await subscriptionsOf(id)).toEqual(['stopped']);
    const stopped = await message({ messageName: 'stop checks', businessKey: 'SUB-1' });
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(stopped.json().data).toEqual({ processInstanceIds: [id], startedInstanceIds: [] });
    expect(await tasksOf(t, id)).toEqual(['report']);
    expect(await taskRow(id, 'a')).toEqual({ status: 'canceled', end_reason: 'boundaryMessage' });
    expect(await taskRow(id, 'b')).toEqual({ status: 'canceled', end_reason: 'boundaryMessage' });
    // One token is left, at the report: the sub-process's scope and its inner tokens are gone.
    const tokens = await t.sql<{ activity_id: string }>(
      'select activity_id from wf_execution where instance_id = $1',
      [id],
    );
    expect(tokens).toEqual([{ activity_id: 'report' }]);
    expect((await message({ messageName: 'stop checks', businessKey: 'SUB-1' })).statusCode).toBe(404);
    await completeAll(id);
    expect(await instanceRow(t, id)).toMatchObject({ status: 'over', incident: null });
    expect(await historyOf(id)).toEqual([
      { activity_id: 's', ended: true, end_reason: null },
      { activity_id: 'sub', ended: true, end_reason: 'boundaryMessage' },
      { activity_id: 'ss', ended: true, end_reason: null },
      { activity_id: 'fork', ended: true, end_reason: null },
      { activity_id: 'a', ended: true, end_reason: 'boundaryMessage' },
      { activity_id: 'b', ended: true, end_reason: 'boundaryMessage' },
      { activity_id: 'stopped', ended: true, end_reason: null },
      { activity_id: 'report', ended: true, end_reason: 'completed' },
      { activity_id: 'e2', ended: true, end_reason: null },
    ]);
  });

  it('an interrupting one also ends the waits inside: a receive task and a task’s boundary timer; the variables sent are set', async () => {
    await deploy(
      t,
      withRoots(
        '<message id="mStop" name="stop the waits"/><message id="mGoods" name="goods inside"/>',
        'sub_message_waits',
        `<startEvent id="s"/>${flow('f1', 's', 'sub')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('c1', 'ss', 'fork')}<parallelGateway id="fork"/>
           ${flow('c2', 'fork', 'a')}${flow('c3', 'fork', 'receive')}
           ${task('a')}<boundaryEvent id="aLate" attachedToRef="a">${timer('PT1H')}</boundaryEvent>
           <receiveTask id="receive" messageRef="mGoods"/>
           ${flow('c4', 'a', 'se')}${flow('c5', 'receive', 'se')}${flow('c6', 'aLate', 'se')}<endEvent id="se"/></subProcess>
         <boundaryEvent id="stopped" attachedToRef="sub"><messageEventDefinition messageRef="mStop"/></boundaryEvent>
         ${flow('f2', 'sub', 'e')}<endEvent id="e"/>${flow('f3', 'stopped', 'report')}${task('report')}${flow('f4', 'report', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const id = await startWithKey(t, 'sub_message_waits', 'SUB-2');
    expect(await jobsOf(id)).toEqual(['aLate']);
    expect(await subscriptionsOf(id)).toEqual(['receive', 'stopped']);
    const stopped = await message({
      messageName: 'stop the waits',
      businessKey: 'SUB-2',
      variables: { why: 'late' },
    });
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(await tasksOf(t, id)).toEqual(['report']);
    expect(await jobsOf(id)).toEqual([]);
    expect(await subscriptionsOf(id)).toEqual([]);
    expect(await endReasonsOf(id, ['sub', 'a', 'receive'])).toEqual({
      sub: 'boundaryMessage',
      a: 'boundaryMessage',
      receive: 'boundaryMessage',
    });
    const [why] = await t.sql<{ value: unknown }>(
      "select value from wf_variable where instance_id = $1 and name = 'why'",
      [id],
    );
    expect(why?.value).toBe('late');
    expect((await message({ messageName: 'goods inside', businessKey: 'SUB-2' })).statusCode).toBe(404);
    clockIn(2 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect(await tasksOf(t, id)).toEqual(['report']);
  });

  it('a sub-process left in time drops its message boundary', async () => {
    const id = await startWithKey(t, 'sub_message_stop', 'SUB-3');
    await completeAll(id);
    expect(await tasksOf(t, id)).toEqual(['after']);
    expect(await subscriptionsOf(id)).toEqual([]);
    expect((await message({ messageName: 'stop checks', businessKey: 'SUB-3' })).statusCode).toBe(404);
    expect(await endReasonsOf(id, ['sub'])).toEqual({ sub: null });
  });

  it('a non-interrupting one opens a second path; the tasks inside stay open and the sub-process goes on', async () => {
    await deploy(t, onSub('sub_message_note', false));
    const id = await startWithKey(t, 'sub_message_note', 'SUB-4');
    const noted = await message({ messageName: 'stop checks', businessKey: 'SUB-4' });
    expect(noted.statusCode, noted.body).toBe(200);
    expect(await tasksOf(t, id)).toEqual(['a', 'b', 'report']);
    expect(await taskRow(id, 'a')).toEqual({ status: 'assigned', end_reason: null });
    expect(await taskRow(id, 'b')).toEqual({ status: 'assigned', end_reason: null });
    // The boundary still waits while the sub-process runs: a second message opens a second report.
    expect(await subscriptionsOf(id)).toEqual(['stopped']);
    expect((await message({ messageName: 'stop checks', businessKey: 'SUB-4' })).statusCode).toBe(200);
    expect(await tasksOf(t, id)).toEqual(['a', 'b', 'report', 'report']);
    for (const row of (await openTasks(t, id)).filter((open) => open.activity_id !== 'report'))
      expect((await complete(t, t.auth, row.id)).statusCode).toBe(200);
    // The sub-process ended the usual way, and its boundary with it.
    expect(await tasksOf(t, id)).toEqual(['after', 'report', 'report']);
    expect(await subscriptionsOf(id)).toEqual([]);
    expect(await endReasonsOf(id, ['sub', 'a', 'b'])).toEqual({ sub: null, a: 'completed', b: 'completed' });
    expect(await instanceRow(t, id)).toMatchObject({ status: 'running' });
    await completeAll(id);
    expect(await instanceRow(t, id)).toMatchObject({ status: 'over', incident: null });
  });
});
