import { sql } from 'kysely';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { openRun, setVariables, type Run } from './activity.js';
import { workflowNow } from './clock.js';
import { evaluateCondition, ExpressionError } from './expressions.js';
import type { ProcessNode } from './graph.js';
import { errorAtTask, moveOnFrom, incidentAtTask } from './interpreter.js';
import { scopedVariables } from './multi-instance.js';
import { definitionGraph, lockInstance, readVariables } from './store.js';
import { sqlTokens } from './tokens.js';

/**
 * External tasks (Camunda's external-task pattern): a service task of camunda:type="external"
 * (or a foreign file's Java class, read as one whose topic is the class) leaves its token waiting
 * and a row in wf_external_task. A worker fetches and locks open tasks of its topics for a while
 * (FOR UPDATE SKIP LOCKED: two workers never get the same task), then completes one with
 * variables (the token goes on), reports a failure (retries left: it is offered again after the
 * retry timeout; none left: the instance stops in an incident an administrator retries), reports
 * a BPMN error (the task's error boundary event catches it), extends its lock, or gives it back. Every call is one transaction of the caller's tenant.
 */

export const EXTERNAL_BUDGETS = {
  /** Tasks one fetch may lock. */
  maxTasks: 100,
  /** Topics one fetch may name. */
  topics: 20,
  /** A lock's longest duration (ms): one hour. */
  lockMs: 3_600_000,
  /** The longest wait before a failed task is offered again (ms): one day. */
  retryTimeoutMs: 86_400_000,
  /** Retries a failure may leave. */
  retries: 1000,
} as const;

export interface FetchInput {
  workerId: string;
  maxTasks: number;
  topics: { topicName: string; lockDuration: number }[];
}

export interface ExternalTask {
  id: number;
  topicName: string;
  workerId: string | null;
  lockExpirationTime: string | null;
  processInstanceId: number;
  processDefinitionKey: string;
  activityId: string;
  retries: number | null;
  errorMessage: string | null;
  errorDetails: string | null;
  /** Its instance is suspended (its tasks are not fetched). */
  suspended: boolean;
  createTime: string;
}

export interface LockedTask extends ExternalTask {
  variables: Record<string, unknown>;
}

interface Row {
  id: number;
  topic: string;
  worker_id: string | null;
  lock_expires: Date | string | null;
  instance_id: number;
  process_key: string;
  activity_id: string;
  retries: number | null;
  error_message: string | null;
  error_details: string | null;
  suspended: boolean;
  created_at: Date | string;
  execution_id: number;
  parent_id: number | null;
}

const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();

function answerOf(row: Row): ExternalTask {
  return {
    id: Number(row.id),
    topicName: row.topic,
    workerId: row.worker_id,
    lockExpirationTime: iso(row.lock_expires),
    processInstanceId: Number(row.instance_id),
    processDefinitionKey: row.process_key,
    activityId: row.activity_id,
    retries: row.retries,
    errorMessage: row.error_message,
    errorDetails: row.error_details,
    suspended: row.suspended,
    createTime: iso(row.created_at) ?? '',
  };
}

/** Open tasks: their token still waits at their activity, in a running instance without an incident there. */
const OPEN = sql`e.activity_id = x.activity_id and e.state = 'waiting' and i.end_time is null`;

const COLUMNS = sql`x.id, x.topic, x.worker_id, x.lock_expires, x.instance_id, x.process_key, x.activity_id,
  x.retries, x.error_message, x.error_details, i.suspended, x.created_at, x.execution_id, e.parent_id`;

/**
 * Locks up to maxTasks open tasks of the topics for the worker: tasks nobody holds (or whose lock
 * expired), with retries left, of active instances; oldest first. Answers them with their
 * instance's variables.
 */
export async function fetchAndLock({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: FetchInput;
}): Promise<LockedTask[]> {
  return inTransaction(ctx.db, async (trx) => {
    const now = workflowNow(ctx);
    const locked: LockedTask[] = [];
    for (const topic of input.topics) {
      const left = input.maxTasks - locked.length;
      if (left <= 0) break;
      const until = new Date(now.getTime() + topic.lockDuration);
      const rows = await sql<Row>`with picked as (
          select x.id from wf_external_task x
            join wf_execution e on e.id = x.execution_id
            join wf_instance i on i.id = x.instance_id
          where x.tenant_code = ${actor.tenantCode} and x.topic = ${topic.topicName} and ${OPEN}
            and not i.suspended and (x.retries is null or x.retries > 0)
            and (x.lock_expires is null or x.lock_expires <= ${now})
          order by x.id
          limit ${left}
          for update of x skip locked),
        locked as (update wf_external_task x set worker_id = ${input.workerId}, lock_expires = ${until}
          from picked where x.id = picked.id returning x.*)
        select ${COLUMNS} from locked x
          join wf_execution e on e.id = x.execution_id
          join wf_instance i on i.id = x.instance_id
        order by x.id`.execute(trx);
      for (const row of rows.rows) {
        const instance = { tenantCode: actor.tenantCode, instanceId: Number(row.instance_id) };
        const variables = await readVariables(trx, instance.instanceId);
        // A task in a loop (one item of a multi-instance task, or in a loop's body) comes with
        // its item, loopCounter and the loop's counts, as its process reads them.
        const locals =
          row.parent_id === null ? {} : await sqlTokens(trx, instance).localsAbove(Number(row.execution_id));
        locked.push({ ...answerOf(row), variables: { ...variables, ...locals } });
      }
    }
    return locked;
  });
}

/** The open task of the tenant (404 when none), its row locked for this transaction. */
async function openTask(trx: Db, actor: Actor, id: number): Promise<Row> {
  const rows = await sql<Row>`select ${COLUMNS} from wf_external_task x
      join wf_execution e on e.id = x.execution_id
      join wf_instance i on i.id = x.instance_id
    where x.id = ${id} and x.tenant_code = ${actor.tenantCode} and ${OPEN}
    for update of x`.execute(trx);
  const row = rows.rows[0];
  if (!row) throw new AppError('wfExternalGone', { id });
  return row;
}

/** The task, held by this worker with a lock that has not expired (else 409). */
async function heldTask(ctx: AppContext, trx: Db, actor: Actor, id: number, workerId: string): Promise<Row> {
  const row = await openTask(trx, actor, id);
  const expires = row.lock_expires === null ? 0 : new Date(row.lock_expires).getTime();
  if (row.worker_id !== workerId || expires <= workflowNow(ctx).getTime())
    throw new AppError('wfExternalLocked', { id, workerId });
  return row;
}

/** Runs `work` on the task's instance (locked first), in a run of its own. */
async function onInstance(
  ctx: AppContext,
  trx: Db,
  actor: Actor,
  row: Row,
  work: (run: Run) => Promise<void>,
): Promise<void> {
  const instance = await lockInstance({ trx, tenantCode: actor.tenantCode, id: Number(row.instance_id) });
  if (instance.suspended) throw new AppError('wfInstanceSuspended', { id: instance.id });
  const graph = await definitionGraph({ ctx, trx, definitionId: instance.definition_id });
  const run = await openRun({ ctx, trx, instance, graph, actor });
  await work(run);
}

/** The worker completed the task: its variables are set and the token goes on (the row goes). */
export async function completeExternalTask({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: { id: number; workerId: string; variables?: Record<string, unknown> | undefined };
}): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const row = await heldTask(ctx, trx, actor, input.id, input.workerId);
    await onInstance(ctx, trx, actor, row, async (run) => {
      const node = run.graph.nodes[row.activity_id];
      if (!node) throw new AppError('wfExternalGone', { id: input.id });
      await setVariables({ run, values: input.variables ?? {}, activityId: node.id });
      const scope = await scopedVariables(run, Number(row.execution_id), node);
      const thrown = (node.service?.errorRules ?? []).find((rule) => ruleHolds(node, rule, scope));
      if (thrown) {
        await throwAtTask({ run, row, node, code: thrown.code, message: undefined });
        return;
      }
      await sql`delete from wf_external_task where id = ${row.id}`.execute(trx);
      await moveOnFrom({ run, execution: executionOf(row), node });
    });
  });
}

const executionOf = (row: Row): { id: number; parent_id: number | null } => ({
  id: Number(row.execution_id),
  parent_id: row.parent_id,
});

/** Whether an error rule of the task holds; one that cannot be evaluated refuses the completion. */
function ruleHolds(
  node: ProcessNode,
  rule: { expression: string },
  variables: Record<string, unknown>,
): boolean {
  try {
    return evaluateCondition(rule.expression, variables);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    throw new AppError('wfConditionFailed', {
      element: node.name?.trim() || node.id,
      message: error.message,
    });
  }
}

/**
 * A BPMN error at the task (errorAtTask): caught, the task's row goes; caught by none, the task
 * stays without retries and the token stops in an incident naming the error.
 */
async function throwAtTask({
  run,
  row,
  node,
  code,
  message,
}: {
  run: Run;
  row: Row;
  node: ProcessNode;
  code: string;
  message: string | undefined;
}): Promise<void> {
  if (await errorAtTask({ run, execution: executionOf(row), node, code })) {
    await sql`delete from wf_external_task where id = ${row.id}`.execute(run.trx);
    return;
  }
  const reason = `the error ${code}${message ? ` (${message})` : ''} reported at ${node.name?.trim() || node.id} is caught by no boundary event`;
  await sql`update wf_external_task set retries = 0, error_message = ${reason}, worker_id = null,
      lock_expires = null where id = ${row.id}`.execute(run.trx);
  await incidentAtTask({ run, execution: executionOf(row), node, message: reason });
}

/**
 * The worker reports a business error (Camunda's handleBpmnError): its variables are set and the
 * error is thrown at the task, for its error boundary events or its scopes' handlers to catch.
 */
export async function reportExternalError({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: {
    id: number;
    workerId: string;
    errorCode: string;
    errorMessage?: string | undefined;
    variables?: Record<string, unknown> | undefined;
  };
}): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const row = await heldTask(ctx, trx, actor, input.id, input.workerId);
    await onInstance(ctx, trx, actor, row, async (run) => {
      const node = run.graph.nodes[row.activity_id];
      if (!node) throw new AppError('wfExternalGone', { id: input.id });
      await setVariables({ run, values: input.variables ?? {}, activityId: node.id });
      await throwAtTask({ run, row, node, code: input.errorCode, message: input.errorMessage });
    });
  });
}

/**
 * The worker failed: the task keeps `retries` and its error; with retries left it is offered again
 * after retryTimeout (ms), with none the instance stops in an incident at the task.
 */
export async function failExternalTask({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: {
    id: number;
    workerId: string;
    errorMessage: string;
    errorDetails?: string | undefined;
    retries: number;
    retryTimeout?: number | undefined;
  };
}): Promise<ExternalTask> {
  return inTransaction(ctx.db, async (trx) => {
    const row = await heldTask(ctx, trx, actor, input.id, input.workerId);
    const again = input.retries > 0 ? new Date(workflowNow(ctx).getTime() + (input.retryTimeout ?? 0)) : null;
    await sql`update wf_external_task set retries = ${input.retries}, error_message = ${input.errorMessage},
        error_details = ${input.errorDetails ?? null}, worker_id = null, lock_expires = ${again}
      where id = ${row.id}`.execute(trx);
    if (input.retries === 0)
      await onInstance(ctx, trx, actor, row, async (run) => {
        const node = run.graph.nodes[row.activity_id];
        if (!node) throw new AppError('wfExternalGone', { id: input.id });
        await incidentAtTask({
          run,
          execution: { id: Number(row.execution_id), parent_id: row.parent_id },
          node,
          message: input.errorMessage,
        });
      });
    return answerOf({
      ...row,
      retries: input.retries,
      error_message: input.errorMessage,
      error_details: input.errorDetails ?? null,
      worker_id: null,
      lock_expires: again,
    });
  });
}

/** The worker needs longer: its lock now ends newDuration (ms) from now. */
export async function extendExternalLock({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: { id: number; workerId: string; newDuration: number };
}): Promise<ExternalTask> {
  return inTransaction(ctx.db, async (trx) => {
    const row = await heldTask(ctx, trx, actor, input.id, input.workerId);
    const until = new Date(workflowNow(ctx).getTime() + input.newDuration);
    await sql`update wf_external_task set lock_expires = ${until} where id = ${row.id}`.execute(trx);
    return answerOf({ ...row, lock_expires: until });
  });
}

/** Gives the task back (whoever holds it): any worker of its topic may fetch it at once. */
export async function unlockExternalTask({
  ctx,
  actor,
  id,
}: {
  ctx: AppContext;
  actor: Actor;
  id: number;
}): Promise<ExternalTask> {
  return inTransaction(ctx.db, async (trx) => {
    const row = await openTask(trx, actor, id);
    await sql`update wf_external_task set worker_id = null, lock_expires = null where id = ${row.id}`.execute(
      trx,
    );
    return answerOf({ ...row, worker_id: null, lock_expires: null });
  });
}

/** The open external tasks of the tenant (administrators), oldest first, paged. */
export async function queryExternalTasks({
  db,
  actor,
  params,
}: {
  db: Db;
  actor: Actor;
  params: {
    topicName?: string | undefined;
    processInstanceId?: number | undefined;
    workerId?: string | undefined;
    currentPage?: number | undefined;
    pageSize?: number | undefined;
  };
}): Promise<{
  records: ExternalTask[];
  total: number;
  totalExact: boolean;
  currentPage: number;
  pageSize: number;
}> {
  const pageSize = params.pageSize ?? 20;
  const currentPage = params.currentPage ?? 1;
  const where = sql`x.tenant_code = ${actor.tenantCode} and ${OPEN}
    ${params.topicName === undefined ? sql`` : sql`and x.topic = ${params.topicName}`}
    ${params.processInstanceId === undefined ? sql`` : sql`and x.instance_id = ${params.processInstanceId}`}
    ${params.workerId === undefined ? sql`` : sql`and x.worker_id = ${params.workerId}`}`;
  const from = sql`from wf_external_task x
    join wf_execution e on e.id = x.execution_id
    join wf_instance i on i.id = x.instance_id`;
  const rows = await sql<Row>`select ${COLUMNS} ${from} where ${where}
    order by x.id limit ${pageSize} offset ${(currentPage - 1) * pageSize}`.execute(db);
  const count = await sql<{ total: string }>`select count(*) as total ${from} where ${where}`.execute(db);
  return {
    records: rows.rows.map(answerOf),
    total: Number(count.rows[0]?.total ?? 0),
    totalExact: true,
    currentPage,
    pageSize,
  };
}
