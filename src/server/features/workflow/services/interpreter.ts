import { AppError } from '../../../lib/errors.js';
import { evaluateCondition, ExpressionError, interpolate } from './expressions.js';
import { eventStartOf, eventWaitsAt, hasEventWaits, instanceWaits, type ProcessNode } from './graph.js';
import {
  createTask,
  draftTask,
  noteTask,
  setVariables,
  type Run,
  type Step,
  type Thrown,
  type ThrowOutcome,
} from './activity.js';
import type { Incident, TaskClosing, TaskClosed, VariablesSet } from './instance-store.js';
import type { TaskDraft } from './task-store.js';
import { countStep, saveSteps, StepBudgetPassed, unsavedSteps } from './budget.js';
import { workflowNow } from './clock.js';
import type { ConnectorAnswer } from './connector.js';
import { compensationStep, handlerEnded, isCompensationStep, noteCompleted } from './compensation.js';
import { crossInstance } from './cross-instance.js';
import { instanceEnded } from './lifecycle.js';
import { localsIn, passLoop, scopedVariables, startLoop, tokenToLeave } from './multi-instance.js';
import { waitForWork, waitsForWork } from './outside-work.js';
import { answerVariables } from './service-calls.js';
import { groupKey } from './people.js';
import { oversizedVariable, VARIABLE_LIMIT_KB } from './store.js';
import type { Timer } from './store.js';
import { firstDue, repeatingCycle } from './elements/timers.js';
import { chooseFlows, joined, releasableJoins } from './elements/gateways.js';
import { skipOf } from './elements/skip.js';
import { calledKey, variablesIn, variablesOut } from './elements/call-activity.js';
import { handlerAt, handlerInScopes, interrupts, type Handler } from './elements/errors.js';
import { asList } from './elements/user-task.js';

/**
 * The token interpreter. An instance's state is what its stores keep (activity.ts Run: tokens,
 * waits, history, tasks, the instance, compensations): in the engine, rows read and written in
 * the caller's transaction after the caller has locked the instance row, so two operations on
 * one instance never interleave; nothing is kept in memory between calls. The interpreter
 * decides, the element modules (elements/) decide what each kind of element means, the stores
 * keep: no SQL here.
 */

async function newExecution(run: Run, nodeId: string, parentId: number | null): Promise<Step> {
  return { executionId: await run.tokens.add(nodeId, parentId), nodeId, parentId, isFresh: true };
}

/** The parent of a token inside a sub-process (a top-level node's token has none: no query). */
export async function parentOf({
  run,
  executionId,
  node,
}: {
  run: Run;
  executionId: number;
  node: ProcessNode | undefined;
}): Promise<number | null> {
  if (node?.scope === undefined) return null;
  return run.tokens.parentOf(executionId);
}

/**
 * The task a token goes straight to, or none when its people or name cannot be evaluated: the
 * token then takes the general way (advance), where that is an incident.
 */
function draftOrNone(run: Run, node: ProcessNode): TaskDraft | undefined {
  try {
    return draftTask(run, node);
  } catch (error) {
    if (error instanceof ExpressionError) return undefined;
    throw error;
  }
}

/** A plain user task (no loop) a node leads straight to: its one flow, without a condition, in its own scope. */
function straightTask(run: Run, node: ProcessNode): ProcessNode | undefined {
  if (node.outgoing.length !== 1) return undefined;
  const flow = run.graph.flows[node.outgoing[0] ?? ''];
  const target = flow ? run.graph.nodes[flow.target] : undefined;
  if (!flow || flow.condition !== undefined || !target) return undefined;
  return target.type === 'userTask' && !target.multi && target.scope === node.scope && !target.skipExpression
    ? target
    : undefined;
}

/**
 * The first token of a new instance, passed through the start event with the start's variables
 * (one write of the store). When the start event leads straight to a plain user task, the token
 * goes on to that task and the task is made in the same write.
 */
export async function startTokens({
  run,
  startId = run.graph.startId,
  variables,
}: {
  run: Run;
  startId?: string | undefined;
  variables: VariablesSet;
}): Promise<void> {
  const start = run.graph.nodes[startId];
  if (!start) throw new Error(`no start event ${startId}`);
  const straight = straightTask(run, start);
  const draft = straight && draftOrNone(run, straight);
  const begun = await run.instance.begin({ start, variables, task: draft });
  if (straight && draft && begun.taskId !== undefined) {
    noteTask(run, begun.taskId, draft);
    await scheduleBoundaries(run, begun.executionId, straight);
    await awaitInstanceEvents(run);
    return;
  }
  const step: Step = { executionId: begun.executionId, nodeId: start.id, parentId: null, isFresh: true };
  await awaitInstanceEvents(run);
  const queue: Step[] = [];
  await goOn(run, step, start, queue);
  await advance(run, queue);
}

/**
 * The event sub-processes of the process itself wait from the start for as long as the instance
 * runs: a subscription per message and signal start, a job per timer start (no token: the
 * instance is their scope).
 */
async function awaitInstanceEvents(run: Run): Promise<void> {
  const ids = run.graph.eventSubProcesses;
  if (!ids) return;
  await run.waits.subscribe(null, '', instanceWaits(run.graph));
  const now = workflowNow(run.ctx);
  await run.waits.addTimers(
    ids.flatMap((id) => {
      const start = eventStartOf(run.graph, id);
      const due = start?.timer ? firstDue(start.timer, now) : undefined;
      return start && due ? [timerJob(null, start, due)] : [];
    }),
  );
}

/**
 * The start event of an event sub-process fired (a message, signal or timer) in its scope: the
 * sub-process's token (scopeId), or the instance itself (null). Interrupting: everything else in
 * the scope ends (its tokens, tasks, timers, and the other event sub-processes' waits), and the
 * event sub-process runs in its place. Non-interrupting: it runs beside the rest.
 */
export async function fireEventSubProcess({
  run,
  scopeId,
  start,
}: {
  run: Run;
  scopeId: number | null;
  start: ProcessNode;
}): Promise<void> {
  const eventSubProcess = run.graph.nodes[start.scope ?? ''];
  if (!eventSubProcess?.isEventSubProcess) throw new Error(`${start.id} starts no event sub-process`);
  if (!start.isNonInterrupting) {
    const reason = 'eventSubProcess';
    if (scopeId !== null) {
      await run.instance.clearScope(scopeId, reason);
      const scope = run.graph.nodes[eventSubProcess.scope ?? ''];
      const starts = (scope?.eventSubProcesses ?? []).map((id) => run.graph.nodes[id]?.startId ?? '');
      await run.waits.dropWaitsAt(scopeId, starts);
    } else await run.instance.clear(reason);
    if (hasCallActivity(run)) await crossInstance().endOrphanedCalls(run);
  }
  const token = await newExecution(run, eventSubProcess.id, scopeId);
  await advance(run, [token]);
}

/**
 * The messages and signals a token now waiting at a node waits for (its catch, receive task,
 * boundary events or event-based gateway): a subscription row each, found by name.
 */
async function subscribe(run: Run, executionId: number, node: ProcessNode): Promise<void> {
  await run.waits.subscribe(executionId, node.id, eventWaitsAt(run.graph, node.id));
}

/** A token left the node it waited at: its subscriptions go. */
async function unsubscribe(run: Run, executionId: number): Promise<void> {
  if (!hasEventWaits(run.graph)) return;
  await run.waits.unsubscribe(executionId);
}

/**
 * The boundary events of an activity that a token now waits at: a job per timer, due after its
 * duration, and a subscription per message and signal.
 */
async function scheduleBoundaries(run: Run, executionId: number, node: ProcessNode): Promise<void> {
  if (node.boundaries || node.eventSubProcesses) await subscribe(run, executionId, node);
  const now = workflowNow(run.ctx);
  // The timers of its boundary events and of the starts of the event sub-processes inside it.
  const starts = (node.eventSubProcesses ?? []).map((id) => run.graph.nodes[id]?.startId ?? '');
  await run.waits.addTimers(
    [...(node.boundaries ?? []), ...starts].flatMap((id) => {
      const timed = run.graph.nodes[id];
      const due = timed?.timer ? firstDue(timed.timer, now) : undefined;
      return timed && due ? [timerJob(executionId, timed, due)] : [];
    }),
  );
}

/** The timer of a timed node, due at `dueAt`. */
const timerJob = (executionId: number | null, node: ProcessNode, dueAt: Date): Timer => ({
  executionId,
  activityId: node.id,
  dueAt,
  cycle: repeatingCycle(node),
});

/** A token left a user task: its boundary timers are off. */
async function dropBoundaries(run: Run, executionId: number, node: ProcessNode): Promise<void> {
  if (!node.boundaries && !node.eventSubProcesses) return;
  await run.waits.dropJobs(executionId, ['boundaryTimer']);
  await unsubscribe(run, executionId);
}

/**
 * A boundary event fired on the token waiting at its activity or sub-process. Interrupting: the
 * activity is canceled (its task, every open task of a multi-instance loop, every token and timer
 * inside a sub-process), and the token leaves along the boundary event. Non-interrupting: a new
 * token leaves along the boundary event, the activity goes on.
 */
export async function fireBoundary({
  run,
  execution,
  boundary,
}: {
  run: Run;
  execution: { id: number; parent_id: number | null };
  boundary: ProcessNode;
}): Promise<void> {
  if (boundary.isNonInterrupting) {
    const step = await newExecution(run, boundary.id, execution.parent_id);
    await advance(run, [step]);
    return;
  }
  const reason = boundaryReason(boundary);
  await run.instance.clearScope(execution.id, reason);
  await run.tasks.cancelAt(execution.id, reason);
  await run.tokens.activateOutOfLoop(execution.id);
  // Its timers go, and a call its activity waited for (the answer would find the token gone).
  await run.waits.dropJobs(execution.id, ['boundaryTimer', 'serviceCall']);
  await unsubscribe(run, execution.id);
  if (hasCallActivity(run)) {
    // The process a call activity started ends when a boundary event interrupts it.
    await run.tokens.moveTo(execution.id, boundary.id);
    await crossInstance().endOrphanedCalls(run);
  }
  await advance(run, [{ executionId: execution.id, nodeId: boundary.id, parentId: execution.parent_id }]);
}

/** Why a boundary event ended its activity: the end reason of the task and history rows. */
function boundaryReason(boundary: ProcessNode): string {
  if (boundary.errorCode !== undefined) return 'boundaryError';
  if (boundary.escalationCode !== undefined) return 'boundaryEscalation';
  if (boundary.signalName !== undefined) return 'boundarySignal';
  if (boundary.messageName !== undefined) return 'boundaryMessage';
  if (boundary.condition !== undefined) return 'boundaryConditional';
  return 'boundaryTimer';
}

/** Fires a handler: its boundary event on its activity, or its event sub-process in its scope. */
async function fireHandler(run: Run, handler: Handler): Promise<void> {
  if ('boundary' in handler)
    await fireBoundary({ run, execution: handler.execution, boundary: handler.boundary });
  else await fireEventSubProcess({ run, scopeId: handler.scopeId, start: handler.start });
}

/**
 * An error or escalation reached the token waiting at a call activity from the process it called
 * (events.ts throwToCaller): the call activity's boundary events catch it first, then its scopes;
 * caught by none here, it goes on to this instance's own caller. Answers how it ended.
 */
export async function thrownByCalled({
  run,
  executionId,
  thrown,
}: {
  run: Run;
  executionId: number;
  thrown: Thrown;
}): Promise<ThrowOutcome> {
  const at = await run.tokens.waitingAt(executionId);
  const node = run.graph.nodes[at?.activityId ?? ''];
  if (!at || node?.type !== 'callActivity') return 'none';
  const execution = await loopTokenOf(run, { id: executionId, parent_id: at.parentId }, node);
  const handler = await handlerAt({ tokens: run.tokens, graph: run.graph, node, execution, thrown });
  if (!handler) return run.caller ? crossInstance().throwToCaller({ run, thrown }) : 'none';
  await fireHandler(run, handler);
  return interrupts(handler) ? 'interrupted' : 'beside';
}

/**
 * The token an activity's boundary events are on: for one item of a multi-instance activity (a
 * call, an external task), the loop's token; else the token itself.
 */
async function loopTokenOf(
  run: Run,
  execution: { id: number; parent_id: number | null },
  node: ProcessNode,
): Promise<{ id: number; parent_id: number | null }> {
  if (!node.multi || execution.parent_id === null) return execution;
  const loop = await run.tokens.at(execution.parent_id);
  return loop?.activityId === node.id ? { id: execution.parent_id, parent_id: loop.parentId } : execution;
}

/** A token waiting at a task, as a worker's call, a job or a service names it. */
export interface WaitingAt {
  run: Run;
  execution: { id: number; parent_id: number | null };
  node: ProcessNode;
}

/**
 * A BPMN error reported at the external task a token waits at (a worker's bpmnError, or a
 * camunda:errorEventDefinition of the task that held on completion): the task's error boundary
 * events catch it first, then its scopes, then this instance's caller. Answers whether it was
 * caught; caught by none, the caller leaves the task in an incident.
 */
export async function errorAtTask({
  run,
  execution,
  node,
  code,
}: WaitingAt & { code: string }): Promise<boolean> {
  const thrown: Thrown = { kind: 'error', code };
  const handler = await handlerAt({
    tokens: run.tokens,
    graph: run.graph,
    node,
    execution: await loopTokenOf(run, execution, node),
    thrown,
  });
  if (handler) {
    await fireHandler(run, handler);
    return true;
  }
  if (!run.caller) return false;
  const outcome = await crossInstance().throwToCaller({ run, thrown });
  if (outcome === 'interrupted') run.hasEnded = true;
  return isCaught(outcome);
}

/** Whether a handler caught the thrown event (interrupting or beside what threw it). */
const isCaught = (outcome: ThrowOutcome): boolean => outcome === 'interrupted' || outcome === 'beside';

/** The handler of an event a throw or end event throws: its scopes' (it has no boundary events). */
const handlerAround = (
  run: Run,
  step: Step,
  node: ProcessNode,
  thrown: Thrown,
): Promise<Handler | undefined> =>
  handlerInScopes({
    tokens: run.tokens,
    graph: run.graph,
    scopeId: node.scope,
    scopeExecution: step.parentId,
    thrown,
  });

/**
 * An error end event: the error goes up the scopes it is in to the nearest handler that catches
 * its code (an event sub-process's error start, an error boundary event of a sub-process), which
 * interrupts that scope; from a called process, on to the call activity. Answers whether it was
 * caught. Caught by none, the end event of a Camunda file ends its path as a none end does (false);
 * any other stops the token in an incident naming the end event.
 */
async function throwError(run: Run, step: Step, node: ProcessNode): Promise<boolean> {
  const thrown: Thrown = { kind: 'error', code: node.errorCode ?? '' };
  const handler = await handlerAround(run, step, node, thrown);
  if (handler) {
    await run.history.pass(step.executionId, node);
    await fireHandler(run, handler);
    return true;
  }
  const outcome = run.caller ? await throwsToCaller(run, step, node, thrown) : 'none';
  if (isCaught(outcome)) return true;
  // Only when nobody catches it: not when the caller could not hear it (in its own step).
  if (outcome === 'none' && node.endsWhenUncaught) return false;
  throw new ExpressionError(
    `the error ${node.errorCode ?? ''} thrown by ${node.name?.trim() || node.id} is caught by no boundary event`,
  );
}

/**
 * A throw nobody in a called instance catches goes to its caller. When a handler there
 * interrupts the call, this instance has been ended with it (events.ts endOrphanedCalls).
 */
async function throwsToCaller(
  run: Run,
  step: Step,
  node: ProcessNode,
  thrown: Thrown,
): Promise<ThrowOutcome> {
  const outcome = await crossInstance().throwToCaller({ run, thrown });
  if (outcome === 'interrupted') {
    await run.history.pass(step.executionId, node);
    run.hasEnded = true;
  }
  return outcome;
}

/**
 * An escalation thrown (intermediate throw or end event) goes up the scopes it is in to the
 * nearest handler that catches its code (an event sub-process's escalation start, an escalation
 * boundary event of a sub-process), and from a called process on to the call activity; that
 * handler fires (interrupting: the scope with the thrower ends; non-interrupting: a token leaves
 * beside it). Caught by none, it is passed. Answers whether the throwing token is still there.
 */
async function throwEscalation(run: Run, step: Step, node: ProcessNode): Promise<boolean> {
  const thrown: Thrown = { kind: 'escalation', code: node.escalationCode ?? '' };
  const handler = await handlerAround(run, step, node, thrown);
  if (!handler) {
    if (!run.caller) return true;
    return (await throwsToCaller(run, step, node, thrown)) !== 'interrupted';
  }
  if (interrupts(handler)) {
    await run.history.pass(step.executionId, node);
    await fireHandler(run, handler);
    return false;
  }
  await fireHandler(run, handler);
  return !run.hasEnded;
}

/**
 * A user task was done on a token: the task is closed (`closing`) and the token moves on along
 * the node's flows (for a multi-instance task, once its loop is over). A completion condition
 * that cannot be evaluated stops the loop's token with an incident. When the token just goes on
 * to a plain user task or a plain end event, the store writes that with the closing (one write).
 * Answers the closed task as the closing asked.
 */
export async function taskDone({
  run,
  executionId,
  nodeId,
  closing,
}: {
  run: Run;
  executionId: number;
  nodeId: string;
  closing: TaskClosing;
}): Promise<TaskClosed['answer']> {
  const node = run.graph.nodes[nodeId];
  if (!node) throw new Error(`no node ${nodeId}`);
  const isSimple =
    !node.multi && !node.boundaries && node.scope === undefined && node.compensationHandler === undefined;
  const straight = isSimple ? straightTask(run, node) : undefined;
  const draft = straight && draftOrNone(run, straight);
  if (straight && draft) {
    const closed = await run.instance.closeTask(closing, { to: 'task', executionId, draft });
    if (closed.nextTaskId !== undefined) noteTask(run, closed.nextTaskId, draft);
    await scheduleBoundaries(run, executionId, straight);
    await advance(run, await releasableJoins({ tokens: run.tokens, graph: run.graph }));
    return closed.answer;
  }
  const flow = isSimple && node.outgoing.length === 1 ? run.graph.flows[node.outgoing[0] ?? ''] : undefined;
  const target = flow ? run.graph.nodes[flow.target] : undefined;
  // (A signal, error or escalation end event throws first: the general way.)
  if (
    target?.type === 'endEvent' &&
    !target.isTerminate &&
    target.signalName === undefined &&
    target.errorCode === undefined &&
    target.escalationCode === undefined &&
    target.scope === undefined
  ) {
    // The token ends, and the instance with it when it was the last one.
    const closed = await run.instance.closeTask(closing, { to: 'end', executionId, node: target });
    if (closed.tokensLeft !== true) {
      run.hasEnded = true;
      await instanceEnded(run, 'over');
      if (run.caller) await crossInstance().resumeCaller(run);
    } else await advance(run, await releasableJoins({ tokens: run.tokens, graph: run.graph }));
    return closed.answer;
  }
  const closed = await run.instance.closeTask(closing, { to: 'stay' });
  await moveOn(run, executionId, node);
  return closed.answer;
}

/** The general way on after a task: the loop's token, the boundary timers off, then the flows. */
async function moveOn(run: Run, executionId: number, node: ProcessNode): Promise<void> {
  let leaving: number | null;
  try {
    leaving = node.multi ? await tokenToLeave({ run, executionId, node }) : executionId;
  } catch (error) {
    if (error instanceof StepBudgetPassed) {
      await halt(run, { executionId, nodeId: node.id, parentId: null }, [], error);
      return;
    }
    if (!(error instanceof ExpressionError)) throw error;
    await raiseIncident(
      run,
      { executionId, nodeId: node.id, parentId: null },
      { activityId: node.id, flowId: null, message: error.message },
    );
    return;
  }
  if (leaving === null) return;
  await dropBoundaries(run, leaving, node);
  const parentId = await parentOf({ run, executionId: leaving, node });
  await noteCompleted(run, { executionId: leaving, nodeId: node.id, parentId }, node);
  if (node.outgoing.length === 0) {
    const queue: Step[] = [];
    await implicitEnd(run, { executionId: leaving, nodeId: node.id, parentId }, node, queue);
    // A branch that ended may be the one an inclusive join was waiting for.
    await advance(
      run,
      queue.length > 0 || run.hasEnded
        ? queue
        : await releasableJoins({ tokens: run.tokens, graph: run.graph }),
    );
    return;
  }
  await advance(run, await take(run, leaving, node.outgoing, parentId));
}

/** Puts a token at a node (regress: back to an earlier user task) and runs it from there. */
export async function enterNode({
  run,
  executionId,
  nodeId,
  parentId,
}: {
  run: Run;
  executionId: number;
  nodeId: string;
  parentId: number | null;
}): Promise<void> {
  // One item of a multi-instance activity (an incident retried) runs as that item again.
  const node = run.graph.nodes[nodeId];
  const isLoopChild =
    node !== undefined &&
    (await loopTokenOf(run, { id: executionId, parent_id: parentId }, node)).id !== executionId;
  await advance(run, [{ executionId, nodeId, parentId, ...(isLoopChild ? { isLoopChild } : {}) }]);
}

/** Takes flows: the token follows the first, a new token (in the same scope) each other one. */
async function take(
  run: Run,
  executionId: number,
  flowIds: string[],
  parentId: number | null,
): Promise<Step[]> {
  const steps: Step[] = [];
  for (const [index, flowId] of flowIds.entries()) {
    const target = run.graph.flows[flowId]?.target ?? '';
    steps.push(
      index === 0 ? { executionId, nodeId: target, parentId } : await newExecution(run, target, parentId),
    );
  }
  if (flowIds.length === 0) await run.tokens.remove([executionId]);
  return steps;
}

async function raiseIncident(run: Run, step: Step, stopped: Incident): Promise<void> {
  run.hasIncident = true;
  const name = run.graph.nodes[stopped.activityId]?.name?.trim();
  const incident: Incident = name ? { ...stopped, activityName: name } : stopped;
  await run.tokens.stopAt(step.executionId, step.nodeId);
  await run.instance.markIncident(incident);
}

/**
 * A step budget stopped the run: the token of the step stops in an incident naming the budget,
 * and so do the tokens still waiting to run (each where it was headed); the instance gets the
 * incident and its steps in the same write. Nothing more runs in this run; the caller's
 * transaction ends as it is.
 */
async function halt(run: Run, step: Step, queue: Step[], passed: StepBudgetPassed): Promise<void> {
  run.isHalted = true;
  run.hasIncident = true;
  const tokens = [step, ...queue];
  const incident: Incident = { activityId: step.nodeId, flowId: null, message: passed.message };
  await run.instance.halt(
    tokens.map(({ executionId, nodeId }) => ({ executionId, nodeId })),
    incident,
    unsavedSteps(run),
  );
}

/** Ends the instance: remaining tokens and timers removed, open tasks and activities closed with the reason. */
export async function endInstance({
  run,
  status,
  reason,
}: {
  run: Run;
  status: string;
  reason: string;
}): Promise<void> {
  await run.instance.end(status, reason);
  run.hasEnded = true;
  await instanceEnded(run, status);
  // The processes its call activities started end with it; the caller of this one goes on.
  if (hasCallActivity(run)) await crossInstance().endOrphanedCalls(run);
  if (status === 'over' && run.caller) await crossInstance().resumeCaller(run);
}

const callingGraphs = new WeakMap<object, boolean>();

/** Whether the process has a call activity (else no called instance can be left running: no query). */
function hasCallActivity(run: Run): boolean {
  let found = callingGraphs.get(run.graph);
  if (found === undefined) {
    found = Object.values(run.graph.nodes).some((node) => node.type === 'callActivity');
    callingGraphs.set(run.graph, found);
  }
  return found;
}

/**
 * A token reached a call activity: the latest version of the called process starts in the same
 * transaction (its variables mapped in) and the token waits until it ends; one that ends at once
 * hands its variables back at once. A called process that is not deployed is an incident naming
 * the call activity.
 */
async function callProcess(run: Run, step: Step, node: ProcessNode, queue: Step[]): Promise<void> {
  const call = node.call;
  if (!call) throw new Error(`call activity ${node.id} has no called element`);
  const variables = await scopedVariables(run, step.executionId, node);
  const key = calledKey({ call, variables });
  const called = await crossInstance().startCalled({
    run,
    key,
    executionId: step.executionId,
    variables: variablesIn({ call, variables }),
    withBusinessKey: call.passBusinessKey === true,
    ...(call.businessKey === undefined
      ? {}
      : { businessKey: String(interpolate(call.businessKey, variables) ?? '') }),
  });
  if (!called)
    throw new ExpressionError(
      `${elementName(run, node)} calls the process ${key}, which is not deployed here`,
    );
  if (called.ended) await returnFromCall(run, step, node, called.variables, queue);
}

/** The called instance ended: its variables come back (mapped out) and the call activity's token goes on. */
async function returnFromCall(
  run: Run,
  step: Step,
  node: ProcessNode,
  calledVariables: Record<string, unknown>,
  queue: Step[],
): Promise<void> {
  const call = node.call;
  await setVariables({
    run,
    values: call ? variablesOut({ call, calledVariables }) : {},
    activityId: node.id,
  });
  await run.history.endAt(step.executionId, node.id);
  let leaving = step;
  if (node.multi) {
    // One child of a multi-instance call activity is done: the loop goes on, or is over.
    const started: Step[] = [];
    const loop = await tokenToLeave({ run, executionId: step.executionId, node, started });
    queue.push(...started);
    if (loop === null) return;
    if (hasCallActivity(run)) await crossInstance().endOrphanedCalls(run);
    leaving = {
      executionId: loop,
      nodeId: node.id,
      parentId: await parentOf({ run, executionId: loop, node }),
    };
    await run.history.endAt(loop, node.id);
  }
  await run.tokens.activate(leaving.executionId);
  await dropBoundaries(run, leaving.executionId, node);
  await goOn(run, leaving, node, queue);
}

/**
 * The instance a call activity started has ended (events.ts resumeCaller): the caller's token
 * waiting there goes on with the variables mapped out. A token that has left since (a boundary
 * event) is left alone.
 */
export async function calledInstanceEnded({
  run,
  executionId,
  variables,
}: {
  run: Run;
  executionId: number;
  variables: Record<string, unknown>;
}): Promise<void> {
  const execution = await run.tokens.waitingAt(executionId);
  const node = run.graph.nodes[execution?.activityId ?? ''];
  if (!execution || node?.type !== 'callActivity') return;
  const queue: Step[] = [];
  const step: Step = { executionId, nodeId: node.id, parentId: execution.parentId };
  try {
    await returnFromCall(run, step, node, variables, queue);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    await raiseIncident(run, step, { activityId: node.id, flowId: null, message: error.message });
  }
  await advance(run, queue);
}

/** A sub-process whose tokens have all ended: it is done, and its token goes on after it. */
async function leaveScope(run: Run, child: number, subProcess: ProcessNode, queue: Step[]): Promise<void> {
  await run.history.endAt(child, subProcess.id);
  let scopeId = child;
  if (subProcess.multi) {
    // One child of a multi-instance sub-process is done: the loop goes on, or is over.
    const started: Step[] = [];
    const leaving = await tokenToLeave({ run, executionId: child, node: subProcess, started });
    queue.push(...started);
    if (leaving === null) return;
    if (leaving !== child) {
      scopeId = leaving;
      await run.history.endAt(scopeId, subProcess.id);
    }
  }
  const step = {
    executionId: scopeId,
    nodeId: subProcess.id,
    parentId: await parentOf({ run, executionId: scopeId, node: subProcess }),
  };
  await run.tokens.activate(scopeId);
  await dropBoundaries(run, scopeId, subProcess);
  await goOn(run, step, subProcess, queue);
}

/** A terminate end inside a sub-process: every token of that sub-process ends, with its tasks and timers. */
async function terminateScope(run: Run, scopeId: number): Promise<void> {
  await run.instance.clearScope(scopeId, 'terminateEnd');
  if (hasCallActivity(run)) await crossInstance().endOrphanedCalls(run);
}

/** A sub-process one of whose tokens has ended: when none is left in it, it is done. */
async function leaveScopeIfDone(
  run: Run,
  scopeId: number,
  subProcess: ProcessNode,
  queue: Step[],
): Promise<void> {
  if (!(await run.tokens.hasChildren(scopeId))) await leaveScope(run, scopeId, subProcess, queue);
}

/**
 * An activity without outgoing flow (BPMN's implicit end): its token ends as at a plain end event
 * (no end event in the history); the instance, or its sub-process, ends with its last token.
 */
async function implicitEnd(run: Run, step: Step, node: ProcessNode, queue: Step[]): Promise<void> {
  if (node.isForCompensation) {
    await handlerEnded(run, step, queue);
    return;
  }
  const scope = node.scope === undefined ? undefined : run.graph.nodes[node.scope];
  if (scope && step.parentId !== null) {
    await run.tokens.remove([step.executionId]);
    await leaveScopeIfDone(run, step.parentId, scope, queue);
    return;
  }
  if (!(await run.tokens.removeAndAnyLeft(step.executionId)))
    await endInstance({ run, status: 'over', reason: 'end' });
}

/** A token reached an end event: it ends; the instance (or its sub-process) ends with its last token. */
async function reachEnd(run: Run, step: Step, node: ProcessNode, queue: Step[]): Promise<void> {
  const scope = node.scope === undefined ? undefined : run.graph.nodes[node.scope];
  const isInScope = scope !== undefined && step.parentId !== null;
  if (node.errorCode !== undefined && (await throwError(run, step, node))) return;
  if (node.signalName !== undefined && !(await throwSignal(run, step, node.signalName, queue))) return;
  if (node.escalationCode !== undefined && !(await throwEscalation(run, step, node))) return;
  // The plain end of a top-level token writes its history row in the statement that removes it.
  if (isInScope || node.isTerminate) await run.history.pass(step.executionId, node);
  if (node.isTerminateAll) {
    await endInstance({ run, status: 'over', reason: 'terminateEnd' });
    return;
  }
  if (scope && step.parentId !== null) {
    await run.tokens.remove([step.executionId]);
    if (node.isTerminate) await terminateScope(run, step.parentId);
    await leaveScopeIfDone(run, step.parentId, scope, queue);
    return;
  }
  if (node.isTerminate) {
    await endInstance({ run, status: 'over', reason: 'terminateEnd' });
    return;
  }
  if (!(await run.instance.endToken(step.executionId, node)))
    await endInstance({ run, status: 'over', reason: 'end' });
}

/** A built-in service task: an inbox notice to users, or variables set. */
async function runService(
  run: Run,
  step: Step,
  node: ProcessNode,
  locals: Record<string, unknown> = {},
): Promise<void> {
  const service = node.service;
  if (!service) return;
  const fields: Record<string, unknown> = {};
  const scope = { ...run.variables, ...locals };
  for (const [name, text] of Object.entries(service.fields)) fields[name] = interpolate(text, scope);
  if (service.kind === 'http' || service.kind === 'mail')
    throw new Error(`the call of ${node.id} is made after its step (waitForCall), not in it`);
  if (service.kind === 'setVariables') {
    const oversized = oversizedVariable(fields);
    if (oversized !== undefined)
      throw new ExpressionError(
        `the variable ${oversized} would be over ${VARIABLE_LIMIT_KB} KB (workflow.variableBytes)`,
      );
    await setVariables({ run, values: fields, activityId: node.id });
    return;
  }
  await run.instance.notify(
    { usernames: asList(fields.to), groups: asList(fields.groups).map(groupKey) },
    {
      title: String(fields.title ?? node.name ?? node.id),
      content: String(fields.content ?? fields.title ?? node.name ?? node.id),
    },
  );
  void step;
}

/**
 * Runs tokens until each waits (user task, join, sub-process) or ends, a step of the budgets
 * (budget.ts) each; the instance's step count is brought up to date at the end.
 */
async function advance(run: Run, initial: Step[]): Promise<void> {
  const queue = [...initial];
  while (queue.length > 0 && !run.hasEnded && !run.isHalted) {
    const step = queue.shift() as Step;
    const node = run.graph.nodes[step.nodeId];
    if (!node) throw new Error(`no node ${step.nodeId}`);
    try {
      countStep(run);
      await runStep(run, step, node, queue);
    } catch (error) {
      if (error instanceof StepBudgetPassed) {
        await halt(run, step, queue, error);
        return;
      }
      if (!(error instanceof ExpressionError)) throw error;
      await raiseIncident(run, step, {
        activityId: node.id,
        flowId: null,
        message: error.message,
        ...(error.variable === undefined ? {} : { variable: error.variable }),
      });
    }
    if (queue.length === 0 && !run.hasEnded && !run.isHalted)
      queue.push(...(await releasableJoins({ tokens: run.tokens, graph: run.graph })));
  }
  // Variables changed: conditional events whose condition now holds go on (their steps are run).
  if (!run.hasEnded && !run.isHalted && run.variablesChanged) {
    const met = await conditionsMet(run);
    if (met.length > 0) {
      await advance(run, met);
      return;
    }
  }
  if (!run.isHalted) await saveSteps(run);
}

const conditionalGraphs = new WeakMap<object, ProcessNode[]>();

/** The conditional catch and boundary events of a process. */
function conditionalEvents(run: Run): ProcessNode[] {
  let found = conditionalGraphs.get(run.graph);
  if (!found) {
    found = Object.values(run.graph.nodes).filter((node) => node.condition !== undefined);
    conditionalGraphs.set(run.graph, found);
  }
  return found;
}

/** A conditional event's condition, false when it cannot be read (an unset variable). */
function holds(variables: Record<string, unknown>, condition: string): boolean {
  try {
    return evaluateCondition(condition, variables);
  } catch (error) {
    if (error instanceof ExpressionError) return false;
    throw error;
  }
}

/**
 * The variables changed: the conditional events whose condition now holds fire (a catch event's
 * token goes on, a boundary event fires on its activity). Answers the steps to run.
 */
async function conditionsMet(run: Run): Promise<Step[]> {
  run.variablesChanged = false;
  const events = conditionalEvents(run);
  if (events.length === 0) return [];
  const queue: Step[] = [];
  const waitsAt = [
    ...new Set(events.map((node) => (node.type === 'boundaryEvent' ? (node.attachedTo ?? '') : node.id))),
  ];
  for (const token of await run.tokens.liveAt(waitsAt)) {
    for (const event of events) {
      const isBoundary = event.type === 'boundaryEvent' && event.attachedTo === token.activityId;
      const isCatch = event.id === token.activityId && token.state === 'waiting';
      if (!event.condition || (!isBoundary && !isCatch)) continue;
      // Inside a loop's body the condition reads the body's item too.
      if (!holds(await scopedVariables(run, token.id, event), event.condition)) continue;
      if (isBoundary) {
        await fireBoundary({ run, execution: { id: token.id, parent_id: token.parentId }, boundary: event });
        if (!event.isNonInterrupting) break;
      } else {
        await caught(run, { executionId: token.id, nodeId: event.id, parentId: token.parentId }, queue);
        break;
      }
    }
  }
  return queue;
}

/**
 * Variables were set from outside the run's tokens (processinstance/variables): the conditional
 * events whose condition now holds go on, and the run's steps are saved.
 */
export async function variablesSetFromOutside(run: Run): Promise<void> {
  await advance(run, []);
}

/** Runs one token at its node. */
async function runStep(run: Run, step: Step, node: ProcessNode, queue: Step[]): Promise<void> {
  if (isCompensationStep(node, step) && (await compensationStep(run, step, node, queue))) return;
  // A token just made at its node, or about to end, needs no move in its row.
  const state = node.type === 'subProcess' ? 'scope' : 'active';
  // A plain user task moves its token in the statement that makes the task.
  const isMovedLater = node.type === 'userTask' && !node.multi;
  const isMoved = (!step.isFresh || state === 'scope') && node.type !== 'endEvent' && !isMovedLater;
  const variables = await scopedVariables(run, step.executionId, node);
  const skip = skipOf({ node, variables });
  if (skip !== false) {
    if (skip !== true) {
      await raiseIncident(run, step, skip);
      return;
    }
    // Passed without its work: the move and the history row are one write.
    await run.history.pass(step.executionId, node, step.isFresh ? undefined : state);
    await goOn(run, step, node, queue);
    return;
  }
  if (!isPassedAtOnce(node)) {
    if (isMoved) await run.tokens.moveTo(step.executionId, node.id, state);
  } else {
    // Passed at once: the move and the history row are one write.
    await run.history.pass(step.executionId, node, isMoved ? state : undefined);
  }
  switch (node.type) {
    case 'userTask':
      if (!node.multi)
        await createTask({ run, step, node, moveToken: !step.isFresh, locals: localsIn(run, variables) });
      else if (!(await startLoop({ run, step, node, variables }))) {
        await goOn(run, step, node, queue);
        break;
      }
      await scheduleBoundaries(run, step.executionId, node);
      break;
    case 'subProcess': {
      await run.history.start(step.executionId, node);
      if (node.multi) {
        // A multi-instance sub-process: a scope per item, each with its start token.
        const started: Step[] = [];
        if (!(await startLoop({ run, step, node, variables, started }))) {
          await run.history.endAt(step.executionId, node.id);
          await goOn(run, step, node, queue);
          break;
        }
        await scheduleBoundaries(run, step.executionId, node);
        queue.push(...started);
        break;
      }
      await scheduleBoundaries(run, step.executionId, node);
      queue.push(await newExecution(run, node.startId ?? '', step.executionId));
      break;
    }
    case 'endEvent':
      await reachEnd(run, step, node, queue);
      break;
    case 'intermediateThrowEvent':
      await throwEvent(run, step, node, queue);
      break;
    case 'intermediateCatchEvent':
      // After an event-based gateway, the event has come when the token enters it.
      if (node.eventGateway !== undefined) await goOn(run, step, node, queue);
      else if (node.timer) await waitForTimer(run, step, node);
      else if (
        node.signalName !== undefined ||
        node.messageName !== undefined ||
        node.condition !== undefined
      ) {
        await run.history.start(step.executionId, node);
        await run.tokens.wait(step.executionId);
        await subscribe(run, step.executionId, node);
        // A conditional catch whose condition holds already goes on at once.
        if (node.condition !== undefined && holds(variables, node.condition)) await caught(run, step, queue);
      } else await goOn(run, step, node, queue);
      break;
    case 'receiveTask':
      if (node.eventGateway !== undefined) {
        await goOn(run, step, node, queue);
        break;
      }
      await run.history.start(step.executionId, node);
      await run.tokens.wait(step.executionId);
      await subscribe(run, step.executionId, node);
      await scheduleBoundaries(run, step.executionId, node);
      break;
    case 'eventBasedGateway':
      await waitAtEventGateway(run, step, node);
      break;
    case 'callActivity': {
      await run.history.start(step.executionId, node);
      if (node.multi && !step.isLoopChild) {
        // A multi-instance call activity: a child token per item, each calling the process.
        const started: Step[] = [];
        if (!(await startLoop({ run, step, node, variables, started }))) {
          await run.history.endAt(step.executionId, node.id);
          await goOn(run, step, node, queue);
          break;
        }
        await scheduleBoundaries(run, step.executionId, node);
        queue.push(...started);
        break;
      }
      await run.tokens.wait(step.executionId);
      if (!step.isLoopChild) await scheduleBoundaries(run, step.executionId, node);
      await callProcess(run, step, node, queue);
      break;
    }
    case 'parallelGateway':
    case 'inclusiveGateway':
      if (!(await joined({ tokens: run.tokens, graph: run.graph, node, executionId: step.executionId })))
        break;
      await run.history.pass(step.executionId, node);
      await goOn(run, step, node, queue);
      break;
    default:
      if (waitsForWork(node)) {
        if (step.isLoopChild) {
          // One item's work again (an incident retried): the loop's token has the boundaries.
          await waitForWork(run, step.executionId, node);
          break;
        }
        // A worker's task or a call; of a multi-instance one, a child token per item, each
        // offering its work to the workers or leaving its call for after the commit.
        if (!node.multi) await waitForWork(run, step.executionId, node);
        else if (!(await startLoop({ run, step, node, variables }))) {
          await goOn(run, step, node, queue);
          break;
        }
        await scheduleBoundaries(run, step.executionId, node);
        break;
      }
      if (node.multi)
        await passLoop({ run, step, node, variables, each: (locals) => runService(run, step, node, locals) });
      else await runService(run, step, node, localsIn(run, variables));
      await goOn(run, step, node, queue);
  }
}

/** How a person knows an element: its name (or the flow's), its id only when it has none. */
function elementName(run: Run, node: ProcessNode, flowId?: string | null): string {
  const flow = flowId ? run.graph.flows[flowId] : undefined;
  return node.name?.trim() || flow?.name?.trim() || node.id;
}

/**
 * The call of a connector or mail task was made (or failed, `error`): the connector's answer
 * becomes variables and the token goes on; a failure, or an answer the task cannot take, stops
 * the token in an incident naming it, which a retry calls again.
 */
export async function callAnswered({
  run,
  execution,
  node,
  outcome,
}: WaitingAt & {
  outcome: { answer: ConnectorAnswer | undefined; scope: Record<string, unknown> } | { error: string };
}): Promise<void> {
  try {
    if ('error' in outcome) throw new ExpressionError(outcome.error);
    if (outcome.answer) {
      const where = elementName(run, node);
      const values = answerVariables({ node, where, scope: outcome.scope, answer: outcome.answer });
      await setVariables({ run, values, activityId: node.id });
    }
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    await incidentAtTask({ run, execution, node, message: error.message });
    return;
  }
  await moveOnFrom({ run, execution, node });
}

/**
 * The token waiting at a task stops in an incident naming the task and the error: a worker's
 * failure left no retries, an error nobody catches, a call that failed.
 */
export async function incidentAtTask({
  run,
  execution,
  node,
  message,
}: WaitingAt & { message: string }): Promise<void> {
  await raiseIncident(
    run,
    { executionId: execution.id, nodeId: node.id, parentId: execution.parent_id },
    { activityId: node.id, flowId: null, message },
  );
}

/** A node a token passes at once (not a task, sub-process, end or join): its history row is written as it enters. */
const isPassedAtOnce = (node: ProcessNode): boolean =>
  node.eventGateway !== undefined ||
  (!waitsForWork(node) &&
    ![
      'userTask',
      'subProcess',
      'endEvent',
      'parallelGateway',
      'inclusiveGateway',
      'receiveTask',
      'eventBasedGateway',
      'callActivity',
    ].includes(node.type) &&
    !isWaitingCatch(node));

/** A timer, signal or message catch event: its token waits there (its history row is open until it goes on). */
const isWaitingCatch = (node: ProcessNode): boolean =>
  node.type === 'intermediateCatchEvent' &&
  (node.timer !== undefined ||
    node.signalName !== undefined ||
    node.messageName !== undefined ||
    node.condition !== undefined);

/**
 * A token reached an event-based gateway: it waits there for the first of the catch events after
 * it (a job per timer, a subscription per message and signal).
 */
async function waitAtEventGateway(run: Run, step: Step, node: ProcessNode): Promise<void> {
  await run.history.start(step.executionId, node);
  await run.tokens.wait(step.executionId);
  await subscribe(run, step.executionId, node);
  const now = workflowNow(run.ctx);
  const jobs: Timer[] = [];
  for (const flowId of node.outgoing) {
    const target = run.graph.nodes[run.graph.flows[flowId]?.target ?? ''];
    if (!target?.timer) continue;
    const due = firstDue(target.timer, now);
    if (!due) throw new ExpressionError(`the timer of ${elementName(run, target)} is never due`);
    jobs.push(timerJob(step.executionId, target, due));
  }
  await run.waits.addTimers(jobs);
}

/**
 * One catch event after an event-based gateway fired: the gateway is done (its other timers and
 * subscriptions go) and the token passes the catch event and goes on from it.
 */
async function eventGatewayFired(run: Run, step: Step, queue: Step[]): Promise<void> {
  const node = run.graph.nodes[step.nodeId];
  if (!node?.eventGateway) throw new Error(`no event-based gateway before ${step.nodeId}`);
  await run.history.endAt(step.executionId, node.eventGateway);
  await run.waits.dropJobs(step.executionId, ['boundaryTimer']);
  await unsubscribe(run, step.executionId);
  await run.tokens.activate(step.executionId);
  // The catch runs as any node the token enters (a receive task after the gateway waits there).
  queue.push({ executionId: step.executionId, nodeId: node.id, parentId: step.parentId });
}

/** A token reached a timer catch event: it waits for its job (taken by the poller as boundary timers are). */
async function waitForTimer(run: Run, step: Step, node: ProcessNode): Promise<void> {
  await run.history.start(step.executionId, node);
  const due = node.timer ? firstDue(node.timer, workflowNow(run.ctx)) : undefined;
  if (!due) throw new ExpressionError(`the timer of ${elementName(run, node)} is never due`);
  await run.tokens.wait(step.executionId);
  await run.waits.addTimers([timerJob(step.executionId, node, due)]);
}

/**
 * An intermediate throw event: none goes on; a link jumps to its catch; a signal first releases
 * every token of the instance waiting at a catch of that signal, then goes on.
 */
async function throwEvent(run: Run, step: Step, node: ProcessNode, queue: Step[]): Promise<void> {
  if (node.linkName !== undefined) {
    const target = Object.values(run.graph.nodes).find(
      (other) =>
        other.type === 'intermediateCatchEvent' &&
        other.linkName === node.linkName &&
        other.scope === node.scope,
    );
    if (!target)
      throw new ExpressionError(`no link catch named ${node.linkName} for ${elementName(run, node)}`);
    queue.push({ executionId: step.executionId, nodeId: target.id, parentId: step.parentId });
    return;
  }
  if (node.signalName !== undefined && !(await throwSignal(run, step, node.signalName, queue))) return;
  if (node.escalationCode !== undefined && !(await throwEscalation(run, step, node))) return;
  await goOn(run, step, node, queue);
}

/**
 * A signal thrown by a token (intermediate throw or end event): it fires the signal boundary
 * events and releases the signal catches of the instance (after event-based gateways too), then
 * reaches the other instances of the tenant waiting for it and starts the processes with a
 * signal start event of its name (BPMN's broadcast), all in the same transaction and its step
 * budget. Answers whether the throwing token is still there (its own signal may interrupt the
 * activity it is in).
 */
async function throwSignal(run: Run, step: Step, signalName: string, queue: Step[]): Promise<boolean> {
  await signalBoundaries(run, signalName);
  if (!(await run.tokens.exists(step.executionId)) || run.hasEnded) return false;
  const catches = Object.values(run.graph.nodes)
    .filter(
      (other) =>
        other.type === 'intermediateCatchEvent' &&
        other.signalName === signalName &&
        other.eventGateway === undefined,
    )
    .map((other) => other.id);
  if (catches.length > 0) {
    for (const token of await run.tokens.wakeWaitingAt(catches))
      await caught(run, { executionId: token.id, nodeId: token.activityId, parentId: token.parentId }, queue);
  }
  for (const other of Object.values(run.graph.nodes)) {
    if (other.signalName !== signalName || other.eventGateway === undefined) continue;
    const waiting = (await run.tokens.liveAt([other.eventGateway])).filter(
      (token) => token.state === 'waiting',
    );
    for (const token of waiting)
      await eventGatewayFired(
        run,
        { executionId: token.id, nodeId: other.id, parentId: token.parentId },
        queue,
      );
  }
  await startEventSubProcesses(run, 'signal', signalName);
  // An interrupting event sub-process may have ended the throwing token with the rest.
  const isStill = await run.tokens.exists(step.executionId);
  await crossInstance().broadcastSignal({ run, signalName });
  return isStill && !run.hasEnded;
}

/** The event sub-processes of the instance that start on the signal (or message) thrown in it. */
async function startEventSubProcesses(run: Run, kind: 'message' | 'signal', name: string): Promise<void> {
  const starts = Object.values(run.graph.nodes)
    .filter(
      (node) =>
        node.type === 'startEvent' &&
        run.graph.nodes[node.scope ?? '']?.isEventSubProcess === true &&
        (kind === 'signal' ? node.signalName : node.messageName) === name,
    )
    .map((node) => node.id);
  if (starts.length === 0) return;
  await deliverEvent(
    run,
    (await run.waits.subscribedAt(starts)).map((subscribed) => ({ ...subscribed, parentId: null })),
  );
}

/** A signal thrown in the instance fires the signal boundary events of the activities its tokens wait at. */
async function signalBoundaries(run: Run, signalName: string): Promise<void> {
  const boundaries = Object.values(run.graph.nodes).filter(
    (other) => other.type === 'boundaryEvent' && other.signalName === signalName && other.attachedTo,
  );
  for (const boundary of boundaries) {
    for (const token of await run.tokens.liveAt([boundary.attachedTo ?? '']))
      await fireBoundary({ run, execution: { id: token.id, parent_id: token.parentId }, boundary });
  }
}

/** A token waiting at a catch event goes on: its history row ends, its timer (if any) goes. */
async function caught(run: Run, step: Step, queue: Step[]): Promise<void> {
  const node = run.graph.nodes[step.nodeId];
  if (!node) throw new Error(`no node ${step.nodeId}`);
  if (node.eventGateway !== undefined) {
    await eventGatewayFired(run, step, queue);
    return;
  }
  await run.history.endAt(step.executionId, node.id);
  await run.tokens.activate(step.executionId);
  await unsubscribe(run, step.executionId);
  await dropBoundaries(run, step.executionId, node);
  await goOn(run, step, node, queue);
}

/** A subscription a message or signal has reached: the token, where it waits, and the catching element. */
export interface Delivery {
  /** The waiting token; null for an event sub-process of the process itself (the instance waits). */
  executionId: number | null;
  parentId: number | null;
  /** Where the token stands: the catch event, receive task, activity or event-based gateway. */
  waitsAt: string;
  /** The catching element: the catch event, receive task or boundary event. */
  catchId: string;
}

/**
 * A message or signal reached a token of the run's instance: a boundary event fires, a catch
 * event or receive task goes on, an event-based gateway takes the catch event's way. A token
 * that has moved on since (an earlier delivery of the same call) is left alone.
 */
export async function deliverEvent(run: Run, deliveries: Delivery[]): Promise<void> {
  const queue: Step[] = [];
  for (const delivery of deliveries) {
    if (run.hasEnded || run.isHalted) break;
    const node = run.graph.nodes[delivery.catchId];
    if (!node) continue;
    if (delivery.executionId === null) {
      if (node.type === 'startEvent') await fireEventSubProcess({ run, scopeId: null, start: node });
      continue;
    }
    const executionId = delivery.executionId;
    const execution = await run.tokens.liveToken(executionId, delivery.waitsAt);
    if (!execution) continue;
    const step: Step = { executionId, nodeId: node.id, parentId: execution.parentId };
    if (node.type === 'startEvent') {
      await fireEventSubProcess({ run, scopeId: executionId, start: node });
      continue;
    }
    if (node.type === 'boundaryEvent')
      await fireBoundary({
        run,
        execution: { id: executionId, parent_id: execution.parentId },
        boundary: node,
      });
    else if (node.eventGateway !== undefined) await eventGatewayFired(run, step, queue);
    else await caught(run, step, queue);
  }
  await advance(run, queue);
}

/**
 * A token waiting at a catch event or an external task goes on: the event's timer fired (jobs.ts)
 * or a worker completed the task (external-tasks.ts).
 */
export async function moveOnFrom({ run, execution, node }: WaitingAt): Promise<void> {
  if (node.multi && waitsForWork(node)) {
    // One item of a multi-instance external, connector or mail task is done: its loop goes on, or is over.
    await run.history.endAt(execution.id, node.id);
    await moveOn(run, execution.id, node);
    return;
  }
  const queue: Step[] = [];
  await caught(run, { executionId: execution.id, nodeId: node.id, parentId: execution.parent_id }, queue);
  await advance(run, queue);
}

async function goOn(run: Run, step: Step, node: ProcessNode, queue: Step[]): Promise<void> {
  await noteCompleted(run, step, node);
  if (node.outgoing.length === 0) {
    await implicitEnd(run, step, node, queue);
    return;
  }
  const flows = chooseFlows({
    graph: run.graph,
    node,
    variables: await scopedVariables(run, step.executionId, node),
  });
  // No way on: a request (start, complete) is refused as the peers refuse it, rolled back; the
  // engine's own work (a timer) leaves the token in an incident for an administrator.
  if (!Array.isArray(flows) && flows.flowId === null && run.onStepBudget === 'refuse')
    throw new AppError('wfNoFlow', { id: elementName(run, node) });
  if (!Array.isArray(flows) && run.refusesConditionErrors) {
    const element = elementName(run, node, flows.flowId);
    throw flows.variable === undefined
      ? new AppError('wfConditionFailed', { element, message: flows.message })
      : new AppError('wfConditionUnset', { element, variable: flows.variable });
  }
  if (!Array.isArray(flows)) {
    await raiseIncident(run, step, flows);
    return;
  }
  queue.push(...(await take(run, step.executionId, flows, step.parentId)));
}
