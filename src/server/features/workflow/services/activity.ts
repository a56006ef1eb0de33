import type { WfNextTask } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import type { ProcessGraph, ProcessNode } from './graph.js';
import { stepsTakenIn } from './transaction.js';
import { readVariables } from './store.js';
import { userTaskOf } from './elements/user-task.js';
import { sqlCompensations, type CompensationStore } from './compensation-store.js';
import { sqlHistory, type HistoryStore } from './history.js';
import { sqlInstance, type InstanceStore } from './instance-store.js';
import { sqlTasks, type TaskDraft, type TaskStore } from './task-store.js';
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
  /** The history rows of the instance's activities (history.ts). */
  history: HistoryStore;
  /** The instance's tasks (task-store.ts). */
  tasks: TaskStore;
  /** The instance as a whole, and writes of several kinds of its rows at once (instance-store.ts). */
  instance: InstanceStore;
  /** What the instance can still undo (compensation-store.ts). */
  compensations: CompensationStore;
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
  const where = { tenantCode: instance.tenant_code, instanceId: instance.id };
  const context = {
    ctx,
    actor,
    ...where,
    definitionId: instance.definition_id,
    instanceName: instance.name,
  };
  return {
    ctx,
    trx,
    tenantCode: instance.tenant_code,
    instanceId: instance.id,
    definitionId: instance.definition_id,
    instanceName: instance.name,
    graph,
    tokens: sqlTokens(trx, where),
    waits: sqlWaits(trx, where),
    history: sqlHistory(trx, where),
    tasks: sqlTasks(trx, context),
    instance: sqlInstance(trx, { ...context, graph }),
    compensations: sqlCompensations(trx, where),
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
  await run.instance.setVariables({ values, taskId, activityId, username: run.actor.username });
  Object.assign(run.variables, values);
  run.variablesChanged = true;
}

/** A task about to be made at a user task: its name and people from the variables (and a loop child's own). */
export const draftTask = (run: Run, node: ProcessNode, locals: Record<string, unknown> = {}): TaskDraft => ({
  node,
  people: userTaskOf({ node, variables: { ...run.variables, ...locals } }),
});

/** Notes a task the run made. */
export function noteTask(run: Run, id: number, { node, people }: TaskDraft): void {
  run.created.push({
    id,
    name: people.name ?? node.id,
    taskDefinitionKey: node.id,
    assignee: people.assignee,
    candidateUsers: people.candidateUsers,
  });
}

/**
 * Makes the task of a user task, with its candidates and history row, and tells the people
 * concerned; with moveToken, the token moves to the task in the same write.
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
  const draft = draftTask(run, node, locals);
  noteTask(run, await run.tasks.make(step.executionId, draft, { moveToken }), draft);
}

/** An error or escalation thrown in a run, by its code. */
export interface Thrown {
  kind: 'error' | 'escalation';
  code: string;
}

/**
 * How a thrown event ended: caught by none, caught by an interrupting handler, or by one beside
 * it; `unheard`: its caller could not take it now (in the middle of its own step, suspended or
 * ended), so whether anyone catches it is not known.
 */
export type ThrowOutcome = 'none' | 'interrupted' | 'beside' | 'unheard';
