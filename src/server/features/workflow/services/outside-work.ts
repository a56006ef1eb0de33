import type { Run } from './activity.js';
import { countCall } from './budget.js';
import { workflowNow } from './clock.js';
import type { ProcessNode } from './graph.js';
import { isCalledAfterCommit } from './service-calls.js';

/**
 * Work done outside the engine that a token waits for: an external task's (a worker fetches,
 * locks and completes it; external-tasks.ts) and a connector's or mail task's call (made by a job
 * once the step has committed; service-calls.ts). Of a multi-instance one, each item's token
 * waits for its own.
 */

/** An external service task (not the catch of an event-based gateway): its token waits for a worker. */
export const isExternalTask = (node: ProcessNode): boolean =>
  node.service?.kind === 'external' && node.eventGateway === undefined;

/** Whether a token at the node waits for work done outside: an external task, or a call. */
export const waitsForWork = (node: ProcessNode): boolean => isExternalTask(node) || isCalledAfterCommit(node);

/**
 * The token waits at the node for its work: offered to the workers of its topic (an earlier offer
 * of the same token replaced), or its call left as a job for after the commit (within the
 * instance's call budget: an ExpressionError past it, before anything is written; `isCounted`: a
 * loop counted its items' calls already).
 */
export async function waitForWork(
  run: Run,
  executionId: number,
  node: ProcessNode,
  { isCounted = false }: { isCounted?: boolean } = {},
): Promise<void> {
  const isCall = isCalledAfterCommit(node);
  if (isCall && !isCounted) await countCall(run, node);
  await run.history.start(executionId, node);
  await run.tokens.wait(executionId);
  if (isCall) await run.waits.callService(executionId, node.id, workflowNow(run.ctx));
  else
    await run.waits.offerWork(executionId, {
      processKey: run.graph.key,
      activityId: node.id,
      topic: node.service?.topic ?? node.id,
    });
}
