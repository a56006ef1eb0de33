/**
 * A deployed process as the interpreter reads it: the BPMN file parsed once at deployment and
 * kept as JSON in the definition row (wf_definition.graph). Only supported elements appear.
 */

export type NodeType =
  | 'startEvent'
  | 'endEvent'
  | 'userTask'
  | 'serviceTask'
  | 'exclusiveGateway'
  | 'parallelGateway'
  | 'inclusiveGateway'
  | 'subProcess'
  | 'boundaryEvent';

/** A built-in service task: an inbox notification, or variables set. */
export interface ServiceCall {
  kind: 'notify' | 'setVariables';
  /** Field name → text (may hold `${…}`). */
  fields: Record<string, string>;
}

/** A multi-instance user task: one task per item (parallel) or one after another (sequential). */
export interface MultiInstance {
  isSequential: boolean;
  /** `${list}` or a variable name; or loopCardinality instead. */
  collection?: string;
  cardinality?: string;
  elementVariable?: string;
  /** Ends the loop early (any-one 或签: `${nrOfCompletedInstances >= 1}`). */
  completionCondition?: string;
}

/** A timer: an ISO-8601 duration (PT5M), date (2026-12-01T08:00:00Z) or cycle (R3/PT1H, R/2026-12-01T08:00:00Z/P1D). */
export interface TimerSpec {
  duration?: string;
  date?: string;
  cycle?: string;
}

export interface ProcessNode {
  id: string;
  type: NodeType;
  /** A node inside an embedded sub-process: the sub-process's id. */
  scope?: string;
  name?: string;
  documentation?: string;
  incoming: string[];
  outgoing: string[];
  /** Gateways: the default flow. */
  defaultFlow?: string;
  /** End event: a terminate end ends every branch. */
  isTerminate?: boolean;
  /** A terminate end with terminateAll (Activiti, Flowable): inside a sub-process it ends the whole instance. */
  isTerminateAll?: boolean;
  /** Start event: the variable that receives the starting user's name. */
  initiator?: string;
  /** User task people: user names, groups (role:X, post:X, org:N, bare = role), may hold `${…}`. */
  assignee?: string;
  candidateUsers?: string[];
  candidateGroups?: string[];
  formKey?: string;
  service?: ServiceCall;
  multi?: MultiInstance;
  /** Start event (timer start) and boundary event: its timer. */
  timer?: TimerSpec;
  /** Boundary event: the user task it is attached to (interrupting). */
  attachedTo?: string;
  /** User task: the ids of its boundary timer events. */
  boundaries?: string[];
  /** Embedded sub-process: its none start event. */
  startId?: string;
}

export interface ProcessFlow {
  id: string;
  name?: string;
  source: string;
  target: string;
  condition?: string;
}

export interface ProcessGraph {
  key: string;
  name?: string;
  startId: string;
  nodes: Record<string, ProcessNode>;
  flows: Record<string, ProcessFlow>;
}

/** Nodes from which `target` can be reached (for the inclusive join). */
export function nodesReaching(graph: ProcessGraph, target: string): Set<string> {
  const found = new Set<string>();
  const queue = [target];
  while (queue.length > 0) {
    const id = queue.pop() ?? '';
    for (const flowId of graph.nodes[id]?.incoming ?? []) {
      const source = graph.flows[flowId]?.source;
      if (source && !found.has(source)) {
        found.add(source);
        queue.push(source);
      }
    }
  }
  return found;
}

/** User tasks before a node, nearest first (for regress: where a task may be sent back). */
export function userTasksBefore(graph: ProcessGraph, nodeId: string): string[] {
  return [...nodesReaching(graph, nodeId)].filter(
    (id) => graph.nodes[id]?.type === 'userTask' && id !== nodeId,
  );
}
