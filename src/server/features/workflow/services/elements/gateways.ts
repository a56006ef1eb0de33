import { evaluateCondition, ExpressionError } from '../expressions.js';
import { nodesReaching, type ProcessGraph, type ProcessNode } from '../graph.js';
import type { Step } from '../activity.js';
import type { Incident } from '../instance-store.js';
import type { TokenStore } from '../tokens.js';
import { expressionIncident, isSkipEnabled } from './skip.js';

/**
 * The gateways' semantics (and the choice of flows of any element with conditional flows): which
 * flows a token takes when it leaves, and when a join lets merged branches go on. They decide
 * from the graph, the variables and the instance's tokens (a TokenStore); the interpreter moves
 * the tokens they name.
 */

/**
 * The flows a gateway (or an activity with conditional flows) takes: exclusive → the first whose
 * condition holds, else the default; inclusive and others → every one whose condition holds
 * (or that has none), else the default. An incident when a condition cannot be evaluated or no
 * flow is left.
 */
export function chooseFlows({
  graph,
  node,
  variables,
}: {
  graph: ProcessGraph;
  node: ProcessNode;
  variables: Record<string, unknown>;
}): string[] | Incident {
  const chosen: string[] = [];
  const isSkipping = isSkipEnabled(variables);
  for (const flowId of node.outgoing) {
    if (flowId === node.defaultFlow) continue;
    const flow = graph.flows[flowId];
    const condition = flow?.condition;
    // Activiti and Flowable: an enabled skip expression decides in place of the condition (its
    // flow is taken when it holds, or when it is the only flow out).
    const skipExpression = isSkipping && node.type !== 'parallelGateway' ? flow?.skipExpression : undefined;
    const decides = skipExpression ?? condition;
    if (skipExpression !== undefined && node.outgoing.length === 1) {
      chosen.push(flowId);
    } else if (decides === undefined || node.type === 'parallelGateway') {
      chosen.push(flowId);
    } else {
      try {
        if (evaluateCondition(decides, variables)) chosen.push(flowId);
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        return expressionIncident(node.id, flowId, error);
      }
    }
    if (node.type === 'exclusiveGateway' && chosen.length > 0) break;
  }
  if (chosen.length === 0 && node.defaultFlow) chosen.push(node.defaultFlow);
  if (chosen.length === 0) return { activityId: node.id, flowId: null, message: 'no outgoing flow matches' };
  return chosen;
}

/**
 * A token arrives at a join: it waits until the join may go on. True when this token carries the
 * merged branches on (the others waiting there are merged into it and gone). A parallel join goes
 * on once a token came by every incoming flow; an inclusive join once no other token can still
 * arrive.
 */
export async function joined({
  tokens,
  graph,
  node,
  executionId,
}: {
  tokens: TokenStore;
  graph: ProcessGraph;
  node: ProcessNode;
  executionId: number;
}): Promise<boolean> {
  if (node.incoming.length <= 1) return true;
  await tokens.markJoining(executionId);
  const waiting = await tokens.joiningAt(node.id);
  if (node.type === 'parallelGateway') {
    if (waiting.length < node.incoming.length) return false;
  } else if (await mayStillArrive({ tokens, graph, joinId: node.id })) return false;
  await tokens.remove(waiting.filter((id) => id !== executionId));
  await tokens.activate(executionId);
  return true;
}

/**
 * Whether a token that is not yet waiting at an inclusive join may still reach it: one standing
 * at a node from which the join can be reached, or one already taken to the join and not yet run
 * (a branch of the same fork, queued in this run: it stands at the join, not yet joining).
 */
export async function mayStillArrive({
  tokens,
  graph,
  joinId,
}: {
  tokens: TokenStore;
  graph: ProcessGraph;
  joinId: string;
}): Promise<boolean> {
  const reaching = nodesReaching(graph, joinId);
  const others = await tokens.standingExceptJoiningAt(joinId);
  return others.some((activityId) => activityId === joinId || reaching.has(activityId));
}

const inclusiveJoins = new WeakMap<ProcessGraph, boolean>();

/** Whether a process has an inclusive join at all (else no token can wait at one: nothing to read). */
function hasInclusiveJoin(graph: ProcessGraph): boolean {
  let found = inclusiveJoins.get(graph);
  if (found === undefined) {
    found = Object.values(graph.nodes).some(
      (node) => node.type === 'inclusiveGateway' && node.incoming.length > 1,
    );
    inclusiveJoins.set(graph, found);
  }
  return found;
}

/**
 * Inclusive joins whose last possible branch has gone elsewhere (a token ended, or took another
 * way): they go on now, each with its first waiting token.
 */
export async function releasableJoins({
  tokens,
  graph,
}: {
  tokens: TokenStore;
  graph: ProcessGraph;
}): Promise<Step[]> {
  if (!hasInclusiveJoin(graph)) return [];
  const steps: Step[] = [];
  for (const waiting of await tokens.firstJoiningPerJoin()) {
    if (graph.nodes[waiting.activityId]?.type !== 'inclusiveGateway') continue;
    if (!(await mayStillArrive({ tokens, graph, joinId: waiting.activityId })))
      steps.push({ executionId: waiting.id, nodeId: waiting.activityId, parentId: waiting.parentId });
  }
  return steps;
}
