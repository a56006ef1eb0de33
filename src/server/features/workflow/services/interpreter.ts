import { sql, type RawBuilder } from 'kysely';
import { PREPARED } from '../../../lib/db/prepared.js';
import { AppError } from '../../../lib/errors.js';
import { evaluateCondition, ExpressionError, interpolate } from './expressions.js';
import { nodesReaching, type ProcessNode } from './graph.js';
import {
  asList,
  createTask,
  historyPass,
  historyPassInsert,
  historyStart,
  noteTask,
  setVariables,
  taskParts,
  type Incident,
  type Run,
  type Step,
} from './activity.js';
import { countStep, saveSteps, StepBudgetPassed, unsavedSteps } from './budget.js';
import { workflowNow } from './clock.js';
import { startLoop, tokenToLeave } from './multi-instance.js';
import { groupKey, notifyUsers, userIdsOf } from './people.js';
import { oversizedVariable, VARIABLE_LIMIT_KB } from './store.js';
import { firstDue } from './timers.js';

/**
 * The token interpreter. An instance's state is its rows: tokens (wf_execution) stand at
 * nodes, user tasks wait in wf_task, variables in wf_variable. Every call runs inside the
 * caller's transaction, after the caller has locked the instance row, so two operations on
 * one instance never interleave; nothing is kept in memory between calls.
 */

async function newExecution(run: Run, nodeId: string, parentId: number | null): Promise<Step> {
  const rows = await sql<{
    id: number;
  }>`insert into wf_execution (tenant_code, instance_id, activity_id, state, parent_id)
    values (${run.tenantCode}, ${run.instanceId}, ${nodeId}, 'active', ${parentId}) returning id`.execute(
    run.trx,
  );
  return { executionId: rows.rows[0]?.id ?? 0, nodeId, parentId, isFresh: true };
}

/** The parent of a token inside a sub-process (a top-level node's token has none: no query). */
export async function parentOf({
  run,
  executionId,
  node,
}: {
  run: Run;
  executionId: number;
  node: ProcessNode | undefined;
}): Promise<number | null> {
  if (node?.scope === undefined) return null;
  const rows = await sql<{
    parent_id: number | null;
  }>`select parent_id from wf_execution where id = ${executionId}`.execute(run.trx);
  return rows.rows[0]?.parent_id ?? null;
}

/**
 * The parts of the task a token goes straight to, or none when its people or name cannot be
 * evaluated: the token then takes the general way (advance), where that is an incident.
 */
function taskPartsOrNone(options: Parameters<typeof taskParts>[0]): ReturnType<typeof taskParts> | undefined {
  try {
    return taskParts(options);
  } catch (error) {
    if (error instanceof ExpressionError) return undefined;
    throw error;
  }
}

/** A plain user task (no loop) a node leads straight to: its one flow, without a condition, in its own scope. */
function straightTask(run: Run, node: ProcessNode): ProcessNode | undefined {
  if (node.outgoing.length !== 1) return undefined;
  const flow = run.graph.flows[node.outgoing[0] ?? ''];
  const target = flow ? run.graph.nodes[flow.target] : undefined;
  if (!flow || flow.condition !== undefined || !target) return undefined;
  return target.type === 'userTask' && !target.multi && target.scope === node.scope ? target : undefined;
}

/**
 * The first token of a new instance: made and passed through the start event in one statement,
 * with the start's other writes (`with`: the variables). When the start event leads straight to
 * a plain user task, the token is made at that task and the task in the same statement.
 */
export async function startTokens(run: Run, withParts: RawBuilder<unknown>[] = []): Promise<void> {
  const start = run.graph.nodes[run.graph.startId];
  if (!start) throw new Error(`no start event ${run.graph.startId}`);
  const token = sql`(select id from token)`;
  const straight = straightTask(run, start);
  // The task's history row is written after the start event's (ids keep the order).
  const made = straight && taskPartsOrNone({ run, executionId: token, node: straight, after: sql`passed` });
  const first = made ? straight : undefined;
  const parts = [
    sql`token as (insert into wf_execution (tenant_code, instance_id, activity_id, state)
      values (${run.tenantCode}, ${run.instanceId}, ${first?.id ?? start.id}, 'active') returning id)`,
    sql`passed as (${historyPassInsert({ run, executionId: token, node: start })} returning id)`,
    ...withParts,
  ];
  if (first && made) {
    const rows = await sql<{
      id: number;
      task_id: number;
    }>`${PREPARED}with ${sql.join([...parts, ...made.parts])} select (select id from token) as id, (select id from task) as task_id`.execute(
      run.trx,
    );
    const executionId = rows.rows[0]?.id ?? 0;
    noteTask({ run, id: rows.rows[0]?.task_id, task: made.task });
    await scheduleBoundaries(run, executionId, first);
    return;
  }
  const rows = await sql<{ id: number }>`${PREPARED}with ${sql.join(parts)} select id from token`.execute(
    run.trx,
  );
  const step: Step = { executionId: rows.rows[0]?.id ?? 0, nodeId: start.id, parentId: null, isFresh: true };
  const queue: Step[] = [];
  await goOn(run, step, start, queue);
  await advance(run, queue);
}

/** The boundary timers of a user task that a token now waits at: one job each, due after its duration. */
async function scheduleBoundaries(run: Run, executionId: number, node: ProcessNode): Promise<void> {
  const now = workflowNow(run.ctx);
  const jobs = (node.boundaries ?? []).flatMap((id) => {
    const timer = run.graph.nodes[id]?.timer;
    const due = timer ? firstDue(timer, now) : undefined;
    return due
      ? [sql`(${run.tenantCode}, ${run.instanceId}, ${executionId}, ${id}, 'boundaryTimer', ${due})`]
      : [];
  });
  if (jobs.length === 0) return;
  await sql`insert into wf_job (tenant_code, instance_id, execution_id, activity_id, kind, due_at)
    values ${sql.join(jobs)}`.execute(run.trx);
}

/** A token left a user task: its boundary timers are off. */
async function dropBoundaries(run: Run, executionId: number, node: ProcessNode): Promise<void> {
  if (!node.boundaries) return;
  await sql`delete from wf_job where execution_id = ${executionId} and kind = 'boundaryTimer'`.execute(
    run.trx,
  );
}

/**
 * A boundary timer fired on the token waiting at its user task (interrupting): the task (or every
 * open task of a multi-instance loop) is canceled, and the token leaves along the boundary event.
 */
export async function fireBoundary({
  run,
  execution,
  boundary,
}: {
  run: Run;
  execution: { id: number; parent_id: number | null };
  boundary: ProcessNode;
}): Promise<void> {
  const open = await sql<{ id: number }>`update wf_task set end_time = now(), status = 'canceled',
      end_reason = 'boundaryTimer', row_version = row_version + 1
    where end_time is null and instance_id = ${run.instanceId}
      and (execution_id = ${execution.id} or execution_id in (select id from wf_execution where parent_id = ${execution.id}))
    returning id`.execute(run.trx);
  if (open.rows.length > 0)
    await sql`update wf_hist_activity set end_time = now(), end_reason = 'boundaryTimer'
      where instance_id = ${run.instanceId} and task_id in (${sql.join(open.rows.map((row) => row.id))})
        and end_time is null`.execute(run.trx);
  await sql`delete from wf_execution where parent_id = ${execution.id}`.execute(run.trx);
  await sql`update wf_execution set loop_state = null where id = ${execution.id}`.execute(run.trx);
  await sql`delete from wf_job where execution_id = ${execution.id} and kind = 'boundaryTimer'`.execute(
    run.trx,
  );
  await advance(run, [{ executionId: execution.id, nodeId: boundary.id, parentId: execution.parent_id }]);
}

/**
 * What a task action writes first (the task closed, its history, the comment) and the row it
 * answers: parts of the statement that also moves the token on when that is one simple step.
 */
export interface TaskEnd {
  /** The task being ended (its row and history row are written by `parts`). */
  taskId: number;
  parts: RawBuilder<unknown>[];
  /** The answer's select (its columns; more are added and taken off again). */
  select: (extra: RawBuilder<unknown>) => RawBuilder<Record<string, unknown>>;
}

/**
 * A user task was done on a token: the token moves on along the node's flows (for a
 * multi-instance task, once its loop is over). A completion condition that cannot be evaluated
 * stops the loop's token with an incident. The task's own end (`end`) is written first; when the
 * token just goes on to a plain user task or a plain end event, both are one statement.
 * Answers the row of `end`'s select.
 */
export async function taskDone({
  run,
  executionId,
  nodeId,
  end,
}: {
  run: Run;
  executionId: number;
  nodeId: string;
  end: TaskEnd;
}): Promise<Record<string, unknown>> {
  const node = run.graph.nodes[nodeId];
  if (!node) throw new Error(`no node ${nodeId}`);
  const isSimple = !node.multi && !node.boundaries && node.scope === undefined;
  const straight = isSimple ? straightTask(run, node) : undefined;
  const made = straight && taskPartsOrNone({ run, executionId, node: straight, moveToken: true });
  const next = made ? straight : undefined;
  if (next && made) {
    const rows = await sql<Record<string, unknown>>`${PREPARED}with ${sql.join([...end.parts, ...made.parts])}
      ${end.select(sql`(select id from task) as "nextTaskId"`)}`.execute(run.trx);
    const { nextTaskId, ...answer } = rows.rows[0] ?? {};
    noteTask({ run, id: typeof nextTaskId === 'number' ? nextTaskId : Number(nextTaskId), task: made.task });
    await scheduleBoundaries(run, executionId, next);
    await advance(run, await releasableJoins(run));
    return answer;
  }
  const flow = isSimple && node.outgoing.length === 1 ? run.graph.flows[node.outgoing[0] ?? ''] : undefined;
  const target = flow ? run.graph.nodes[flow.target] : undefined;
  if (target?.type === 'endEvent' && !target.isTerminate && target.scope === undefined) {
    // The token ends. When it was the instance's last one, the instance ends in the same
    // statement: every part below reads "another token left?" from the statement's one snapshot
    // (which still sees this token), and leaves alone the task and history row `end` writes.
    const tokensLeft = sql`(select is_left from tokens_left)`;
    const rows = await sql<Record<string, unknown>>`${PREPARED}with ${sql.join([
      ...end.parts,
      sql`tokens_left as (select exists (select 1 from wf_execution
        where instance_id = ${run.instanceId} and id <> ${executionId}) as is_left)`,
      sql`gone as (delete from wf_execution where id = ${executionId})`,
      sql`passed as (${historyPassInsert({ run, executionId, node: target })})`,
      ...endInstanceParts(run, 'over', 'end', { taskId: end.taskId, unless: tokensLeft }),
    ])}
      ${end.select(sql`${tokensLeft} as "tokensLeft"`)}`.execute(run.trx);
    const { tokensLeft: isLeft, ...answer } = rows.rows[0] ?? {};
    if (isLeft !== true) run.hasEnded = true;
    else await advance(run, await releasableJoins(run));
    return answer;
  }
  const rows = await sql<
    Record<string, unknown>
  >`${PREPARED}with ${sql.join(end.parts)} ${end.select(sql`null as "nothing"`)}`.execute(run.trx);
  const { nothing: _nothing, ...answer } = rows.rows[0] ?? {};
  void _nothing;
  await moveOn(run, executionId, node);
  return answer;
}

/** The general way on after a task: the loop's token, the boundary timers off, then the flows. */
async function moveOn(run: Run, executionId: number, node: ProcessNode): Promise<void> {
  let leaving: number | null;
  try {
    leaving = node.multi ? await tokenToLeave({ run, executionId, node }) : executionId;
  } catch (error) {
    if (error instanceof StepBudgetPassed) {
      await halt(run, { executionId, nodeId: node.id, parentId: null }, [], error);
      return;
    }
    if (!(error instanceof ExpressionError)) throw error;
    await raiseIncident(
      run,
      { executionId, nodeId: node.id, parentId: null },
      { activityId: node.id, flowId: null, message: error.message },
    );
    return;
  }
  if (leaving === null) return;
  await dropBoundaries(run, leaving, node);
  const parentId = await parentOf({ run, executionId: leaving, node });
  await advance(run, await take(run, leaving, node.outgoing, parentId));
}

/** Puts a token at a node (regress: back to an earlier user task) and runs it from there. */
export async function enterNode({
  run,
  executionId,
  nodeId,
  parentId,
}: {
  run: Run;
  executionId: number;
  nodeId: string;
  parentId: number | null;
}): Promise<void> {
  await advance(run, [{ executionId, nodeId, parentId }]);
}

/** Takes flows: the token follows the first, a new token (in the same scope) each other one. */
async function take(
  run: Run,
  executionId: number,
  flowIds: string[],
  parentId: number | null,
): Promise<Step[]> {
  const steps: Step[] = [];
  for (const [index, flowId] of flowIds.entries()) {
    const target = run.graph.flows[flowId]?.target ?? '';
    steps.push(
      index === 0 ? { executionId, nodeId: target, parentId } : await newExecution(run, target, parentId),
    );
  }
  if (flowIds.length === 0) await sql`delete from wf_execution where id = ${executionId}`.execute(run.trx);
  return steps;
}

async function raiseIncident(run: Run, step: Step, incident: Incident): Promise<void> {
  run.hasIncident = true;
  await sql`update wf_execution set state = 'incident', activity_id = ${step.nodeId} where id = ${step.executionId}`.execute(
    run.trx,
  );
  await sql`update wf_instance set incident = ${JSON.stringify(incident)}::jsonb where id = ${run.instanceId}`.execute(
    run.trx,
  );
}

/**
 * A step budget stopped the run: the token of the step stops in an incident naming the budget,
 * and so do the tokens still waiting to run (each where it was headed); the instance row gets
 * the incident and its steps in the same statement. Nothing more runs in this run; the caller's
 * transaction ends as it is.
 */
async function halt(run: Run, step: Step, queue: Step[], passed: StepBudgetPassed): Promise<void> {
  run.isHalted = true;
  run.hasIncident = true;
  const tokens = [step, ...queue];
  const incident: Incident = { activityId: step.nodeId, flowId: null, message: passed.message };
  await sql`with stopped as (update wf_execution e set activity_id = q.node, state = 'incident'
        from unnest(${tokens.map((token) => token.executionId)}::bigint[], ${tokens.map((token) => token.nodeId)}::text[]) as q(id, node)
        where e.id = q.id)
    update wf_instance set incident = ${JSON.stringify(incident)}::jsonb, steps = steps + ${unsavedSteps(run)}
    where id = ${run.instanceId}`.execute(run.trx);
}

/**
 * The flows a gateway (or an activity with conditional flows) takes: exclusive → the first whose
 * condition holds, else the default; inclusive and others → every one whose condition holds
 * (or that has none), else the default. An incident when a condition cannot be evaluated or no
 * flow is left.
 */
function chooseFlows(run: Run, node: ProcessNode): string[] | Incident {
  const chosen: string[] = [];
  for (const flowId of node.outgoing) {
    if (flowId === node.defaultFlow) continue;
    const condition = run.graph.flows[flowId]?.condition;
    if (condition === undefined || node.type === 'parallelGateway') {
      chosen.push(flowId);
    } else {
      try {
        if (evaluateCondition(condition, run.variables)) chosen.push(flowId);
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        return { activityId: node.id, flowId, message: error.message };
      }
    }
    if (node.type === 'exclusiveGateway' && chosen.length > 0) break;
  }
  if (chosen.length === 0 && node.defaultFlow) chosen.push(node.defaultFlow);
  if (chosen.length === 0) return { activityId: node.id, flowId: null, message: 'no outgoing flow matches' };
  return chosen;
}

/** A join: waits until it may go on; true when this token carries the merged branches on. */
async function joined(run: Run, step: Step, node: ProcessNode): Promise<boolean> {
  if (node.incoming.length <= 1) return true;
  await sql`update wf_execution set state = 'joining' where id = ${step.executionId}`.execute(run.trx);
  const waiting = await sql<{ id: number }>`select id from wf_execution
    where instance_id = ${run.instanceId} and activity_id = ${node.id} and state = 'joining' order by id`.execute(
    run.trx,
  );
  if (node.type === 'parallelGateway') {
    if (waiting.rows.length < node.incoming.length) return false;
  } else {
    // Inclusive: go on once no other token can still arrive here.
    if (await mayStillArrive(run, node.id)) return false;
  }
  const rest = waiting.rows.map((row) => row.id).filter((id) => id !== step.executionId);
  if (rest.length > 0) await sql`delete from wf_execution where id in (${sql.join(rest)})`.execute(run.trx);
  await sql`update wf_execution set state = 'active' where id = ${step.executionId}`.execute(run.trx);
  return true;
}

/**
 * Whether a token that is not yet waiting at an inclusive join may still reach it: one standing
 * at a node from which the join can be reached, or one already taken to the join and not yet run
 * (a branch of the same fork, queued in this run: it stands at the join, not yet joining).
 */
async function mayStillArrive(run: Run, joinId: string): Promise<boolean> {
  const reaching = nodesReaching(run.graph, joinId);
  const others = await sql<{ activity_id: string }>`select activity_id from wf_execution
    where instance_id = ${run.instanceId} and not (activity_id = ${joinId} and state = 'joining')`.execute(
    run.trx,
  );
  return others.rows.some((row) => row.activity_id === joinId || reaching.has(row.activity_id));
}

const inclusiveJoins = new WeakMap<object, boolean>();

/** Whether a process has an inclusive join at all (else no token can wait at one: no query). */
function hasInclusiveJoin(run: Run): boolean {
  let found = inclusiveJoins.get(run.graph);
  if (found === undefined) {
    found = Object.values(run.graph.nodes).some(
      (node) => node.type === 'inclusiveGateway' && node.incoming.length > 1,
    );
    inclusiveJoins.set(run.graph, found);
  }
  return found;
}

/** Inclusive joins whose last possible branch has gone elsewhere: they go on now. */
async function releasableJoins(run: Run): Promise<Step[]> {
  if (!hasInclusiveJoin(run)) return [];
  const waiting = await sql<{
    id: number;
    activity_id: string;
    parent_id: number | null;
  }>`select min(id) as id, activity_id, min(parent_id) as parent_id from wf_execution
    where instance_id = ${run.instanceId} and state = 'joining' group by activity_id`.execute(run.trx);
  const steps: Step[] = [];
  for (const row of waiting.rows) {
    if (run.graph.nodes[row.activity_id]?.type !== 'inclusiveGateway') continue;
    if (!(await mayStillArrive(run, row.activity_id)))
      steps.push({ executionId: row.id, nodeId: row.activity_id, parentId: row.parent_id });
  }
  return steps;
}

/** Ends the instance: remaining tokens and timers removed, open tasks and activities closed with the reason. */
export async function endInstance({
  run,
  status,
  reason,
}: {
  run: Run;
  status: string;
  reason: string;
}): Promise<void> {
  // One statement: the data-modifying parts touch different rows.
  const [instance, ...parts] = endInstanceParts(run, status, reason);
  await sql`with ${sql.join([...parts, sql`ended_tokens as (delete from wf_execution where instance_id = ${run.instanceId})`])}
    ${instance}`.execute(run.trx);
  run.hasEnded = true;
}

/**
 * The parts of a statement that end the instance: its open tasks canceled, its open history rows
 * closed, its jobs gone and the instance row ended (the first part, an `update`; the others are
 * named parts of a `with`). `taskId` is a task the same statement ends itself (one row is never
 * written twice by one statement); `unless` is a condition read in the statement that, when it
 * holds, leaves everything as it is. The caller removes the tokens.
 */
function endInstanceParts(
  run: Run,
  status: string,
  reason: string,
  options: { taskId?: number; unless?: RawBuilder<unknown> } = {},
): RawBuilder<unknown>[] {
  const only = options.unless ? sql` and not ${options.unless}` : sql``;
  const { taskId } = options;
  const notTask = taskId === undefined ? sql`` : sql` and id <> ${taskId}`;
  const notTaskHistory = taskId === undefined ? sql`` : sql` and task_id is distinct from ${taskId}`;
  const instance = sql`update wf_instance set status = ${status}, end_time = now(), row_version = row_version + 1
    where id = ${run.instanceId}${only}`;
  return [
    options.unless ? sql`ended as (${instance})` : instance,
    sql`ended_tasks as (update wf_task set end_time = now(), status = 'canceled', end_reason = ${reason},
        row_version = row_version + 1
      where instance_id = ${run.instanceId} and end_time is null${notTask}${only})`,
    sql`ended_history as (update wf_hist_activity set end_time = now(), end_reason = ${reason}
      where instance_id = ${run.instanceId} and end_time is null${notTaskHistory}${only})`,
    sql`ended_jobs as (delete from wf_job where instance_id = ${run.instanceId}${only})`,
  ];
}

/** A sub-process whose tokens have all ended: it is done, and its token goes on after it. */
async function leaveScope(run: Run, scopeId: number, subProcess: ProcessNode, queue: Step[]): Promise<void> {
  await sql`update wf_hist_activity set end_time = now()
    where instance_id = ${run.instanceId} and execution_id = ${scopeId} and activity_id = ${subProcess.id}
      and end_time is null`.execute(run.trx);
  const step = {
    executionId: scopeId,
    nodeId: subProcess.id,
    parentId: await parentOf({ run, executionId: scopeId, node: subProcess }),
  };
  await sql`update wf_execution set state = 'active' where id = ${scopeId}`.execute(run.trx);
  await goOn(run, step, subProcess, queue);
}

/** A terminate end inside a sub-process: every token of that sub-process ends, with its tasks and timers. */
async function terminateScope(run: Run, scopeId: number): Promise<void> {
  await sql`with recursive inside as (
        select id from wf_execution where parent_id = ${scopeId}
        union all select e.id from wf_execution e join inside on e.parent_id = inside.id),
      tasks as (update wf_task set end_time = now(), status = 'canceled', end_reason = 'terminateEnd',
          row_version = row_version + 1
        where end_time is null and execution_id in (select id from inside) returning id),
      history as (update wf_hist_activity set end_time = now(), end_reason = 'terminateEnd'
        where end_time is null and instance_id = ${run.instanceId}
          and (task_id in (select id from tasks) or execution_id in (select id from inside))),
      jobs as (delete from wf_job where execution_id in (select id from inside))
    delete from wf_execution where id in (select id from inside)`.execute(run.trx);
}

/** A token reached an end event: it ends; the instance (or its sub-process) ends with its last token. */
async function reachEnd(run: Run, step: Step, node: ProcessNode, queue: Step[]): Promise<void> {
  const scope = node.scope === undefined ? undefined : run.graph.nodes[node.scope];
  const isInScope = scope !== undefined && step.parentId !== null;
  // The plain end of a top-level token writes its history row in the statement that removes it.
  if (isInScope || node.isTerminate) await historyPass({ run, step, node });
  if (node.isTerminateAll) {
    await endInstance({ run, status: 'over', reason: 'terminateEnd' });
    return;
  }
  if (scope && step.parentId !== null) {
    await sql`delete from wf_execution where id = ${step.executionId}`.execute(run.trx);
    if (node.isTerminate) await terminateScope(run, step.parentId);
    const left = await sql`select 1 from wf_execution where parent_id = ${step.parentId} limit 1`.execute(
      run.trx,
    );
    if (left.rows.length === 0) await leaveScope(run, step.parentId, scope, queue);
    return;
  }
  if (node.isTerminate) {
    await endInstance({ run, status: 'over', reason: 'terminateEnd' });
    return;
  }
  // The token goes, and whether another is left is read in the same statement (which still sees it).
  const left = await sql<{
    left: boolean;
  }>`with gone as (delete from wf_execution where id = ${step.executionId}),
      passed as (${historyPassInsert({ run, executionId: step.executionId, node })})
    select exists (select 1 from wf_execution where instance_id = ${run.instanceId} and id <> ${step.executionId}) as left`.execute(
    run.trx,
  );
  if (left.rows[0]?.left !== true) await endInstance({ run, status: 'over', reason: 'end' });
}

/** A built-in service task: an inbox notice to users, or variables set. */
async function runService(run: Run, step: Step, node: ProcessNode): Promise<void> {
  const service = node.service;
  if (!service) return;
  const fields: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(service.fields)) fields[name] = interpolate(text, run.variables);
  if (service.kind === 'setVariables') {
    const oversized = oversizedVariable(fields);
    if (oversized !== undefined)
      throw new ExpressionError(
        `the variable ${oversized} would be over ${VARIABLE_LIMIT_KB} KB (workflow.variableBytes)`,
      );
    await setVariables({ run, values: fields, activityId: node.id });
    return;
  }
  const usernames = asList(fields.to);
  const groups = asList(fields.groups).map(groupKey);
  const recipients = await userIdsOf({
    ctx: run.ctx,
    db: run.trx,
    tenantCode: run.tenantCode,
    usernames,
    groups,
  });
  await notifyUsers({
    ctx: run.ctx,
    db: run.trx,
    actor: run.actor,
    userIds: recipients,
    notice: {
      title: String(fields.title ?? node.name ?? node.id),
      content: String(fields.content ?? fields.title ?? node.name ?? node.id),
    },
  });
  void step;
}

/**
 * Runs tokens until each waits (user task, join, sub-process) or ends, a step of the budgets
 * (budget.ts) each; the instance's step count is brought up to date at the end.
 */
async function advance(run: Run, initial: Step[]): Promise<void> {
  const queue = [...initial];
  while (queue.length > 0 && !run.hasEnded && !run.isHalted) {
    const step = queue.shift() as Step;
    const node = run.graph.nodes[step.nodeId];
    if (!node) throw new Error(`no node ${step.nodeId}`);
    try {
      countStep(run);
      await runStep(run, step, node, queue);
    } catch (error) {
      if (error instanceof StepBudgetPassed) {
        await halt(run, step, queue, error);
        return;
      }
      if (!(error instanceof ExpressionError)) throw error;
      await raiseIncident(run, step, { activityId: node.id, flowId: null, message: error.message });
    }
    if (queue.length === 0 && !run.hasEnded && !run.isHalted) queue.push(...(await releasableJoins(run)));
  }
  if (!run.isHalted) await saveSteps(run);
}

/** Runs one token at its node. */
async function runStep(run: Run, step: Step, node: ProcessNode, queue: Step[]): Promise<void> {
  // A token just made at its node, or about to end, needs no move in its row.
  const state = node.type === 'subProcess' ? 'scope' : 'active';
  // A plain user task moves its token in the statement that makes the task.
  const isMovedLater = node.type === 'userTask' && !node.multi;
  const move = sql`update wf_execution set activity_id = ${node.id}, state = ${state} where id = ${step.executionId}`;
  const isMoved = (!step.isFresh || state === 'scope') && node.type !== 'endEvent' && !isMovedLater;
  if (!isPassedAtOnce(node)) {
    if (isMoved) await move.execute(run.trx);
  } else {
    // Passed at once: the move and the history row are one statement.
    const passed = historyPassInsert({ run, executionId: step.executionId, node });
    await (isMoved ? sql`with moved as (${move}) ${passed}` : passed).execute(run.trx);
  }
  switch (node.type) {
    case 'userTask':
      if (!node.multi) await createTask({ run, step, node, moveToken: !step.isFresh });
      else if (!(await startLoop({ run, step, node }))) {
        await goOn(run, step, node, queue);
        break;
      }
      await scheduleBoundaries(run, step.executionId, node);
      break;
    case 'subProcess': {
      await historyStart({ run, step, node });
      queue.push(await newExecution(run, node.startId ?? '', step.executionId));
      break;
    }
    case 'endEvent':
      await reachEnd(run, step, node, queue);
      break;
    case 'parallelGateway':
    case 'inclusiveGateway':
      if (!(await joined(run, step, node))) break;
      await historyPass({ run, step, node });
      await goOn(run, step, node, queue);
      break;
    default:
      if (node.type === 'serviceTask') await runService(run, step, node);
      await goOn(run, step, node, queue);
  }
}

/** A node a token passes at once (not a task, sub-process, end or join): its history row is written as it enters. */
const isPassedAtOnce = (node: ProcessNode): boolean =>
  !['userTask', 'subProcess', 'endEvent', 'parallelGateway', 'inclusiveGateway'].includes(node.type);

async function goOn(run: Run, step: Step, node: ProcessNode, queue: Step[]): Promise<void> {
  const flows = chooseFlows(run, node);
  // No way on: a request (start, complete) is refused as the peers refuse it, rolled back; the
  // engine's own work (a timer) leaves the token in an incident for an administrator.
  if (!Array.isArray(flows) && flows.flowId === null && run.onStepBudget === 'refuse')
    throw new AppError('wfNoFlow', { id: node.id });
  if (!Array.isArray(flows)) {
    await raiseIncident(run, step, flows);
    return;
  }
  queue.push(...(await take(run, step.executionId, flows, step.parentId)));
}
