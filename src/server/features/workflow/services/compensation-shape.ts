import type { ModdleElement } from 'bpmn-moddle';
import type { Finding, ProcessGraph, ProcessNode } from './graph.js';

/**
 * What parse.ts reads of compensation and transactions (the engine's side: compensation.ts):
 * compensation boundary events and the handlers associated with them, compensation throws
 * (intermediate and end events, activityRef or all), transactions, cancel end and cancel boundary
 * events. What the engine cannot run is a problem naming the element.
 */

const list = (value: unknown): ModdleElement[] => (Array.isArray(value) ? (value as ModdleElement[]) : []);
const idOf = (value: unknown): string | undefined =>
  value && typeof value === 'object' && typeof (value as ModdleElement).id === 'string'
    ? (value as ModdleElement).id
    : undefined;

const unsupported = (problems: Finding[], id: string, type: string): void => {
  problems.push({ field: id, key: 'unsupported', params: { id, type } });
};

/**
 * Reads an element's compensation and transaction markers into its node. Answers true when the
 * element is an event of this module (compensation or cancel boundary, compensation throw, cancel
 * end), which parse.ts then reads no further.
 */
export function readCompensationMarkers(
  element: ModdleElement,
  node: ProcessNode,
  /** A reference the XML names but moddle could not resolve (an activityRef to no element). */
  unresolved: (definition: ModdleElement) => string | undefined,
): boolean {
  if (element.isForCompensation === true) node.isForCompensation = true;
  if (element.$type === 'bpmn:Transaction') node.isTransaction = true;
  const definitions = list(element.eventDefinitions);
  const [definition] = definitions;
  if (definitions.length !== 1 || !definition) return false;
  const isCompensate = definition.$type === 'bpmn:CompensateEventDefinition';
  const isCancel = definition.$type === 'bpmn:CancelEventDefinition';
  if (!isCompensate && !isCancel) return false;
  if (node.type === 'boundaryEvent') {
    if (isCompensate) node.isCompensationBoundary = true;
    else node.isCancel = true;
    const attachedTo = idOf(element.attachedToRef);
    if (attachedTo) node.attachedTo = attachedTo;
    return true;
  }
  if (node.type === 'endEvent' && isCancel) {
    node.isCancel = true;
    return true;
  }
  if ((node.type === 'endEvent' || node.type === 'intermediateThrowEvent') && isCompensate) {
    const activityRef = idOf(definition.activityRef) ?? unresolved(definition);
    node.compensation = activityRef ? { activityRef } : {};
    return true;
  }
  return false;
}

/** The associations of a process and of the sub-processes in it (where handlers are linked to their events). */
function associationsOf(container: ModdleElement): { source: string; target: string }[] {
  const found: { source: string; target: string }[] = [];
  for (const artifact of [...list(container.artifacts), ...list(container.flowElements)]) {
    if (artifact.$type === 'bpmn:Association') {
      const source = idOf(artifact.sourceRef);
      const target = idOf(artifact.targetRef);
      if (source && target) found.push({ source, target });
    } else if (list(artifact.flowElements).length > 0 || list(artifact.artifacts).length > 0)
      found.push(...associationsOf(artifact));
  }
  return found;
}

/** The sub-processes a node is in, innermost first. */
function scopesOf(graph: ProcessGraph, node: ProcessNode): ProcessNode[] {
  const scopes: ProcessNode[] = [];
  let scope = node.scope === undefined ? undefined : graph.nodes[node.scope];
  while (scope) {
    scopes.push(scope);
    scope = scope.scope === undefined ? undefined : graph.nodes[scope.scope];
  }
  return scopes;
}

/** What may be compensated: activities and sub-processes (not events or gateways). */
const COMPENSABLE = new Set([
  'userTask',
  'serviceTask',
  'task',
  'manualTask',
  'sendTask',
  'receiveTask',
  'subProcess',
  'callActivity',
]);

/**
 * Links each compensation boundary event's activity to its handler (the association from the
 * event to an activity with isForCompensation) and checks what compensation.ts needs: a handler
 * without flows in the activity's scope, no compensation in a multi-instance activity or
 * sub-process, a throw's activityRef in its scope and not in an event sub-process, a cancel end
 * event inside a transaction that has one cancel boundary event.
 */
export function compensationShape({
  graph,
  process,
  refused,
  problems,
}: {
  graph: ProcessGraph;
  process: ModdleElement;
  /** Elements already refused: an event linked to one is not refused again on its account. */
  refused: ReadonlySet<string>;
  problems: Finding[];
}): void {
  const associations = associationsOf(process);
  for (const node of Object.values(graph.nodes)) {
    const inLoop = scopesOf(graph, node).some((scope) => scope.multi !== undefined);
    if (node.isCompensationBoundary) {
      const activity = graph.nodes[node.attachedTo ?? ''];
      const handlerId = associations.find((link) => link.source === node.id)?.target ?? '';
      const handler = graph.nodes[handlerId];
      if (refused.has(node.attachedTo ?? '') || refused.has(handlerId)) continue;
      if (!activity || !COMPENSABLE.has(activity.type))
        unsupported(problems, node.id, 'compensation BoundaryEvent not attached to an activity');
      else if (!handler || !COMPENSABLE.has(handler.type))
        unsupported(
          problems,
          node.id,
          'compensation BoundaryEvent without an associated compensation handler',
        );
      else if (activity.multi || inLoop)
        unsupported(
          problems,
          node.id,
          'compensation BoundaryEvent in a multi-instance activity or sub-process',
        );
      else if (handler.scope !== activity.scope || handler.multi)
        unsupported(problems, handler.id, `compensation handler outside the scope of ${activity.id}`);
      else {
        activity.compensationHandler = handler.id;
        handler.isForCompensation = true;
      }
      if (node.outgoing.length > 0)
        unsupported(problems, node.id, 'compensation BoundaryEvent with an outgoing flow');
    }
    if (node.isForCompensation && (node.incoming.length > 0 || node.outgoing.length > 0))
      unsupported(problems, node.id, 'compensation handler with a sequence flow');
    if (node.compensation) {
      const ref = node.compensation.activityRef;
      const target = ref === undefined ? undefined : graph.nodes[ref];
      if (scopesOf(graph, node).some((scope) => scope.isEventSubProcess))
        unsupported(problems, node.id, 'compensation throw in an event SubProcess');
      else if (ref !== undefined && (!target || target.scope !== node.scope))
        unsupported(problems, node.id, `compensation of ${ref}, which is not an activity of its scope`);
    }
    if (node.isCancel && node.type === 'boundaryEvent') {
      const transaction = graph.nodes[node.attachedTo ?? ''];
      if (!transaction?.isTransaction)
        unsupported(problems, node.id, 'cancel BoundaryEvent not attached to a Transaction');
      else if (transaction.cancelBoundary !== undefined)
        unsupported(problems, node.id, `a second cancel BoundaryEvent on ${transaction.id}`);
      else transaction.cancelBoundary = node.id;
    }
  }
  for (const node of Object.values(graph.nodes)) {
    if (!node.isCancel || node.type !== 'endEvent') continue;
    const transaction = graph.nodes[node.scope ?? ''];
    if (!transaction?.isTransaction) unsupported(problems, node.id, 'cancel EndEvent outside a Transaction');
    else if (transaction.multi)
      unsupported(problems, node.id, 'cancel EndEvent in a multi-instance Transaction');
    else if (transaction.cancelBoundary === undefined)
      unsupported(
        problems,
        node.id,
        `cancel EndEvent in ${transaction.id}, which has no cancel BoundaryEvent`,
      );
  }
}
