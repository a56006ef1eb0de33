import { BUDGETS } from '../../../lib/budgets.js';
import { AppError } from '../../../lib/errors.js';
import type { Run } from './activity.js';
import { ExpressionError } from './expressions.js';
import type { ProcessNode } from './graph.js';
import { isCalledAfterCommit } from './service-calls.js';
import { noteStepsTaken, stepsTakenIn } from './transaction.js';

/**
 * The step budgets of the interpreter (BUDGETS.workflow): every element a token runs through and
 * every task of a loop counts as a step. Past the budget of one transaction, a request is refused
 * (400 wfStepBudget, its transaction rolled back: nothing half-written); work of the engine itself
 * (timers) stops the instance in an incident naming the budget, and its transaction ends. Past the
 * budget of an instance's whole life (its count kept in wf_instance.steps), the instance stops in
 * an incident either way.
 */

export type StepBudget = 'stepsPerTransaction' | 'stepsPerInstance';

/** A step budget was passed where the instance stops in an incident (the interpreter catches it). */
export class StepBudgetPassed extends Error {
  constructor(readonly budget: StepBudget) {
    const limit = BUDGETS.workflow[budget];
    super(
      budget === 'stepsPerTransaction'
        ? `step budget passed: more than ${limit} steps in one transaction (workflow.stepsPerTransaction)`
        : `step budget passed: more than ${limit} steps in the life of the instance (workflow.stepsPerInstance)`,
    );
    this.name = 'StepBudgetPassed';
  }
}

/**
 * A run that let other runs of its transaction work (a broadcast) takes their steps on: its
 * count goes on from the transaction's, and they are not saved on its own instance's row.
 */
export function catchUpSteps(run: Run): void {
  const taken = Math.max(0, stepsTakenIn(run.trx) - run.steps);
  run.steps += taken;
  run.stepsSaved += taken;
}

/** One step of a run: throws when it is past a budget. */
export function countStep(run: Run): void {
  run.steps += 1;
  noteStepsTaken(run.trx, run.steps);
  const { stepsPerTransaction, stepsPerInstance } = BUDGETS.workflow;
  if (run.stepsBefore + run.steps > stepsPerInstance) throw new StepBudgetPassed('stepsPerInstance');
  if (run.steps > stepsPerTransaction) {
    if (run.onStepBudget === 'refuse') throw new AppError('wfStepBudget', { limit: stepsPerTransaction });
    throw new StepBudgetPassed('stepsPerTransaction');
  }
}

/** The steps of the run not yet on the instance row (from now on counted as saved). */
export function unsavedSteps(run: Run): number {
  const steps = run.steps - run.stepsSaved;
  run.stepsSaved = run.steps;
  return steps;
}

/** Adds the run's new steps to the instance's count (nothing when it took none). */
export async function saveSteps(run: Run): Promise<void> {
  const steps = unsavedSteps(run);
  if (steps === 0) return;
  await run.instance.addSteps(steps);
}

/**
 * `more` connector or mail calls of the instance (each item of a loop's is one; a parallel loop
 * counts all of its items before it opens): an ExpressionError (the token's incident) when they
 * would take it past workflow.callsPerInstance.
 */
export async function countCall(run: Run, node: ProcessNode, more = 1): Promise<void> {
  const { callsPerInstance } = BUDGETS.workflow;
  const callers = Object.values(run.graph.nodes)
    .filter(isCalledAfterCommit)
    .map((caller) => caller.id);
  const made = await run.history.countOf(callers);
  if (made + more > callsPerInstance)
    throw new ExpressionError(
      `${node.name?.trim() || node.id} would make call ${made + more} of this instance, over its budget of ${callsPerInstance} (workflow.callsPerInstance)`,
    );
}
