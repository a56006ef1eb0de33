import { sql, type RawBuilder } from 'kysely';
import { PREPARED } from '../../../lib/db/prepared.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { BUDGETS } from '../../../lib/budgets.js';
import { AppError } from '../../../lib/errors.js';
import type { ProcessGraph } from './graph.js';

/** Row access shared by the workflow services: locked reads, variables and history rows. */

/** Whose rows a store of the workflow keeps: one instance of a tenant. */
export interface InstanceOf {
  tenantCode: string;
  instanceId: number;
}

export interface InstanceRow {
  id: number;
  tenant_code: string;
  definition_id: number;
  process_key: string;
  name: string | null;
  status: string;
  suspended: boolean;
  start_username: string | null;
  end_time: Date | null;
  /** Steps the instance has taken in its life (BUDGETS.workflow.stepsPerInstance). */
  steps: number;
  /** An instance started by a call activity: the calling instance and the token waiting there. */
  super_instance_id: number | null;
  super_execution_id: number | null;
}

export interface TaskRow {
  id: number;
  tenant_code: string;
  instance_id: number;
  execution_id: number | null;
  definition_id: number;
  activity_id: string;
  name: string | null;
  assignee: string | null;
  owner: string | null;
  delegation: string | null;
  form_key: string | null;
  status: string;
  end_time: Date | null;
  /** 加签: the task a signer's task was added to. */
  parent_task_id: number | null;
  /** 加签: before or after, on a task that waits for its signers. */
  sign_type: string | null;
}

const INSTANCE_COLUMNS = sql`id, tenant_code, definition_id, process_key, name, status, suspended, start_username, end_time, steps,
  super_instance_id, super_execution_id`;

/**
 * The instance, locked for this transaction: every change of an instance goes through here (or
 * through lockTask, or a timer job that locks it as well). Taking the lock bumps row_version:
 * whoever holds the lock has changed the row, which is how lockTask tells that what it read
 * before it had the lock is still what the last holder left.
 */
export async function lockInstance({
  trx,
  tenantCode,
  id,
}: {
  trx: Db;
  tenantCode: string;
  id: number;
}): Promise<InstanceRow> {
  const rows = await sql<InstanceRow>`update wf_instance set row_version = row_version + 1
    where id = ${id} and tenant_code = ${tenantCode} returning ${INSTANCE_COLUMNS}`.execute(trx);
  const row = rows.rows[0];
  if (!row) throw new AppError('notFound', { entity: 'processInstance', key: id });
  return row;
}

/** A timer job that took its instance's lock itself (SKIP LOCKED) marks it changed, as lockInstance does. */
export async function markInstanceLocked(trx: Db, id: number): Promise<void> {
  await sql`update wf_instance set row_version = row_version + 1 where id = ${id}`.execute(trx);
}

/** A running, active instance: 409 when it is suspended or has ended. */
export function assertRunning(instance: InstanceRow): void {
  if (instance.end_time) throw new AppError('wfInstanceEnded', { id: instance.id });
  if (instance.suspended) throw new AppError('wfInstanceSuspended', { id: instance.id });
}

const TASK_COLUMNS = sql`t.id, t.tenant_code, t.instance_id, t.execution_id, t.definition_id, t.activity_id,
  t.name, t.assignee, t.owner, t.delegation, t.form_key, t.status, t.end_time, t.parent_task_id, t.sign_type`;

type LockedTaskRow = TaskRow & { variables: Record<string, unknown> | null };

/**
 * A task of the tenant with its instance locked (instance first, then task, everywhere), and
 * the instance's variables when asked for: one statement in the common case. It takes the
 * instance's lock by bumping its row_version, and reads the task and the variables from the
 * statement's snapshot together with the row_version that snapshot saw. Every holder of an
 * instance's lock bumps row_version, so when the locked row's row_version is the seen one plus
 * this bump, nobody held the lock between the snapshot and now: the task and variables read are
 * what the last holder left. Otherwise (this one waited for another holder, or one committed just
 * before) they are read again, the task locked, after the lock: a second statement.
 *
 * The task is read by its id alone, in a materialized CTE (planned on its own), and the
 * instances by theirs: the statement is prepared, and PostgreSQL's generic plan for it, made once
 * per connection with the tables as they were then, must not depend on their size. With
 * `t.tenant_code = $2` beside `t.id = $1` in the join, a plan made while wf_task was nearly empty
 * (a new database, never analysed) read the task through wf_task_end_time_idx (tenant_code,
 * end_time): every task of the tenant, ended ones included, filtered by id, for as long as the
 * connection lived (no ANALYZE, no new plan); without the CTE it could start from the tenant's
 * instances instead. The tenant is the locked instance's (a task is its instance's tenant's), and
 * the task's is checked on the row read. Tests: workflow-lock-plan.test.ts.
 */
export async function lockTask({
  trx,
  tenantCode,
  id,
  withVariables = false,
}: {
  trx: Db;
  tenantCode: string;
  id: number;
  /** Read the instance's variables too. */
  withVariables?: boolean | undefined;
}): Promise<{ task: TaskRow; instance: InstanceRow; variables?: Record<string, unknown> }> {
  const variables = withVariables
    ? sql`(select coalesce(jsonb_object_agg(name, value), '{}'::jsonb) from wf_variable where instance_id = t.instance_id)`
    : sql`null`;
  const locked = await sql<
    InstanceRow & { is_current: boolean; task: LockedTaskRow }
  >`${PREPARED}with s as materialized (select ${TASK_COLUMNS}, ${variables} as variables from wf_task t
      where t.id = ${id})
    update wf_instance i set row_version = i.row_version + 1
    from (select to_jsonb(s) as task, s.instance_id, v.row_version as seen
      from s join wf_instance v on v.id = s.instance_id) t
    where i.id = t.instance_id and i.tenant_code = ${tenantCode}
    returning i.id, i.tenant_code, i.definition_id, i.process_key, i.name, i.status, i.suspended,
      i.start_username, i.end_time, i.steps, i.super_instance_id, i.super_execution_id,
      i.row_version = t.seen + 1 as is_current, t.task`.execute(trx);
  const first = locked.rows[0];
  if (!first) throw new AppError('notFound', { entity: 'task', key: id });
  const { is_current: isCurrent, task: seenTask, ...instance } = first;
  let row: LockedTaskRow | undefined = seenTask;
  if (!isCurrent) {
    const rows = await sql<LockedTaskRow>`${PREPARED}select ${TASK_COLUMNS}, ${variables} as variables
      from wf_task t where t.id = ${id} for update`.execute(trx);
    row = rows.rows[0];
  }
  // A task is its instance's tenant's; checked on the row all the same (the caller's transaction
  // is rolled back, the lock with it).
  if (!row || row.tenant_code !== tenantCode) throw new AppError('notFound', { entity: 'task', key: id });
  const { variables: values, ...task } = row;
  return {
    task: { ...task, end_time: task.end_time === null ? null : new Date(task.end_time) },
    instance,
    ...(values ? { variables: values } : {}),
  };
}

/**
 * Parsed graphs by definition id. A definition row's graph never changes after its deployment
 * (and ids are never reused), so every process can keep what it read: a start or a task action
 * reads no graph once the definition has run here. Bounded: the oldest entries go first.
 */
const cachedGraphs = new WeakMap<AppContext, Map<number, ProcessGraph>>();
const GRAPHS_KEPT = 500;

function graphsOf(ctx: AppContext): Map<number, ProcessGraph> {
  let graphs = cachedGraphs.get(ctx);
  if (!graphs) {
    graphs = new Map();
    cachedGraphs.set(ctx, graphs);
  }
  return graphs;
}

export function rememberGraph({
  ctx,
  definitionId,
  graph,
}: {
  ctx: AppContext;
  definitionId: number;
  graph: ProcessGraph;
}): ProcessGraph {
  const graphs = graphsOf(ctx);
  if (!graphs.has(definitionId) && graphs.size >= GRAPHS_KEPT) {
    const oldest = graphs.keys().next();
    if (!oldest.done) graphs.delete(oldest.value);
  }
  graphs.set(definitionId, graph);
  return graph;
}

export function knownGraph(ctx: AppContext, definitionId: number): ProcessGraph | undefined {
  return graphsOf(ctx).get(definitionId);
}

/** The graph of a definition, read once per process (see above). */
export async function definitionGraph({
  ctx,
  trx,
  definitionId,
}: {
  ctx: AppContext;
  trx: Db;
  definitionId: number;
}): Promise<ProcessGraph> {
  return (
    knownGraph(ctx, definitionId) ??
    rememberGraph({ ctx, definitionId, graph: await readGraph(trx, definitionId) })
  );
}

/** The graph of a definition, read from its row. */
export async function readGraph(trx: Db, definitionId: number): Promise<ProcessGraph> {
  const rows = await sql<{
    graph: ProcessGraph;
  }>`select graph from wf_definition where id = ${definitionId}`.execute(trx);
  const graph = rows.rows[0]?.graph;
  if (!graph) throw new Error(`definition ${definitionId} has no graph`);
  return graph;
}

export async function readVariables(trx: Db, instanceId: number): Promise<Record<string, unknown>> {
  const rows = await sql<{ name: string; value: unknown }>`select name, value from wf_variable
    where instance_id = ${instanceId}`.execute(trx);
  return Object.fromEntries(rows.rows.map((row) => [row.name, row.value]));
}

/** Bytes of a value as the variable row keeps it (JSON, UTF-8). */
export const variableBytes = (json: string): number => Buffer.byteLength(json, 'utf8');

/** The first of the values whose JSON is over the budget of one variable, or undefined. */
export function oversizedVariable(values: Record<string, unknown>): string | undefined {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (variableBytes(JSON.stringify(value)) > BUDGETS.workflow.variableBytes) return name;
  }
  return undefined;
}

export const VARIABLE_LIMIT_KB = BUDGETS.workflow.variableBytes / 1024;

export const typeOfValue = (value: unknown): string => {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'double';
  return typeof value;
};

export interface VariableChange {
  tenantCode: string;
  instanceId: number;
  taskId?: number | null;
  activityId?: string | null;
  username: string | null;
}

/**
 * The parts (CTEs of one statement) that set variables of an instance (insert or replace), each
 * change also kept in wf_hist_detail; none when there is nothing to set. A value over the budget
 * of one variable is refused (400 naming it).
 */
export function variableParts(
  change: VariableChange,
  values: Record<string, unknown>,
): RawBuilder<unknown>[] {
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return [];
  const typed = entries.map(([name, value]) => ({
    name,
    type: typeOfValue(value),
    json: JSON.stringify(value),
  }));
  const oversized = typed.find((item) => variableBytes(item.json) > BUDGETS.workflow.variableBytes);
  if (oversized)
    throw new AppError('wfVariableTooLarge', { name: oversized.name, limitKb: VARIABLE_LIMIT_KB });
  return [
    sql`variables as (insert into wf_variable (tenant_code, instance_id, name, type, value, updated_at)
      values ${sql.join(typed.map((item) => sql`(${change.tenantCode}, ${change.instanceId}, ${item.name}, ${item.type}, ${item.json}::jsonb, now())`))}
      on conflict (instance_id, name) do update set type = excluded.type, value = excluded.value, updated_at = now())`,
    sql`variable_history as (insert into wf_hist_detail (tenant_code, instance_id, task_id, activity_id, name, type, value, username)
      values ${sql.join(
        typed.map(
          (item) =>
            sql`(${change.tenantCode}, ${change.instanceId}, ${change.taskId ?? null}, ${change.activityId ?? null}, ${item.name}, ${item.type}, ${item.json}::jsonb, ${change.username})`,
        ),
      )})`,
  ];
}

/** Sets variables of an instance (insert or replace), each change also kept in wf_hist_detail: one statement. */
export async function writeVariables({
  trx,
  change,
  values,
}: {
  trx: Db;
  change: VariableChange;
  values: Record<string, unknown>;
}): Promise<void> {
  const parts = variableParts(change, values);
  if (parts.length === 0) return;
  await sql`with ${sql.join(parts)} select 1`.execute(trx);
}

export async function addComment(
  trx: Db,
  entry: {
    tenantCode: string;
    instanceId: number;
    taskId: number | null;
    username: string;
    action: string;
    message: string;
    /** Whom the action gave the task to (a transfer's new assignee). */
    target?: string | null;
  },
): Promise<void> {
  await sql`insert into wf_comment (tenant_code, instance_id, task_id, username, action, message, target)
    values (${entry.tenantCode}, ${entry.instanceId}, ${entry.taskId}, ${entry.username}, ${entry.action}, ${entry.message}, ${entry.target ?? null})`.execute(
    trx,
  );
}

/** A timer of an instance: a boundary event's, a catch's or an event sub-process start's. */
export interface Timer {
  /** The token it is attached to; null for an event sub-process of the process itself. */
  executionId: number | null;
  activityId: string;
  dueAt: Date;
  /** The cycle it repeats by (elements/timers.ts repeatingCycle); null fires once. */
  cycle: string | null;
}

/** A timer as its job (wf_job, kind boundaryTimer): of an instance of a tenant. */
export interface TimerJob extends Timer {
  tenantCode: string;
  instanceId: number;
}

/** Sets timer jobs, in one statement. */
export async function insertTimerJobs(trx: Db, jobs: TimerJob[]): Promise<void> {
  if (jobs.length === 0) return;
  const rows = jobs.map(
    (job) =>
      sql`(${job.tenantCode}, ${job.instanceId}, ${job.executionId}::bigint, ${job.activityId}, 'boundaryTimer', ${job.dueAt}, ${job.cycle}::text)`,
  );
  await sql`insert into wf_job (tenant_code, instance_id, execution_id, activity_id, kind, due_at, cycle)
    values ${sql.join(rows)}`.execute(trx);
}
