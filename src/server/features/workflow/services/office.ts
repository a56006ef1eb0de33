import { sql } from 'kysely';
import type {
  WfDiagram,
  WfExecution,
  WfInstance,
  WfOpenCounts,
  WfTask,
} from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { openRun } from './activity.js';
import { eventWaitsAt, type ProcessGraph } from './graph.js';
import { endInstance } from './interpreter.js';
import { userExists, type Candidate } from './people.js';
import { instanceById, taskById } from './queries.js';
import { taskAssigned } from './tasks.js';
import { addComment, assertRunning, definitionGraph, lockInstance, lockTask, readGraph } from './store.js';

/**
 * What the workflow screens need beyond the engine's contract: the open-task counts of the
 * badges, withdrawing an instance, an instance's diagram with its progress, the administrators'
 * assign, and an instance's executions.
 */

export async function countOpenTasks({
  db,
  tenantCode,
  who,
}: {
  db: Db;
  tenantCode: string;
  who: Candidate;
}): Promise<WfOpenCounts> {
  const groups = who.groups.length > 0 ? who.groups : [''];
  const rows = await sql<WfOpenCounts>`select
      count(*) filter (where t.assignee = ${who.username})::int as personal,
      count(*) filter (where t.assignee is null and exists (select 1 from wf_identity_link l where l.task_id = t.id
        and (l.user_name = ${who.username} or l.group_key in (${sql.join(groups)}))))::int as candidate
    from wf_task t where t.tenant_code = ${tenantCode} and t.end_time is null`.execute(db);
  return rows.rows[0] ?? { personal: 0, candidate: 0 };
}

/**
 * The starter takes their instance back while nobody has acted on it yet: no task finished or
 * commented, none claimed or delegated. It ends with status withdrawn.
 */
export async function withdrawInstance({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: { id: number; comment?: string | undefined };
}): Promise<WfInstance> {
  await inTransaction(ctx.db, async (trx) => {
    const instance = await lockInstance({ trx, tenantCode: actor.tenantCode, id: input.id });
    if (instance.start_username !== actor.username) throw new AppError('wfNotStarter', { id: input.id });
    assertRunning(instance);
    // The starter's own first task (assigned by ${initiator}) does not count as "touched".
    const touched = await sql`select 1 from wf_task t where t.instance_id = ${input.id}
        and (t.end_time is not null or t.delegation is not null or t.claim_time is not null
          or exists (select 1 from wf_comment c where c.instance_id = t.instance_id and c.task_id = t.id))
      limit 1`.execute(trx);
    if (touched.rows.length > 0) throw new AppError('wfWithdrawLate', { id: input.id });
    const run = await openRun({
      ctx,
      trx,
      instance,
      graph: await definitionGraph({ ctx, trx, definitionId: instance.definition_id }),
      actor,
    });
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: input.id,
      taskId: null,
      username: actor.username,
      action: 'withdraw',
      message: input.comment ?? '',
    });
    await endInstance({ run, status: 'withdrawn', reason: 'withdrawn' });
  });
  return instanceById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}

interface HistoryStep {
  id: number;
  executionId: number | null;
  activityId: string;
  ended: boolean;
}

/**
 * The flows an instance went along, from its tokens' paths (the history rows in the order they
 * were written; all rows of a transaction share one time, so times cannot tell): an activity
 * entered right after its token left the source of one of its incoming flows took that flow;
 * an activity a token entered first (after a fork) or a join took the flow from the source left
 * last before it (every such source for a join). A token moved without a flow (regress, reject,
 * retry elsewhere) marks nothing, and neither does a flow after a gateway that was not taken.
 */
export function takenFlows(graph: ProcessGraph, history: readonly HistoryStep[]): string[] {
  const incoming = new Map<string, { id: string; source: string }[]>();
  for (const [flowId, item] of Object.entries(graph.flows))
    incoming.set(item.target, [...(incoming.get(item.target) ?? []), { id: flowId, source: item.source }]);
  const taken = new Set<string>();
  const lastOfToken = new Map<number, HistoryStep>();
  /** The latest row (by order) of each activity seen so far. */
  const lastOf = new Map<string, number>();
  for (const step of history) {
    const flowsIn = incoming.get(step.activityId) ?? [];
    const previous = step.executionId === null ? undefined : lastOfToken.get(step.executionId);
    const node = graph.nodes[step.activityId];
    const isJoin =
      flowsIn.length > 1 && (node?.type === 'parallelGateway' || node?.type === 'inclusiveGateway');
    const direct = previous && flowsIn.find((item) => item.source === previous.activityId);
    if (isJoin) {
      for (const item of flowsIn) if (lastOf.has(item.source)) taken.add(item.id);
    } else if (direct) taken.add(direct.id);
    else if (!previous) {
      let best: { id: string; order: number } | undefined;
      for (const item of flowsIn) {
        const order = lastOf.get(item.source);
        if (order !== undefined && (!best || order > best.order)) best = { id: item.id, order };
      }
      if (best) taken.add(best.id);
    }
    if (step.executionId !== null) lastOfToken.set(step.executionId, step);
    lastOf.set(step.activityId, step.id);
  }
  return [...taken];
}

/**
 * An instance's BPMN file with its progress; the flows taken are read from the tokens' paths
 * (takenFlows).
 */
export async function instanceDiagram({
  db,
  tenantCode,
  id,
}: {
  db: Db;
  tenantCode: string;
  id: number;
}): Promise<WfDiagram> {
  const instance = await instanceById({ db, tenantCode, id });
  const [file, history, tokens, graph] = await Promise.all([
    sql<{ resourceName: string; xml: string }>`select d.resource_name as "resourceName", p.xml
      from wf_definition d join wf_deployment p on p.id = d.deployment_id where d.id = ${instance.processDefinitionId}`.execute(
      db,
    ),
    sql<HistoryStep & { endReason: string | null }>`select id, execution_id as "executionId",
        activity_id as "activityId", end_time is not null as "ended", end_reason as "endReason"
      from wf_hist_activity where instance_id = ${id} order by id`.execute(db),
    sql<{
      activity_id: string;
    }>`select distinct activity_id from wf_execution where instance_id = ${id}`.execute(db),
    readGraph(db, instance.processDefinitionId),
  ]);
  const row = file.rows[0];
  if (!row)
    throw new AppError('notFound', { entity: 'processDefinition', key: instance.processDefinitionId });
  const open = new Set(history.rows.filter((item) => !item.ended).map((item) => item.activityId));
  if (!instance.ended) for (const token of tokens.rows) open.add(token.activity_id);
  const completed = new Set(history.rows.filter((item) => item.ended).map((item) => item.activityId));
  const flows = takenFlows(graph, history.rows);
  // a step whose last run a 驳回 or 退回 ended (as the side list reads its history), until it runs again
  const lastReason = new Map(history.rows.map((item) => [item.activityId, item.endReason]));
  const rejected = new Set(
    [...lastReason]
      .filter(
        ([activity, reason]) => (reason === 'rejected' || reason === 'regressed') && !open.has(activity),
      )
      .map(([activity]) => activity),
  );
  return {
    processInstanceId: id,
    processDefinitionId: instance.processDefinitionId,
    processKey: graph.key,
    resourceName: row.resourceName,
    xml: row.xml,
    completed: [...completed].filter((activity) => !open.has(activity) && !rejected.has(activity)),
    active: [...open],
    rejected: [...rejected],
    flows,
  };
}

/** Administrators hand an open task to a user (whoever held it). */
export async function assignTask({
  ctx,
  actor,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  input: { id: number; username: string; comment?: string | undefined };
}): Promise<WfTask> {
  await inTransaction(ctx.db, async (trx) => {
    const { task, instance } = await lockTask({ trx, tenantCode: actor.tenantCode, id: input.id });
    if (task.end_time) throw new AppError('wfTaskDone', { id: input.id });
    assertRunning(instance);
    if (!(await userExists({ ctx, db: trx, tenantCode: actor.tenantCode, username: input.username })))
      throw new AppError('validation', {}, [
        { field: '/username', message: l10n.t('workflow.problems.noSuchUser', { username: input.username }) },
      ]);
    await sql`update wf_task set assignee = ${input.username}, claim_time = coalesce(claim_time, now()),
        status = 'assigned', delegation = null, owner = null, row_version = row_version + 1
      where id = ${input.id}`.execute(trx);
    await sql`update wf_hist_activity set assignee = ${input.username}
      where instance_id = ${instance.id} and task_id = ${input.id} and end_time is null`.execute(trx);
    await taskAssigned(trx, actor, input.id, input.username);
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: instance.id,
      taskId: task.id,
      username: actor.username,
      action: 'assign',
      message: input.comment ?? input.username,
    });
  });
  return taskById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}

/** Where an instance's tokens stand (docs/product.md §2.3 execution). */
export async function instanceExecutions({
  db,
  tenantCode,
  id,
}: {
  db: Db;
  tenantCode: string;
  id: number;
}): Promise<WfExecution[]> {
  const instance = await instanceById({ db, tenantCode, id });
  const graph = await readGraph(db, instance.processDefinitionId);
  const rows = await sql<{
    id: number;
    activityId: string;
    state: string;
    parentId: number | null;
    createdAt: string;
  }>`select id, activity_id as "activityId", state, parent_id as "parentId", created_at as "createdAt"
    from wf_execution where instance_id = ${id} order by id`.execute(db);
  return rows.rows.map((row) => ({
    ...row,
    processInstanceId: id,
    name: graph.nodes[row.activityId]?.name ?? row.activityId,
    waitsFor: ['active', 'waiting', 'scope', 'loop'].includes(row.state)
      ? eventWaitsAt(graph, row.activityId).map(({ kind, name, catchId }) => ({
          kind,
          name,
          activityId: catchId,
        }))
      : [],
  }));
}
