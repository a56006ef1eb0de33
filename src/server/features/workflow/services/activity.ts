import { eventInsert } from '../../../lib/events/index.js';
import { sql, type RawBuilder } from 'kysely';
import type { WfNextTask } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import type { ProcessGraph, ProcessNode } from './graph.js';
import { noticeInsert } from './people.js';
import { stepsTakenIn } from './transaction.js';
import { readVariables, writeVariables } from './store.js';
import { taskRecipients, userTaskOf } from './elements/user-task.js';
import { sqlTokens, type TokenStore } from './tokens.js';
import { sqlWaits, type WaitStore } from './waits.js';

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
  /** The instance's tokens as the element behaviours read and change them (elements/). */
  tokens: TokenStore;
  /** What the instance's tokens wait for besides tasks: subscriptions and timers (waits.ts). */
  waits: WaitStore;
  actor: Actor;
  variables: Record<string, unknown>;
  /** Set once the instance has ended (terminate end, last token gone). */
  hasEnded: boolean;
  /** Set once a token has stopped at an incident. */
  hasIncident?: boolean;
  /** The tasks this run made, in order (what the caller may act on next comes from these). */
  created: CreatedTask[];
  /** Steps (elements a token ran through, loop tasks made) this run took: its transaction's. */
  steps: number;
  /** Of those, the steps already added to the instance row's count. */
  stepsSaved: number;
  /** The instance's steps before this run (its life so far). */
  stepsBefore: number;
  /**
   * Past the per-transaction step budget: 'refuse' when a request runs it (a 400, its
   * transaction rolled back), 'incident' for work of the engine itself (timers), whose
   * transaction ends with the instance stopped in an incident.
   */
  onStepBudget: 'refuse' | 'incident';
  /** Set once a budget stopped the run (an incident): nothing more runs in it. */
  isHalted?: boolean;
  /** Variables changed in this run: its conditional events are read again (interpreter.ts). */
  variablesChanged?: boolean;
  /** An instance started by a call activity: where its caller waits (it goes on when this one ends). */
  caller?: { instanceId: number; executionId: number };
  /**
   * A person's completion of a task: a flow condition that cannot be evaluated (an unset
   * variable) refuses it (a 400, rolled back, the task stays open), as Flowable and Camunda do,
   * instead of stopping the token in an incident.
   */
  refusesConditionErrors?: boolean;
}

/** A task made by a run. */
export interface CreatedTask {
  id: number;
  name: string;
  taskDefinitionKey: string;
  assignee: string | null;
  /** User names named as candidates (group candidates are not resolved here). */
  candidateUsers: string[];
}

/**
 * The tasks of a run that the caller can act on now: open (the instance still runs), assigned to
 * them or naming them as a candidate user. What a client needs to go on without a list query.
 */
export function nextTasksOf(run: Run): WfNextTask[] {
  if (run.hasEnded) return [];
  const me = run.actor.username;
  return run.created
    .filter((task) => task.assignee === me || (task.assignee === null && task.candidateUsers.includes(me)))
    .map(({ id, name, taskDefinitionKey, assignee }) => ({ id, name, taskDefinitionKey, assignee }));
}

/** What stopped a token at a gateway: the instance shows it until someone deals with it. */
export interface Incident {
  activityId: string;
  activityName?: string;
  flowId: string | null;
  message: string;
  /** The unset variable a condition named, when that stopped it. */
  variable?: string;
}

export interface Step {
  executionId: number;
  nodeId: string;
  /** The token's parent: the sub-process token whose scope it runs in (null at the top). */
  parentId: number | null;
  /** The token was just made at this node (its row says so already). */
  isFresh?: boolean;
  /** One child of a multi-instance call activity's loop (it calls; the loop's token waits). */
  isLoopChild?: boolean;
  /** A compensation throw whose handlers have ended: it now goes on as a plain event (compensation.ts). */
  compensated?: boolean;
}

export async function openRun({
  ctx,
  trx,
  instance,
  graph,
  actor,
  variables,
  onStepBudget = 'refuse',
}: {
  ctx: AppContext;
  trx: Db;
  instance: {
    id: number;
    tenant_code: string;
    definition_id: number;
    name: string | null;
    /** Its steps so far (none for a new instance). */
    steps?: number | undefined;
    super_instance_id?: number | null | undefined;
    super_execution_id?: number | null | undefined;
  };
  graph: ProcessGraph;
  actor: Actor;
  /** The instance's variables when already read (else they are read here). */
  variables?: Record<string, unknown> | undefined;
  onStepBudget?: Run['onStepBudget'];
}): Promise<Run> {
  return {
    ctx,
    trx,
    tenantCode: instance.tenant_code,
    instanceId: instance.id,
    definitionId: instance.definition_id,
    instanceName: instance.name,
    graph,
    tokens: sqlTokens(trx, { tenantCode: instance.tenant_code, instanceId: instance.id }),
    waits: sqlWaits(trx, { tenantCode: instance.tenant_code, instanceId: instance.id }),
    actor,
    variables: variables ?? (await readVariables(trx, instance.id)),
    hasEnded: false,
    created: [],
    // Another run of the transaction may have taken steps before (budget.ts stepsTakenIn).
    steps: stepsTakenIn(trx),
    stepsSaved: stepsTakenIn(trx),
    stepsBefore: instance.steps ?? 0,
    onStepBudget,
    ...(instance.super_instance_id && instance.super_execution_id
      ? { caller: { instanceId: instance.super_instance_id, executionId: instance.super_execution_id } }
      : {}),
  };
}

/** Sets variables for the rest of the run and in the rows. */
export async function setVariables({
  run,
  values,
  taskId = null,
  activityId = null,
}: {
  run: Run;
  values: Record<string, unknown>;
  /** Where they were set (the history of each change names it). */
  taskId?: number | null;
  activityId?: string | null;
}): Promise<void> {
  if (Object.keys(values).length === 0) return;
  await writeVariables({
    trx: run.trx,
    change: {
      tenantCode: run.tenantCode,
      instanceId: run.instanceId,
      username: run.actor.username,
      taskId,
      activityId,
    },
    values,
  });
  Object.assign(run.variables, values);
  run.variablesChanged = true;
}

export async function historyStart({
  run,
  step,
  node,
  assignee = null,
  taskId = null,
}: {
  run: Run;
  step: Step;
  node: ProcessNode;
  assignee?: string | null;
  taskId?: number | null;
}): Promise<number> {
  const rows = await sql<{ id: number }>`insert into wf_hist_activity
      (tenant_code, instance_id, execution_id, activity_id, activity_name, activity_type, assignee, task_id, start_time)
    values (${run.tenantCode}, ${run.instanceId}, ${step.executionId}, ${node.id}, ${node.name ?? null}, ${node.type},
      ${assignee}, ${taskId}, now())
    returning id`.execute(run.trx);
  return rows.rows[0]?.id ?? 0;
}

/** The history row of an activity passed at once (events, gateways, service tasks), to run or to put into another statement. */
export const historyPassInsert = ({
  run,
  executionId,
  node,
}: {
  run: Run;
  executionId: TokenRef;
  node: ProcessNode;
}): RawBuilder<unknown> =>
  sql`insert into wf_hist_activity
      (tenant_code, instance_id, execution_id, activity_id, activity_name, activity_type, start_time, end_time)
    values (${run.tenantCode}, ${run.instanceId}, ${executionId}, ${node.id}, ${node.name ?? null}, ${node.type},
      now(), now())`;

/** An activity passed at once (events, gateways, service tasks). */
export async function historyPass({
  run,
  step,
  node,
}: {
  run: Run;
  step: Step;
  node: ProcessNode;
}): Promise<void> {
  await historyPassInsert({ run, executionId: step.executionId, node }).execute(run.trx);
}

/** Ends the open history rows of a task's activity. */
export async function historyEndTask({
  run,
  taskId,
  reason,
}: {
  run: Run;
  taskId: number;
  reason: string | null;
}): Promise<void> {
  await sql`update wf_hist_activity set end_time = now(), end_reason = ${reason}
    where instance_id = ${run.instanceId} and task_id = ${taskId} and end_time is null`.execute(run.trx);
}

/** Where a task's token is: its id, or (in a statement that also makes it) a subquery naming it. */
export type TokenRef = number | RawBuilder<unknown>;

/**
 * The parts (CTEs of one statement) that create the task of a user task with its candidates and
 * history row and tell the people concerned; with moveToken, the token moves to the task too.
 * The task's id comes out of the part named `task`. Run them with runTaskParts, or put them into
 * a statement that writes more.
 */
export function taskParts({
  run,
  executionId,
  node,
  locals = {},
  moveToken = false,
  after,
}: {
  run: Run;
  executionId: TokenRef;
  node: ProcessNode;
  /** Variables of the task's token only (a multi-instance child's element and counters). */
  locals?: Record<string, unknown>;
  moveToken?: boolean;
  /** A CTE of the same statement whose history row must come first (read before this one is written). */
  after?: RawBuilder<unknown> | undefined;
}): { parts: RawBuilder<unknown>[]; task: Omit<CreatedTask, 'id'> } {
  const people = userTaskOf({ node, variables: { ...run.variables, ...locals } });
  const { name, assignee, candidateUsers: users, candidateGroups: groups } = people;
  const links = [
    ...users.map((user) => sql`(${user}::text, null::text)`),
    ...groups.map((group) => sql`(null::text, ${group}::text)`),
  ];
  const { usernames: named, groups: byGroup } = taskRecipients(people);
  // The one to tell is the caller (a task of the starter, say): their id is known.
  const isCaller =
    byGroup.length === 0 &&
    named.length === 1 &&
    named[0] === run.actor.username &&
    run.actor.userId !== null;
  const notice = noticeInsert({
    ctx: run.ctx,
    actor: run.actor,
    to: {
      usernames: named,
      groups: byGroup,
      ...(isCaller && run.actor.userId !== null ? { userIds: [run.actor.userId] } : {}),
    },
    notice: taskNotice(run.instanceName, run.instanceId, name ?? node.id),
  });
  const parts = [
    sql`task as (insert into wf_task (tenant_code, instance_id, execution_id, definition_id,
        activity_id, name, description, assignee, form_key, status, start_time, claim_time)
      values (${run.tenantCode}, ${run.instanceId}, ${executionId}, ${run.definitionId}, ${node.id},
        ${name ?? node.id}, ${node.documentation ?? null}, ${assignee}, ${node.formKey ?? null},
        ${assignee ? 'assigned' : 'created'}, now(), null)
      returning id)`,
    sql`task_history as (insert into wf_hist_activity (tenant_code, instance_id, execution_id, activity_id, activity_name,
        activity_type, assignee, task_id, start_time)
      select ${run.tenantCode}, ${run.instanceId}, ${executionId}, ${node.id}, ${name ?? null}, ${node.type},
        ${assignee}, task.id, now() from task${after ? sql`, ${after}` : sql``})`,
    sql`notice as (${notice})`,
    // The recipients' open inboxes hear of it (features/events).
    sql`notice_event as (${eventInsert({
      actor: run.actor,
      type: 'record.added',
      entity: 'notification',
      key: sql`notice.id`,
      from: sql`notice`,
    })})`,
    sql`task_event as (${eventInsert({
      actor: run.actor,
      type: 'workflow.taskCreated',
      entity: 'wfTask',
      key: sql`task.id`,
      from: sql`task`,
      detail: { instanceId: run.instanceId, activityId: node.id, assignee },
    })})`,
  ];
  if (links.length > 0)
    parts.push(sql`links as (insert into wf_identity_link (tenant_code, task_id, instance_id, user_name, group_key)
      select ${run.tenantCode}, task.id, ${run.instanceId}, link.user_name, link.group_key
      from task, (values ${sql.join(links)}) as link (user_name, group_key))`);
  if (moveToken)
    parts.push(sql`moved as (update wf_execution set activity_id = ${node.id}, state = 'active'
      where id = ${executionId})`);
  return {
    parts,
    task: { name: name ?? node.id, taskDefinitionKey: node.id, assignee, candidateUsers: users },
  };
}

/** Notes a task the run made (from the id its statement returned). */
export function noteTask({
  run,
  id,
  task,
}: {
  run: Run;
  id: number | undefined;
  task: Omit<CreatedTask, 'id'>;
}): void {
  if (id !== undefined) run.created.push({ id, ...task });
}

/**
 * Creates the task of a user task, with its candidates and history row, and tells the people
 * concerned: one statement, which also moves the token to the task unless told it stands there.
 */
export async function createTask({
  run,
  step,
  node,
  locals = {},
  moveToken = false,
}: {
  run: Run;
  step: Step;
  node: ProcessNode;
  locals?: Record<string, unknown>;
  moveToken?: boolean;
}): Promise<void> {
  const { parts, task } = taskParts({ run, executionId: step.executionId, node, locals, moveToken });
  const rows = await sql<{ id: number }>`with ${sql.join(parts)} select id from task`.execute(run.trx);
  noteTask({ run, id: rows.rows[0]?.id, task });
}

/**
 * The inbox notice about a task: titled by the task, saying which instance it is of
 * ("<instance name> #<id>: <task>"); `title` replaces the task's name as the title.
 */
export function taskNotice(
  instanceName: string | null | undefined,
  instanceId: number,
  task: string,
  title: string = task,
): { title: string; content: string } {
  return { title, content: `${instanceName ?? ''} #${instanceId}: ${task}` };
}

/** An error or escalation thrown in a run, by its code. */
export interface Thrown {
  kind: 'error' | 'escalation';
  code: string;
}

/** How a thrown event ended: caught by none, caught by an interrupting handler, or by one beside it. */
export type ThrowOutcome = 'none' | 'interrupted' | 'beside';
