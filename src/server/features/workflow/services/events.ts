import { sql } from 'kysely';
import type { WfCorrelated } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { BUDGETS } from '../../../lib/budgets.js';
import { AppError } from '../../../lib/errors.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { openRun, setVariables, type Run } from './activity.js';
import { catchUpSteps } from './budget.js';
import { installCrossInstance } from './cross-instance.js';
import { startIn } from './instances.js';
import {
  calledInstanceEnded,
  deliverEvent,
  endInstance,
  thrownByCalled,
  type Delivery,
} from './interpreter.js';
import type { Thrown, ThrowOutcome } from './activity.js';
import { definitionGraph, lockInstance, readVariables } from './store.js';

/**
 * Messages and signals (BPMN's events between instances). A token waiting for one has a row in
 * wf_event_subscription (interpreter.ts subscribe); a message is correlated by name (and
 * business key or instance) to exactly one waiting token or message start event, or to all of
 * them when asked; a signal reaches every token of the tenant waiting for it and starts every
 * process with a signal start event of its name. Everything one call does is one transaction,
 * within the step budget of one transaction (budget.ts) and at most BUDGETS.workflow.eventsPerCall
 * deliveries.
 */

interface Waiting {
  instance_id: number;
  execution_id: number | null;
  parent_id: number | null;
  waits_at: string;
  activity_id: string;
}

interface EventStart {
  id: number;
  start_id: string;
}

/**
 * Tokens of the tenant waiting for the event: their subscription rows whose token still stands
 * where it subscribed, in running, active instances; oldest first, one more than the budget at most.
 */
async function waitingFor({
  trx,
  tenantCode,
  kind,
  name,
  instanceId,
  businessKey,
  notInstances = [],
}: {
  trx: Db;
  tenantCode: string;
  kind: 'message' | 'signal';
  name: string;
  instanceId?: number | undefined;
  businessKey?: string | undefined;
  notInstances?: number[];
}): Promise<Waiting[]> {
  const rows = await sql<Waiting>`select s.instance_id, s.execution_id, e.parent_id, s.waits_at, s.activity_id
    from wf_event_subscription s
      left join wf_execution e on e.id = s.execution_id
      join wf_instance i on i.id = s.instance_id
    where s.tenant_code = ${tenantCode} and s.kind = ${kind} and s.name = ${name}
      and i.end_time is null and not i.suspended
      and (s.execution_id is null
        or (e.activity_id = s.waits_at and e.state in ('active', 'waiting', 'scope', 'loop')))
      ${instanceId === undefined ? sql`` : sql`and s.instance_id = ${instanceId}`}
      ${businessKey === undefined ? sql`` : sql`and i.business_key = ${businessKey}`}
      ${notInstances.length === 0 ? sql`` : sql`and s.instance_id not in (${sql.join(notInstances)})`}
    order by s.id
    limit ${BUDGETS.workflow.eventsPerCall + 1}`.execute(trx);
  return rows.rows;
}

/** The latest, active definitions of the tenant with a start event for the message or signal. */
async function eventStarts({
  trx,
  tenantCode,
  kind,
  name,
}: {
  trx: Db;
  tenantCode: string;
  kind: 'message' | 'signal';
  name: string;
}): Promise<EventStart[]> {
  const starts = kind === 'message' ? 'messageStarts' : 'signalStarts';
  const rows = await sql<EventStart>`select d.id, d.graph -> ${starts}::text ->> ${name}::text as start_id
    from wf_definition d
    where d.tenant_code = ${tenantCode} and not d.suspended
      and (d.graph -> ${starts}::text ->> ${name}::text) is not null
      and d.version = (select max(x.version) from wf_definition x
        where x.tenant_code = d.tenant_code and x.process_key = d.process_key)
    order by d.id
    limit ${BUDGETS.workflow.eventsPerCall + 1}`.execute(trx);
  return rows.rows;
}

/** Runs the deliveries of one instance (locked first) in a run of its own, counting on the transaction's steps. */
async function deliverTo({
  ctx,
  trx,
  actor,
  instanceId,
  deliveries,
  variables,
  onStepBudget,
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  instanceId: number;
  deliveries: Delivery[];
  variables?: Record<string, unknown> | undefined;
  onStepBudget: Run['onStepBudget'];
}): Promise<void> {
  const instance = await lockInstance({ trx, tenantCode: actor.tenantCode, id: instanceId });
  if (instance.end_time || instance.suspended) return;
  const graph = await definitionGraph({ ctx, trx, definitionId: instance.definition_id });
  const run = await openRun({ ctx, trx, instance, graph, actor, onStepBudget });
  if (variables) await setVariables({ run, values: variables });
  await deliverEvent(run, deliveries);
}

/** The waiting rows grouped by instance, in the order of their first row. */
function byInstance(rows: Waiting[]): Map<number, Delivery[]> {
  const groups = new Map<number, Delivery[]>();
  for (const row of rows) {
    const list = groups.get(row.instance_id) ?? [];
    list.push({
      executionId: row.execution_id,
      parentId: row.parent_id,
      waitsAt: row.waits_at,
      catchId: row.activity_id,
    });
    groups.set(row.instance_id, list);
  }
  return groups;
}

/**
 * Instances a run of this transaction is running now (further up the call stack): a broadcast or
 * a called instance's end does not enter them again.
 */
const busyInTransaction = new WeakMap<object, Set<number>>();

function busyOf(trx: Db): Set<number> {
  let busy = busyInTransaction.get(trx);
  if (!busy) {
    busy = new Set();
    busyInTransaction.set(trx, busy);
  }
  return busy;
}

/** Runs `work` with the instance marked as running in the transaction (unless it already was). */
async function whileBusy<T>(trx: Db, instanceId: number, work: () => Promise<T>): Promise<T> {
  const busy = busyOf(trx);
  const wasBusy = busy.has(instanceId);
  busy.add(instanceId);
  try {
    return await work();
  } finally {
    if (!wasBusy) busy.delete(instanceId);
  }
}

/**
 * A signal thrown in an instance reaches beyond it (interpreter.ts throwSignal has released its
 * own catches): the other instances of the tenant waiting for it, and the processes it starts.
 * Runs in the thrower's transaction and step budget; an instance already run by this transaction
 * (the thrower, or one the same broadcast reached) is not entered again.
 */
export async function broadcastSignal({ run, signalName }: { run: Run; signalName: string }): Promise<void> {
  await whileBusy(run.trx, run.instanceId, () =>
    reachSignal({
      ctx: run.ctx,
      trx: run.trx,
      actor: run.actor,
      signalName,
      busy: busyOf(run.trx),
      onStepBudget: run.onStepBudget,
    }),
  );
  catchUpSteps(run);
}

async function reachSignal({
  ctx,
  trx,
  actor,
  signalName,
  busy,
  variables,
  onStepBudget,
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  signalName: string;
  busy: Set<number>;
  variables?: Record<string, unknown> | undefined;
  onStepBudget: Run['onStepBudget'];
}): Promise<{ instances: number[]; started: number[] }> {
  const waiting = await waitingFor({
    trx,
    tenantCode: actor.tenantCode,
    kind: 'signal',
    name: signalName,
    notInstances: [...busy],
  });
  const starts = await eventStarts({ trx, tenantCode: actor.tenantCode, kind: 'signal', name: signalName });
  if (waiting.length + starts.length > BUDGETS.workflow.eventsPerCall)
    throw new AppError('wfEventBudget', { name: signalName, limit: BUDGETS.workflow.eventsPerCall });
  const instances: number[] = [];
  for (const [instanceId, deliveries] of byInstance(waiting)) {
    if (busy.has(instanceId)) continue;
    instances.push(instanceId);
    await whileBusy(trx, instanceId, () =>
      deliverTo({ ctx, trx, actor, instanceId, deliveries, variables, onStepBudget }),
    );
  }
  const started: number[] = [];
  for (const start of starts) {
    const instance = await startIn({
      ctx,
      trx,
      actor,
      startUser: null,
      input: { processDefinitionId: start.id, description: '', variables },
      onStepBudget,
      startEventId: start.start_id,
    });
    started.push(instance.id);
  }
  return { instances, started };
}

export interface MessageInput {
  messageName: string;
  /** Only tokens of the instance with this business key (and, for a start, the new instance's key). */
  businessKey?: string | undefined;
  /** Only tokens of this instance (no start). */
  processInstanceId?: number | undefined;
  /** Set on each instance reached (or started) before its token goes on. */
  variables?: Record<string, unknown> | undefined;
  /** Reach every waiting token and start event that matches (else exactly one must). */
  all?: boolean | undefined;
}

/**
 * Correlates a message (POST …/message): the tokens of the tenant waiting for it (a message catch
 * event, a receive task, a message boundary event, an event-based gateway) and the latest
 * versions of the processes with a message start event of its name, narrowed by instance or
 * business key. None: 404. Several without `all`: 409 (nothing done). In one transaction.
 */
export async function correlateMessage({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: MessageInput;
}): Promise<WfCorrelated> {
  return inTransaction(ctx.db, async (trx) => {
    const name = input.messageName;
    const waiting = await waitingFor({
      trx,
      tenantCode: actor.tenantCode,
      kind: 'message',
      name,
      instanceId: input.processInstanceId,
      businessKey: input.businessKey,
    });
    // A message names a started instance (its id) or starts a new one: not both.
    const starts =
      input.processInstanceId === undefined
        ? await eventStarts({ trx, tenantCode: actor.tenantCode, kind: 'message', name })
        : [];
    const found = waiting.length + starts.length;
    const limit = BUDGETS.workflow.eventsPerCall;
    if (found > limit) throw new AppError('wfEventBudget', { name, limit });
    if (found === 0) throw new AppError('wfMessageNoMatch', { name });
    if (found > 1 && input.all !== true) throw new AppError('wfMessageAmbiguous', { name, count: found });
    const reached: number[] = [];
    for (const [instanceId, deliveries] of byInstance(waiting)) {
      reached.push(instanceId);
      await whileBusy(trx, instanceId, () =>
        deliverTo({
          ctx,
          trx,
          actor,
          instanceId,
          deliveries,
          variables: input.variables,
          onStepBudget: 'refuse',
        }),
      );
    }
    const started: number[] = [];
    for (const start of starts) {
      const instance = await startIn({
        ctx,
        trx,
        actor,
        startUser: actor.userId === null ? null : { userId: actor.userId, username: actor.username },
        input: {
          processDefinitionId: start.id,
          businessKey: input.businessKey,
          description: name,
          variables: input.variables,
        },
        startEventId: start.start_id,
      });
      started.push(instance.id);
    }
    return { processInstanceIds: reached, startedInstanceIds: started };
  });
}

/**
 * Throws a signal from outside (POST …/signal): every token of the tenant waiting for it goes
 * on (catch events, signal boundary events, event-based gateways) and every process with a signal
 * start event of its name starts; nobody waiting is no error (a broadcast). In one transaction.
 */
export async function throwSignalFromOutside({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: { signalName: string; variables?: Record<string, unknown> | undefined };
}): Promise<WfCorrelated> {
  return inTransaction(ctx.db, async (trx) => {
    const outcome = await reachSignal({
      ctx,
      trx,
      actor,
      signalName: input.signalName,
      busy: busyOf(trx),
      variables: input.variables,
      onStepBudget: 'refuse',
    });
    return { processInstanceIds: outcome.instances, startedInstanceIds: outcome.started };
  });
}

/**
 * A call activity starts the latest version of the process `key` in the caller's transaction
 * (interpreter.ts callProcess): answers the new instance, whether it ended at once and then its
 * variables; undefined when no such process is deployed in the tenant.
 */
export async function startCalled({
  run,
  key,
  executionId,
  variables,
  withBusinessKey = false,
  businessKey: given,
}: {
  run: Run;
  key: string;
  executionId: number;
  variables: Record<string, unknown>;
  withBusinessKey?: boolean;
  businessKey?: string;
}): Promise<{ id: number; ended: boolean; variables: Record<string, unknown> } | undefined> {
  const businessKey =
    given !== undefined
      ? given || undefined
      : withBusinessKey
        ? ((
            await sql<{
              key: string | null;
            }>`select business_key as key from wf_instance where id = ${run.instanceId}`.execute(run.trx)
          ).rows[0]?.key ?? undefined)
        : undefined;
  try {
    // The caller is running: the called instance, ending at once, does not enter it again.
    const started = await whileBusy(run.trx, run.instanceId, () =>
      startIn({
        ctx: run.ctx,
        trx: run.trx,
        actor: run.actor,
        startUser: null,
        input: { processDefinitionKey: key, description: run.instanceName ?? key, variables, businessKey },
        onStepBudget: run.onStepBudget,
        caller: { instanceId: run.instanceId, executionId },
      }),
    );
    catchUpSteps(run);
    return {
      id: started.id,
      ended: started.ended,
      variables: started.ended ? await readVariables(run.trx, started.id) : {},
    };
  } catch (error) {
    if (error instanceof AppError && error.code === 'notFound') return undefined;
    throw error;
  }
}

/**
 * An instance a call activity started has ended: its caller (locked) goes on from the call
 * activity with the variables mapped out, in the same transaction. Not when the caller is the
 * one running now (it started this instance and sees it end), or has ended.
 */
export async function resumeCaller(run: Run): Promise<void> {
  const caller = run.caller;
  if (!caller) return;
  const busy = busyOf(run.trx);
  if (busy.has(caller.instanceId)) return;
  const instance = await lockInstance({ trx: run.trx, tenantCode: run.tenantCode, id: caller.instanceId });
  if (instance.end_time || instance.suspended) return;
  const graph = await definitionGraph({ ctx: run.ctx, trx: run.trx, definitionId: instance.definition_id });
  await whileBusy(run.trx, caller.instanceId, async () => {
    const callerRun = await openRun({
      ctx: run.ctx,
      trx: run.trx,
      instance,
      graph,
      actor: run.actor,
      onStepBudget: run.onStepBudget,
    });
    await calledInstanceEnded({ run: callerRun, executionId: caller.executionId, variables: run.variables });
  });
  catchUpSteps(run);
}

/**
 * A called instance threw an error or escalation it does not catch itself: its caller (locked)
 * handles it at the call activity, in the same transaction (interpreter.ts thrownByCalled).
 * Not when the caller is running now (it is still starting this instance: the throw stays
 * uncaught), or has ended or is suspended. Answers how the throw ended.
 */
export async function throwToCaller({ run, thrown }: { run: Run; thrown: Thrown }): Promise<ThrowOutcome> {
  const caller = run.caller;
  if (!caller) return 'none';
  if (busyOf(run.trx).has(caller.instanceId)) return 'unheard';
  const instance = await lockInstance({ trx: run.trx, tenantCode: run.tenantCode, id: caller.instanceId });
  if (instance.end_time || instance.suspended) return 'unheard';
  const graph = await definitionGraph({ ctx: run.ctx, trx: run.trx, definitionId: instance.definition_id });
  const outcome = await whileBusy(run.trx, caller.instanceId, async () => {
    const callerRun = await openRun({
      ctx: run.ctx,
      trx: run.trx,
      instance,
      graph,
      actor: run.actor,
      onStepBudget: run.onStepBudget,
    });
    return thrownByCalled({ run: callerRun, executionId: caller.executionId, thrown });
  });
  catchUpSteps(run);
  return outcome;
}

/**
 * The running instances this one's call activities started whose calling token has gone (the
 * caller ended, a boundary event or terminate end took it): they end too, as terminated, each
 * with the instances it called.
 */
export async function endOrphanedCalls(run: Run): Promise<void> {
  const rows = await sql<{ id: number }>`select c.id from wf_instance c
    where c.super_instance_id = ${run.instanceId} and c.end_time is null
      and not exists (select 1 from wf_execution e where e.id = c.super_execution_id and e.state = 'waiting'
        and e.activity_id in (${sql.join(
          Object.values(run.graph.nodes)
            .filter((node) => node.type === 'callActivity')
            .map((node) => node.id),
        )}))
    order by c.id`.execute(run.trx);
  for (const row of rows.rows) {
    const instance = await lockInstance({ trx: run.trx, tenantCode: run.tenantCode, id: row.id });
    const graph = await definitionGraph({ ctx: run.ctx, trx: run.trx, definitionId: instance.definition_id });
    const called = await openRun({ ctx: run.ctx, trx: run.trx, instance, graph, actor: run.actor });
    delete called.caller;
    await endInstance({ run: called, status: 'terminated', reason: 'callerEnded' });
  }
}

installCrossInstance({ broadcastSignal, startCalled, resumeCaller, throwToCaller, endOrphanedCalls });
