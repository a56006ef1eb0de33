import type { Run, Step } from './activity.js';
import type { CompensableIn } from './compensation-store.js';
import type { MovedState } from './tokens.js';
import { hasCompensation, type ProcessNode } from './graph.js';

/**
 * Compensation and transactions (BPMN 2.0 §10.7, as Camunda, Activiti and Flowable run them).
 *
 * - An activity with a compensation boundary event that completes leaves a row in
 *   wf_compensation, in the scope it completed in (the token of its sub-process, or the process).
 *   A sub-process that completes with such rows inside (or with a handler of its own) leaves a
 *   row too, and its rows move under it.
 * - A compensation throw (intermediate or end event) undoes the completed activities of its scope
 *   (or only activityRef's): their handlers start, in reverse order of completion, each on a token
 *   of its own under the throwing token, which waits until the last one ends and then goes on. A
 *   completed sub-process without a handler of its own is undone by undoing what completed inside
 *   it. Each row is used once; what a canceled scope completed is never compensated (InstanceStore.clearScope).
 * - A cancel end event in a transaction ends every other token of the transaction, undoes what
 *   completed in it (as a throw without activityRef), and the transaction is left through its
 *   cancel boundary event once the handlers have ended.
 */

/** The waiting token's state while its handlers run. */
const COMPENSATING = 'compensating' satisfies MovedState;

/** Whether runStep hands this step to compensationStep: a compensation throw not yet done, or a cancel end. */
export const isCompensationStep = (node: ProcessNode, step: Step): boolean =>
  (node.compensation !== undefined && !step.compensated) ||
  (node.type === 'endEvent' && node.isCancel === true);

/**
 * An activity or sub-process completed (its token leaves it): an activity with a compensation
 * handler leaves a row in its scope; a sub-process leaves one when it has a handler or rows inside
 * (which move under it), and its rows go when it is itself a handler.
 */
export async function noteCompleted(run: Run, step: Step, node: ProcessNode): Promise<void> {
  if (!hasCompensation(run.graph)) return;
  const scopeId = step.parentId;
  if (node.type !== 'subProcess') {
    if (node.compensationHandler !== undefined) await run.compensations.note(scopeId, node.id);
    return;
  }
  if (node.isForCompensation || node.isEventSubProcess) await run.compensations.forgetIn(step.executionId);
  else
    await run.compensations.gather(
      step.executionId,
      scopeId,
      node.id,
      node.compensationHandler !== undefined,
    );
}

/**
 * The handlers that undo what completed in a scope (the live scope's token, null for the
 * process; or under the row of a completed sub-process), newest first: each row's handler, or
 * for a sub-process without one, the handlers of what completed inside it.
 */
async function handlersOf(run: Run, place: CompensableIn, activityRef?: string): Promise<string[]> {
  const handlers: string[] = [];
  for (const row of await run.compensations.rowsIn(place, activityRef)) {
    const handler = run.graph.nodes[row.activityId]?.compensationHandler;
    if (handler !== undefined) handlers.push(handler);
    else handlers.push(...(await handlersOf(run, { parentId: row.id })));
  }
  return handlers;
}

/** Starts the handlers, one token each under `parentId`, newest completion first; answers their steps. */
async function startHandlers(run: Run, parentId: number, handlers: string[]): Promise<Step[]> {
  const ids = await run.tokens.addAll(handlers, parentId);
  return handlers.map((handler, index) => ({
    executionId: ids[index] ?? 0,
    nodeId: handler,
    parentId,
    isFresh: true,
  }));
}

/**
 * A token reached a compensation throw or a cancel end event. Throw: the handlers of its scope
 * start and the token waits for them (true), or there is nothing to undo and it goes on as a
 * plain event (false). Cancel end: the transaction is rolled back (always true).
 */
export async function compensationStep(
  run: Run,
  step: Step,
  node: ProcessNode,
  queue: Step[],
): Promise<boolean> {
  if (node.isCancel) {
    await cancelTransaction(run, step, node, queue);
    return true;
  }
  const activityRef = node.compensation?.activityRef;
  const handlers = hasCompensation(run.graph)
    ? await handlersOf(run, { scopeId: step.parentId }, activityRef)
    : [];
  if (handlers.length === 0) return false;
  await run.compensations.use(step.parentId, activityRef);
  await run.tokens.moveTo(step.executionId, node.id, COMPENSATING);
  queue.push(...(await startHandlers(run, step.executionId, handlers)));
  return true;
}

/**
 * A cancel end event: every other token of its transaction ends (with its tasks, timers and
 * waits), the handlers of what completed in it start under the transaction's token, and once
 * they have ended (at once when there are none) the transaction is left through its cancel
 * boundary event.
 */
async function cancelTransaction(run: Run, step: Step, node: ProcessNode, queue: Step[]): Promise<void> {
  const transaction = run.graph.nodes[node.scope ?? ''];
  const scopeId = step.parentId;
  if (!transaction?.cancelBoundary || scopeId === null)
    throw new Error(`${node.id} is a cancel end event outside a transaction`);
  await run.history.pass(step.executionId, node);
  const handlers = hasCompensation(run.graph) ? await handlersOf(run, { scopeId }) : [];
  await run.instance.clearScope(scopeId, 'cancelEnd');
  if (handlers.length === 0) {
    await leaveByCancel(run, scopeId, transaction, queue);
    return;
  }
  // (The transaction's token stands at the transaction already: only its state changes.)
  await run.tokens.moveTo(scopeId, transaction.id, COMPENSATING);
  queue.push(...(await startHandlers(run, scopeId, handlers)));
}

/** The transaction's token leaves through its cancel boundary event (its history row ends, its waits go). */
async function leaveByCancel(
  run: Run,
  scopeId: number,
  transaction: ProcessNode,
  queue: Step[],
): Promise<void> {
  await run.history.endAllAt(scopeId, 'cancelEnd');
  await run.waits.dropJobs(scopeId, ['boundaryTimer', 'serviceCall']);
  await run.waits.unsubscribe(scopeId);
  await run.tokens.activateOutOfLoop(scopeId);
  const parentId = await run.tokens.parentOf(scopeId);
  queue.push({
    executionId: scopeId,
    nodeId: transaction.cancelBoundary ?? '',
    parentId,
  });
}

/**
 * A compensation handler's token ended (handlers have no outgoing flow). When it was the last one
 * of its throw, the throwing token goes on past its event; of a cancel end, the transaction is
 * left through its cancel boundary event.
 */
export async function handlerEnded(run: Run, step: Step, queue: Step[]): Promise<void> {
  const left = await run.tokens.removeFromScope(step.executionId);
  if (!left || left.othersLeft || left.scope.state !== COMPENSATING) return;
  const waiting = left.scope;
  const node = run.graph.nodes[waiting.activityId];
  if (!node) return;
  const waitingId = waiting.id;
  if (node.isTransaction) {
    await leaveByCancel(run, waitingId, node, queue);
    return;
  }
  queue.push({
    executionId: waitingId,
    nodeId: node.id,
    parentId: waiting.parentId,
    compensated: true,
  });
}
