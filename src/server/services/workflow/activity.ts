import { sql } from 'kysely';
import type { AppContext } from '../../lib/context.js';
import type { Db } from '../../lib/db/database.js';
import type { Actor } from '../../lib/sql/toolkit.js';
import { interpolate } from './expressions.js';
import type { ProcessGraph, ProcessNode } from './graph.js';
import { groupKey, notifyUsers, userIdsOf } from './people.js';
import { readVariables, writeVariables } from './store.js';

/**
 * What the interpreter does at one node: the run of an operation (its transaction, the
 * instance's graph and variables), history rows of activities, and the task of a user task.
 */

export interface Run {
  ctx: AppContext;
  trx: Db;
  tenantCode: string;
  instanceId: number;
  definitionId: number;
  instanceName: string | null;
  graph: ProcessGraph;
  actor: Actor;
  variables: Record<string, unknown>;
  /** Set once the instance has ended (terminate end, last token gone). */
  hasEnded: boolean;
}

/** What stopped a token at a gateway: the instance shows it until someone deals with it. */
export interface Incident {
  activityId: string;
  flowId: string | null;
  message: string;
}

export interface Step {
  executionId: number;
  nodeId: string;
}

export async function openRun(
  ctx: AppContext,
  trx: Db,
  instance: { id: number; tenant_code: string; definition_id: number; name: string | null },
  graph: ProcessGraph,
  actor: Actor,
): Promise<Run> {
  return {
    ctx,
    trx,
    tenantCode: instance.tenant_code,
    instanceId: instance.id,
    definitionId: instance.definition_id,
    instanceName: instance.name,
    graph,
    actor,
    variables: await readVariables(trx, instance.id),
    hasEnded: false,
  };
}

/** Sets variables for the rest of the run and in the rows. */
export async function setVariables(
  run: Run,
  values: Record<string, unknown>,
  where: { taskId?: number | null; activityId?: string | null } = {},
): Promise<void> {
  if (Object.keys(values).length === 0) return;
  await writeVariables(
    run.trx,
    { tenantCode: run.tenantCode, instanceId: run.instanceId, username: run.actor.username, ...where },
    values,
  );
  Object.assign(run.variables, values);
}

export async function historyStart(
  run: Run,
  step: Step,
  node: ProcessNode,
  extra: { assignee?: string | null; taskId?: number } = {},
): Promise<number> {
  const rows = await sql<{ id: number }>`insert into wf_hist_activity
      (tenant_code, instance_id, execution_id, activity_id, activity_name, activity_type, assignee, task_id, start_time)
    values (${run.tenantCode}, ${run.instanceId}, ${step.executionId}, ${node.id}, ${node.name ?? null}, ${node.type},
      ${extra.assignee ?? null}, ${extra.taskId ?? null}, now())
    returning id`.execute(run.trx);
  return rows.rows[0]?.id ?? 0;
}

/** An activity passed at once (events, gateways, service tasks). */
export async function historyPass(run: Run, step: Step, node: ProcessNode): Promise<void> {
  await sql`insert into wf_hist_activity
      (tenant_code, instance_id, execution_id, activity_id, activity_name, activity_type, start_time, end_time)
    values (${run.tenantCode}, ${run.instanceId}, ${step.executionId}, ${node.id}, ${node.name ?? null}, ${node.type},
      now(), now())`.execute(run.trx);
}

/** Ends the open history rows of a task's activity. */
export async function historyEndTask(run: Run, taskId: number, reason: string | null): Promise<void> {
  await sql`update wf_hist_activity set end_time = now(), end_reason = ${reason}
    where task_id = ${taskId} and end_time is null`.execute(run.trx);
}

export const asList = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value])
    .flatMap((item) =>
      typeof item === 'string' ? item.split(',') : item === null || item === undefined ? [] : [String(item)],
    )
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** Creates the task of a user task, with its candidates, and tells the people concerned. */
export async function createTask(
  run: Run,
  step: Step,
  node: ProcessNode,
  locals: Record<string, unknown> = {},
): Promise<void> {
  const value = (text: string): unknown => interpolate(text, { ...run.variables, ...locals });
  const assignee = node.assignee ? (asList(value(node.assignee))[0] ?? null) : null;
  const users = (node.candidateUsers ?? []).flatMap((text) => asList(value(text)));
  const groups = (node.candidateGroups ?? []).flatMap((text) => asList(value(text))).map(groupKey);
  const rows = await sql<{
    id: number;
  }>`insert into wf_task (tenant_code, instance_id, execution_id, definition_id,
      activity_id, name, description, assignee, form_key, status, start_time, claim_time)
    values (${run.tenantCode}, ${run.instanceId}, ${step.executionId}, ${run.definitionId}, ${node.id},
      ${node.name ?? node.id}, ${node.documentation ?? null}, ${assignee}, ${node.formKey ?? null},
      ${assignee ? 'assigned' : 'created'}, now(), null)
    returning id`.execute(run.trx);
  const taskId = rows.rows[0]?.id ?? 0;
  const links = [
    ...[...new Set(users)].map((user) => ({ user, group: null })),
    ...[...new Set(groups)].map((group) => ({ user: null, group })),
  ];
  for (const link of links) {
    await sql`insert into wf_identity_link (tenant_code, task_id, instance_id, user_name, group_key)
      values (${run.tenantCode}, ${taskId}, ${run.instanceId}, ${link.user}, ${link.group})`.execute(run.trx);
  }
  await historyStart(run, step, node, { assignee, taskId });
  const recipients = await userIdsOf(
    run.ctx,
    run.trx,
    run.tenantCode,
    assignee ? [assignee] : users,
    assignee ? [] : groups,
  );
  await notifyUsers(run.ctx, run.trx, run.actor, recipients, {
    title: `${node.name ?? node.id}`,
    content: `${run.instanceName ?? ''} #${run.instanceId}: ${node.name ?? node.id}`,
  });
}
