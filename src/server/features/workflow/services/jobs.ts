import { sql } from 'kysely';
import type { AppContext } from '../../../lib/context.js';
import type { DatabaseHandle, Db } from '../../../lib/db/database.js';
import { startListener, type Listener } from '../../../lib/db/listener.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { openRun } from './activity.js';
import { workflowNow } from './clock.js';
import { ExpressionError } from './expressions.js';
import { startIn } from './instances.js';
import {
  callAnswered,
  fireBoundary,
  fireEventSubProcess,
  incidentAtTask,
  moveOnFrom,
} from './interpreter.js';
import { SERVICE_CALL_CHANNEL } from './waits.js';
import type { ProcessNode } from './graph.js';
import { performCall, prepareCall, type PreparedCall } from './service-calls.js';
import {
  definitionGraph,
  insertTimerJobs,
  lockInstance,
  markInstanceLocked,
  readVariables,
} from './store.js';
import { nextOfCycle } from './elements/timers.js';
import { sqlTokens } from './tokens.js';
import { variablesAt } from './multi-instance.js';

/**
 * Jobs: boundary timers of user tasks (wf_job), timer start events (wf_start_timer), and the
 * calls of connector and mail tasks (wf_job kind 'serviceCall', service-calls.ts). Any server
 * process on the database may run them: a due job is taken with FOR UPDATE SKIP LOCKED, so of
 * several pollers exactly one runs it, and each timer runs in one transaction. A job that fails
 * is tried again later (after 1, 2, … minutes), at most MAX_ATTEMPTS times; its last error stays
 * on the row. A process's poller also wakes when a transaction that made a service call commits
 * (SERVICE_CALL_CHANNEL), so the call is made at once rather than at the next poll.
 */

const MAX_ATTEMPTS = 5;
const POLL_MS = 5_000;
/** Jobs one poll runs at most (the next poll goes on). */
const BATCH = 100;

/** Work done by the engine itself: not a user's. */
const systemActor = (tenantCode: string): Actor => ({ userId: null, username: 'system', tenantCode });

interface BoundaryJob {
  id: number;
  instance_id: number;
  execution_id: number | null;
  activity_id: string;
  due_at: Date;
  cycle: string | null;
  tenant_code: string;
  definition_id: number;
  name: string | null;
  steps: number;
  super_instance_id: number | null;
  super_execution_id: number | null;
}

interface StartJob {
  id: number;
  tenant_code: string;
  definition_id: number;
  due_at: Date;
  cycle: string | null;
  suspended: boolean;
}

type Outcome = 'none' | 'ran' | 'failed';

async function recordFailure(
  ctx: AppContext,
  table: 'wf_job' | 'wf_start_timer',
  id: number,
  error: unknown,
  now: Date,
): Promise<void> {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
  await sql`update ${sql.table(table)} set attempts = attempts + 1, last_error = ${message},
      due_at = ${now}::timestamptz + make_interval(mins => attempts + 1)
    where id = ${id}`.execute(ctx.db);
}

/**
 * A repeating timer about to fire (its job has a cycle) is due again at the cycle's next time.
 * The next job is set before the timer fires, in the same transaction, so that whatever the
 * firing ends (the token leaving, an interrupting event sub-process, the instance) removes it as
 * it removes the other timers; a cycle that is over sets none.
 */
async function repeatTimer({ trx, job, now }: { trx: Db; job: BoundaryJob; now: Date }): Promise<void> {
  if (!job.cycle) return;
  const next = nextOfCycle(job.cycle, new Date(job.due_at), now);
  if (!next) return;
  await insertTimerJobs(trx, [
    {
      tenantCode: job.tenant_code,
      instanceId: job.instance_id,
      executionId: job.execution_id,
      activityId: job.activity_id,
      dueAt: next.due,
      cycle: next.cycle,
    },
  ]);
}

/** Takes one due boundary timer (its instance locked with it, never waiting) and fires it. */
async function runOneBoundary(ctx: AppContext, now: Date): Promise<Outcome> {
  let taken: BoundaryJob | undefined;
  try {
    return await inTransaction(ctx.db, async (trx) => {
      const rows =
        await sql<BoundaryJob>`select j.id, j.instance_id, j.execution_id, j.activity_id, j.due_at, j.cycle, i.tenant_code,
          i.definition_id, i.name, i.steps, i.super_instance_id, i.super_execution_id
        from wf_job j join wf_instance i on i.id = j.instance_id
        where j.due_at <= ${now} and j.attempts < ${MAX_ATTEMPTS} and j.kind = 'boundaryTimer'
          and i.end_time is null and not i.suspended
        order by j.due_at, j.id limit 1
        for update of j, i skip locked`.execute(trx);
      taken = rows.rows[0];
      if (!taken) return 'none';
      const job = taken;
      await markInstanceLocked(trx, job.instance_id);
      const graph = await definitionGraph({ ctx, trx, definitionId: job.definition_id });
      const boundary = graph.nodes[job.activity_id];
      const executions = await sql<{
        id: number;
        activity_id: string;
        parent_id: number | null;
      }>`select id, activity_id, parent_id from wf_execution where id = ${job.execution_id}`.execute(trx);
      const execution = executions.rows[0];
      await sql`delete from wf_job where id = ${job.id}`.execute(trx);
      const instance = {
        id: job.instance_id,
        tenant_code: job.tenant_code,
        definition_id: job.definition_id,
        name: job.name,
        steps: job.steps,
        super_instance_id: job.super_instance_id,
        super_execution_id: job.super_execution_id,
      };
      const openJobRun = (): ReturnType<typeof openRun> =>
        // Past the step budget of a transaction, the instance stops in an incident (no one to answer).
        openRun({ ctx, trx, instance, graph, actor: systemActor(job.tenant_code), onStepBudget: 'incident' });
      // The timer start of an event sub-process: its scope is the instance (no token) or a
      // sub-process whose token must still stand there.
      if (boundary?.type === 'startEvent') {
        const scope = graph.nodes[graph.nodes[boundary.scope ?? '']?.scope ?? ''];
        if (job.execution_id !== null && (!execution || execution.activity_id !== scope?.id)) return 'ran';
        await repeatTimer({ trx, job, now });
        await fireEventSubProcess({ run: await openJobRun(), scopeId: job.execution_id, start: boundary });
        return 'ran';
      }
      // A token that has moved on (or gone) since: the timer is void.
      // A catch event waits at itself, or (after an event-based gateway) at the gateway.
      const isCatch = boundary?.type === 'intermediateCatchEvent';
      const waitsAt = isCatch ? (boundary.eventGateway ?? boundary.id) : boundary?.attachedTo;
      if (!boundary || !execution || execution.activity_id !== waitsAt) return 'ran';
      await repeatTimer({ trx, job, now });
      const run = await openJobRun();
      if (isCatch) await moveOnFrom({ run, execution, node: boundary });
      else await fireBoundary({ run, execution, boundary });
      return 'ran';
    });
  } catch (error) {
    if (!taken) throw error;
    await recordFailure(ctx, 'wf_job', taken.id, error, now);
    return 'failed';
  }
}

interface CallJob {
  id: number;
  instance_id: number;
  execution_id: number;
  activity_id: string;
  attempts: number;
  tenant_code: string;
  definition_id: number;
}

/** A taken service call: what to call, or why it cannot be made. */
type PreparedJob =
  { node: ProcessNode; scope: Record<string, unknown>; call: PreparedCall } | { error: string };

/** How long a taken service call is not offered again (its call's own budget is 10 s). */
const CALL_LEASE_MS = 60_000;

/** Whether the job's token still waits at its task (else the call is void: the token moved on). */
async function callStillWaited(
  trx: Db,
  job: CallJob,
): Promise<{ id: number; parent_id: number | null } | undefined> {
  const rows = await sql<{ id: number; parent_id: number | null }>`select e.id, e.parent_id
    from wf_execution e join wf_job j on j.execution_id = e.id and j.activity_id = e.activity_id
    where j.id = ${job.id} and e.state = 'waiting'
    for update of j`.execute(trx);
  const row = rows.rows[0];
  return row ? { id: Number(row.id), parent_id: row.parent_id } : undefined;
}

/**
 * Takes one due service call: reads it from the variables and leases it (one transaction), makes
 * it with no transaction open, then hands the answer to its token (another transaction, with the
 * instance locked). A token that moved on meanwhile (a boundary timer, a cancellation) makes the
 * answer void; a process that stops mid-call leaves the lease to expire, and the call is made again.
 */
async function runOneServiceCall(ctx: AppContext, now: Date): Promise<Outcome> {
  let taken: CallJob | undefined;
  try {
    const prepared = await inTransaction<PreparedJob | 'void' | undefined>(ctx.db, async (trx) => {
      const rows = await sql<CallJob>`select j.id, j.instance_id, j.execution_id, j.activity_id, j.attempts,
          i.tenant_code, i.definition_id
        from wf_job j join wf_instance i on i.id = j.instance_id
        where j.due_at <= ${now} and j.attempts < ${MAX_ATTEMPTS} and j.kind = 'serviceCall'
          and i.end_time is null and not i.suspended
        order by j.due_at, j.id limit 1
        for update of j skip locked`.execute(trx);
      taken = rows.rows[0];
      if (!taken) return undefined;
      const job = taken;
      if (!(await callStillWaited(trx, job))) {
        await sql`delete from wf_job where id = ${job.id}`.execute(trx);
        return 'void' as const;
      }
      // Leased from the clock's time now (a batch of slow calls may have run since `now`).
      const leaseEnds = new Date(workflowNow(ctx).getTime() + CALL_LEASE_MS);
      await sql`update wf_job set due_at = ${leaseEnds} where id = ${job.id}`.execute(trx);
      const graph = await definitionGraph({ ctx, trx, definitionId: job.definition_id });
      const node = graph.nodes[job.activity_id];
      if (!node) return { error: `the element ${job.activity_id} is not in the process` };
      const variables = await readVariables(trx, job.instance_id);
      const scope =
        job.execution_id === null
          ? variables
          : await variablesAt({
              graph,
              tokens: sqlTokens(trx, { tenantCode: job.tenant_code, instanceId: job.instance_id }),
              variables,
              executionId: job.execution_id,
              node,
            });
      try {
        return { node, scope, call: prepareCall(node, scope) };
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        return { error: error.message };
      }
    });
    const job = taken;
    if (!job || prepared === undefined) return 'none';
    if (prepared === 'void') return 'ran';
    let outcome: Parameters<typeof callAnswered>[0]['outcome'];
    if ('error' in prepared) outcome = prepared;
    else
      try {
        const where = prepared.node.name?.trim() || prepared.node.id;
        const answer = await performCall({ ctx, tenantCode: job.tenant_code, where, call: prepared.call });
        outcome = { answer, scope: prepared.scope };
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        outcome = { error: error.message };
      }
    await inTransaction(ctx.db, async (trx) => {
      const instances = await sql<{ id: number }>`select id from wf_instance where id = ${job.instance_id}
        for update`.execute(trx);
      // Deleted meanwhile: its jobs went with it.
      if (instances.rows.length === 0) return;
      const instance = await lockInstance({ trx, tenantCode: job.tenant_code, id: job.instance_id });
      const execution = await callStillWaited(trx, job);
      if (execution && instance.suspended && !instance.end_time) {
        // Suspended meanwhile: the answer is dropped and the call made again once it is activated.
        await sql`update wf_job set due_at = ${workflowNow(ctx)} where id = ${job.id}`.execute(trx);
        return;
      }
      await sql`delete from wf_job where id = ${job.id}`.execute(trx);
      if (!execution || instance.end_time) return;
      const graph = await definitionGraph({ ctx, trx, definitionId: instance.definition_id });
      const node = graph.nodes[job.activity_id];
      if (!node) return;
      const run = await openRun({
        ctx,
        trx,
        instance,
        graph,
        actor: systemActor(job.tenant_code),
        onStepBudget: 'incident',
      });
      await callAnswered({ run, execution, node, outcome });
    });
    return 'ran';
  } catch (error) {
    if (!taken) throw error;
    await recordFailure(ctx, 'wf_job', taken.id, error, now);
    if (taken.attempts + 1 >= MAX_ATTEMPTS) await giveUpCall(ctx, taken, error);
    return 'failed';
  }
}

/**
 * A call that failed MAX_ATTEMPTS times for a reason of the server's own (not the endpoint's or
 * the mail's, which are incidents at once): its token stops in an incident naming the last error,
 * which a retry clears, rather than waiting for a job no poller takes any more.
 */
async function giveUpCall(ctx: AppContext, job: CallJob, error: unknown): Promise<void> {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
  await inTransaction(ctx.db, async (trx) => {
    const instances = await sql<{ id: number }>`select id from wf_instance where id = ${job.instance_id}
      and end_time is null for update`.execute(trx);
    if (instances.rows.length === 0) return;
    const instance = await lockInstance({ trx, tenantCode: job.tenant_code, id: job.instance_id });
    const execution = await callStillWaited(trx, job);
    await sql`delete from wf_job where id = ${job.id}`.execute(trx);
    const graph = await definitionGraph({ ctx, trx, definitionId: instance.definition_id });
    const node = graph.nodes[job.activity_id];
    if (!execution || !node) return;
    const run = await openRun({ ctx, trx, instance, graph, actor: systemActor(job.tenant_code) });
    await incidentAtTask({
      run,
      execution,
      node,
      message: `the call failed ${MAX_ATTEMPTS} times: ${message}`,
    });
  });
}

/** Takes one due timer start: starts an instance (unless suspended) and schedules the next. */
async function runOneStart(ctx: AppContext, now: Date): Promise<Outcome> {
  let taken: StartJob | undefined;
  try {
    return await inTransaction(ctx.db, async (trx) => {
      const rows =
        await sql<StartJob>`select s.id, s.tenant_code, s.definition_id, s.due_at, s.cycle, d.suspended
        from wf_start_timer s join wf_definition d on d.id = s.definition_id
        where s.due_at <= ${now} and s.attempts < ${MAX_ATTEMPTS}
        order by s.due_at, s.id limit 1
        for update of s skip locked`.execute(trx);
      taken = rows.rows[0];
      if (!taken) return 'none';
      const job = taken;
      if (!job.suspended)
        await startIn({
          ctx,
          trx,
          actor: systemActor(job.tenant_code),
          startUser: null,
          input: { processDefinitionId: job.definition_id, description: '' },
          onStepBudget: 'incident',
        });
      const next = job.cycle ? nextOfCycle(job.cycle, new Date(job.due_at), now) : undefined;
      if (next)
        await sql`update wf_start_timer set due_at = ${next.due}, cycle = ${next.cycle}, attempts = 0, last_error = null
          where id = ${job.id}`.execute(trx);
      else await sql`delete from wf_start_timer where id = ${job.id}`.execute(trx);
      return 'ran';
    });
  } catch (error) {
    if (!taken) throw error;
    await recordFailure(ctx, 'wf_start_timer', taken.id, error, now);
    return 'failed';
  }
}

/**
 * Runs the jobs due by the workflow clock, each in its own transaction, until none is left (or
 * `limit` ran). Answers how many were taken (run or failed). Tests call it to run due jobs now.
 */
export async function runDueJobs(ctx: AppContext, limit = BATCH): Promise<number> {
  const now = workflowNow(ctx);
  let taken = 0;
  while (taken < limit) {
    const outcome =
      (await runOneBoundary(ctx, now)) !== 'none' || (await runOneServiceCall(ctx, now)) !== 'none'
        ? 'ran'
        : await runOneStart(ctx, now);
    if (outcome === 'none') break;
    taken += 1;
  }
  return taken;
}

/**
 * Runs the due service calls alone, each at the clock's time then (a call a step of another one
 * made is due at once), until none is left or `limit` ran: the calls a request caused, as a
 * poller makes them right after it. Answers how many were taken.
 */
export async function runDueCalls(ctx: AppContext, limit = BATCH): Promise<number> {
  let taken = 0;
  while (taken < limit && (await runOneServiceCall(ctx, workflowNow(ctx))) !== 'none') taken += 1;
  return taken;
}

export interface JobPoller {
  /** Stops polling and waits for a poll under way. */
  stop(): Promise<void>;
}

/**
 * Polls for due jobs every few seconds (every server process runs one; SKIP LOCKED shares the
 * work), and at once when a service call is made (SERVICE_CALL_CHANNEL, heard on the embedded
 * database itself or on a PostgreSQL connection of its own).
 */
export async function startJobPoller({
  ctx,
  database,
  onError,
}: {
  ctx: AppContext;
  database: DatabaseHandle;
  onError: (error: unknown) => void;
}): Promise<JobPoller> {
  let running: Promise<void> = Promise.resolve();
  let isStopped = false;
  let isQueued = false;
  const poll = (): void => {
    if (isQueued) return;
    isQueued = true;
    running = running.then(async () => {
      isQueued = false;
      if (isStopped) return;
      try {
        await runDueJobs(ctx);
      } catch (error) {
        onError(error);
      }
    });
  };
  const url = ctx.config.databaseUrl;
  let listener: Listener | undefined;
  if (database.kind === 'pglite' || !url) await database.listen(SERVICE_CALL_CHANNEL, poll);
  else
    listener = await startListener({
      url,
      channels: [SERVICE_CALL_CHANNEL],
      applicationName: 'ecobid-workflow-calls',
      onNotification: poll,
      // Calls made while it was down are found by the next poll.
      onListening: (isReconnect) => (isReconnect ? poll() : undefined),
    });
  const timer = setInterval(poll, POLL_MS);
  timer.unref();
  poll();
  return {
    stop: async () => {
      isStopped = true;
      clearInterval(timer);
      await listener?.close();
      await running;
    },
  };
}
