import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setWorkflowClock } from '../../src/server/features/workflow/services/clock.js';
import { runDueCalls, runDueJobs } from '../../src/server/features/workflow/services/jobs.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { call } from '../support/workflow.js';

/**
 * Issue 36's corpus: process files from the Activiti, Flowable and Camunda test suites
 * (tests/fixtures/bpmn/<engine>/…, sources in SOURCES.md), each deployed unchanged over the HTTP
 * API, started with the variables its own Java test uses, its user tasks driven to the end as the
 * administrator (each open task assigned to the admin and completed, a bounded number of steps;
 * waiting timers fired by moving the engine's clock when no task is open, else the message or
 * signal a token waits for sent over the API, as its own test correlates it), and compared with what
 * its own test asserts (tests/fixtures/bpmn/corpus.json). Prints the table and writes it to
 * test-results/bpmn-corpus.json. Alone: `npm run corpus:bpmn`.
 *
 * A second pass, on a database of its own, deploys each file refused as it is with
 * codeAsExternalTasks (each Java or script element an external task, completed without variables
 * by the stand-in worker): the table gives the figures of the files as they are and, beside
 * them, with that option.
 *
 * It asserts what must always hold (every refusal names its element or reason, no 5xx) and a floor
 * equal to the counts measured on the engine it was written against: it fails when the engine
 * gets worse; raise the floor when it gets better.
 */

const FLOOR = { deployed: 159, ranToEnd: 151, matched: 155, endedAndMatched: 151 };
/** The same with codeAsExternalTasks for the files refused without it. */
const FLOOR_WITH_OPTION = { deployed: 198, ranToEnd: 184, matched: 176, endedAndMatched: 171 };
/** Files whose refusal names neither an element nor a reason, at most (none since event sub-processes run). */
const UNNAMED_CEILING = 0;

const ROOT = join(import.meta.dirname, '..', 'fixtures', 'bpmn');
const REPORT = join(import.meta.dirname, '..', '..', 'test-results', 'bpmn-corpus.json');
/** Task completions (and timer rounds) per instance before it counts as not ending. */
const MAX_STEPS = 30;
const ADMIN = 'admin';

/** The open user tasks at a moment of the run. */
interface OpenExpectation {
  /** How many. */
  openTasks?: number;
  /** Their names, sorted. */
  taskNames?: string[];
  /** Their element ids, sorted. */
  taskKeys?: string[];
}

/** What the file's own test asserts; its open tasks (OpenExpectation) are those right after the start. */
interface Expectation extends OpenExpectation {
  /** The open tasks once the stand-in worker has completed the first external task. */
  afterExternal?: OpenExpectation;
  /** The instance ends within the start (and the connector and mail calls it made). */
  endsOnStart?: boolean;
  /** Completing every task (without variables) ends the instance. */
  endsAfterTasks?: boolean;
  /** The start itself is refused. */
  startFails?: boolean;
  /**
   * The messages and signals it waits for right after the start ("signal alert", "message
   * newInvoice"), sorted: the event subscriptions its own test counts.
   */
  awaits?: string[];
}

interface CorpusFile {
  file: string;
  engine: string;
  stratum: string;
  kinds: string[];
  test: string;
  deployWith?: string[];
  businessKey?: string;
  variables?: Record<string, unknown>;
  /**
   * The variables its own test completes a task with (or sets on it just before), by the task's
   * element id: one map per completion of that task, in order; a task without one, or completed
   * more often, is completed without variables.
   */
  completeWith?: Record<string, Record<string, unknown>[]>;
  /**
   * The variables its own test sets on the running instance from outside (setVariable,
   * evaluateConditionalEvents), one map per call in order: each is set over
   * processinstance/variables when the instance waits with no task open, no timer due and no
   * awaited message or signal.
   */
  setsVariables?: Record<string, unknown>[];
  expect?: Expectation;
}

interface Problem {
  field: string;
  message: string;
}

interface Result {
  file: string;
  engine: string;
  stratum: string;
  deploy: 'deployed' | 'refused';
  /** Deployed only with codeAsExternalTasks: refused as it is (problems holds why). */
  codeAsExternal: boolean;
  problems: Problem[];
  run?: 'ended' | 'startRefused' | 'incident' | 'stuck' | 'taskRefused' | 'variablesRefused' | 'stepLimit';
  runReason?: string;
  reassigned: number;
  completed: number;
  timerRounds: number;
  /** Messages and signals sent to it (what it waited for, with no task open and no timer due). */
  eventsSent: number;
  /** External tasks a stand-in worker completed (without variables) when nothing else was open. */
  externalDone: number;
  /** Calls of processinstance/variables made (setsVariables). */
  variablesSet: number;
  expected: 'matched' | 'mismatched' | 'none';
  mismatches: string[];
}

const corpus = (JSON.parse(readFileSync(join(ROOT, 'corpus.json'), 'utf8')) as { files: CorpusFile[] }).files;
const xmlOf = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

let t: TestApp;
/** Every answer of 500 or more the run met (method, path, status, body). */
const serverErrors: string[] = [];
const results: Result[] = [];
let clockOffset = 0;

/** The admin's header, answers in English (the refusal reasons are grouped by their text). */
function englishAdmin(): { authorization: string } {
  const headers = { ...t.auth, 'accept-language': 'en' };
  return headers;
}

async function send(
  method: 'GET' | 'POST',
  path: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  const response = await call(t, englishAdmin(), method, path, payload);
  if (response.statusCode >= 500)
    serverErrors.push(`${method} ${path} ${response.statusCode} ${response.body}`);
  return response;
}

function problemsOf(response: LightMyRequestResponse): Problem[] {
  const body = response.json() as { message?: string; errors?: Problem[] };
  const problems = body.errors ?? [];
  return problems.length > 0 ? problems : [{ field: '', message: body.message ?? '' }];
}

interface OpenTask {
  id: number;
  name: string | null;
  assignee: string | null;
  taskDefinitionKey: string;
}

async function openTasksOf(instanceId: number): Promise<OpenTask[]> {
  const response = await send(
    'GET',
    `task/query?rootProcessInstanceId=${instanceId}&finished=false&pageSize=1000`,
  );
  return (response.json() as { data: { records: OpenTask[] } }).data.records;
}

interface InstanceState {
  ended: boolean;
  status: string;
  incident: { activityId: string; message: string } | null;
}

async function instanceOf(instanceId: number): Promise<InstanceState> {
  const response = await send('GET', `processinstance/query?processInstanceId=${instanceId}`);
  const [row] = (response.json() as { data: { records: InstanceState[] } }).data.records;
  if (!row) throw new Error(`instance ${instanceId} is not listed`);
  return row;
}

interface Waiting {
  id: number;
  waitsFor: { kind: 'message' | 'signal'; name: string; activityId: string }[];
}

/** The messages and signals the instance's tokens wait for, in the order of its executions. */
async function waitsOf(instanceId: number): Promise<Waiting['waitsFor']> {
  const response = await send('GET', `processinstance/executions?id=${instanceId}`);
  return (response.json() as { data: Waiting[] }).data.flatMap((execution) => execution.waitsFor);
}

/** The same as "<kind> <name>", sorted. */
async function awaitedEvents(instanceId: number): Promise<string[]> {
  return (await waitsOf(instanceId)).map((wait) => `${wait.kind} ${wait.name}`).sort();
}

/**
 * Sends the first message or signal a token of the instance waits for, as the file's own test
 * correlates one (runtimeService.correlateMessage, signalEventReceived); answers whether one went.
 */
async function sendAwaitedEvent(instanceId: number): Promise<boolean> {
  const [wait] = await waitsOf(instanceId);
  if (!wait) return false;
  const sent =
    wait.kind === 'message'
      ? await send('POST', 'processinstance/message', {
          messageName: wait.name,
          processInstanceId: instanceId,
          all: true,
        })
      : await send('POST', 'processinstance/signal', { signalName: wait.name });
  return sent.statusCode === 200;
}

interface OpenExternal {
  id: number;
  topicName: string;
  activityId: string;
}

/**
 * A stand-in worker: fetches and locks the instance's first open external task (by its topic) and
 * completes it without variables; answers the task it completed.
 */
async function completeExternal(instanceId: number): Promise<OpenExternal | undefined> {
  const listed = await send('GET', `externalTask/query?processInstanceId=${instanceId}&pageSize=1`);
  const [open] = (listed.json() as { data: { records: OpenExternal[] } }).data.records;
  if (!open) return undefined;
  const fetched = await send('POST', 'externalTask/fetchAndLock', {
    workerId: 'corpus',
    maxTasks: 1,
    topics: [{ topicName: open.topicName, lockDuration: 60_000 }],
  });
  const [task] = (fetched.json() as { data: OpenExternal[] }).data;
  if (!task) return undefined;
  const completed = await send('POST', 'externalTask/complete', { id: task.id, workerId: 'corpus' });
  return completed.statusCode === 200 ? task : undefined;
}

/**
 * For a file deployed with codeAsExternalTasks: completes external tasks while no user task is
 * open (the code its own engine runs within the start), at most MAX_STEPS; answers how many.
 */
async function completeCodeOfStart(instanceId: number): Promise<number> {
  let done = 0;
  while (done < MAX_STEPS && (await openTasksOf(instanceId)).length === 0) {
    if (!(await completeExternal(instanceId))) break;
    await runDueCalls(t.app.ctx);
    done += 1;
  }
  return done;
}

/** Fires the timers that wait, by moving the engine's clock a year on; answers how many ran. */
async function fireTimers(): Promise<number> {
  clockOffset += 366 * 24 * 3_600_000;
  const offset = clockOffset;
  setWorkflowClock(t.app.ctx, () => new Date(Date.now() + offset));
  return runDueJobs(t.app.ctx);
}

const sorted = (values: (string | null)[]): string[] => values.map((value) => value ?? '').sort();

/**
 * Runs one file. As it is (`asRefused` undefined); or, in the second pass, a file refused as it
 * is (its refusal given) with codeAsExternalTasks, the files it calls too when they need it.
 */
async function runOne(entry: CorpusFile, asRefused?: Result): Promise<Result> {
  const result: Result = {
    file: entry.file,
    engine: entry.engine,
    stratum: entry.stratum,
    deploy: 'refused',
    codeAsExternal: false,
    problems: [],
    reassigned: 0,
    completed: 0,
    timerRounds: 0,
    eventsSent: 0,
    externalDone: 0,
    variablesSet: 0,
    expected: 'none',
    mismatches: [],
  };
  const expectation = entry.expect ?? {};
  const check = (what: string, holds: boolean): void => {
    if (!holds) result.mismatches.push(what);
  };
  const withOption = async (file: string): Promise<LightMyRequestResponse> =>
    send('POST', 'deployment/deployXml', { xml: xmlOf(file), codeAsExternalTasks: true });
  for (const other of entry.deployWith ?? []) {
    const unchanged = await send('POST', 'deployment/deployXml', { xml: xmlOf(other) });
    if (unchanged.statusCode !== 200 && asRefused) await withOption(other);
  }
  const deployed = asRefused
    ? await withOption(entry.file)
    : await send('POST', 'deployment/deployXml', { xml: xmlOf(entry.file) });
  if (deployed.statusCode !== 200) {
    result.problems = asRefused?.problems ?? problemsOf(deployed);
    return finish(result, entry);
  }
  result.deploy = 'deployed';
  result.codeAsExternal = asRefused !== undefined;
  const { key } = (deployed.json() as { data: { key: string } }).data;
  const started = await send('POST', 'processinstance/start', {
    processDefinitionKey: key,
    description: `corpus: ${entry.test}`,
    ...(entry.businessKey ? { businessKey: entry.businessKey } : {}),
    variables: entry.variables ?? {},
  });
  if (started.statusCode !== 200) {
    result.run = 'startRefused';
    result.runReason = problemsOf(started)
      .map((problem) => problem.message)
      .join('; ');
    if (expectation.startFails !== undefined) check('start refused', expectation.startFails);
    return finish(result, entry);
  }
  if (expectation.startFails) check('start refused', false);
  const instanceId = (started.json() as { data: { id: number } }).data.id;
  // The connector and mail calls the start made run after it committed, at once: with the start.
  await runDueCalls(t.app.ctx);
  // Code its own engine runs within the start runs in the worker here: the stand-in worker
  // completes the external tasks the start reached before the instance waits for anything else.
  if (result.codeAsExternal) result.externalDone += await completeCodeOfStart(instanceId);
  const first = await openTasksOf(instanceId);
  const afterStart = await instanceOf(instanceId);
  checkOpen(check, 'after the start', first, expectation);
  if (expectation.endsOnStart) check('ends within the start', afterStart.ended);
  if (expectation.awaits) {
    const awaited = await awaitedEvents(instanceId);
    check(
      `waits for ${expectation.awaits.join(', ')} after the start (found ${awaited.join(', ')})`,
      JSON.stringify(awaited) === JSON.stringify(expectation.awaits),
    );
  }
  const settings = [...(entry.setsVariables ?? [])];
  const completions = new Map(
    Object.entries(entry.completeWith ?? {}).map(([taskKey, maps]) => [taskKey, [...maps]]),
  );
  let steps = 0;
  for (;;) {
    const state = steps === 0 ? afterStart : await instanceOf(instanceId);
    if (state.ended) {
      result.run = 'ended';
      break;
    }
    if (state.incident) {
      result.run = 'incident';
      result.runReason = `${state.incident.activityId}: ${state.incident.message}`;
      break;
    }
    if (steps >= MAX_STEPS) {
      result.run = 'stepLimit';
      break;
    }
    steps += 1;
    const [task] = steps === 1 ? first : await openTasksOf(instanceId);
    if (!task) {
      result.timerRounds += 1;
      if ((await fireTimers()) > 0) continue;
      if (await sendAwaitedEvent(instanceId)) {
        result.eventsSent += 1;
        continue;
      }
      const external = await completeExternal(instanceId);
      if (external) {
        await runDueCalls(t.app.ctx);
        result.externalDone += 1;
        if (result.externalDone === 1 && expectation.afterExternal)
          checkOpen(
            check,
            'after the external task',
            await openTasksOf(instanceId),
            expectation.afterExternal,
          );
        continue;
      }
      const variables = settings.shift();
      if (variables) {
        const set = await send('POST', 'processinstance/variables', { id: instanceId, variables });
        if (set.statusCode !== 200) {
          result.run = 'variablesRefused';
          result.runReason = `set ${Object.keys(variables).join(', ')}: ${problemsOf(set)
            .map((problem) => problem.message)
            .join('; ')}`;
          break;
        }
        result.variablesSet += 1;
        continue;
      }
      result.run = 'stuck';
      result.runReason = 'running with no open task, no due timer and no awaited message or signal';
      break;
    }
    if (task.assignee !== ADMIN) {
      const assigned = await send('POST', 'task/assignTask', {
        id: task.id,
        username: ADMIN,
        comment: 'corpus',
      });
      if (assigned.statusCode !== 200) {
        result.run = 'taskRefused';
        result.runReason = `assign ${task.taskDefinitionKey}: ${problemsOf(assigned)[0]?.message ?? ''}`;
        break;
      }
      result.reassigned += 1;
    }
    const variables = completions.get(task.taskDefinitionKey)?.shift();
    const completed = await send('POST', 'task/completeTask', {
      id: task.id,
      comment: 'corpus',
      ...(variables ? { variables } : {}),
    });
    await runDueCalls(t.app.ctx);
    if (completed.statusCode !== 200) {
      result.run = 'taskRefused';
      result.runReason = `complete ${task.taskDefinitionKey}: ${problemsOf(completed)
        .map((problem) => problem.message)
        .join('; ')}`;
      break;
    }
    result.completed += 1;
  }
  if (expectation.endsAfterTasks) check('ends once its tasks are completed', result.run === 'ended');
  // a run that ended used every completion its own test makes
  if (result.run === 'ended') {
    for (const [taskKey, left] of completions)
      if (left.length > 0) check(`completes ${taskKey} with ${JSON.stringify(left[0])}`, false);
    if (settings.length > 0) check(`sets ${JSON.stringify(settings[0])}`, false);
  }
  return finish(result, entry);
}

/** Checks the open tasks at a moment (`when`) against what the file's own test expects then. */
function checkOpen(
  check: (what: string, holds: boolean) => void,
  when: string,
  open: OpenTask[],
  expected: OpenExpectation,
): void {
  if (expected.openTasks !== undefined)
    check(
      `${expected.openTasks} open tasks ${when} (found ${open.length})`,
      open.length === expected.openTasks,
    );
  const names = sorted(open.map((task) => task.name));
  if (expected.taskNames)
    check(
      `tasks named ${expected.taskNames.join(', ')} ${when} (found ${names.join(', ')})`,
      JSON.stringify(names) === JSON.stringify(expected.taskNames),
    );
  const keys = sorted(open.map((task) => task.taskDefinitionKey));
  if (expected.taskKeys)
    check(
      `tasks ${expected.taskKeys.join(', ')} ${when} (found ${keys.join(', ')})`,
      JSON.stringify(keys) === JSON.stringify(expected.taskKeys),
    );
}

function finish(result: Result, entry: CorpusFile): Result {
  const expectation = entry.expect;
  if (expectation && Object.keys(expectation).length > 0) {
    if (result.deploy === 'refused') result.mismatches.push('refused');
    result.expected = result.mismatches.length === 0 ? 'matched' : 'mismatched';
  }
  return result;
}

/** Generic texts that name no element and no reason. */
const GENERIC = /^(bad request|invalid|validation failed|the request is invalid|error)\.?$/i;

/**
 * A problem names its element (the field is an element id the message repeats) or its reason (a
 * sentence that does not begin with an empty interpolation: " has no outgoing…", ": X is not…").
 */
function namesSomething(problem: Problem): boolean {
  const message = problem.message;
  if (message.trim() === '' || GENERIC.test(message.trim())) return false;
  if (problem.field !== '' && problem.field !== 'xml' && message.includes(problem.field)) return true;
  return message === message.trimStart() && /^[\p{L}\p{N}"'«(]/u.test(message);
}

/** A refusal's message with its element id, quoted names and numbers taken out: its reason. */
function reasonOf(problem: Problem): string {
  let message = problem.message;
  const { field } = problem;
  if (field) {
    // The element id where the message puts it: at the start, else its last whole-word occurrence
    // ("Service task task calls…").
    const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const at = message.startsWith(field)
      ? 0
      : [...message.matchAll(new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'g'))].pop()?.index;
    if (at !== undefined) message = `${message.slice(0, at)}‹id›${message.slice(at + field.length)}`;
  }
  return message
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\([^)]*\)$/, '(…)')
    .replace(/\b\d+\b/g, 'N');
}

interface Summary {
  files: number;
  deployed: number;
  refused: number;
  started: number;
  /** Files that ended without a stand-in for their Java code. */
  ranToEnd: number;
  /** Files that ended only because a stand-in worker completed their Java code's external tasks. */
  /** Files whose run had external tasks completed by the stand-in worker. */
  withExternalWorker: number;
  withExpectation: number;
  matched: number;
  /** Files that ran to the end and matched what their own test expects. */
  endedAndMatched: number;
  reassigned: number;
  /** Refused files with a problem that names no element and no reason. */
  unnamedRefusals: number;
  refusalReasons: { reason: string; files: number }[];
  /** Files refused for one reason only: what supporting that one thing would let deploy. */
  soleReasons: { reason: string; files: number }[];
  runEnds: { run: string; files: number }[];
  byStratum: { stratum: string; files: number; deployed: number; ranToEnd: number }[];
  byEngine: { engine: string; files: number; deployed: number; ranToEnd: number }[];
}

function countBy<T>(items: T[], keyOf: (item: T) => string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items)
    for (const key of new Set(keyOf(item))) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

function summarise(all: Result[]): Summary {
  const deployed = all.filter((result) => result.deploy === 'deployed');
  const byGroup = (group: (result: Result) => string) =>
    [...countBy(all, (result) => [group(result)])].map(([name, files]) => {
      const mine = all.filter((result) => group(result) === name);
      return {
        name,
        files,
        deployed: mine.filter((result) => result.deploy === 'deployed').length,
        ranToEnd: mine.filter((result) => result.run === 'ended').length,
      };
    });
  return {
    files: all.length,
    deployed: deployed.length,
    refused: all.length - deployed.length,
    started: deployed.filter((result) => result.run !== 'startRefused').length,
    ranToEnd: all.filter((result) => result.run === 'ended').length,
    withExternalWorker: all.filter((result) => result.externalDone > 0).length,
    withExpectation: all.filter((result) => result.expected !== 'none').length,
    matched: all.filter((result) => result.expected === 'matched').length,
    endedAndMatched: all.filter((result) => result.run === 'ended' && result.expected === 'matched').length,
    reassigned: all.filter((result) => result.reassigned > 0).length,
    unnamedRefusals: all.filter(
      (result) => result.deploy === 'refused' && result.problems.some((problem) => !namesSomething(problem)),
    ).length,
    refusalReasons: [
      ...countBy(
        all.filter((result) => result.deploy === 'refused'),
        (result) => result.problems.map(reasonOf),
      ),
    ]
      .map(([reason, files]) => ({ reason, files }))
      .sort((a, b) => b.files - a.files || a.reason.localeCompare(b.reason)),
    soleReasons: [
      ...countBy(
        all.filter(
          (result) => result.deploy === 'refused' && new Set(result.problems.map(reasonOf)).size === 1,
        ),
        (result) => result.problems.map(reasonOf),
      ),
    ]
      .map(([reason, files]) => ({ reason, files }))
      .sort((a, b) => b.files - a.files || a.reason.localeCompare(b.reason)),
    runEnds: [
      ...countBy(deployed, (result) => [
        `${result.run ?? '?'}${result.runReason ? `: ${result.runReason.replace(/\b\d+\b/g, 'N')}` : ''}`,
      ]),
    ]
      .map(([run, files]) => ({ run, files }))
      .sort((a, b) => b.files - a.files || a.run.localeCompare(b.run)),
    byStratum: byGroup((result) => result.stratum).map(({ name, ...rest }) => ({ stratum: name, ...rest })),
    byEngine: byGroup((result) => result.engine).map(({ name, ...rest }) => ({ engine: name, ...rest })),
  };
}

const percent = (part: number, whole: number): string =>
  whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)} %`;

function table(summary: Summary, withOption: Summary): string {
  const converted = withOption.deployed - summary.deployed;
  const lines = [
    `BPMN corpus: ${summary.files} files`,
    `  deployed            ${String(summary.deployed).padStart(4)}  ${percent(summary.deployed, summary.files)}`,
    `  refused             ${String(summary.refused).padStart(4)}  ${percent(summary.refused, summary.files)}`,
    `  started             ${String(summary.started).padStart(4)}  ${percent(summary.started, summary.files)}`,
    `  ran to the end      ${String(summary.ranToEnd).padStart(4)}  ${percent(summary.ranToEnd, summary.files)}`,
    `    of which needed a task reassigned to the admin: ${summary.reassigned}`,
    `    had external tasks completed by a stand-in worker: ${summary.withExternalWorker}`,
    `  matched expected    ${String(summary.matched).padStart(4)}  of ${summary.withExpectation} with an expectation (${percent(summary.matched, summary.withExpectation)}); ${percent(summary.matched, summary.files)} of all`,
    `    and ran to the end ${String(summary.endedAndMatched).padStart(4)}  ${percent(summary.endedAndMatched, summary.files)}`,
    `  refusals naming no element and no reason: ${summary.unnamedRefusals}`,
    '',
    `With codeAsExternalTasks for the files refused as they are (a second pass on a database of its own; ${converted} more deploy):`,
    `  deployed            ${String(withOption.deployed).padStart(4)}  ${percent(withOption.deployed, withOption.files)}`,
    `  ran to the end      ${String(withOption.ranToEnd).padStart(4)}  ${percent(withOption.ranToEnd, withOption.files)}`,
    `    had external tasks completed by a stand-in worker: ${withOption.withExternalWorker}`,
    `  matched expected    ${String(withOption.matched).padStart(4)}  of ${withOption.withExpectation} with an expectation (${percent(withOption.matched, withOption.withExpectation)}); ${percent(withOption.matched, withOption.files)} of all`,
    `    and ran to the end ${String(withOption.endedAndMatched).padStart(4)}  ${percent(withOption.endedAndMatched, withOption.files)}`,
    '',
    'Refusal reasons (files):',
    ...summary.refusalReasons.map(({ reason, files }) => `  ${String(files).padStart(4)}  ${reason}`),
    '',
    'Files refused for that reason alone:',
    ...summary.soleReasons.map(({ reason, files }) => `  ${String(files).padStart(4)}  ${reason}`),
    '',
    'How deployed files ran (files):',
    ...summary.runEnds.map(({ run, files }) => `  ${String(files).padStart(4)}  ${run}`),
    '',
    'By stratum: files / deployed / ran to the end',
    ...summary.byStratum.map(
      ({ stratum, files, deployed, ranToEnd }) =>
        `  ${stratum.padEnd(18)} ${String(files).padStart(4)} ${String(deployed).padStart(4)} ${String(ranToEnd).padStart(4)}`,
    ),
    'By engine: files / deployed / ran to the end',
    ...summary.byEngine.map(
      ({ engine, files, deployed, ranToEnd }) =>
        `  ${engine.padEnd(18)} ${String(files).padStart(4)} ${String(deployed).padStart(4)} ${String(ranToEnd).padStart(4)}`,
    ),
  ];
  return lines.join('\n');
}

beforeAll(async () => {
  t = await startTestApp();
}, 300_000);
afterAll(async () => {
  if (t) setWorkflowClock(t.app.ctx, undefined);
  await t?.close();
});

describe('the BPMN corpus of the three engines', () => {
  it('holds at least 150 process files, each named in SOURCES.md', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(150);
    const sources = readFileSync(join(ROOT, 'SOURCES.md'), 'utf8');
    for (const entry of corpus) expect(sources, entry.file).toContain(entry.file);
  });

  it('deploys, starts and drives every file; prints the table and writes the report', async () => {
    for (const entry of corpus) results.push(await runOne(entry));
    // The second pass, on a database of its own so that no process deployed with the option is
    // seen by the first, in the same order: the files the first deployed are deployed again (not
    // run), each file refused as it is is run with codeAsExternalTasks.
    const asTheyAre = [...results];
    setWorkflowClock(t.app.ctx, undefined);
    await t.close();
    t = await startTestApp();
    for (const [index, result] of asTheyAre.entries()) {
      const entry = corpus[index];
      if (!entry) continue;
      if (result.deploy === 'deployed') {
        for (const file of [...(entry.deployWith ?? []), entry.file])
          await send('POST', 'deployment/deployXml', { xml: xmlOf(file) });
        continue;
      }
      const again = await runOne(entry, result);
      if (again.deploy === 'deployed') results[index] = again;
    }
    const summary = summarise(asTheyAre);
    const withOption = summarise(results);
    mkdirSync(join(REPORT, '..'), { recursive: true });
    writeFileSync(
      REPORT,
      `${JSON.stringify({ summary, withOption, table: table(summary, withOption).split('\n'), results }, null, 1)}\n`,
    );
    console.log(table(summary, withOption));
    expect(serverErrors, 'no answer of 500 or more').toEqual([]);
    // Every refusal names the element or the reason: no empty message, no generic one.
    const unnamed = results.filter(
      (result) => result.deploy === 'refused' && result.problems.some((problem) => !namesSomething(problem)),
    );
    expect(
      unnamed.length,
      `refusals naming nothing: ${unnamed
        .map(
          (result) =>
            `${result.file}: ${result.problems.map((problem) => JSON.stringify(problem.message)).join(', ')}`,
        )
        .join('; ')}`,
    ).toBeLessThanOrEqual(UNNAMED_CEILING);
    // the variables a task is completed with name a user task of the file
    for (const entry of corpus)
      for (const taskKey of Object.keys(entry.completeWith ?? {}))
        expect(xmlOf(entry.file), `${entry.file}: completeWith ${taskKey}`).toMatch(
          new RegExp(`<(?:\\w+:)?userTask\\b[^>]*\\bid="${taskKey.replace(/[^\w-]/g, '\\$&')}"`),
        );
    for (const result of results.filter((item) => item.runReason !== undefined))
      expect(result.runReason?.trim(), result.file).not.toBe('');
    expect(summary.deployed, 'deployed files (floor)').toBeGreaterThanOrEqual(FLOOR.deployed);
    expect(summary.ranToEnd, 'files that ran to the end (floor)').toBeGreaterThanOrEqual(FLOOR.ranToEnd);
    expect(summary.matched, 'files with their expected outcome (floor)').toBeGreaterThanOrEqual(
      FLOOR.matched,
    );
    expect(
      summary.endedAndMatched,
      'ran to the end with their expected outcome (floor)',
    ).toBeGreaterThanOrEqual(FLOOR.endedAndMatched);
    expect(withOption.deployed, 'deployed with codeAsExternalTasks (floor)').toBeGreaterThanOrEqual(
      FLOOR_WITH_OPTION.deployed,
    );
    expect(withOption.ranToEnd, 'ran to the end with codeAsExternalTasks (floor)').toBeGreaterThanOrEqual(
      FLOOR_WITH_OPTION.ranToEnd,
    );
    expect(withOption.matched, 'matched with codeAsExternalTasks (floor)').toBeGreaterThanOrEqual(
      FLOOR_WITH_OPTION.matched,
    );
    expect(
      withOption.endedAndMatched,
      'ran to the end with their expected outcome, with codeAsExternalTasks (floor)',
    ).toBeGreaterThanOrEqual(FLOOR_WITH_OPTION.endedAndMatched);
  }, 600_000);
});
