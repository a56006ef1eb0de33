import { sql, type RawBuilder } from 'kysely';
import type {
  WfActivity,
  WfComment,
  WfCopy,
  WfDefinition,
  WfDeployment,
  WfDeploymentResource,
  WfInstance,
  WfInstanceDetail,
  WfTask,
  WfVariable,
  WfVariableChange,
} from '../../../../engine/api-types.js';
import type { Db } from '../../../lib/db/database.js';
import type { AppContext } from '../../../lib/context.js';
import { AppError } from '../../../lib/errors.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { groupNamesOf, type Candidate } from './people.js';
import { containing, optional, pageOf, when, type Paged, type PageParams } from './paging.js';

/** The read side: deployments, definitions, instances, tasks and the five history views. */

// Deployments and definitions ------------------------------------------------------------------

export async function queryDeployments({
  db,
  actor,
  params,
}: {
  db: Db;
  actor: Actor;
  params: PageParams & { name?: string | undefined; category?: string | undefined };
}): Promise<Paged<WfDeployment>> {
  return pageOf({
    db,
    select: sql`select id, name, category, resource_name as "resourceName", created_at as "deploymentTime",
        deployed_by as "deployedBy", warnings
      from wf_deployment where tenant_code = ${actor.tenantCode}
        and ${when(params.name, sql`name ilike ${containing(params.name ?? '')}`)}
        and ${when(params.category, sql`category = ${optional(params.category)}`)}`,
    order: sql`"deploymentTime" desc, id desc`,
    params,
  });
}

/**
 * The files of a deployment (部署管理 → 资源): a deployment is made of one BPMN file, kept as it
 * was deployed, with the definitions it made.
 */
export async function deploymentResources({
  db,
  actor,
  id,
}: {
  db: Db;
  actor: Actor;
  id: number;
}): Promise<WfDeploymentResource[]> {
  const deployments = await sql<{ name: string; xml: string }>`select resource_name as name, xml
    from wf_deployment where id = ${id} and tenant_code = ${actor.tenantCode}`.execute(db);
  const deployment = deployments.rows[0];
  if (!deployment) throw new AppError('notFound', { entity: 'deployment', key: id });
  const definitions = await sql<{ id: number; key: string; name: string | null; version: number }>`select
      id, process_key as key, name, version from wf_definition
    where deployment_id = ${id} and tenant_code = ${actor.tenantCode} order by id`.execute(db);
  return [
    {
      deploymentId: id,
      name: deployment.name,
      size: Buffer.byteLength(deployment.xml, 'utf8'),
      xml: deployment.xml,
      definitions: definitions.rows.map((row) => ({ ...row, id: Number(row.id) })),
    },
  ];
}

const DEFINITION_COLUMNS = sql`d.id, d.process_key as key, d.name, d.version, d.category, d.resource_name as "resourceName",
  d.deployment_id as "deploymentId", d.suspended, d.created_at as "deploymentTime",
  d.graph #>> array['nodes', d.graph->>'startId', 'formKey'] as "startFormKey"`;

/** The definitions a user may start (people.ts mayStart, in SQL): no candidate starters, or they are one. */
const startableBy = (who: Candidate): RawBuilder<unknown> => {
  const groups = who.groups.length > 0 ? who.groups : [''];
  return sql`((d.graph->'candidateStarterUsers' is null and d.graph->'candidateStarterGroups' is null)
    or exists (select 1 from jsonb_array_elements_text(coalesce(d.graph->'candidateStarterUsers', '[]'::jsonb)) u
      where u = ${who.username})
    or exists (select 1 from jsonb_array_elements_text(coalesce(d.graph->'candidateStarterGroups', '[]'::jsonb)) g
      where g in (${sql.join(groups)})))`;
};

export async function queryDefinitions({
  db,
  actor,
  params,
  starter,
}: {
  db: Db;
  actor: Actor;
  /** Only those this user may start (发起流程). */
  starter?: Candidate;
  params: PageParams & {
    key?: string | undefined;
    name?: string | undefined;
    category?: string | undefined;
    latestOnly?: boolean | undefined;
  };
}): Promise<Paged<WfDefinition>> {
  return pageOf({
    db,
    select: sql`select ${DEFINITION_COLUMNS} from wf_definition d where d.tenant_code = ${actor.tenantCode}
        and ${when(params.key, sql`d.process_key = ${optional(params.key)}`)}
        and ${when(params.name, sql`d.name ilike ${containing(params.name ?? '')}`)}
        and ${when(params.category, sql`d.category = ${optional(params.category)}`)}
        and ${starter ? startableBy(starter) : sql`true`}
        and ${
          params.latestOnly
            ? sql`d.version = (select max(v.version) from wf_definition v
          where v.tenant_code = d.tenant_code and v.process_key = d.process_key)`
            : sql`true`
        }`,
    order: sql`key, version desc`,
    params,
  });
}

export async function definitionXml({
  db,
  actor,
  id,
}: {
  db: Db;
  actor: Actor;
  id: number;
}): Promise<{ id: number; resourceName: string; xml: string }> {
  const rows = await sql<{
    resourceName: string;
    xml: string;
  }>`select d.resource_name as "resourceName", p.xml
    from wf_definition d join wf_deployment p on p.id = d.deployment_id
    where d.id = ${id} and d.tenant_code = ${actor.tenantCode}`.execute(db);
  const row = rows.rows[0];
  if (!row) throw new AppError('notFound', { entity: 'processDefinition', key: id });
  return { id, ...row };
}

// Instances ------------------------------------------------------------------------------------

const INSTANCE_SELECT = sql`select i.id, i.name, i.definition_id as "processDefinitionId", i.process_key as "processDefinitionKey",
    d.version as "processDefinitionVersion", i.business_key as "businessKey", i.description,
    i.start_username as "startUserId", i.start_time as "startTime", i.end_time as "endTime", i.suspended,
    i.end_time is not null as ended, i.status, i.incident
  from wf_instance i join wf_definition d on d.id = i.definition_id`;

export async function instanceById({
  db,
  tenantCode,
  id,
}: {
  db: Db;
  tenantCode: string;
  id: number;
}): Promise<WfInstance> {
  const rows =
    await sql<WfInstance>`${INSTANCE_SELECT} where i.id = ${id} and i.tenant_code = ${tenantCode}`.execute(
      db,
    );
  const row = rows.rows[0];
  if (!row) throw new AppError('notFound', { entity: 'processInstance', key: id });
  return row;
}

export interface InstanceFilters extends PageParams {
  processInstanceId?: number | undefined;
  processDefinitionKey?: string | undefined;
  name?: string | undefined;
  businessKey?: string | undefined;
  startUserId?: string | undefined;
  status?: string | undefined;
  ended?: boolean | undefined;
}

export async function queryInstances({
  db,
  actor,
  params,
}: {
  db: Db;
  actor: Actor;
  params: InstanceFilters;
}): Promise<Paged<WfInstance>> {
  return pageOf({
    db,
    select: sql`${INSTANCE_SELECT} where i.tenant_code = ${actor.tenantCode}
      and ${when(params.processInstanceId, sql`i.id = ${optional(params.processInstanceId)}`)}
      and ${when(params.processDefinitionKey, sql`i.process_key = ${optional(params.processDefinitionKey)}`)}
      and ${when(params.name, sql`i.name ilike ${containing(params.name ?? '')}`)}
      and ${when(params.businessKey, sql`i.business_key = ${optional(params.businessKey)}`)}
      and ${when(params.startUserId, sql`i.start_username = ${optional(params.startUserId)}`)}
      and ${when(params.status, sql`i.status = ${optional(params.status)}`)}
      and ${when(params.ended, params.ended ? sql`i.end_time is not null` : sql`i.end_time is null`)}`,
    order: sql`"startTime" desc, id desc`,
    params,
  });
}

/** 抄送我的: the instances copied to the caller (newest first), by instance or task name. */
export async function queryCopies({
  db,
  actor,
  params,
}: {
  db: Db;
  actor: Actor;
  params: PageParams & { name?: string | undefined; processInstanceId?: number | undefined };
}): Promise<Paged<WfCopy>> {
  return pageOf({
    db,
    select: sql`select y.id, y.instance_id as "processInstanceId", i.name as "processInstanceName",
        i.description as "processDescription", i.business_key as "businessKey", i.start_username as "startUserId",
        i.status, y.task_id as "taskId", t.name as "taskName", y.copied_by as "copiedBy", y.message,
        y.created_at as time
      from wf_copy y join wf_instance i on i.id = y.instance_id left join wf_task t on t.id = y.task_id
      where y.tenant_code = ${actor.tenantCode} and y.username = ${actor.username}
        and ${when(params.processInstanceId, sql`y.instance_id = ${optional(params.processInstanceId)}`)}
        and ${when(params.name, sql`(i.name ilike ${containing(params.name ?? '')} or t.name ilike ${containing(params.name ?? '')})`)}`,
    order: sql`time desc, id desc`,
    params,
  });
}

/**
 * Whether a user takes part in an instance: started it, holds or held a task, is a candidate,
 * acted on it (a delegate who handed a task back holds it no more, but still reads what they did),
 * or had it copied to them (抄送: they read it, they do not act on it).
 */
export async function takesPart({
  db,
  instanceId,
  who,
}: {
  db: Db;
  instanceId: number;
  who: Candidate;
}): Promise<boolean> {
  const groups = who.groups.length > 0 ? who.groups : [''];
  const rows =
    await sql`select 1 from wf_instance i where i.id = ${instanceId} and (i.start_username = ${who.username}
      or exists (select 1 from wf_task t where t.instance_id = i.id and (t.assignee = ${who.username} or t.owner = ${who.username}))
      or exists (select 1 from wf_comment c where c.instance_id = i.id and c.username = ${who.username})
      or exists (select 1 from wf_copy y where y.instance_id = i.id and y.username = ${who.username})
      or exists (select 1 from wf_identity_link l where l.instance_id = i.id
        and (l.user_name = ${who.username} or l.group_key in (${sql.join(groups)}))))`.execute(db);
  return rows.rows.length > 0;
}

export async function instanceDetail({
  db,
  tenantCode,
  id,
}: {
  db: Db;
  tenantCode: string;
  id: number;
}): Promise<WfInstanceDetail> {
  const instance = await instanceById({ db, tenantCode, id });
  const [activities, variables, tasks, comments, form] = await Promise.all([
    historyActivities({ db, tenantCode, instanceId: id }),
    historyVariables({ db, tenantCode, instanceId: id }),
    sql<WfTask>`${TASK_SELECT} where t.instance_id = ${id} and t.end_time is null order by t.id`.execute(db),
    sql<WfComment>`select id, task_id as "taskId", username, action, message, target, created_at as time
      from wf_comment where instance_id = ${id} order by id`.execute(db),
    sql<{
      startFormKey: string | null;
    }>`select graph #>> array['nodes', graph->>'startId', 'formKey'] as "startFormKey"
      from wf_definition where id = ${instance.processDefinitionId}`.execute(db),
  ]);
  return {
    ...instance,
    activities,
    variables,
    tasks: tasks.rows,
    comments: comments.rows,
    startFormKey: form.rows[0]?.startFormKey ?? null,
  };
}

// Tasks ----------------------------------------------------------------------------------------

/** A task as the API answers it: columns of wf_task t and its wf_instance i. */
export const TASK_COLUMNS = sql`t.id, t.name, t.status, t.assignee, t.owner, t.delegation as "delegationState",
    t.claim_time as "claimTime", t.start_time as "startTime", t.end_time as "endTime", t.end_reason as "endReason",
    t.description, t.instance_id as "processInstanceId", t.definition_id as "processDefinitionId",
    t.activity_id as "taskDefinitionKey", t.form_key as "formKey", i.name as "processInstanceName",
    i.start_username as "startUserId", i.suspended, i.description as "processDescription",
    i.business_key as "businessKey", t.parent_task_id as "parentTaskId", t.sign_type as "signType"`;

export const TASK_SELECT = sql`select ${TASK_COLUMNS} from wf_task t join wf_instance i on i.id = t.instance_id`;

export interface TaskFilters extends PageParams {
  processInstanceId?: number | undefined;
  /** Tasks of this instance and of the instances its call activities started (at any depth). */
  rootProcessInstanceId?: number | undefined;
  name?: string | undefined;
  assignee?: string | undefined;
  finished?: boolean | undefined;
}

const taskFilters = (params: TaskFilters): RawBuilder<unknown> => sql`
  ${when(params.processInstanceId, sql`t.instance_id = ${optional(params.processInstanceId)}`)}
  and ${when(
    params.rootProcessInstanceId,
    sql`t.instance_id in (with recursive tree(id) as (
        select ${optional(params.rootProcessInstanceId)}::bigint
        union all select c.id from wf_instance c join tree on c.super_instance_id = tree.id)
      select id from tree)`,
  )}
  and ${when(params.name, sql`t.name ilike ${containing(params.name ?? '')}`)}
  and ${when(params.assignee, sql`t.assignee = ${optional(params.assignee)}`)}
  and ${when(params.finished, params.finished ? sql`t.end_time is not null` : sql`t.end_time is null`)}`;

export type TaskList = 'personal' | 'candidate' | 'finished' | 'all';

export async function queryTasks({
  db,
  actor,
  who,
  list,
  params,
}: {
  db: Db;
  actor: Actor;
  /** The caller as a candidate (their groups matter to the candidate list only). */
  who: Candidate;
  list: TaskList;
  params: TaskFilters;
}): Promise<Paged<WfTask>> {
  const groups = who.groups.length > 0 ? who.groups : [''];
  const scope =
    list === 'personal'
      ? // A task waiting for its signers (加签) is not to be handled meanwhile.
        sql`t.assignee = ${who.username} and t.end_time is null and t.status <> 'waiting'`
      : list === 'candidate'
        ? sql`t.assignee is null and t.end_time is null and exists (select 1 from wf_identity_link l where l.task_id = t.id
            and (l.user_name = ${who.username} or l.group_key in (${sql.join(groups)})))`
        : list === 'finished'
          ? sql`t.end_time is not null and (t.assignee = ${who.username} or t.owner = ${who.username})`
          : sql`true`;
  return pageOf({
    db,
    select: sql`${TASK_SELECT} where t.tenant_code = ${actor.tenantCode} and ${scope} and ${taskFilters(params)}`,
    order: list === 'finished' ? sql`"endTime" desc, id desc` : sql`"startTime" desc, id desc`,
    params,
  });
}

export async function taskById({
  db,
  tenantCode,
  id,
}: {
  db: Db;
  tenantCode: string;
  id: number;
}): Promise<WfTask> {
  const rows = await sql<WfTask>`${TASK_SELECT} where t.id = ${id} and t.tenant_code = ${tenantCode}`.execute(
    db,
  );
  const row = rows.rows[0];
  if (!row) throw new AppError('notFound', { entity: 'task', key: id });
  return row;
}

export async function taskCandidates(
  ctx: AppContext,
  db: Db,
  tenantCode: string,
  id: number,
): Promise<{ users: string[]; groups: string[]; groupNames: string[] }> {
  const rows = await sql<{ user_name: string | null; group_key: string | null }>`select user_name, group_key
    from wf_identity_link where task_id = ${id} order by id`.execute(db);
  const groups = rows.rows.flatMap((row) => (row.group_key ? [row.group_key] : []));
  return {
    users: rows.rows.flatMap((row) => (row.user_name ? [row.user_name] : [])),
    groups,
    // 候选 names roles, posts and organisations as people know them, not role:ROLE_EDITOR
    groupNames: await groupNamesOf({ ctx, db, tenantCode, groups }),
  };
}

// History --------------------------------------------------------------------------------------

/** An instance of the tenant: whose history is read. */
interface OfInstance {
  db: Db;
  tenantCode: string;
  instanceId: number;
}

export async function historyActivities({ db, tenantCode, instanceId }: OfInstance): Promise<WfActivity[]> {
  const rows = await sql<WfActivity>`select id, activity_id as key, activity_name as name,
      activity_type as type, assignee, task_id as "taskId", execution_id as "executionId", start_time as "startTime",
      end_time as "endTime", end_reason as "endReason", instance_id as "processInstanceId"
    from wf_hist_activity where instance_id = ${instanceId} and tenant_code = ${tenantCode} order by start_time, id`.execute(
    db,
  );
  return rows.rows;
}

export async function historyVariables({ db, tenantCode, instanceId }: OfInstance): Promise<WfVariable[]> {
  const rows = await sql<WfVariable>`select id, name, type, value, updated_at as "updateTime",
      instance_id as "processInstanceId"
    from wf_variable where instance_id = ${instanceId} and tenant_code = ${tenantCode} order by name`.execute(
    db,
  );
  return rows.rows;
}

export async function historyDetails({
  db,
  tenantCode,
  instanceId,
}: OfInstance): Promise<WfVariableChange[]> {
  const rows = await sql<WfVariableChange>`select id, name, type, value, task_id as "taskId",
      activity_id as "activityId", username, created_at as time, instance_id as "processInstanceId"
    from wf_hist_detail where instance_id = ${instanceId} and tenant_code = ${tenantCode} order by id`.execute(
    db,
  );
  return rows.rows;
}
