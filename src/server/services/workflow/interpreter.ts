import { sql } from 'kysely';
import { evaluateCondition, ExpressionError, interpolate } from './expressions.js';
import { nodesReaching, type ProcessNode } from './graph.js';
import {
  asList,
  createTask,
  historyEndTask,
  historyPass,
  setVariables,
  type Incident,
  type Run,
  type Step,
} from './activity.js';
import { startLoop, tokenToLeave } from './multi-instance.js';
import { groupKey, notifyUsers, userIdsOf } from './people.js';

/**
 * The token interpreter. An instance's state is its rows: tokens (wf_execution) stand at
 * nodes, user tasks wait in wf_task, variables in wf_variable. Every call runs inside the
 * caller's transaction, after the caller has locked the instance row, so two operations on
 * one instance never interleave; nothing is kept in memory between calls.
 */

async function newExecution(run: Run, nodeId: string): Promise<number> {
  const rows = await sql<{
    id: number;
  }>`insert into wf_execution (tenant_code, instance_id, activity_id, state)
    values (${run.tenantCode}, ${run.instanceId}, ${nodeId}, 'active') returning id`.execute(run.trx);
  return rows.rows[0]?.id ?? 0;
}

/** The first token of a new instance, at its start event. */
export async function startTokens(run: Run): Promise<void> {
  const executionId = await newExecution(run, run.graph.startId);
  await advance(run, [{ executionId, nodeId: run.graph.startId }]);
}

/**
 * A user task was done on a token: the token moves on along the node's flows (for a
 * multi-instance task, once its loop is over). A completion condition that cannot be evaluated
 * stops the loop's token with an incident.
 */
export async function taskDone(run: Run, executionId: number, nodeId: string): Promise<void> {
  const node = run.graph.nodes[nodeId];
  if (!node) throw new Error(`no node ${nodeId}`);
  let leaving: number | null;
  try {
    leaving = await tokenToLeave(run, executionId, node);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    await raiseIncident(
      run,
      { executionId, nodeId },
      { activityId: nodeId, flowId: null, message: error.message },
    );
    return;
  }
  if (leaving === null) return;
  await advance(run, await take(run, leaving, node.outgoing));
}

/** Puts a token at a node (regress: back to an earlier user task) and runs it from there. */
export async function enterNode(run: Run, executionId: number, nodeId: string): Promise<void> {
  await advance(run, [{ executionId, nodeId }]);
}

/** Takes flows: the token follows the first, a new token each other one. */
async function take(run: Run, executionId: number, flowIds: string[]): Promise<Step[]> {
  const steps: Step[] = [];
  for (const [index, flowId] of flowIds.entries()) {
    const target = run.graph.flows[flowId]?.target ?? '';
    steps.push({ executionId: index === 0 ? executionId : await newExecution(run, target), nodeId: target });
  }
  if (flowIds.length === 0) await sql`delete from wf_execution where id = ${executionId}`.execute(run.trx);
  return steps;
}

async function raiseIncident(run: Run, step: Step, incident: Incident): Promise<void> {
  await sql`update wf_execution set state = 'incident' where id = ${step.executionId}`.execute(run.trx);
  await sql`update wf_instance set incident = ${JSON.stringify(incident)}::jsonb where id = ${run.instanceId}`.execute(
    run.trx,
  );
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
    const reaching = nodesReaching(run.graph, node.id);
    const others = await sql<{ activity_id: string }>`select activity_id from wf_execution
      where instance_id = ${run.instanceId} and not (activity_id = ${node.id} and state = 'joining')`.execute(
      run.trx,
    );
    if (others.rows.some((row) => reaching.has(row.activity_id))) return false;
  }
  const rest = waiting.rows.map((row) => row.id).filter((id) => id !== step.executionId);
  if (rest.length > 0) await sql`delete from wf_execution where id in (${sql.join(rest)})`.execute(run.trx);
  await sql`update wf_execution set state = 'active' where id = ${step.executionId}`.execute(run.trx);
  return true;
}

/** Inclusive joins whose last possible branch has gone elsewhere: they go on now. */
async function releasableJoins(run: Run): Promise<Step[]> {
  const waiting = await sql<{
    id: number;
    activity_id: string;
  }>`select min(id) as id, activity_id from wf_execution
    where instance_id = ${run.instanceId} and state = 'joining' group by activity_id`.execute(run.trx);
  const steps: Step[] = [];
  for (const row of waiting.rows) {
    if (run.graph.nodes[row.activity_id]?.type !== 'inclusiveGateway') continue;
    const reaching = nodesReaching(run.graph, row.activity_id);
    const others = await sql<{ activity_id: string }>`select activity_id from wf_execution
      where instance_id = ${run.instanceId} and not (activity_id = ${row.activity_id} and state = 'joining')`.execute(
      run.trx,
    );
    if (!others.rows.some((other) => reaching.has(other.activity_id)))
      steps.push({ executionId: row.id, nodeId: row.activity_id });
  }
  return steps;
}

/** Ends the instance: remaining tokens removed, open tasks closed with the reason. */
export async function endInstance(run: Run, status: string, reason: string): Promise<void> {
  const open = await sql<{
    id: number;
  }>`update wf_task set end_time = now(), status = 'canceled', end_reason = ${reason},
      row_version = row_version + 1
    where instance_id = ${run.instanceId} and end_time is null returning id`.execute(run.trx);
  for (const task of open.rows) await historyEndTask(run, task.id, reason);
  await sql`delete from wf_execution where instance_id = ${run.instanceId}`.execute(run.trx);
  await sql`delete from wf_job where instance_id = ${run.instanceId}`.execute(run.trx);
  await sql`update wf_instance set status = ${status}, end_time = now(), row_version = row_version + 1
    where id = ${run.instanceId}`.execute(run.trx);
  run.hasEnded = true;
}

/** A built-in service task: an inbox notice to users, or variables set. */
async function runService(run: Run, step: Step, node: ProcessNode): Promise<void> {
  const service = node.service;
  if (!service) return;
  const fields: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(service.fields)) fields[name] = interpolate(text, run.variables);
  if (service.kind === 'setVariables') {
    await setVariables(run, fields, { activityId: node.id });
    return;
  }
  const usernames = asList(fields.to);
  const groups = asList(fields.groups).map(groupKey);
  const recipients = await userIdsOf(run.ctx, run.trx, run.tenantCode, usernames, groups);
  await notifyUsers(run.ctx, run.trx, run.actor, recipients, {
    title: String(fields.title ?? node.name ?? node.id),
    content: String(fields.content ?? fields.title ?? node.name ?? node.id),
  });
  void step;
}

/** Runs tokens until each waits (user task, join) or ends. */
async function advance(run: Run, initial: Step[]): Promise<void> {
  const queue = [...initial];
  while (queue.length > 0 && !run.hasEnded) {
    const step = queue.shift() as Step;
    const node = run.graph.nodes[step.nodeId];
    if (!node) throw new Error(`no node ${step.nodeId}`);
    await sql`update wf_execution set activity_id = ${node.id}, state = 'active' where id = ${step.executionId}`.execute(
      run.trx,
    );
    try {
      switch (node.type) {
        case 'userTask':
          if (!node.multi) await createTask(run, step, node);
          else if (!(await startLoop(run, step, node))) await goOn(run, step, node, queue);
          break;
        case 'endEvent':
          await historyPass(run, step, node);
          await sql`delete from wf_execution where id = ${step.executionId}`.execute(run.trx);
          if (node.isTerminate) {
            await endInstance(run, 'over', 'terminateEnd');
          } else {
            const left =
              await sql`select 1 from wf_execution where instance_id = ${run.instanceId} limit 1`.execute(
                run.trx,
              );
            if (left.rows.length === 0) await endInstance(run, 'over', 'end');
          }
          break;
        case 'parallelGateway':
        case 'inclusiveGateway':
          if (!(await joined(run, step, node))) break;
          await historyPass(run, step, node);
          await goOn(run, step, node, queue);
          break;
        default:
          await historyPass(run, step, node);
          if (node.type === 'serviceTask') await runService(run, step, node);
          await goOn(run, step, node, queue);
      }
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      await raiseIncident(run, step, { activityId: node.id, flowId: null, message: error.message });
    }
    if (queue.length === 0 && !run.hasEnded) queue.push(...(await releasableJoins(run)));
  }
}

async function goOn(run: Run, step: Step, node: ProcessNode, queue: Step[]): Promise<void> {
  const flows = chooseFlows(run, node);
  if (!Array.isArray(flows)) {
    await raiseIncident(run, step, flows);
    return;
  }
  queue.push(...(await take(run, step.executionId, flows)));
}
