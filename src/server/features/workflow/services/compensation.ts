import { sql } from 'kysely';
import type { Run, Step } from './activity.js';
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
 *   it. Each row is used once; what a canceled scope completed is never compensated (scopes.ts).
 * - A cancel end event in a transaction ends every other token of the transaction, undoes what
 *   completed in it (as a throw without activityRef), and the transaction is left through its
 *   cancel boundary event once the handlers have ended.
 */

/** The waiting token's state while its handlers run. */
const COMPENSATING = 'compensating';

/** Whether runStep hands this step to compensationStep: a compensation throw not yet done, or a cancel end. */
export const isCompensationStep = (node: ProcessNode, step: Step): boolean =>
  (node.compensation !== undefined && !step.compensated) ||
  (node.type === 'endEvent' && node.isCancel === true);

interface Row {
  id: number;
  activity_id: string;
}

/**
 * An activity or sub-process completed (its token leaves it): an activity with a compensation
 * handler leaves a row in its scope; a sub-process leaves one when it has a handler or rows inside
 * (which move under it), and its rows go when it is itself a handler.
 */
export async function noteCompleted(run: Run, step: Step, node: ProcessNode): Promise<void> {
  if (!hasCompensation(run.graph)) return;
  const scopeId = step.parentId;
  if (node.type !== 'subProcess') {
    if (node.compensationHandler === undefined) return;
    await sql`insert into wf_compensation (tenant_code, instance_id, scope_id, activity_id)
      values (${run.tenantCode}, ${run.instanceId}, ${scopeId}, ${node.id})`.execute(run.trx);
    return;
  }
  if (node.isForCompensation || node.isEventSubProcess) {
    await sql`delete from wf_compensation where instance_id = ${run.instanceId} and scope_id = ${step.executionId}
      and parent_id is null`.execute(run.trx);
    return;
  }
  await sql`with inner_rows as (select id from wf_compensation
        where instance_id = ${run.instanceId} and scope_id = ${step.executionId} and parent_id is null),
      made as (insert into wf_compensation (tenant_code, instance_id, scope_id, activity_id)
        select ${run.tenantCode}, ${run.instanceId}, ${scopeId}, ${node.id}
        where ${node.compensationHandler !== undefined} or exists (select 1 from inner_rows)
        returning id)
    update wf_compensation set parent_id = (select id from made) where id in (select id from inner_rows)`.execute(
    run.trx,
  );
}

/**
 * The handlers that undo what completed in a scope (the live scope's token, null for the
 * process; or under the row of a completed sub-process), newest first: each row's handler, or
 * for a sub-process without one, the handlers of what completed inside it.
 */
async function handlersOf(
  run: Run,
  where: { scopeId: number | null } | { parentId: number },
  activityRef?: string,
): Promise<string[]> {
  const place =
    'parentId' in where
      ? sql`parent_id = ${where.parentId}`
      : sql`parent_id is null and scope_id is not distinct from ${where.scopeId}::bigint`;
  const only = activityRef === undefined ? sql`` : sql` and activity_id = ${activityRef}`;
  const rows = await sql<Row>`select id, activity_id from wf_compensation
    where instance_id = ${run.instanceId} and ${place}${only} order by id desc`.execute(run.trx);
  const handlers: string[] = [];
  for (const row of rows.rows) {
    const handler = run.graph.nodes[row.activity_id]?.compensationHandler;
    if (handler !== undefined) handlers.push(handler);
    else handlers.push(...(await handlersOf(run, { parentId: Number(row.id) })));
  }
  return handlers;
}

/** The rows of a scope (with activityRef: of that activity) and every row under them go: they are used. */
async function useRows(run: Run, scopeId: number | null, activityRef?: string): Promise<void> {
  const only = activityRef === undefined ? sql`` : sql` and activity_id = ${activityRef}`;
  await sql`with recursive used as (
        select id from wf_compensation where instance_id = ${run.instanceId} and parent_id is null
          and scope_id is not distinct from ${scopeId}::bigint${only}
        union all select c.id from wf_compensation c join used on c.parent_id = used.id)
    delete from wf_compensation where id in (select id from used)`.execute(run.trx);
}

/** Starts the handlers, one token each under `parentId`, newest completion first; answers their steps. */
async function startHandlers(run: Run, parentId: number, handlers: string[]): Promise<Step[]> {
  const rows = await sql<{
    id: number;
  }>`insert into wf_execution (tenant_code, instance_id, activity_id, state, parent_id)
    select ${run.tenantCode}, ${run.instanceId}, handler, 'active', ${parentId}
    from unnest(${handlers}::text[]) with ordinality as h(handler, n) order by n
    returning id`.execute(run.trx);
  const ids = rows.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
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
  await useRows(run, step.parentId, activityRef);
  await sql`update wf_execution set activity_id = ${node.id}, state = ${COMPENSATING} where id = ${step.executionId}`.execute(
    run.trx,
  );
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
  await sql`update wf_execution set state = ${COMPENSATING} where id = ${scopeId}`.execute(run.trx);
  queue.push(...(await startHandlers(run, scopeId, handlers)));
}

/** The transaction's token leaves through its cancel boundary event (its history row ends, its waits go). */
async function leaveByCancel(
  run: Run,
  scopeId: number,
  transaction: ProcessNode,
  queue: Step[],
): Promise<void> {
  const rows = await sql<{ parent_id: number | null }>`with history as (update wf_hist_activity
        set end_time = now(), end_reason = 'cancelEnd'
        where instance_id = ${run.instanceId} and execution_id = ${scopeId} and end_time is null),
      jobs as (delete from wf_job where execution_id = ${scopeId}),
      subscriptions as (delete from wf_event_subscription where execution_id = ${scopeId})
    update wf_execution set state = 'active', loop_state = null where id = ${scopeId} returning parent_id`.execute(
    run.trx,
  );
  const parentId = rows.rows[0]?.parent_id;
  queue.push({
    executionId: scopeId,
    nodeId: transaction.cancelBoundary ?? '',
    parentId: parentId === null || parentId === undefined ? null : Number(parentId),
  });
}

/**
 * A compensation handler's token ended (handlers have no outgoing flow). When it was the last one
 * of its throw, the throwing token goes on past its event; of a cancel end, the transaction is
 * left through its cancel boundary event.
 */
export async function handlerEnded(run: Run, step: Step, queue: Step[]): Promise<void> {
  const rows = await sql<{
    id: number;
    activity_id: string;
    parent_id: number | null;
    state: string;
    others: boolean;
  }>`with gone as (delete from wf_execution where id = ${step.executionId} returning parent_id)
    select e.id, e.activity_id, e.parent_id, e.state,
      exists (select 1 from wf_execution o where o.parent_id = e.id and o.id <> ${step.executionId}) as others
    from wf_execution e where e.id = (select parent_id from gone)`.execute(run.trx);
  const waiting = rows.rows[0];
  if (!waiting || waiting.others || waiting.state !== COMPENSATING) return;
  const node = run.graph.nodes[waiting.activity_id];
  if (!node) return;
  const waitingId = Number(waiting.id);
  if (node.isTransaction) {
    await leaveByCancel(run, waitingId, node, queue);
    return;
  }
  queue.push({
    executionId: waitingId,
    nodeId: node.id,
    parentId: waiting.parent_id === null ? null : Number(waiting.parent_id),
    compensated: true,
  });
}
