/**
 * A deployed process as the interpreter reads it: the BPMN file parsed once at deployment and
 * kept as JSON in the definition row (wf_definition.graph). Only supported elements appear.
 */

export type NodeType =
  | 'startEvent'
  | 'endEvent'
  | 'userTask'
  | 'serviceTask'
  /** `task` and `manualTask`: nothing to do here, a token passes them at once. */
  | 'task'
  | 'manualTask'
  /** A send task (no implementation): passed at once, as the peers pass one without a delegate. */
  | 'sendTask'
  /** A receive task: its token waits for its message (or a trigger when it names none). */
  | 'receiveTask'
  | 'exclusiveGateway'
  /** An event-based gateway: its token waits until one of the catch events after it fires. */
  | 'eventBasedGateway'
  | 'parallelGateway'
  | 'inclusiveGateway'
  | 'subProcess'
  /** A call activity: starts the latest version of another process and waits until it ends. */
  | 'callActivity'
  | 'boundaryEvent'
  /** None (passed at once), link (jumps to its catch), signal (broadcast in the instance). */
  | 'intermediateThrowEvent'
  /** Link (passed at once), timer (waits for its job), signal (waits for a throw). */
  | 'intermediateCatchEvent';

/**
 * A service task: a built-in one (an inbox notification, variables set), an external task a
 * worker fetches by topic (camunda:type="external"), or a call of the HTTP connector
 * (connector.ts). Java code and scripts are refused at deploy (issue 36).
 */
export interface ServiceCall {
  kind: 'notify' | 'setVariables' | 'mail' | 'external' | 'http';
  /** Field name → text (may hold `${…}`). */
  fields: Record<string, string>;
  /** external: the topic workers fetch it by. */
  topic?: string;
  /**
   * external: its camunda:errorEventDefinitions. When the worker completes the task, the first
   * whose expression holds over the variables throws its error (code) instead of going on.
   */
  errorRules?: { code: string; expression: string }[];
  /** http: the connector's input parameters url, method, payload (texts may hold `${…}`) and headers. */
  inputs?: Record<string, string | Record<string, string>>;
  /** http: output parameter name → text or expression over statusCode, response and headers. */
  outputs?: Record<string, string>;
}

/** One variable a call activity passes in or out: from a variable or an expression, to a name. */
export interface VariableMapping {
  source?: string;
  sourceExpression?: string;
  target: string;
}

/** What a call activity calls and the variables it passes (camunda:in / camunda:out, activiti:in / out). */
export interface CallSpec {
  /** The process key (may hold `${…}`). */
  calledElement: string;
  /** `<in variables="all"/>`: every variable goes in. */
  inAll?: boolean;
  ins: VariableMapping[];
  /** `<out variables="all"/>`: every variable of the called instance comes back. */
  outAll?: boolean;
  outs: VariableMapping[];
  /** The called instance gets the caller's business key (camunda:in businessKey="#{execution.processBusinessKey}"). */
  passBusinessKey?: boolean;
  /** Or the business key this text or expression makes of the caller's variables. */
  businessKey?: string;
}

/** A multi-instance user task or sub-process: one per item (parallel) or one after another (sequential). */
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
  /**
   * Activiti's and Flowable's skip expression on a user, service, script or send task: while the
   * instance's _ACTIVITI_ (or _FLOWABLE_) SKIP_EXPRESSION_ENABLED variable is true and it holds,
   * the token passes the task without its work (no task, no call) and leaves by its flows.
   */
  skipExpression?: string;
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
  /**
   * An error end event of a Camunda file: caught by nobody, it ends its path as a none end event
   * does (Camunda's semantics); otherwise an uncaught error stops the token in an incident.
   */
  endsWhenUncaught?: boolean;
  /** A transaction (a sub-process a cancel end event inside it cancels; compensation.ts). */
  isTransaction?: boolean;
  /** Cancel end event (inside a transaction) and cancel boundary event (on a transaction). */
  isCancel?: boolean;
  /** Compensation boundary event: it never fires; it names its activity's compensation handler. */
  isCompensationBoundary?: boolean;
  /** A compensation handler (isForCompensation): run only by a compensation, never by a flow. */
  isForCompensation?: boolean;
  /** Activity with a compensation boundary event: the handler that undoes it once it completed. */
  compensationHandler?: string;
  /** Compensation throw (intermediate or end event): every completed activity of its scope, or activityRef's. */
  compensation?: { activityRef?: string };
  /** Transaction: its cancel boundary event, the way out after a cancel end event. */
  cancelBoundary?: string;
  /** Start event: the variable that receives the starting user's name. */
  initiator?: string;
  /** User task people: user names, groups (role:X, post:X, org:N, bare = role), may hold `${…}`. */
  assignee?: string;
  candidateUsers?: string[];
  candidateGroups?: string[];
  formKey?: string;
  service?: ServiceCall;
  /** Call activity: what it calls and passes. */
  call?: CallSpec;
  multi?: MultiInstance;
  /** Start event (timer start) and boundary event: its timer. */
  timer?: TimerSpec;
  /** Boundary event: the activity or sub-process it is attached to. */
  attachedTo?: string;
  /** Boundary event: `cancelActivity="false"`, the activity goes on when it fires. */
  isNonInterrupting?: boolean;
  /**
   * Boundary event or event sub-process start catching an error, and error end event throwing
   * one: the error's code (its errorCode, else the error's id). A catcher without one catches
   * every error ('').
   */
  errorCode?: string;
  /**
   * Escalation throw (intermediate or end event): its escalation's code; escalation boundary
   * event or event sub-process start: the code it catches ('' any). An escalation nobody catches
   * is passed.
   */
  escalationCode?: string;
  /** Intermediate link throw or catch: the link's name (a throw jumps to the catch of that name in its scope). */
  linkName?: string;
  /** Intermediate signal throw or catch, signal boundary, signal start or end event: the signal's name. */
  signalName?: string;
  /**
   * Message catch (intermediate, receive task, boundary, start event) or throw (intermediate,
   * end event: passed as a send): the message's name.
   */
  messageName?: string;
  /**
   * Conditional catch or boundary event: its condition, read when its token arrives (catch) and
   * whenever the instance's variables change.
   */
  condition?: string;
  /** A catch event after an event-based gateway: the gateway, where its token waits. */
  eventGateway?: string;
  /** Activity or sub-process: the ids of its boundary events. */
  boundaries?: string[];
  /** Embedded sub-process: its none start event; event sub-process: its message, signal, timer, error or escalation start. */
  startId?: string;
  /** An event sub-process (triggeredByEvent): started by the event of its start, in its scope. */
  isEventSubProcess?: boolean;
  /** Sub-process: the event sub-processes directly inside it. */
  eventSubProcesses?: string[];
}

export interface ProcessFlow {
  id: string;
  name?: string;
  source: string;
  target: string;
  condition?: string;
  /**
   * Activiti's and Flowable's skip expression: while the instance's _ACTIVITI_ (or _FLOWABLE_)
   * SKIP_EXPRESSION_ENABLED variable is true, it decides whether the flow is taken in place of
   * its condition.
   */
  skipExpression?: string;
}

export interface ProcessGraph {
  key: string;
  name?: string;
  startId: string;
  /** Message start events by message name (POST …/message starts an instance there). */
  messageStarts?: Record<string, string>;
  /** Signal start events by signal name (a signal thrown in the tenant starts an instance there). */
  signalStarts?: Record<string, string>;
  /** The event sub-processes of the process itself (not inside a sub-process). */
  eventSubProcesses?: string[];
  /**
   * Who may start it (camunda:candidateStarterUsers / candidateStarterGroups): user names and
   * groups ("role:X", "post:X", "org:N"); neither set, anyone of the tenant.
   */
  candidateStarterUsers?: string[];
  candidateStarterGroups?: string[];
  /**
   * The process's data objects with their value (activiti:value / flowable:value), by name: the
   * variables every instance starts with, as in Activiti and Flowable (the starter's win).
   */
  dataObjects?: Record<string, unknown>;
  nodes: Record<string, ProcessNode>;
  flows: Record<string, ProcessFlow>;
}

/**
 * Activities (and boundary events) whose token ends when they have no outgoing flow (BPMN's
 * implicit end), as it would at a plain end event. Start events and gateways still need a flow out.
 */
export const IMPLICIT_END_TYPES: ReadonlySet<NodeType> = new Set<NodeType>([
  'userTask',
  'serviceTask',
  'task',
  'manualTask',
  'sendTask',
  'receiveTask',
  'subProcess',
  'callActivity',
  'boundaryEvent',
]);

/** One event a token waits for at its node: what POST …/message and signals look for. */
export interface EventWait {
  kind: 'message' | 'signal';
  name: string;
  /** The catching element: the catch event, receive task or boundary event. */
  catchId: string;
}

/**
 * The messages and signals a token standing at a node waits for: a message or signal catch
 * event, a receive task with a message, the message and signal boundary events of an activity or
 * sub-process, and the message and signal catch events after an event-based gateway.
 */
export function eventWaitsAt(graph: ProcessGraph, nodeId: string): EventWait[] {
  const node = graph.nodes[nodeId];
  if (!node) return [];
  const waits: EventWait[] = [];
  const of = (catcher: ProcessNode | undefined): void => {
    if (!catcher) return;
    if (catcher.messageName !== undefined)
      waits.push({ kind: 'message', name: catcher.messageName, catchId: catcher.id });
    else if (catcher.signalName !== undefined)
      waits.push({ kind: 'signal', name: catcher.signalName, catchId: catcher.id });
  };
  if (node.type === 'intermediateCatchEvent' || node.type === 'receiveTask') of(node);
  if (node.type === 'eventBasedGateway')
    for (const flowId of node.outgoing) of(graph.nodes[graph.flows[flowId]?.target ?? '']);
  for (const boundaryId of node.boundaries ?? []) of(graph.nodes[boundaryId]);
  for (const eventSubProcess of node.eventSubProcesses ?? []) of(eventStartOf(graph, eventSubProcess));
  return waits;
}

/** The start event of an event sub-process. */
export const eventStartOf = (graph: ProcessGraph, eventSubProcessId: string): ProcessNode | undefined =>
  graph.nodes[graph.nodes[eventSubProcessId]?.startId ?? ''];

/** The messages and signals the process itself waits for while it runs: its own event sub-processes' starts. */
export function instanceWaits(graph: ProcessGraph): EventWait[] {
  const waits: EventWait[] = [];
  for (const id of graph.eventSubProcesses ?? []) {
    const start = eventStartOf(graph, id);
    if (start?.messageName !== undefined)
      waits.push({ kind: 'message', name: start.messageName, catchId: start.id });
    else if (start?.signalName !== undefined)
      waits.push({ kind: 'signal', name: start.signalName, catchId: start.id });
  }
  return waits;
}

const waitingGraphs = new WeakMap<ProcessGraph, boolean>();

/** Whether a token of the process can ever wait for a message or signal (else no subscription row is ever written). */
export function hasEventWaits(graph: ProcessGraph): boolean {
  let found = waitingGraphs.get(graph);
  if (found === undefined) {
    found =
      instanceWaits(graph).length > 0 ||
      Object.keys(graph.nodes).some((id) => eventWaitsAt(graph, id).length > 0);
    waitingGraphs.set(graph, found);
  }
  return found;
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

const compensatingGraphs = new WeakMap<ProcessGraph, boolean>();

/** Whether a process has a compensation handler at all (else no wf_compensation row is ever written or read). */
export function hasCompensation(graph: ProcessGraph): boolean {
  let found = compensatingGraphs.get(graph);
  if (found === undefined) {
    found = Object.values(graph.nodes).some((node) => node.isForCompensation === true);
    compensatingGraphs.set(graph, found);
  }
  return found;
}

/** A problem or warning of a BPMN file: the element (or field) it names and its message key. */
export interface Finding {
  field: string;
  key: string;
  params?: Record<string, unknown>;
}
