import { sql } from 'kysely';
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
  inDialect,
  instanceRow,
  openTasks,
  start,
} from '../support/workflow.js';

/**
 * Issue 12's timers and sub-processes: boundary timers on user tasks fired through the
 * injectable clock, jobs shared by concurrent pollers (SKIP LOCKED), timer start events, the
 * poller of a listening server, and embedded sub-processes with their history rows.
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
const boundary = (id: string, attachedTo: string, duration: string): string =>
  `<boundaryEvent id="${id}" attachedToRef="${attachedTo}"><timerEventDefinition><timeDuration>${duration}</timeDuration></timerEventDefinition></boundaryEvent>`;

/** start → review (1 h timer → escalate) → end; escalate → end. */
const ESCALATION = bpmn(
  'escalation',
  `<startEvent id="s"/>${flow('f1', 's', 'review')}${task('review')}${boundary('late', 'review', 'PT1H')}
   ${flow('f2', 'review', 'e')}${flow('f3', 'late', 'escalate')}${task('escalate')}${flow('f4', 'escalate', 'e')}<endEvent id="e"/>`,
);

const jobsOf = (instanceId: number) =>
  t.sql<{ activity_id: string; kind: string }>(
    'select activity_id, kind from wf_job where instance_id = $1',
    [instanceId],
  );

describe('boundary timer on a user task', () => {
  beforeAll(async () => {
    await deploy(t, ESCALATION);
  });

  it('a boundary timer without an outgoing flow ends the token when it fires (BPMN implicit end): the instance ends', async () => {
    await deploy(
      t,
      bpmn(
        'timeout',
        `<startEvent id="s"/>${flow('f1', 's', 'review')}${task('review')}${boundary('late', 'review', 'PT1H')}
         ${flow('f2', 'review', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'timeout');
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
    expect(await openTasks(t, instance.id)).toEqual([]);
  });

  it('fires when its duration has passed by the clock: the task is canceled and the token leaves by the timer', async () => {
    const instance = await start(t, t.auth, 'escalation');
    expect(await jobsOf(instance.id)).toEqual([{ activity_id: 'late', kind: 'boundaryTimer' }]);
    expect(await runDueJobs(t.app.ctx)).toBe(0); // not due yet
    clockIn(59 * 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    const tasks = await t.sql<{ activity_id: string; status: string; end_reason: string | null }>(
      'select activity_id, status, end_reason from wf_task where instance_id = $1 order by id',
      [instance.id],
    );
    expect(tasks).toEqual([
      { activity_id: 'review', status: 'canceled', end_reason: 'boundaryTimer' },
      { activity_id: 'escalate', status: 'assigned', end_reason: null },
    ]);
    expect(await jobsOf(instance.id)).toEqual([]);
    const history = await t.sql<{ activity_id: string; ended: boolean }>(
      'select activity_id, end_time is not null as ended from wf_hist_activity where instance_id = $1 order by id',
      [instance.id],
    );
    expect(history).toEqual([
      { activity_id: 's', ended: true },
      { activity_id: 'review', ended: true },
      { activity_id: 'late', ended: true },
      { activity_id: 'escalate', ended: false },
    ]);
    const [open] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, open?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
  });

  it('is removed when the task is completed in time, and never fires', async () => {
    const instance = await start(t, t.auth, 'escalation');
    const [review] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, review?.id ?? 0)).statusCode).toBe(200);
    expect(await jobsOf(instance.id)).toEqual([]);
    clockIn(2 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
  });

  it('waits while its instance is suspended, and goes when it is activated', async () => {
    const instance = await start(t, t.auth, 'escalation');
    expect((await call(t, t.auth, 'POST', `processinstance/suspend?id=${instance.id}`)).statusCode).toBe(200);
    clockIn(2 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect((await call(t, t.auth, 'POST', `processinstance/activate?id=${instance.id}`)).statusCode).toBe(
      200,
    );
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['escalate']);
  });

  it('is gone with its instance when the instance is terminated', async () => {
    const instance = await start(t, t.auth, 'escalation');
    const terminated = await call(t, t.auth, 'POST', 'processinstance/terminate', {
      id: instance.id,
      comment: 'no longer needed',
    });
    expect(terminated.statusCode).toBe(200);
    expect(await jobsOf(instance.id)).toEqual([]);
  });

  it('cancels every open task of a multi-instance task (countersign) and leaves once', async () => {
    await deploy(
      t,
      bpmn(
        'signLate',
        `<startEvent id="s"/>${flow('f1', 's', 'sign')}
         <userTask id="sign" name="sign" camunda:assignee="\${signer}">
           <multiInstanceLoopCharacteristics camunda:collection="signers" camunda:elementVariable="signer"/>
         </userTask>${boundary('late', 'sign', 'P1D')}
         ${flow('f2', 'sign', 'e')}${flow('f3', 'late', 'chase')}${task('chase')}${flow('f4', 'chase', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'signLate', { signers: ['admin', 'hruser', 'admin'] });
    expect(await openTasks(t, instance.id)).toHaveLength(3);
    clockIn(25 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['chase']);
    const [tokens] = await t.sql<{ count: number }>(
      'select count(*)::int as count from wf_execution where instance_id = $1',
      [instance.id],
    );
    expect(tokens?.count).toBe(1);
  });

  it('is taken by one of two concurrent pollers only; a job locked elsewhere is skipped, not waited for', async () => {
    const instance = await start(t, t.auth, 'escalation');
    clockIn(2 * HOUR);
    if (t.app.ctx.dbKind === 'postgres') {
      // Another server process holds the job: this one skips it at once.
      await t.app.ctx.db.transaction().execute(async (trx) => {
        await sql`select id from wf_job where instance_id = ${instance.id} for update`.execute(trx);
        expect(await runDueJobs(t.app.ctx)).toBe(0);
      });
    }
    const taken = await Promise.all([runDueJobs(t.app.ctx), runDueJobs(t.app.ctx)]);
    expect(taken[0] + taken[1]).toBe(1);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['escalate']);
    const [fired] = await t.sql<{ count: number }>(
      "select count(*)::int as count from wf_hist_activity where instance_id = $1 and activity_id = 'late'",
      [instance.id],
    );
    expect(fired?.count).toBe(1);
  });

  it('is run by the poller of a listening server', async () => {
    const instance = await start(t, t.auth, 'escalation');
    clockIn(2 * HOUR);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    let activities: string[] = [];
    for (let tries = 0; tries < 100 && !activities.includes('escalate'); tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      activities = (await openTasks(t, instance.id)).map((row) => row.activity_id);
    }
    expect(activities).toEqual(['escalate']);
  });
});

describe('timer start event', () => {
  const timerStart = (key: string, definition: string): string =>
    bpmn(
      key,
      `<startEvent id="s"><timerEventDefinition>${definition}</timerEventDefinition></startEvent>
       ${flow('f1', 's', 'work')}<userTask id="work" name="work" camunda:assignee="admin"/>${flow('f2', 'work', 'e')}<endEvent id="e"/>`,
    );
  const instancesOf = (key: string) =>
    t.sql<{ start_username: string | null; status: string }>(
      'select start_username, status from wf_instance where process_key = $1 order by id',
      [key],
    );

  it('starts an instance at each repetition of its cycle, then stops', async () => {
    await deploy(t, timerStart('hourly', '<timeCycle>R2/PT1H</timeCycle>'));
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await instancesOf('hourly')).toEqual([{ start_username: null, status: 'running' }]);
    clockIn(2 * HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    clockIn(10 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect(await instancesOf('hourly')).toHaveLength(2);
    expect(await t.sql("select 1 from wf_start_timer where process_key = 'hourly'")).toEqual([]);
    const [first] = await t.sql<{ id: number }>(
      "select id from wf_instance where process_key = 'hourly' order by id limit 1",
    );
    expect((await openTasks(t, first?.id ?? 0)).map((row) => [row.activity_id, row.assignee])).toEqual([
      ['work', 'admin'],
    ]);
  });

  it('a cron cycle starts an instance at each of its times, for ever; a late poll starts one, not one per missed time', async () => {
    // The engine's clock at a quarter past this hour: the next full hour is the first time.
    const base = new Date();
    base.setMinutes(15, 0, 0);
    setWorkflowClock(t.app.ctx, () => base);
    await deploy(t, timerStart('cronHourly', '<timeCycle>0 0 * * * ?</timeCycle>'));
    const [timer] = await t.sql<{ due_at: Date; cycle: string }>(
      "select due_at, cycle from wf_start_timer where process_key = 'cronHourly'",
    );
    const nextHour = new Date(base);
    nextHour.setMinutes(60, 0, 0);
    expect(new Date(timer!.due_at)).toEqual(nextHour);
    expect(timer!.cycle).toBe('0 0 * * * ?');
    setWorkflowClock(t.app.ctx, () => new Date(nextHour.getTime() + 60_000));
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await instancesOf('cronHourly')).toHaveLength(1);
    // Five hours later (four times missed): one start, then due at the next full hour after now.
    const later = nextHour.getTime() + 5 * HOUR + 60_000;
    setWorkflowClock(t.app.ctx, () => new Date(later));
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect(await instancesOf('cronHourly')).toHaveLength(2);
    const [after] = await t.sql<{ due_at: Date }>(
      "select due_at from wf_start_timer where process_key = 'cronHourly'",
    );
    expect(new Date(after!.due_at)).toEqual(new Date(nextHour.getTime() + 6 * HOUR));
    // It runs for ever: stopped here, so the later tests' clocks start no more of it.
    await t.sql("delete from wf_start_timer where process_key = 'cronHourly'");
  });

  it('starts once at its date; a new version replaces the timer of the old one', async () => {
    const at = new Date(Date.now() + 3 * HOUR).toISOString();
    const first = await deploy(t, timerStart('onDate', `<timeDate>${at}</timeDate>`));
    const second = await deploy(t, timerStart('onDate', `<timeDate>${at}</timeDate>`));
    expect(
      await t.sql<{ definition_id: number }>(
        "select definition_id from wf_start_timer where process_key = 'onDate'",
      ),
    ).toEqual([{ definition_id: second.processDefinitionId }]);
    clockIn(4 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    const started = await t.sql<{ definition_id: number }>(
      "select definition_id from wf_instance where process_key = 'onDate'",
    );
    expect(started).toEqual([{ definition_id: second.processDefinitionId }]);
    expect(first.processDefinitionId).not.toBe(second.processDefinitionId);
  });

  it('starts nothing while its definition is suspended', async () => {
    const deployed = await deploy(t, timerStart('paused', '<timeDuration>PT1H</timeDuration>'));
    const suspended = await call(
      t,
      t.auth,
      'POST',
      `processdefinition/suspend?id=${deployed.processDefinitionId}`,
    );
    expect(suspended.statusCode).toBe(200);
    clockIn(2 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await instancesOf('paused')).toEqual([]);
  });
});

describe('embedded sub-process', () => {
  /** start → check (sub-process: fork → a, b → join → end) → after → end. */
  const NESTED = bpmn(
    'nested',
    `<startEvent id="s"/>${flow('f1', 's', 'check')}
     <subProcess id="check" name="check">
       <startEvent id="cs"/>${flow('c1', 'cs', 'fork')}<parallelGateway id="fork"/>
       ${flow('c2', 'fork', 'a')}${flow('c3', 'fork', 'b')}${task('a')}${task('b')}
       ${flow('c4', 'a', 'join')}${flow('c5', 'b', 'join')}<parallelGateway id="join"/>${flow('c6', 'join', 'ce')}<endEvent id="ce"/>
     </subProcess>
     ${flow('f2', 'check', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>`,
  );

  it('runs its inner process from its start, and the token leaves when every inner branch has ended', async () => {
    await deploy(t, NESTED);
    const instance = await start(t, t.auth, 'nested');
    const inner = await openTasks(t, instance.id);
    expect(inner.map((row) => row.activity_id)).toEqual(['a', 'b']);
    const [scope] = await t.sql<{ activity_id: string; state: string }>(
      'select activity_id, state from wf_execution where instance_id = $1 and parent_id is null',
      [instance.id],
    );
    expect(scope).toEqual({ activity_id: 'check', state: 'scope' });
    expect((await complete(t, t.auth, inner[0]?.id ?? 0)).statusCode).toBe(200);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['b']);
    expect((await complete(t, t.auth, inner[1]?.id ?? 0)).statusCode).toBe(200);
    const [after] = await openTasks(t, instance.id);
    expect(after?.activity_id).toBe('after');
    const history = await call(
      t,
      t.auth,
      'GET',
      `history/activityinstance/query?processInstanceId=${instance.id}`,
    );
    const rows = (history.json().data.records ?? history.json().data) as {
      key: string;
      type: string;
      endTime: string | null;
    }[];
    const sub = rows.filter((row) => row.key === 'check');
    expect(sub).toHaveLength(1);
    expect(sub[0]?.type).toBe('subProcess');
    expect(sub[0]?.endTime).not.toBeNull();
    expect(rows.map((row) => row.key)).toEqual(
      expect.arrayContaining(['s', 'check', 'cs', 'fork', 'a', 'b', 'join', 'ce', 'after']),
    );
    expect((await complete(t, t.auth, after?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
  });

  it('a terminate end inside ends the sub-process only; the instance goes on after it', async () => {
    await deploy(
      t,
      bpmn(
        'innerTerminate',
        `<startEvent id="s"/>${flow('f1', 's', 'sub')}
         <subProcess id="sub">
           <startEvent id="ss"/>${flow('c1', 'ss', 'fork')}<parallelGateway id="fork"/>
           ${flow('c2', 'fork', 'slow')}${flow('c3', 'fork', 'quick')}${task('slow')}${task('quick')}
           ${flow('c4', 'slow', 'se')}${flow('c5', 'quick', 'stop')}<endEvent id="se"/>
           <endEvent id="stop"><terminateEventDefinition/></endEvent>
         </subProcess>
         ${flow('f2', 'sub', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'innerTerminate');
    const tasks = await openTasks(t, instance.id);
    const quick = tasks.find((row) => row.activity_id === 'quick');
    expect((await complete(t, t.auth, quick?.id ?? 0)).statusCode).toBe(200);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['after']);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'running' });
    const [slow] = await t.sql<{ status: string }>(
      "select status from wf_task where instance_id = $1 and activity_id = 'slow'",
      [instance.id],
    );
    expect(slow?.status).toBe('canceled');
  });

  it('passes straight through an inner process without wait states, and runs boundary timers inside', async () => {
    await deploy(
      t,
      bpmn(
        'innerTimer',
        `<startEvent id="s"/>${flow('f1', 's', 'empty')}
         <subProcess id="empty"><startEvent id="es"/>${flow('c1', 'es', 'ee')}<endEvent id="ee"/></subProcess>
         ${flow('f2', 'empty', 'sub')}
         <subProcess id="sub">
           <startEvent id="ss"/>${flow('c2', 'ss', 'inner')}${task('inner')}${boundary('late', 'inner', 'PT30M')}
           ${flow('c3', 'inner', 'se')}${flow('c4', 'late', 'remind')}${task('remind')}${flow('c5', 'remind', 'se')}<endEvent id="se"/>
         </subProcess>
         ${flow('f3', 'sub', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'innerTimer');
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['inner']);
    clockIn(HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    const [remind] = await openTasks(t, instance.id);
    expect(remind?.activity_id).toBe('remind');
    expect((await complete(t, t.auth, remind?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
    const [open] = await t.sql<{ count: number }>(
      'select count(*)::int as count from wf_hist_activity where instance_id = $1 and end_time is null',
      [instance.id],
    );
    expect(open?.count).toBe(0);
  });
});

const taskNames = async (instanceId: number): Promise<string[]> =>
  (await openTasks(t, instanceId)).map((open) => open.activity_id).sort();

describe('boundary events on any activity and on sub-processes (issue 36)', () => {
  it('a non-interrupting timer on a user task adds a branch; the task stays open', async () => {
    await deploy(
      t,
      bpmn(
        'remind',
        `<startEvent id="s"/>${flow('f1', 's', 'review')}${task('review')}
         <boundaryEvent id="nudge" attachedToRef="review" cancelActivity="false"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
         ${flow('f2', 'review', 'e')}${flow('f3', 'nudge', 'nudged')}${task('nudged')}${flow('f4', 'nudged', 'e2')}<endEvent id="e"/><endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'remind');
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await taskNames(instance.id)).toEqual(['nudged', 'review']);
    for (const open of await openTasks(t, instance.id))
      expect((await complete(t, t.auth, open.id)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('a non-interrupting timer with a cycle fires at each repetition while the task is open, then stops', async () => {
    await deploy(
      t,
      bpmn(
        'remindTwice',
        `<startEvent id="s"/>${flow('f1', 's', 'review')}${task('review')}
         <boundaryEvent id="nudge" attachedToRef="review" cancelActivity="false"><timerEventDefinition><timeCycle>R2/PT1H</timeCycle></timerEventDefinition></boundaryEvent>
         ${flow('f2', 'review', 'e')}${flow('f3', 'nudge', 'nudged')}${task('nudged')}${flow('f4', 'nudged', 'e2')}<endEvent id="e"/><endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'remindTwice');
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await taskNames(instance.id)).toEqual(['nudged', 'review']);
    expect(await jobsOf(instance.id)).toEqual([{ activity_id: 'nudge', kind: 'boundaryTimer' }]);
    clockIn(2 * HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await taskNames(instance.id)).toEqual(['nudged', 'nudged', 'review']);
    // R2: two repetitions, then no job is left.
    expect(await jobsOf(instance.id)).toEqual([]);
    clockIn(5 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect(await taskNames(instance.id)).toEqual(['nudged', 'nudged', 'review']);
  });

  it('a non-interrupting timer event sub-process with a cycle starts at each repetition while the instance runs', async () => {
    await deploy(
      t,
      bpmn(
        'remindProcess',
        `<startEvent id="s"/>${flow('f1', 's', 'review')}${task('review')}${flow('f2', 'review', 'e')}<endEvent id="e"/>
         <subProcess id="reminders" triggeredByEvent="true">
           <startEvent id="tick" isInterrupting="false"><timerEventDefinition><timeCycle>R2/PT1H</timeCycle></timerEventDefinition></startEvent>
           ${flow('r1', 'tick', 'nudged')}${task('nudged')}${flow('r2', 'nudged', 're')}<endEvent id="re"/>
         </subProcess>`,
      ),
    );
    const instance = await start(t, t.auth, 'remindProcess');
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    clockIn(2 * HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    clockIn(5 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect(await taskNames(instance.id)).toEqual(['nudged', 'nudged', 'review']);
    expect(await jobsOf(instance.id)).toEqual([]);
  });

  it('a repeating timer polled late fires once, then is due at its next time to come (missed ones are not made up)', async () => {
    await deploy(
      t,
      bpmn(
        'remindHourly',
        `<startEvent id="s"/>${flow('f1', 's', 'review')}${task('review')}
         <boundaryEvent id="nudge" attachedToRef="review" cancelActivity="false"><timerEventDefinition><timeCycle>R/PT1H</timeCycle></timerEventDefinition></boundaryEvent>
         ${flow('f2', 'review', 'e')}${flow('f3', 'nudge', 'nudged')}${task('nudged')}${flow('f4', 'nudged', 'e2')}<endEvent id="e"/><endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'remindHourly');
    const [first] = await t.sql<{ due_at: Date }>('select due_at from wf_job where instance_id = $1', [
      instance.id,
    ]);
    const due = new Date(first!.due_at).getTime();
    const late = due + 5 * HOUR + 60_000;
    setWorkflowClock(t.app.ctx, () => new Date(late));
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect(await taskNames(instance.id)).toEqual(['nudged', 'review']);
    const [next] = await t.sql<{ due_at: Date; cycle: string }>(
      'select due_at, cycle from wf_job where instance_id = $1',
      [instance.id],
    );
    expect(next).toMatchObject({ cycle: 'R/PT1H' });
    expect(new Date(next!.due_at).getTime()).toBe(due + 6 * HOUR);
    // It repeats for ever while the task is open; terminating the instance ends it.
    const terminated = await call(t, t.auth, 'POST', 'processinstance/terminate', {
      id: instance.id,
      comment: 'done',
    });
    expect(terminated.statusCode).toBe(200);
    expect(await jobsOf(instance.id)).toEqual([]);
  });

  it('a cron cycle on a non-interrupting boundary fires at each of its times while the task is open', async () => {
    await deploy(
      t,
      bpmn(
        'remindCron',
        `<startEvent id="s"/>${flow('f1', 's', 'review')}${task('review')}
         <boundaryEvent id="nudge" attachedToRef="review" cancelActivity="false"><timerEventDefinition><timeCycle>0 0 * * * ?</timeCycle></timerEventDefinition></boundaryEvent>
         ${flow('f2', 'review', 'e')}${flow('f3', 'nudge', 'nudged')}${task('nudged')}${flow('f4', 'nudged', 'e2')}<endEvent id="e"/><endEvent id="e2"/>`,
      ),
    );
    const base = new Date();
    base.setMinutes(15, 0, 0);
    setWorkflowClock(t.app.ctx, () => base);
    const instance = await start(t, t.auth, 'remindCron');
    const nextHour = new Date(base);
    nextHour.setMinutes(60, 0, 0);
    const dueAt = async (): Promise<number[]> =>
      (await t.sql<{ due_at: Date }>('select due_at from wf_job where instance_id = $1', [instance.id])).map(
        (row) => new Date(row.due_at).getTime(),
      );
    expect(await dueAt()).toEqual([nextHour.getTime()]);
    setWorkflowClock(t.app.ctx, () => new Date(nextHour.getTime() + 60_000));
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await dueAt()).toEqual([nextHour.getTime() + HOUR]);
    setWorkflowClock(t.app.ctx, () => new Date(nextHour.getTime() + HOUR + 60_000));
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await taskNames(instance.id)).toEqual(['nudged', 'nudged', 'review']);
    // Completing the task ends the cycle.
    const review = (await openTasks(t, instance.id)).find((open) => open.activity_id === 'review');
    expect((await complete(t, t.auth, review!.id)).statusCode).toBe(200);
    expect(await dueAt()).toEqual([]);
  });

  it('sending a task back (regress) keeps the instance’s own repeating timer and drops the moved token’s', async () => {
    await deploy(
      t,
      bpmn(
        'remindAcross',
        `<startEvent id="s"/>${flow('f1', 's', 'draft')}${task('draft')}${flow('f2', 'draft', 'review')}${task('review')}
         <boundaryEvent id="late" attachedToRef="review" cancelActivity="false"><timerEventDefinition><timeDuration>PT3H</timeDuration></timerEventDefinition></boundaryEvent>
         ${flow('f3', 'review', 'e')}${flow('f4', 'late', 'e3')}<endEvent id="e"/><endEvent id="e3"/>
         <subProcess id="reminders" triggeredByEvent="true">
           <startEvent id="tick" isInterrupting="false"><timerEventDefinition><timeCycle>R/PT1H</timeCycle></timerEventDefinition></startEvent>
           ${flow('r1', 'tick', 're')}<endEvent id="re"/>
         </subProcess>`,
      ),
    );
    const instance = await start(t, t.auth, 'remindAcross');
    const [draft] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, draft!.id)).statusCode).toBe(200);
    const [review] = await openTasks(t, instance.id);
    expect((await jobsOf(instance.id)).map((job) => job.activity_id).sort()).toEqual(['late', 'tick']);
    const back = await call(t, t.auth, 'POST', 'task/regressTask', {
      id: review!.id,
      activityId: 'draft',
      comment: '退回',
    });
    expect(back.statusCode, back.body).toBe(200);
    expect((await jobsOf(instance.id)).map((job) => job.activity_id)).toEqual(['tick']);
    const terminated = await call(t, t.auth, 'POST', 'processinstance/terminate', {
      id: instance.id,
      comment: 'done',
    });
    expect(terminated.statusCode).toBe(200);
  });

  it('a repeating timer whose firing sets off an interrupting event sub-process does not come back', async () => {
    const xml = bpmn(
      'remindEscalate',
      `<startEvent id="s"/>${flow('f1', 's', 'review')}${task('review')}${flow('f2', 'review', 'e')}<endEvent id="e"/>
       <subProcess id="reminders" triggeredByEvent="true">
         <startEvent id="tick" isInterrupting="false"><timerEventDefinition><timeCycle>R/PT1H</timeCycle></timerEventDefinition></startEvent>
         ${flow('r1', 'tick', 'raise')}<intermediateThrowEvent id="raise"><escalationEventDefinition escalationRef="late"/></intermediateThrowEvent>${flow('r2', 'raise', 're')}<endEvent id="re"/>
       </subProcess>
       <subProcess id="handler" triggeredByEvent="true">
         <startEvent id="caught" isInterrupting="true"><escalationEventDefinition escalationRef="late"/></startEvent>
         ${flow('h1', 'caught', 'handle')}${task('handle')}${flow('h2', 'handle', 'he')}<endEvent id="he"/>
       </subProcess>`,
    ).replace('<process ', '<escalation id="late" escalationCode="LATE"/><process ');
    await deploy(t, xml);
    const instance = await start(t, t.auth, 'remindEscalate');
    expect((await jobsOf(instance.id)).map((job) => job.activity_id)).toEqual(['tick']);
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    // The handler interrupted the instance's scope: review is gone, and so is the reminder.
    expect(await taskNames(instance.id)).toEqual(['handle']);
    expect(await jobsOf(instance.id)).toEqual([]);
    clockIn(3 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect(await taskNames(instance.id)).toEqual(['handle']);
  });

  it('a repeating timer stops with its task: completing the task removes the next repetition', async () => {
    const instance = await start(t, t.auth, 'remindTwice');
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    const review = (await openTasks(t, instance.id)).find((open) => open.activity_id === 'review');
    expect((await complete(t, t.auth, review!.id)).statusCode).toBe(200);
    expect(await jobsOf(instance.id)).toEqual([]);
    clockIn(3 * HOUR);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    expect(await taskNames(instance.id)).toEqual(['nudged']);
  });

  it('an interrupting timer on a sub-process cancels every task inside it and leaves by the timer', async () => {
    await deploy(
      t,
      bpmn(
        'subTimer',
        `<startEvent id="s"/>${flow('f1', 's', 'sub')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('c1', 'ss', 'fork')}<parallelGateway id="fork"/>
           ${flow('c2', 'fork', 'a')}${flow('c3', 'fork', 'b')}${task('a')}${task('b')}
           ${flow('c4', 'a', 'se')}${flow('c5', 'b', 'se2')}<endEvent id="se"/><endEvent id="se2"/></subProcess>
         ${boundary('late', 'sub', 'PT1H')}
         ${flow('f2', 'sub', 'e')}${flow('f3', 'late', 'escalate')}${task('escalate')}${flow('f4', 'escalate', 'e2')}<endEvent id="e"/><endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'subTimer');
    expect(await taskNames(instance.id)).toEqual(['a', 'b']);
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await taskNames(instance.id)).toEqual(['escalate']);
    const canceled = await t.sql<{ activity_id: string; end_reason: string }>(
      "select activity_id, end_reason from wf_task where instance_id = $1 and status = 'canceled' order by activity_id",
      [instance.id],
    );
    expect(canceled).toEqual([
      { activity_id: 'a', end_reason: 'boundaryTimer' },
      { activity_id: 'b', end_reason: 'boundaryTimer' },
    ]);
    const [open] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, open?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('a sub-process left in time drops its timer', async () => {
    const instance = await start(t, t.auth, 'subTimer');
    for (const open of await openTasks(t, instance.id))
      expect((await complete(t, t.auth, open.id)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
    expect(await jobsOf(instance.id)).toEqual([]);
  });

  it('an error end event is caught by the error boundary of its sub-process (by code); an uncaught one is an incident naming it (a Flowable file) or a plain end (a Camunda file)', async () => {
    const errors = (catching: string): string =>
      `<startEvent id="s"/>${flow('f1', 's', 'sub')}
       <subProcess id="sub"><startEvent id="ss"/>${flow('c1', 'ss', 'check')}${task('check')}${flow('c2', 'check', 'fail')}
         <endEvent id="fail" name="Check failed"><errorEventDefinition errorRef="CHECK_FAILED"/></endEvent></subProcess>
       <boundaryEvent id="caught" attachedToRef="sub"><errorEventDefinition errorRef="${catching}"/></boundaryEvent>
       ${flow('f2', 'sub', 'e')}${flow('f3', 'caught', 'repair')}${task('repair')}${flow('f4', 'repair', 'e')}<endEvent id="e"/>`;
    await deploy(t, bpmn('errorCaught', errors('CHECK_FAILED')));
    const instance = await start(t, t.auth, 'errorCaught');
    const [check] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, check?.id ?? 0)).statusCode).toBe(200);
    expect(await taskNames(instance.id)).toEqual(['repair']);
    await deploy(t, inDialect(bpmn('errorUncaught', errors('OTHER')), 'flowable'));
    const other = await start(t, t.auth, 'errorUncaught');
    const [first] = await openTasks(t, other.id);
    await complete(t, t.auth, first?.id ?? 0);
    const row = await instanceRow(t, other.id);
    expect(row.status).not.toBe('over');
    expect(row.incident).toMatchObject({ activityId: 'fail', activityName: 'Check failed' });
    // Camunda: "in case no matching error boundary event is found, the execution semantics
    // defaults to the none end event semantics": the sub-process ends and the instance goes on.
    await deploy(t, bpmn('errorUncaughtCamunda', errors('OTHER')));
    const ended = await start(t, t.auth, 'errorUncaughtCamunda');
    const [inner] = await openTasks(t, ended.id);
    expect((await complete(t, t.auth, inner?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, ended.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('a timer boundary on a pass-through activity deploys and the token passes it', async () => {
    await deploy(
      t,
      bpmn(
        'onTask',
        `<startEvent id="s"/>${flow('f1', 's', 'note')}<task id="note"/>${boundary('late', 'note', 'PT1H')}
         ${flow('f2', 'note', 'e')}${flow('f3', 'late', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'onTask');
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over' });
  });
});

describe('intermediate throw and catch events (issue 36)', () => {
  it('a none throw event is passed; a link throw jumps to the catch of the same name', async () => {
    await deploy(
      t,
      bpmn(
        'links',
        `<startEvent id="s"/>${flow('f1', 's', 'mark')}<intermediateThrowEvent id="mark" name="Marked"/>
         ${flow('f2', 'mark', 'jump')}<intermediateThrowEvent id="jump"><linkEventDefinition name="ToReview"/></intermediateThrowEvent>
         <intermediateCatchEvent id="land"><linkEventDefinition name="ToReview"/></intermediateCatchEvent>
         ${flow('f3', 'land', 'review')}${task('review')}${flow('f4', 'review', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'links');
    expect(await taskNames(instance.id)).toEqual(['review']);
    const history = await t.sql<{ activity_id: string }>(
      'select activity_id from wf_hist_activity where instance_id = $1 order by id',
      [instance.id],
    );
    expect(history.map((row) => row.activity_id)).toEqual(['s', 'mark', 'jump', 'land', 'review']);
  });

  it('a timer catch event waits for its job (the clock), then the token goes on', async () => {
    await deploy(
      t,
      bpmn(
        'pause',
        `<startEvent id="s"/>${flow('f1', 's', 'wait')}<intermediateCatchEvent id="wait"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
         ${flow('f2', 'wait', 'review')}${task('review')}${flow('f3', 'review', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'pause');
    expect(await taskNames(instance.id)).toEqual([]);
    expect(await jobsOf(instance.id)).toEqual([{ activity_id: 'wait', kind: 'boundaryTimer' }]);
    expect(await runDueJobs(t.app.ctx)).toBe(0);
    clockIn(HOUR + 60_000);
    expect(await runDueJobs(t.app.ctx)).toBe(1);
    expect(await taskNames(instance.id)).toEqual(['review']);
    const [review] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, review?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });

  it('a signal throw releases the tokens of the instance waiting at a catch of that signal', async () => {
    await deploy(
      t,
      bpmn(
        'signals',
        `<startEvent id="s"/>${flow('f1', 's', 'fork')}<parallelGateway id="fork"/>
         ${flow('f2', 'fork', 'waitGo')}${flow('f3', 'fork', 'prepare')}
         <intermediateCatchEvent id="waitGo"><signalEventDefinition signalRef="go"/></intermediateCatchEvent>
         ${flow('f4', 'waitGo', 'after')}${task('after')}${flow('f5', 'after', 'e')}
         ${task('prepare')}${flow('f6', 'prepare', 'sendGo')}<intermediateThrowEvent id="sendGo"><signalEventDefinition signalRef="go"/></intermediateThrowEvent>
         ${flow('f7', 'sendGo', 'e2')}<endEvent id="e"/><endEvent id="e2"/>`,
      ).replace('</process>', '</process><signal id="go" name="Go"/>'),
    );
    const instance = await start(t, t.auth, 'signals');
    expect(await taskNames(instance.id)).toEqual(['prepare']);
    const [prepare] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, prepare?.id ?? 0)).statusCode).toBe(200);
    expect(await taskNames(instance.id)).toEqual(['after']);
    const [after] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, after?.id ?? 0)).statusCode).toBe(200);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
  });
});

describe('signal boundary events (issue 36)', () => {
  it('a signal thrown on one branch interrupts the task its boundary is attached to on another', async () => {
    await deploy(
      t,
      bpmn(
        'stopSignal',
        `<startEvent id="s"/>${flow('f1', 's', 'fork')}<parallelGateway id="fork"/>
         ${flow('f2', 'fork', 'work')}${flow('f3', 'fork', 'decide')}${task('work')}
         <boundaryEvent id="stopped" attachedToRef="work"><signalEventDefinition signalRef="stop"/></boundaryEvent>
         ${flow('f4', 'work', 'e')}${flow('f5', 'stopped', 'e3')}
         ${task('decide')}${flow('f6', 'decide', 'sendStop')}<intermediateThrowEvent id="sendStop"><signalEventDefinition signalRef="stop"/></intermediateThrowEvent>
         ${flow('f7', 'sendStop', 'e2')}<endEvent id="e"/><endEvent id="e2"/><endEvent id="e3"/>`,
      ).replace('</process>', '</process><signal id="stop" name="Stop"/>'),
    );
    const instance = await start(t, t.auth, 'stopSignal');
    expect(await taskNames(instance.id)).toEqual(['decide', 'work']);
    const decide = (await openTasks(t, instance.id)).find((open) => open.activity_id === 'decide');
    expect((await complete(t, t.auth, decide?.id ?? 0)).statusCode).toBe(200);
    expect(await taskNames(instance.id)).toEqual([]);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'over', incident: null });
    const [work] = await t.sql<{ end_reason: string }>(
      "select end_reason from wf_task where instance_id = $1 and activity_id = 'work'",
      [instance.id],
    );
    expect(work?.end_reason).toBe('boundarySignal');
  });
});

describe('deploying timers and sub-processes', () => {
  const refused = async (xml: string, field: string): Promise<void> => {
    const response = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml });
    expect(response.statusCode, response.body).toBe(400);
    expect((response.json().errors as { field: string }[]).map((error) => error.field)).toContain(field);
  };

  it('refuses what cannot run, naming the element', async () => {
    const around = (inner: string): string =>
      `<startEvent id="s"/>${flow('f1', 's', 'work')}${task('work')}${flow('f2', 'work', 'e')}<endEvent id="e"/>${inner}${flow('f9', 'b', 'e')}`;
    await refused(
      bpmn(
        'nonInterruptingError',
        around(
          '<boundaryEvent id="b" attachedToRef="work" cancelActivity="false"><errorEventDefinition/></boundaryEvent>',
        ),
      ),
      'b',
    );
    await refused(bpmn('badDuration', around(boundary('b', 'work', 'one hour'))), 'b');
    await refused(
      bpmn(
        'compensationBoundary',
        around('<boundaryEvent id="b" attachedToRef="work"><compensateEventDefinition/></boundaryEvent>'),
      ),
      'b',
    );
    await refused(
      bpmn(
        'cronLastDay',
        `<startEvent id="s"><timerEventDefinition><timeCycle>0 0 12 L * ?</timeCycle></timerEventDefinition></startEvent>${flow('f1', 's', 'e')}<endEvent id="e"/>`,
      ),
      's',
    );
    await refused(
      bpmn(
        'eventSub',
        `<startEvent id="s"/>${flow('f1', 's', 'e')}<endEvent id="e"/>
         <subProcess id="handler" triggeredByEvent="true"><startEvent id="hs"/>${flow('h1', 'hs', 'he')}<endEvent id="he"/></subProcess>`,
      ),
      'handler',
    );
  });
});
