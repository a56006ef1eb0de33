import { createTask, type Run, type Step } from './activity.js';
import { countCall, countStep } from './budget.js';
import type { ProcessGraph, ProcessNode } from './graph.js';
import { waitForWork, waitsForWork } from './outside-work.js';
import { isCalledAfterCommit } from './service-calls.js';
import type { TokenStore } from './tokens.js';
import {
  childDone,
  childLocals,
  openLoop,
  runLoopInline,
  type LoopState,
} from './elements/multi-instance.js';

/**
 * Multi-instance activities in the database (the semantics, what a loop runs over and when it is
 * over, are elements/multi-instance.ts's). Multi-instance user tasks: the token that reaches the task waits there (state loop, the
 * counts in loop_state) while child tokens each carry one task, all at once (parallel:
 * countersign 会签) or one after another (sequential). The completion condition sees
 * nrOfInstances, nrOfActiveInstances and nrOfCompletedInstances (any-one 或签:
 * `${nrOfCompletedInstances >= 1}`); when it holds or every child is done, the open siblings
 * are canceled and the waiting token goes on.
 *
 * A multi-instance call activity's children each call the process (their steps are answered for
 * the interpreter to run); an external, connector or mail task's each wait for their item's work
 * (outside-work.ts), and are withdrawn with the loop. A multi-instance sub-process loops the same
 * way: each child token is a scope of its own (state scope, its loop variables in local_vars)
 * with a start token inside; the interpreter runs those and counts a child done when its scope is
 * left (interpreter.ts leaveScope). Activities that wait for nothing run their items in one step
 * (passLoop).
 */

/**
 * One child of a loop: a task (user task), an item's wait for outside work, a call (call
 * activity) or a scope with its start token (sub-process); the steps of the last two are
 * answered for the interpreter to run.
 */
async function spawnChild({
  run,
  parentId,
  node,
  state,
  index,
  outer,
}: {
  run: Run;
  parentId: number;
  node: ProcessNode;
  state: LoopState;
  index: number;
  /** The locals of the loops around this one (a loop in a multi-instance sub-process's body). */
  outer: Record<string, unknown>;
}): Promise<Step | undefined> {
  // Every task of a loop is a step of the budgets (a collection may be long).
  countStep(run);
  const locals = childLocals({ node, state, index });
  const isScope = node.type === 'subProcess';
  // The token keeps its own locals; those of the loops around it are read from its scopes.
  const childId = await run.tokens.add(node.id, parentId, { isScope, locals });
  // An external task's child offers its item's work to the workers of its topic; a connector's
  // or mail task's leaves its call, made with its item once the step has committed (counted
  // against the budget by startLoop or tokenToLeave).
  if (waitsForWork(node)) {
    await waitForWork(run, childId, node, { isCounted: true });
    return undefined;
  }
  // A call activity's child calls its process when the interpreter runs its step.
  if (node.type === 'callActivity')
    return { executionId: childId, nodeId: node.id, parentId, isFresh: true, isLoopChild: true };
  if (isScope) {
    await run.history.start(childId, node);
    return {
      executionId: await run.tokens.add(node.startId ?? '', childId),
      nodeId: node.startId ?? '',
      parentId: childId,
      isFresh: true,
    };
  }
  await createTask({
    run,
    step: { executionId: childId, nodeId: node.id, parentId },
    node,
    locals: { ...outer, ...locals },
  });
  return undefined;
}

/** The variables the element at a token of a run reads (variablesAt: a loop's item over the instance's). */
export const scopedVariables = (
  run: Run,
  executionId: number,
  node: ProcessNode,
): Promise<Record<string, unknown>> =>
  variablesAt({ graph: run.graph, tokens: run.tokens, variables: run.variables, executionId, node });

/**
 * What the interpreter hands an element beside the instance's variables: the scoped variables
 * when they hold more (a loop's item, merged over the instance's), none outside a loop.
 */
export const localsIn = (run: Run, variables: Record<string, unknown>): Record<string, unknown> =>
  variables === run.variables ? {} : variables;

/**
 * The token reached a multi-instance task or sub-process: its children (and their tasks). False:
 * no items, go on. `started` receives the start steps of a sub-process's children.
 */
export async function startLoop({
  run,
  step,
  node,
  variables,
  started = [],
}: {
  run: Run;
  step: Step;
  node: ProcessNode;
  /** What the element reads (variablesAt): a loop in a loop's body runs over the outer item's. */
  variables: Record<string, unknown>;
  started?: Step[];
}): Promise<boolean> {
  const loop = openLoop({ node, variables });
  if (!loop) return false;
  // Every call a parallel loop makes now, counted before any is left.
  if (isCalledAfterCommit(node)) await countCall(run, node, loop.children.length);
  await run.tokens.openLoop(step.executionId, loop.state);
  const outer = localsIn(run, variables);
  for (const index of loop.children) {
    const start = await spawnChild({
      run,
      parentId: step.executionId,
      node,
      state: loop.state,
      index,
      outer,
    });
    if (start) started.push(start);
  }
  return true;
}

/**
 * A task was done on a token: the token to move on (the task's own, or a loop's once it is
 * over), or null while the loop waits for more.
 */
export async function tokenToLeave({
  run,
  executionId,
  node,
  started = [],
}: {
  run: Run;
  executionId: number;
  node: ProcessNode;
  /** Receives the start step of a sub-process's next child (sequential). */
  started?: Step[];
}): Promise<number | null> {
  const parentId = await run.tokens.parentOf(executionId);
  if (parentId === null) return executionId;
  const state = await run.tokens.loopOf(parentId);
  if (!state) return executionId;
  const variables = await scopedVariables(run, parentId, node);
  const done = childDone({ node, state, variables });
  // The next item's call within the budget, checked while this item's token still stands.
  if (!done.isOver && done.start !== undefined && isCalledAfterCommit(node)) await countCall(run, node);
  await run.tokens.remove([executionId]);
  if (done.isOver) {
    await run.tasks.cancelInLoop(parentId, 'completionCondition');
    // A sub-process's other children end with what still runs inside them; other items' offers
    // and calls are withdrawn.
    if (node.type === 'subProcess' || waitsForWork(node))
      await run.instance.clearScope(parentId, 'completionCondition');
    await run.tokens.removeChildren(parentId);
    await run.tokens.activateOutOfLoop(parentId);
    return parentId;
  }
  await run.tokens.saveLoop(parentId, done.state);
  if (done.start !== undefined) {
    const outer = localsIn(run, variables);
    const start = await spawnChild({ run, parentId, node, state: done.state, index: done.start, outer });
    if (start) started.push(start);
  }
  return null;
}

/**
 * A multi-instance activity that waits for nothing (task, manual task, service or send task): it
 * runs once per item, one after another (a step each), until its completion condition holds.
 * Each item is a row of the history: the first is the one the token wrote passing the activity,
 * each further item adds its own.
 */
export function passLoop({
  run,
  step,
  node,
  variables,
  each,
}: {
  run: Run;
  step: Step;
  node: ProcessNode;
  /** What the element reads (variablesAt): in a loop's body, the outer item's too. */
  variables: Record<string, unknown>;
  each: (locals: Record<string, unknown>) => Promise<void>;
}): Promise<void> {
  const outer = localsIn(run, variables);
  return runLoopInline({
    node,
    variables,
    countStep: () => countStep(run),
    each: async (locals) => {
      if (locals.loopCounter !== 0) await run.history.pass(step.executionId, node);
      await each({ ...outer, ...locals });
    },
  });
}

/** Whether a node runs inside a multi-instance sub-process (at any depth). */
function isInLoopScope(graph: ProcessGraph, node: ProcessNode): boolean {
  for (let id = node.scope; id !== undefined; id = graph.nodes[id]?.scope)
    if (graph.nodes[id]?.multi) return true;
  return false;
}

/**
 * The variables the element at a token reads: the instance's, and inside a multi-instance
 * sub-process (or as a loop's call activity, external, connector or mail task) the loop's item, loopCounter and counts over them,
 * kept on the loop child's token. What the interpreter and the calls made after a step read.
 */
export async function variablesAt({
  graph,
  tokens,
  variables,
  executionId,
  node,
}: {
  graph: ProcessGraph;
  tokens: Pick<TokenStore, 'localsAbove'>;
  variables: Record<string, unknown>;
  executionId: number;
  node: ProcessNode;
}): Promise<Record<string, unknown>> {
  // A loop's call activity, external task, connector and mail task read their own item, kept on
  // their child's token.
  const isLoopChild = node.multi !== undefined && (node.type === 'callActivity' || waitsForWork(node));
  if (!isLoopChild && !isInLoopScope(graph, node)) return variables;
  const locals = await tokens.localsAbove(executionId);
  return Object.keys(locals).length === 0 ? variables : { ...variables, ...locals };
}
