import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTokens, taskDone } from '../../src/server/features/workflow/services/interpreter.js';
import { parseBpmn } from '../../src/server/features/workflow/services/parse.js';
import type { Run } from '../../src/server/features/workflow/services/activity.js';
import type { Db } from '../../src/server/lib/db/database.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { memoryRun, type MemoryRun } from '../support/memory-run.js';
import { bpmn, complete, deploy, flow, start } from '../support/workflow.js';

/**
 * The interpreter writes an instance only through its stores (activity.ts Run: tokens, waits,
 * history, tasks, the instance, compensations). Here the same process runs twice: through the
 * HTTP API on the database, and through the interpreter on stores in memory
 * (tests/support/memory-run.ts), with the same start and the same completions. What each leaves
 * (history rows, tasks, tokens, timers, variables, the instance's status and incident) must be the
 * same: a process runs start to end without a database, and the memory stores mean what the
 * database's do.
 */

const ADMIN = { userId: 1, username: 'admin', tenantCode: 'default' };

/** A process and what is done with it: the start's variables, then tasks completed by activity, in order. */
interface Script {
  name: string;
  body: string;
  /** Beside the process in the definitions (errors). */
  beside?: string;
  variables?: Record<string, unknown>;
  completions: { task: string; variables?: Record<string, unknown> }[];
}

const task = (id: string, extra = ''): string =>
  `<userTask id="${id}" name="${id}" camunda:assignee="admin"${extra}/>`;
const timer = (id: string, on: string): string =>
  `<boundaryEvent id="${id}" attachedToRef="${on}"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>`;

/** The file of a script's process. */
const fileOf = (key: string, script: Script): string =>
  script.beside
    ? bpmn(key, script.body).replace('<process ', `${script.beside}<process `)
    : bpmn(key, script.body);

const OOPS = '<error id="oops" errorCode="OOPS"/>';

const SCRIPTS: Script[] = [
  {
    name: 'two tasks in a row, the second named by an expression, and the end',
    body: `<startEvent id="s"/>${flow('f1', 's', 'a')}${task('a')}${flow('f2', 'a', 'b')}
      <userTask id="b" name="Review \${item}" camunda:assignee="admin"/>${flow('f3', 'b', 'e')}<endEvent id="e"/>`,
    variables: { item: 'pump' },
    completions: [{ task: 'a', variables: { approved: true } }, { task: 'b' }],
  },
  {
    name: 'a task for candidate users and a group waits for one of them',
    body: `<startEvent id="s"/>${flow('f1', 's', 'a')}${task('a')}${flow('f2', 'a', 'c')}
      <userTask id="c" name="c" camunda:candidateUsers="ann, \${buyer}" camunda:candidateGroups="management"/>
      ${flow('f3', 'c', 'e')}<endEvent id="e"/>`,
    variables: { buyer: 'bob' },
    completions: [{ task: 'a' }],
  },
  {
    name: 'an exclusive gateway takes the flow whose condition holds',
    body: `<startEvent id="s"/>${flow('f1', 's', 'a')}${task('a')}${flow('f2', 'a', 'g')}
      <exclusiveGateway id="g" default="toSmall"/>${flow('toBig', 'g', 'big', '${amount > 100}')}${flow('toSmall', 'g', 'small')}
      ${task('big')}${task('small')}${flow('f3', 'big', 'e')}${flow('f4', 'small', 'e')}<endEvent id="e"/>`,
    completions: [{ task: 'a', variables: { amount: 500 } }, { task: 'big' }],
  },
  {
    name: 'a parallel fork and join, then a last task',
    body: `<startEvent id="s"/>${flow('f1', 's', 'fork')}<parallelGateway id="fork"/>
      ${flow('f2', 'fork', 'a')}${flow('f3', 'fork', 'b')}${task('a')}${task('b')}
      ${flow('f4', 'a', 'join')}${flow('f5', 'b', 'join')}<parallelGateway id="join"/>
      ${flow('f6', 'join', 'c')}${task('c')}${flow('f7', 'c', 'e')}<endEvent id="e"/>`,
    completions: [{ task: 'b' }, { task: 'a' }, { task: 'c' }],
  },
  {
    name: 'an inclusive gateway joins the two branches it took (one task after, not two)',
    body: `<startEvent id="s"/>${flow('f1', 's', 'fork')}<inclusiveGateway id="fork"/>
      ${flow('f2', 'fork', 'a', '${input >= 1}')}${flow('f3', 'fork', 'b', '${input >= 2}')}${flow('f3c', 'fork', 'c', '${input >= 3}')}
      ${task('a')}${task('b')}${task('c')}
      ${flow('f4', 'a', 'join')}${flow('f5', 'b', 'join')}${flow('f5c', 'c', 'join')}<inclusiveGateway id="join"/>
      ${flow('f6', 'join', 'after')}${task('after')}${flow('f7', 'after', 'e')}<endEvent id="e"/>`,
    variables: { input: 2 },
    completions: [{ task: 'a' }, { task: 'b' }],
  },
  {
    name: 'a sub-process with a task inside, then a task after it',
    body: `<startEvent id="s"/>${flow('f1', 's', 'sub')}
      <subProcess id="sub"><startEvent id="ss"/>${flow('g1', 'ss', 'inner')}${task('inner')}${flow('g2', 'inner', 'se')}<endEvent id="se"/></subProcess>
      ${flow('f2', 'sub', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>`,
    completions: [{ task: 'inner' }, { task: 'after' }],
  },
  {
    name: 'a parallel multi-instance task, one per item of a collection',
    body: `<startEvent id="s"/>${flow('f1', 's', 'review')}
      <userTask id="review" name="Review \${reviewer}" camunda:assignee="admin">
        <multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${reviewers}" camunda:elementVariable="reviewer"/>
      </userTask>${flow('f2', 'review', 'e')}<endEvent id="e"/>`,
    variables: { reviewers: ['ann', 'bob', 'cy'] },
    completions: [{ task: 'review' }, { task: 'review' }, { task: 'review' }],
  },
  {
    name: 'a sequential multi-instance task over a collection named the BPMN way (loopDataInputRef, inputDataItem)',
    body: `<startEvent id="s"/>${flow('f1', 's', 'review')}
      <userTask id="review" name="Review \${reviewer}" camunda:assignee="admin">
        <multiInstanceLoopCharacteristics isSequential="true">
          <loopDataInputRef>reviewers</loopDataInputRef><inputDataItem name="reviewer"/>
        </multiInstanceLoopCharacteristics>
      </userTask>${flow('f2', 'review', 'e')}<endEvent id="e"/>`,
    variables: { reviewers: ['ann', 'bob'] },
    completions: [{ task: 'review' }, { task: 'review' }],
  },
  {
    name: 'a timer on a task is set while it waits and goes when it is done',
    body: `<startEvent id="s"/>${flow('f1', 's', 'a')}${task('a')}${timer('late', 'a')}${flow('f2', 'a', 'b')}
      ${flow('f9', 'late', 'lateEnd')}<endEvent id="lateEnd"/>${task('b')}${flow('f3', 'b', 'e')}<endEvent id="e"/>`,
    completions: [{ task: 'a' }],
  },
  {
    name: 'a terminate end in one branch ends the other branch and the instance',
    body: `<startEvent id="s"/>${flow('f1', 's', 'fork')}<parallelGateway id="fork"/>
      ${flow('f2', 'fork', 'a')}${flow('f3', 'fork', 'b')}${task('a')}${task('b')}
      ${flow('f4', 'a', 'stop')}<endEvent id="stop"><terminateEventDefinition/></endEvent>${flow('f5', 'b', 'e')}<endEvent id="e"/>`,
    completions: [{ task: 'a' }],
  },
  {
    name: 'a task whose assignee names an unset variable after a gateway stops in an incident',
    body: `<startEvent id="s"/>${flow('f1', 's', 'a')}${task('a')}${flow('f2', 'a', 'g')}<exclusiveGateway id="g"/>
      ${flow('f3', 'g', 'b')}<userTask id="b" name="b" camunda:assignee="\${manager}"/>${flow('f4', 'b', 'e')}<endEvent id="e"/>`,
    completions: [{ task: 'a' }],
  },
  {
    name: "a multi-instance task's completion condition cancels the items left",
    body: `<startEvent id="s"/>${flow('f1', 's', 'review')}
      <userTask id="review" name="Review \${reviewer}" camunda:assignee="admin">
        <multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${reviewers}" camunda:elementVariable="reviewer">
          <completionCondition>\${nrOfCompletedInstances >= 2}</completionCondition>
        </multiInstanceLoopCharacteristics>
      </userTask>${flow('f2', 'review', 'e')}<endEvent id="e"/>`,
    variables: { reviewers: ['ann', 'bob', 'cy'] },
    completions: [{ task: 'review' }, { task: 'review' }],
  },
  {
    name: 'an error end event in a sub-process is caught by its boundary event, which ends the rest of it',
    beside: OOPS,
    body: `<startEvent id="s"/>${flow('f1', 's', 'sub')}
      <subProcess id="sub"><startEvent id="ss"/>${flow('g1', 'ss', 'fork')}<parallelGateway id="fork"/>
        ${flow('g2', 'fork', 'x')}${flow('g3', 'fork', 'y')}${task('x')}${task('y')}
        ${flow('g4', 'x', 'fail')}<endEvent id="fail"><errorEventDefinition errorRef="oops"/></endEvent>
        ${flow('g5', 'y', 'se')}<endEvent id="se"/></subProcess>
      <boundaryEvent id="caught" attachedToRef="sub"><errorEventDefinition errorRef="oops"/></boundaryEvent>
      ${flow('f2', 'caught', 'handled')}${task('handled')}${flow('f3', 'handled', 'e2')}<endEvent id="e2"/>
      ${flow('f4', 'sub', 'e')}<endEvent id="e"/>`,
    completions: [{ task: 'x' }, { task: 'handled' }],
  },
  {
    name: "an error caught by the process's event sub-process ends everything else",
    beside: OOPS,
    body: `<startEvent id="s"/>${flow('f1', 's', 'fork')}<parallelGateway id="fork"/>
      ${flow('f2', 'fork', 'a')}${flow('f3', 'fork', 'b')}${task('a')}${task('b')}
      ${flow('f4', 'a', 'fail')}<endEvent id="fail"><errorEventDefinition errorRef="oops"/></endEvent>
      ${flow('f5', 'b', 'e')}<endEvent id="e"/>
      <subProcess id="onError" triggeredByEvent="true"><startEvent id="errorStart"><errorEventDefinition errorRef="oops"/></startEvent>
        ${flow('h1', 'errorStart', 'recover')}${task('recover')}${flow('h2', 'recover', 'he')}<endEvent id="he"/></subProcess>`,
    completions: [{ task: 'a' }, { task: 'recover' }],
  },
  {
    name: 'a compensation throw runs the handler of the completed task, then goes on',
    body: `<startEvent id="s"/>${flow('f1', 's', 'a')}${task('a')}
      <boundaryEvent id="onA" attachedToRef="a"><compensateEventDefinition/></boundaryEvent>
      <userTask id="undoA" name="undo a" camunda:assignee="admin" isForCompensation="true"/>
      <association id="toUndo" associationDirection="One" sourceRef="onA" targetRef="undoA"/>
      ${flow('f2', 'a', 'b')}${task('b')}${flow('f3', 'b', 'throw')}
      <intermediateThrowEvent id="throw"><compensateEventDefinition/></intermediateThrowEvent>
      ${flow('f4', 'throw', 'e')}<endEvent id="e"/>`,
    completions: [{ task: 'a' }, { task: 'b' }, { task: 'undoA' }],
  },
  {
    name: 'a terminate end inside a sub-process ends only that sub-process',
    body: `<startEvent id="s"/>${flow('f1', 's', 'sub')}
      <subProcess id="sub"><startEvent id="ss"/>${flow('g1', 'ss', 'fork')}<parallelGateway id="fork"/>
        ${flow('g2', 'fork', 'x')}${flow('g3', 'fork', 'y')}${task('x')}${task('y')}
        ${flow('g4', 'x', 'stop')}<endEvent id="stop"><terminateEventDefinition/></endEvent>
        ${flow('g5', 'y', 'se')}<endEvent id="se"/></subProcess>
      ${flow('f2', 'sub', 'after')}${task('after')}${flow('f3', 'after', 'e')}<endEvent id="e"/>`,
    completions: [{ task: 'x' }],
  },
  {
    name: "a multi-instance sub-process over a collection: each body's task named by its item, a gateway reading it",
    body: `<startEvent id="s"/>${flow('f1', 's', 'each')}
      <subProcess id="each">
        <multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${parts}" camunda:elementVariable="part"/>
        <startEvent id="ss"/>${flow('g1', 'ss', 'which')}<exclusiveGateway id="which" default="g3"/>
        ${flow('g2', 'which', 'urgent', '${part == "pump"}')}${flow('g3', 'which', 'fit')}
        <userTask id="urgent" name="Rush \${part}" camunda:assignee="admin"/>${flow('g4', 'urgent', 'se')}
        <userTask id="fit" name="Fit \${part}" camunda:assignee="admin"/>${flow('g5', 'fit', 'se')}<endEvent id="se"/>
      </subProcess>${flow('f2', 'each', 'e')}<endEvent id="e"/>`,
    variables: { parts: ['pump', 'valve'] },
    completions: [{ task: 'urgent' }, { task: 'fit' }],
  },
  {
    name: "a sequential multi-instance task over the outer item's lines in a multi-instance sub-process, a report counting the bodies done",
    body: `<startEvent id="s"/>${flow('f1', 's', 'orders')}
      <subProcess id="orders">
        <multiInstanceLoopCharacteristics isSequential="true" camunda:collection="\${orderList}" camunda:elementVariable="order"/>
        <startEvent id="ss"/>${flow('n1', 'ss', 'pack')}
        <userTask id="pack" name="Pack \${order.ref} \${line}" camunda:assignee="admin">
          <multiInstanceLoopCharacteristics isSequential="true" camunda:collection="\${order.lines}" camunda:elementVariable="line"/>
        </userTask>${flow('n2', 'pack', 'report')}
        <userTask id="report" name="Report \${order.ref}: \${nrOfCompletedInstances} of \${nrOfInstances}" camunda:assignee="admin"/>
        ${flow('n3', 'report', 'se')}<endEvent id="se"/>
      </subProcess>${flow('f2', 'orders', 'e')}<endEvent id="e"/>`,
    variables: {
      orderList: [
        { ref: 'A', lines: ['pump', 'valve'] },
        { ref: 'B', lines: ['hose'] },
      ],
    },
    completions: [
      { task: 'pack' },
      { task: 'pack' },
      { task: 'report' },
      { task: 'pack' },
      { task: 'report' },
    ],
  },
];

/** What an instance left, as both runs are compared. */
interface Left {
  history: string[];
  tasks: string[];
  /** Each task's candidate users and groups. */
  candidates: string[];
  /** The comments of the tasks' completions. */
  comments: string[];
  tokens: string[];
  timers: string[];
  variables: string[];
  status: string;
  incident: string | null;
}

describe('an instance runs the same on the database and in memory', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  /** The process through the HTTP API: deployed, started, its tasks completed; what its rows say. */
  async function inDatabase(key: string, script: Script): Promise<Left> {
    await deploy(t, fileOf(key, script));
    const instanceId = (await start(t, t.auth, key, script.variables ?? {})).id;
    for (const step of script.completions) {
      const [open] = await t.sql<{ id: string }>(
        'select id from wf_task where instance_id = $1 and activity_id = $2 and end_time is null order by id limit 1',
        [instanceId, step.task],
      );
      expect(open, `an open task at ${step.task}`).toBeDefined();
      const answer = await complete(t, t.auth, Number(open!.id), step.variables ?? {});
      expect(answer.statusCode, answer.body).toBe(200);
    }
    const history = await t.sql<{
      activity_id: string;
      ended: boolean;
      end_reason: string | null;
      is_task: boolean;
    }>(
      `select activity_id, end_time is not null as ended, end_reason, task_id is not null as is_task
        from wf_hist_activity where instance_id = $1 order by id`,
      [instanceId],
    );
    const tasks = await t.sql<{
      name: string;
      activity_id: string;
      status: string;
      end_reason: string | null;
      assignee: string | null;
      candidates: string | null;
    }>(
      `select name, activity_id, status, end_reason, assignee,
          (select string_agg(coalesce(l.user_name, l.group_key), ',' order by l.id) from wf_identity_link l
            where l.task_id = t.id) as candidates
        from wf_task t where instance_id = $1 order by id`,
      [instanceId],
    );
    const comments = await t.sql<{ username: string; action: string; message: string }>(
      'select username, action, message from wf_comment where instance_id = $1 order by id',
      [instanceId],
    );
    const tokens = await t.sql<{ activity_id: string; state: string }>(
      'select activity_id, state from wf_execution where instance_id = $1 order by id',
      [instanceId],
    );
    const timers = await t.sql<{ activity_id: string; kind: string }>(
      'select activity_id, kind from wf_job where instance_id = $1 order by id',
      [instanceId],
    );
    const variables = await t.sql<{ name: string; value: unknown }>(
      'select name, value from wf_variable where instance_id = $1 order by name',
      [instanceId],
    );
    const [instance] = await t.sql<{
      status: string;
      incident: { activityId: string; message: string } | null;
    }>('select status, incident from wf_instance where id = $1', [instanceId]);
    return {
      history: history.map((row) => activityText(row.activity_id, row.ended, row.end_reason, row.is_task)),
      tasks: tasks.map((row) =>
        taskText(row.activity_id, row.name, row.status, row.end_reason, row.assignee),
      ),
      candidates: tasks.map((row) => `${row.activity_id}: ${row.candidates ?? ''}`),
      comments: comments.map((row) => `${row.username} ${row.action}: ${row.message}`),
      tokens: tokens.map((row) => `${row.activity_id}:${row.state}`),
      timers: timers.map((row) => `${row.activity_id}:${row.kind}`),
      variables: variables.map((row) => `${row.name}=${JSON.stringify(row.value)}`),
      status: instance?.status ?? '',
      incident: instance?.incident ? `${instance.incident.activityId}: ${instance.incident.message}` : null,
    };
  }

  /** The same process through the interpreter on memory stores, one run per request as the API makes. */
  async function inMemory(key: string, script: Script): Promise<Left> {
    const parsed = await parseBpmn(fileOf(key, script));
    expect(parsed.problems).toEqual([]);
    const graph = parsed.graph!;
    const memory = memoryRun(graph, { actor: ADMIN });
    const values = { ...(script.variables ?? {}), initiator: ADMIN.username };
    Object.assign(memory.run.variables, values);
    await startTokens({
      run: memory.run,
      variables: { values, activityId: graph.startId, username: ADMIN.username },
    });
    for (const step of script.completions) {
      const open = memory.tasks.rows.find(
        (row) => row.activityId === step.task && row.status !== 'completed' && row.endReason === null,
      );
      expect(open, `an open task at ${step.task}`).toBeDefined();
      const run = nextRun(memory);
      run.refusesConditionErrors = true;
      const taskValues = step.variables ?? {};
      Object.assign(run.variables, taskValues);
      if (Object.keys(taskValues).length > 0) run.variablesChanged = true;
      await taskDone({
        run,
        executionId: open!.executionId,
        nodeId: open!.activityId,
        closing: {
          task: { id: open!.id, activityId: open!.activityId },
          variables: {
            values: taskValues,
            taskId: open!.id,
            activityId: open!.activityId,
            username: ADMIN.username,
          },
          comment: { username: ADMIN.username, message: 'ok' },
          answer: 'task',
        },
      });
    }
    const { instance } = memory;
    return {
      history: memory.history.rows.map((row) =>
        activityText(row.activityId, row.ended, row.endReason, row.taskId !== null),
      ),
      tasks: memory.tasks.rows.map((row) =>
        taskText(row.activityId, row.name, row.status, row.endReason, row.assignee),
      ),
      candidates: memory.tasks.rows.map(
        (row) => `${row.activityId}: ${[...row.candidateUsers, ...row.candidateGroups].join(',')}`,
      ),
      comments: instance.comments.map((row) => `${row.username} complete: ${row.message}`),
      tokens: memory.tokens.standing(),
      timers: memory.waits.jobs.map((job) => `${job.activityId}:${job.kind}`),
      variables: Object.keys(instance.variables)
        .sort()
        .map((name) => `${name}=${JSON.stringify(instance.variables[name])}`),
      status: instance.status,
      incident: instance.incident ? `${instance.incident.activityId}: ${instance.incident.message}` : null,
    };
  }

  for (const [index, script] of SCRIPTS.entries())
    it(script.name, async () => {
      const key = `memory_run_${index}`;
      const database = await inDatabase(key, script);
      const memory = await inMemory(key, script);
      expect(memory).toEqual(database);
      // And the run went where the script means it to: not an empty match.
      expect(database.history.length).toBeGreaterThan(2);
      expect(database.tasks.length).toBeGreaterThanOrEqual(script.completions.length);
    });

  it('the scripts end as their processes say', async () => {
    const ends = await Promise.all(
      SCRIPTS.map(async (script, index) => {
        const left = await inMemory(`memory_run_${index}`, script);
        return {
          status: left.status,
          open: left.tasks.filter((text) => /" (assigned|created) /.test(text)),
          left,
        };
      }),
    );
    expect(ends.map(({ status }) => status)).toEqual([
      'over',
      'running',
      'over',
      'over',
      'running',
      'over',
      'over',
      'over',
      'running',
      'over',
      'running',
      'over',
      'over',
      'over',
      'over',
      'running',
      'over',
      'over',
    ]);
    // The completion condition canceled the third review.
    expect(ends[11]!.left.tasks[2]).toBe('review "Review cy" canceled:completionCondition admin');
    // The caught error canceled y with its sub-process; the boundary's path ran.
    expect(ends[12]!.left.tasks).toEqual([
      'x "x" completed:completed admin',
      'y "y" canceled:boundaryError admin',
      'handled "handled" completed:completed admin',
    ]);
    // The event sub-process canceled b.
    expect(ends[13]!.left.tasks).toContain('b "b" canceled:eventSubProcess admin');
    // The handler of a ran after b, and the instance went on to its end.
    expect(ends[14]!.left.tasks.map((text) => text.split(' ')[0])).toEqual(['a', 'b', 'undoA']);
    // Only the sub-process ended: y canceled, the task after it open.
    expect(ends[15]!.left.tasks).toContain('y "y" canceled:terminateEnd admin');
    expect(ends[15]!.open).toEqual(['after "after" assigned admin']);
    // The candidates' task: for the users named (one by an expression) and the role the group names, no assignee.
    expect(ends[1]!.left.candidates[1]).toBe('c: ann,bob,role:ROLE_MANAGEMENT');
    expect(ends[1]!.open).toEqual(['c "c" created -']);
    // The loop named the BPMN way made one task per reviewer, one after the other.
    expect(ends[7]!.left.tasks).toEqual([
      'review "Review ann" completed:completed admin',
      'review "Review bob" completed:completed admin',
    ]);
    // Each body read its own item: its name, and the gateway's way.
    expect(ends[16]!.left.tasks).toEqual([
      'urgent "Rush pump" completed:completed admin',
      'fit "Fit valve" completed:completed admin',
    ]);
    // Each order's lines one after another, the report counting the orders done before it.
    expect(ends[17]!.left.tasks.map((text) => text.split('"')[1])).toEqual([
      'Pack A pump',
      'Pack A valve',
      'Report A: 0 of 2',
      'Pack B hose',
      'Report B: 1 of 2',
    ]);
    // Two tasks in a row: the second's name from its expression.
    expect(ends[0]!.left.tasks[1]).toBe('b "Review pump" completed:completed admin');
    // The exclusive gateway took `big`; the inclusive join made one task after it, not two.
    expect(ends[2]!.left.history).toContain('big task ended:completed');
    expect(ends[4]!.open).toEqual(['after "after" assigned admin']);
    // Three reviews, one per item, each named by its item.
    expect(ends[6]!.left.tasks.map((text) => text.split('"')[1])).toEqual([
      'Review ann',
      'Review bob',
      'Review cy',
    ]);
    // The task's timer is set while it waits, and gone once it is done (the next task has none).
    expect(ends[8]!.left.timers).toEqual([]);
    expect(ends[8]!.open).toEqual(['b "b" assigned admin']);
    // The terminate end canceled the other branch's task.
    expect(ends[9]!.left.tasks).toContain('b "b" canceled:terminateEnd admin');
    // The unset assignee: an incident naming the variable, the token stopped at the task.
    expect(ends[10]!.left.incident).toMatch(/^b: .*manager/);
    expect(ends[10]!.left.tokens).toEqual(['b:incident']);
  });
});

/** The next request's run on the same stores: a new transaction, the instance's variables as stored. */
function nextRun(memory: MemoryRun): Run {
  const { run, instance } = memory;
  return {
    ...run,
    // A new transaction: the steps of a transaction are counted by its object.
    trx: {} as Db,
    variables: { ...instance.variables },
    hasEnded: instance.status !== 'running',
    created: [],
    steps: 0,
    stepsSaved: 0,
    stepsBefore: instance.steps,
  };
}

const activityText = (
  activityId: string,
  ended: boolean,
  endReason: string | null,
  isTask: boolean,
): string =>
  `${activityId}${isTask ? ' task' : ''} ${ended ? 'ended' : 'open'}${endReason ? `:${endReason}` : ''}`;

const taskText = (
  activityId: string,
  name: string,
  status: string,
  endReason: string | null,
  assignee: string | null,
): string => `${activityId} "${name}" ${status}${endReason ? `:${endReason}` : ''} ${assignee ?? '-'}`;
