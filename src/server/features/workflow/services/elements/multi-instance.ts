import { evaluate, evaluateCondition, ExpressionError, interpolate } from '../expressions.js';
import type { ProcessNode } from '../graph.js';

/**
 * Multi-instance semantics (BPMN's standard loop characteristics, as Activiti, Flowable and
 * Camunda run them): the items a loop runs over, how many children run at once, what each child
 * sees, and when the loop is over. They decide from the node and the variables alone; where the
 * loop's state is kept (wf_execution's loop_state) is the caller's (multi-instance.ts).
 */

/** A loop in progress: its items and counts (kept on the token that waits at the activity). */
export interface LoopState {
  items: unknown[];
  total: number;
  completed: number;
  active: number;
  /** The index of the next child to start (sequential loops start one at a time). */
  next: number;
}

/** The largest loop cardinality (a collection's length is bounded by the step budgets instead). */
export const LOOP_MAX = 1000;

/** The counts of a loop in progress (its state less its items). */
export type LoopCounts = Pick<LoopState, 'total' | 'active' | 'completed'>;

/** The loop counts every child and the completion condition see. */
export const loopCounts = (state: LoopCounts): Record<string, number> => ({
  nrOfInstances: state.total,
  nrOfActiveInstances: state.active,
  nrOfCompletedInstances: state.completed,
});

/**
 * The items a loop runs over: its collection (a variable's name or an expression), or as many
 * numbers as its cardinality. An ExpressionError (the incident's reason) when the collection is
 * unset or not a list, or the cardinality is not a whole number up to LOOP_MAX.
 */
export function loopItems({
  node,
  variables,
}: {
  node: ProcessNode;
  variables: Record<string, unknown>;
}): unknown[] {
  const multi = node.multi;
  if (!multi) return [];
  if (multi.collection) {
    const isExpression = multi.collection.includes('${');
    const value = isExpression ? evaluate(multi.collection, variables) : variables[multi.collection];
    // Unset: the incident names the variable, which a retry may then give (Flowable: "Variable
    // 'elements' is not found").
    if (value === undefined && !isExpression)
      throw new ExpressionError(`the collection variable ${multi.collection} is not set`, multi.collection);
    if (!Array.isArray(value)) throw new ExpressionError(`the collection ${multi.collection} is not a list`);
    return value as unknown[];
  }
  const count = Number(interpolate(multi.cardinality ?? '0', variables));
  if (!Number.isInteger(count) || count < 0 || count > LOOP_MAX)
    throw new ExpressionError(
      `the loop cardinality ${multi.cardinality ?? ''} is not a whole number up to ${LOOP_MAX}`,
    );
  return Array.from({ length: count }, (_, index) => index);
}

/**
 * A token reaches a multi-instance activity: the loop's state and the indexes of the children to
 * start now (every one at once, or the first of a sequential loop). Undefined when there are no
 * items: the token goes on at once.
 */
export function openLoop({
  node,
  variables,
}: {
  node: ProcessNode;
  variables: Record<string, unknown>;
}): { state: LoopState; children: number[] } | undefined {
  const items = loopItems({ node, variables });
  if (items.length === 0) return undefined;
  const batch = node.multi?.isSequential ? 1 : items.length;
  return {
    state: { items, total: items.length, completed: 0, active: batch, next: batch },
    children: Array.from({ length: batch }, (_, index) => index),
  };
}

/** What one child sees as its own variables: loopCounter, the counts, and its item (elementVariable). */
export function childLocals({
  node,
  state,
  index,
}: {
  node: ProcessNode;
  state: LoopState;
  index: number;
}): Record<string, unknown> {
  const locals: Record<string, unknown> = { loopCounter: index, ...loopCounts(state) };
  if (node.multi?.elementVariable) locals[node.multi.elementVariable] = state.items[index];
  return locals;
}

/** What a child's end means for its loop. */
export type ChildDone =
  /** The loop is over (every child done, or the completion condition holds): the rest are canceled. */
  | { isOver: true; state: LoopState }
  /** The loop goes on; `start` names the next child of a sequential loop to start now. */
  | { isOver: false; state: LoopState; start?: number };

/** A child of the loop ended: the loop's new state and what comes next. */
export function childDone({
  node,
  state,
  variables,
}: {
  node: ProcessNode;
  state: LoopState;
  variables: Record<string, unknown>;
}): ChildDone {
  const next: LoopState = { ...state, completed: state.completed + 1, active: state.active - 1 };
  const condition = node.multi?.completionCondition;
  if (
    next.completed >= next.total ||
    (condition !== undefined && evaluateCondition(condition, { ...variables, ...loopCounts(next) }))
  )
    return { isOver: true, state: next };
  if (node.multi?.isSequential && next.next < next.total)
    return {
      isOver: false,
      state: { ...next, active: next.active + 1, next: next.next + 1 },
      start: next.next,
    };
  return { isOver: false, state: next };
}

/**
 * A multi-instance activity that waits for nothing (task, manual task, service or send task): it
 * runs once per item, one after another, until its completion condition holds. `each` runs one
 * child with its locals; `countStep` counts it against the step budgets before it runs.
 */
export async function runLoopInline({
  node,
  variables,
  countStep,
  each,
}: {
  node: ProcessNode;
  variables: Record<string, unknown>;
  countStep: () => void;
  each: (locals: Record<string, unknown>) => Promise<void>;
}): Promise<void> {
  const items = loopItems({ node, variables });
  const state: LoopState = { items, total: items.length, completed: 0, active: 1, next: 0 };
  const condition = node.multi?.completionCondition;
  for (let index = 0; index < items.length; index++) {
    countStep();
    await each(childLocals({ node, state, index }));
    state.completed += 1;
    if (condition !== undefined && evaluateCondition(condition, { ...variables, ...loopCounts(state) }))
      break;
  }
}
