import type { AppContext } from '../../src/server/lib/context.js';
import type { Db } from '../../src/server/lib/db/database.js';
import type { Actor } from '../../src/server/lib/sql/toolkit.js';
import type { Run } from '../../src/server/features/workflow/services/activity.js';
import type {
  Compensable,
  CompensableIn,
  CompensationStore,
} from '../../src/server/features/workflow/services/compensation-store.js';
import type { ProcessGraph, ProcessNode } from '../../src/server/features/workflow/services/graph.js';
import type { HistoryStore } from '../../src/server/features/workflow/services/history.js';
import type {
  AfterTask,
  Incident,
  InstanceStore,
  TaskClosed,
  TaskClosing,
  VariablesSet,
} from '../../src/server/features/workflow/services/instance-store.js';
import type { TaskDraft, TaskStore } from '../../src/server/features/workflow/services/task-store.js';
import type { MovedState } from '../../src/server/features/workflow/services/tokens.js';
import { AppError } from '../../src/server/lib/errors.js';
import { oversizedVariable, VARIABLE_LIMIT_KB } from '../../src/server/features/workflow/services/store.js';
import { MemoryTokens } from './memory-tokens.js';
import { MemoryWaits } from './memory-waits.js';

/**
 * A whole instance in memory: the stores the interpreter writes through (tokens, waits, history,
 * tasks, the instance, compensations), each keeping what the database's would (wf_execution,
 * wf_job and wf_event_subscription, wf_hist_activity, wf_task, wf_instance and wf_variable,
 * wf_compensation), so that a process runs start to end without a database. Its rows are
 * compared with the database's for the same process in workflow-memory-run.test.ts.
 */

/** A history row: an activity a token passed or stands at. */
export interface MemoryActivity {
  id: number;
  executionId: number;
  activityId: string;
  activityType: string;
  taskId: number | null;
  ended: boolean;
  endReason: string | null;
}

/** A task row. */
export interface MemoryTask {
  id: number;
  executionId: number;
  activityId: string;
  name: string;
  assignee: string | null;
  candidateUsers: string[];
  candidateGroups: string[];
  status: string;
  endReason: string | null;
  /** 加签: the task a signer's task was added to. */
  parentTaskId: number | null;
}

/** The ids of the items under `roots` (children by parentId, their children, and so on), as a recursive query finds them. */
function below(roots: Set<number>, items: readonly { id: number; parentId: number | null }[]): Set<number> {
  const found = new Set<number>();
  const isUnder = (parentId: number | null): boolean =>
    parentId !== null && (roots.has(parentId) || found.has(parentId));
  for (let grew = true; grew;) {
    grew = false;
    for (const item of items)
      if (isUnder(item.parentId) && !found.has(item.id)) {
        found.add(item.id);
        grew = true;
      }
  }
  return found;
}

/** A task open while nothing has ended it. */
const isOpen = (task: MemoryTask): boolean => task.endReason === null && task.status !== 'completed';

class MemoryHistory implements HistoryStore {
  readonly rows: MemoryActivity[] = [];
  private nextId = 1;

  constructor(private readonly tokens: MemoryTokens) {}

  /** A row made now (open unless `ended`). */
  add(executionId: number, node: ProcessNode, options: { taskId?: number; ended?: boolean } = {}): void {
    this.rows.push({
      id: this.nextId++,
      executionId,
      activityId: node.id,
      activityType: node.type,
      taskId: options.taskId ?? null,
      ended: options.ended ?? false,
      endReason: null,
    });
  }

  /** Open rows that `isEnded` picks end, with the reason. */
  endWhere(isEnded: (row: MemoryActivity) => boolean, reason: string | null): void {
    for (const row of this.rows)
      if (!row.ended && isEnded(row)) {
        row.ended = true;
        row.endReason = reason;
      }
  }

  async pass(executionId: number, node: ProcessNode, moveTo?: MovedState): Promise<void> {
    if (moveTo !== undefined) await this.tokens.moveTo(executionId, node.id, moveTo);
    this.add(executionId, node, { ended: true });
  }

  async start(executionId: number, node: ProcessNode): Promise<void> {
    this.add(executionId, node);
  }

  async endAt(executionId: number, activityId: string): Promise<void> {
    this.endWhere((row) => row.executionId === executionId && row.activityId === activityId, null);
  }

  async endAllAt(executionId: number, reason: string): Promise<void> {
    this.endWhere((row) => row.executionId === executionId, reason);
  }

  async endTasks(taskIds: number[], reason: string | null): Promise<void> {
    this.endWhere((row) => row.taskId !== null && taskIds.includes(row.taskId), reason);
  }

  async countOf(activityIds: string[]): Promise<number> {
    return this.rows.filter((row) => activityIds.includes(row.activityId)).length;
  }
}

class MemoryTasks implements TaskStore {
  readonly rows: MemoryTask[] = [];
  private nextId = 1;

  constructor(
    private readonly tokens: MemoryTokens,
    private readonly history: MemoryHistory,
  ) {}

  async make(executionId: number, draft: TaskDraft, { moveToken = false } = {}): Promise<number> {
    const { node, people } = draft;
    const id = this.nextId++;
    this.rows.push({
      id,
      executionId,
      activityId: node.id,
      name: people.name ?? node.id,
      assignee: people.assignee,
      candidateUsers: people.candidateUsers,
      candidateGroups: people.candidateGroups,
      status: people.assignee ? 'assigned' : 'created',
      endReason: null,
      parentTaskId: null,
    });
    this.history.add(executionId, node, { taskId: id });
    if (moveToken) await this.tokens.moveTo(executionId, node.id, 'active');
    return id;
  }

  /** The open tasks `isCanceled` picks are canceled, with their signers' tasks and history rows; their ids. */
  cancelWhere(isCanceled: (task: MemoryTask) => boolean, reason: string): number[] {
    const canceled = this.rows.filter(
      (task) => isOpen(task) && task.parentTaskId === null && isCanceled(task),
    );
    const ids = canceled.map((task) => task.id);
    for (const task of this.rows)
      if (
        isOpen(task) &&
        (ids.includes(task.id) || (task.parentTaskId !== null && ids.includes(task.parentTaskId)))
      ) {
        task.status = 'canceled';
        task.endReason = reason;
      }
    this.history.endWhere((row) => row.taskId !== null && ids.includes(row.taskId), reason);
    return ids;
  }

  async cancelAt(executionId: number, reason: string): Promise<void> {
    this.cancelWhere((task) => task.executionId === executionId, reason);
    this.history.endWhere((row) => row.executionId === executionId, reason);
  }

  async cancelInLoop(loopId: number, reason: string): Promise<void> {
    const children = this.tokens.tokens.filter((token) => token.parentId === loopId).map((token) => token.id);
    this.cancelWhere((task) => children.includes(task.executionId), reason);
  }
}

class MemoryCompensations implements CompensationStore {
  readonly rows: { id: number; scopeId: number | null; activityId: string; parentId: number | null }[] = [];
  private nextId = 1;

  async note(scopeId: number | null, activityId: string): Promise<void> {
    this.rows.push({ id: this.nextId++, scopeId, activityId, parentId: null });
  }

  async forgetIn(scopeId: number): Promise<void> {
    this.drop((row) => row.scopeId === scopeId && row.parentId === null);
  }

  async gather(
    innerId: number,
    scopeId: number | null,
    activityId: string,
    hasHandler: boolean,
  ): Promise<void> {
    const inner = this.rows.filter((row) => row.scopeId === innerId && row.parentId === null);
    if (!hasHandler && inner.length === 0) return;
    const id = this.nextId++;
    this.rows.push({ id, scopeId, activityId, parentId: null });
    for (const row of inner) row.parentId = id;
  }

  async rowsIn(place: CompensableIn, activityRef?: string): Promise<Compensable[]> {
    return this.rows
      .filter((row) =>
        'parentId' in place
          ? row.parentId === place.parentId
          : row.parentId === null && row.scopeId === place.scopeId,
      )
      .filter((row) => activityRef === undefined || row.activityId === activityRef)
      .sort((a, b) => b.id - a.id)
      .map(({ id, activityId }) => ({ id, activityId }));
  }

  async use(scopeId: number | null, activityRef?: string): Promise<void> {
    const used = new Set(
      this.rows
        .filter((row) => row.parentId === null && row.scopeId === scopeId)
        .filter((row) => activityRef === undefined || row.activityId === activityRef)
        .map((row) => row.id),
    );
    for (const id of below(used, this.rows)) used.add(id);
    this.drop((row) => used.has(row.id));
  }

  /** Rows of canceled scopes go. */
  drop(isDropped: (row: MemoryCompensations['rows'][number]) => boolean): void {
    this.rows.splice(0, this.rows.length, ...this.rows.filter((row) => !isDropped(row)));
  }
}

class MemoryInstance implements InstanceStore {
  status = 'running';
  incident: Incident | null = null;
  steps = 0;
  readonly variables: Record<string, unknown> = {};
  /** Every change of a variable, as wf_hist_detail keeps it. */
  readonly variableChanges: { name: string; value: unknown; activityId: string | null }[] = [];
  readonly comments: { taskId: number; username: string; message: string }[] = [];
  /** Notices of notice service tasks, to whom they were addressed (users are not looked up here). */
  readonly notices: { usernames: string[]; groups: string[]; title: string; content: string }[] = [];

  constructor(
    private readonly tokens: MemoryTokens,
    private readonly waits: MemoryWaits,
    private readonly history: MemoryHistory,
    private readonly tasks: MemoryTasks,
    private readonly compensations: MemoryCompensations,
  ) {}

  async begin(input: {
    start: ProcessNode;
    variables: VariablesSet;
    task?: TaskDraft | undefined;
  }): Promise<{ executionId: number; taskId?: number }> {
    const executionId = await this.tokens.add(input.task?.node.id ?? input.start.id, null);
    this.history.add(executionId, input.start, { ended: true });
    await this.setVariables(input.variables);
    if (!input.task) return { executionId };
    return { executionId, taskId: await this.tasks.make(executionId, input.task) };
  }

  async closeTask(closing: TaskClosing, then: AfterTask): Promise<TaskClosed> {
    if (closing.variables) await this.setVariables({ ...closing.variables, taskId: closing.task.id });
    const task = this.tasks.rows.find((row) => row.id === closing.task.id);
    if (task) {
      task.status = 'completed';
      task.endReason = 'completed';
    }
    this.history.endWhere((row) => row.taskId === closing.task.id, 'completed');
    if (closing.comment) this.comments.push({ taskId: closing.task.id, ...closing.comment });
    // The database answers from the row it closed: nothing when there was none.
    const answer: Record<string, unknown> = !task
      ? {}
      : closing.answer === 'task'
        ? { id: task.id, name: task.name, status: task.status, assignee: task.assignee }
        : { id: task.id };
    if (then.to === 'task')
      return { answer, nextTaskId: await this.tasks.make(then.executionId, then.draft, { moveToken: true }) };
    if (then.to === 'end') {
      const tokensLeft = await this.endToken(then.executionId, then.node);
      if (!tokensLeft) await this.end('over', 'end');
      return { answer, tokensLeft };
    }
    return { answer };
  }

  async endToken(executionId: number, node: ProcessNode): Promise<boolean> {
    this.history.add(executionId, node, { ended: true });
    return this.tokens.removeAndAnyLeft(executionId);
  }

  async setVariables({ values, activityId }: VariablesSet): Promise<void> {
    const oversized = oversizedVariable(values);
    if (oversized !== undefined)
      throw new AppError('wfVariableTooLarge', { name: oversized, limitKb: VARIABLE_LIMIT_KB });
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) continue;
      this.variables[name] = value;
      this.variableChanges.push({ name, value, activityId });
    }
  }

  async addSteps(steps: number): Promise<void> {
    this.steps += steps;
  }

  async notify(
    to: { usernames: string[]; groups: string[] },
    notice: { title: string; content: string },
  ): Promise<void> {
    this.notices.push({ ...to, ...notice });
  }

  async markIncident(incident: Incident): Promise<void> {
    this.incident = incident;
  }

  async halt(
    stopped: { executionId: number; nodeId: string }[],
    incident: Incident,
    steps: number,
  ): Promise<void> {
    for (const { executionId, nodeId } of stopped) await this.tokens.stopAt(executionId, nodeId);
    this.incident = incident;
    this.steps += steps;
  }

  async end(status: string, reason: string): Promise<void> {
    await this.clear(reason);
    this.status = status;
  }

  async clear(reason: string): Promise<void> {
    this.tasks.cancelWhere(() => true, reason);
    this.history.endWhere(() => true, reason);
    this.waits.jobs.splice(0);
    this.waits.subscriptions.splice(0);
    this.tokens.tokens.splice(0);
  }

  async clearScope(scopeId: number, reason: string): Promise<void> {
    const inside = below(new Set([scopeId]), this.tokens.tokens);
    this.compensations.drop(
      (row) => row.scopeId === scopeId || (row.scopeId !== null && inside.has(row.scopeId)),
    );
    this.tasks.cancelWhere((task) => inside.has(task.executionId), reason);
    this.history.endWhere((row) => inside.has(row.executionId), reason);
    for (const id of inside) {
      await this.waits.dropJobs(id, ['boundaryTimer', 'serviceCall']);
      await this.waits.unsubscribe(id);
    }
    await this.tokens.remove([...inside]);
  }
}

/** The memory stores of one instance, and a Run over them. */
export interface MemoryRun {
  run: Run;
  tokens: MemoryTokens;
  waits: MemoryWaits;
  history: MemoryHistory;
  tasks: MemoryTasks;
  instance: MemoryInstance;
  compensations: MemoryCompensations;
}

/**
 * A run of an instance of `graph` on memory stores. What the interpreter reads of the app besides
 * its stores is the clock and the registry (does an entity approve records by this process:
 * none here); the transaction object only keys the step count of the transaction.
 */
export function memoryRun(
  graph: ProcessGraph,
  { actor, variables = {} }: { actor: Actor; variables?: Record<string, unknown> },
): MemoryRun {
  const tokens = new MemoryTokens();
  const waits = new MemoryWaits();
  const history = new MemoryHistory(tokens);
  const tasks = new MemoryTasks(tokens, history);
  const compensations = new MemoryCompensations();
  const instance = new MemoryInstance(tokens, waits, history, tasks, compensations);
  const ctx = { registry: { all: [], generation: 0 } } as unknown as AppContext;
  const run: Run = {
    ctx,
    trx: {} as Db,
    tenantCode: actor.tenantCode,
    instanceId: 1,
    definitionId: 1,
    instanceName: graph.name ?? graph.key,
    graph,
    tokens,
    waits,
    history,
    tasks,
    instance,
    compensations,
    actor,
    variables: { ...variables },
    hasEnded: false,
    created: [],
    steps: 0,
    stepsSaved: 0,
    stepsBefore: 0,
    onStepBudget: 'refuse',
  };
  return { run, tokens, waits, history, tasks, instance, compensations };
}
