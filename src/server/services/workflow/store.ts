import { sql } from 'kysely';
import type { Db } from '../../lib/db/database.js';
import { AppError } from '../../lib/errors.js';
import type { ProcessGraph } from './graph.js';

/** Row access shared by the workflow services: locked reads, variables and history rows. */

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
}

/** The instance, locked for this transaction: every change of an instance goes through here. */
export async function lockInstance(trx: Db, tenantCode: string, id: number): Promise<InstanceRow> {
  const rows =
    await sql<InstanceRow>`select id, tenant_code, definition_id, process_key, name, status, suspended,
      start_username, end_time
    from wf_instance where id = ${id} and tenant_code = ${tenantCode} for update`.execute(trx);
  const row = rows.rows[0];
  if (!row) throw new AppError('notFound', { entity: 'processInstance', key: id });
  return row;
}

/** A running, active instance: 409 when it is suspended or has ended. */
export function assertRunning(instance: InstanceRow): void {
  if (instance.end_time) throw new AppError('wfInstanceEnded', { id: instance.id });
  if (instance.suspended) throw new AppError('wfInstanceSuspended', { id: instance.id });
}

/** A task of the tenant, locked (after its instance: instance first, then task, everywhere). */
export async function lockTask(
  trx: Db,
  tenantCode: string,
  id: number,
): Promise<{ task: TaskRow; instance: InstanceRow }> {
  const found = await sql<{ instance_id: number }>`select instance_id from wf_task
    where id = ${id} and tenant_code = ${tenantCode}`.execute(trx);
  const instanceId = found.rows[0]?.instance_id;
  if (instanceId === undefined) throw new AppError('notFound', { entity: 'task', key: id });
  const instance = await lockInstance(trx, tenantCode, instanceId);
  const rows =
    await sql<TaskRow>`select id, tenant_code, instance_id, execution_id, definition_id, activity_id, name,
      assignee, owner, delegation, form_key, status, end_time
    from wf_task where id = ${id} for update`.execute(trx);
  const task = rows.rows[0];
  if (!task) throw new AppError('notFound', { entity: 'task', key: id });
  return { task, instance };
}

export async function definitionGraph(trx: Db, definitionId: number): Promise<ProcessGraph> {
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

/** Sets variables of an instance (insert or replace), each change also kept in wf_hist_detail. */
export async function writeVariables(
  trx: Db,
  change: VariableChange,
  values: Record<string, unknown>,
): Promise<void> {
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return;
  const typed = entries.map(([name, value]) => ({
    name,
    type: typeOfValue(value),
    json: JSON.stringify(value),
  }));
  // One statement for the values, one for their history, however many variables.
  await sql`insert into wf_variable (tenant_code, instance_id, name, type, value, updated_at)
    values ${sql.join(typed.map((item) => sql`(${change.tenantCode}, ${change.instanceId}, ${item.name}, ${item.type}, ${item.json}::jsonb, now())`))}
    on conflict (instance_id, name) do update set type = excluded.type, value = excluded.value, updated_at = now()`.execute(
    trx,
  );
  await sql`insert into wf_hist_detail (tenant_code, instance_id, task_id, activity_id, name, type, value, username)
    values ${sql.join(
      typed.map(
        (item) =>
          sql`(${change.tenantCode}, ${change.instanceId}, ${change.taskId ?? null}, ${change.activityId ?? null}, ${item.name}, ${item.type}, ${item.json}::jsonb, ${change.username})`,
      ),
    )}`.execute(trx);
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
  },
): Promise<void> {
  await sql`insert into wf_comment (tenant_code, instance_id, task_id, username, action, message)
    values (${entry.tenantCode}, ${entry.instanceId}, ${entry.taskId}, ${entry.username}, ${entry.action}, ${entry.message})`.execute(
    trx,
  );
}
