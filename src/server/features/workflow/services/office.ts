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
import { endInstance } from './interpreter.js';
import { userExists, type Candidate } from './people.js';
import { instanceById, taskById } from './queries.js';
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

/**
 * An instance's BPMN file with its progress. A flow counts as taken when its source finished and
 * its target was entered no earlier: the engine keeps activities, not flows, and this is what
 * Activiti's diagram highlighter derives as well.
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
    sql<{
      activity_id: string;
      start_time: Date;
      end_time: Date | null;
    }>`select activity_id, start_time, end_time from wf_hist_activity where instance_id = ${id} order by start_time, id`.execute(
      db,
    ),
    sql<{
      activity_id: string;
    }>`select distinct activity_id from wf_execution where instance_id = ${id}`.execute(db),
    readGraph(db, instance.processDefinitionId),
  ]);
  const row = file.rows[0];
  if (!row)
    throw new AppError('notFound', { entity: 'processDefinition', key: instance.processDefinitionId });
  const open = new Set(history.rows.filter((item) => item.end_time === null).map((item) => item.activity_id));
  if (!instance.ended) for (const token of tokens.rows) open.add(token.activity_id);
  const completed = new Set(
    history.rows.filter((item) => item.end_time !== null).map((item) => item.activity_id),
  );
  const firstEnd = new Map<string, number>();
  for (const item of history.rows) {
    if (item.end_time === null) continue;
    const end = new Date(item.end_time).getTime();
    if (!firstEnd.has(item.activity_id) || end < (firstEnd.get(item.activity_id) ?? end))
      firstEnd.set(item.activity_id, end);
  }
  const lastStart = new Map<string, number>();
  for (const item of history.rows)
    lastStart.set(
      item.activity_id,
      Math.max(lastStart.get(item.activity_id) ?? 0, new Date(item.start_time).getTime()),
    );
  const flows = Object.values(graph.flows)
    .filter((flow) => {
      const left = firstEnd.get(flow.source);
      const entered = lastStart.get(flow.target);
      return left !== undefined && entered !== undefined && entered >= left;
    })
    .map((flow) => flow.id);
  return {
    processInstanceId: id,
    processDefinitionId: instance.processDefinitionId,
    resourceName: row.resourceName,
    xml: row.xml,
    completed: [...completed].filter((activity) => !open.has(activity)),
    active: [...open],
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
  }));
}
