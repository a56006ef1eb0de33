import { eventStartOf, type ProcessGraph, type ProcessNode } from '../graph.js';
import type { Thrown } from '../activity.js';
import type { TokenStore } from '../tokens.js';

/**
 * Error and escalation semantics: which handler catches a thrown error or escalation. A boundary
 * event on the activity where it was thrown first, then, scope by scope outwards, the event
 * sub-processes of the scope and the boundary events of the sub-process; last the process's own
 * event sub-processes. Of the catchers at one place, the one naming the code wins over one that
 * catches any. Firing the handler is the interpreter's.
 */

/** What catches a thrown error or escalation: a boundary event on its activity, or an event sub-process's start in its scope. */
export type Handler =
  | { boundary: ProcessNode; execution: { id: number; parent_id: number | null } }
  | { start: ProcessNode; scopeId: number | null };

const caughtCode = (node: ProcessNode, kind: Thrown['kind']): string | undefined =>
  kind === 'error' ? node.errorCode : node.escalationCode;

/** Of the catchers, the one naming the thrown code, else one that catches any code. */
export function pickCatcher(
  candidates: (ProcessNode | undefined)[],
  thrown: Thrown,
): ProcessNode | undefined {
  const catching = candidates.filter(
    (node): node is ProcessNode => node !== undefined && caughtCode(node, thrown.kind) !== undefined,
  );
  const named =
    thrown.code === '' ? undefined : catching.find((node) => caughtCode(node, thrown.kind) === thrown.code);
  return named ?? catching.find((node) => caughtCode(node, thrown.kind) === '');
}

/** Whether firing the handler ends what it caught (else it runs beside it). */
export const interrupts = (handler: Handler): boolean =>
  !('boundary' in handler ? handler.boundary : handler.start).isNonInterrupting;

/**
 * Walks up the scopes a thrown event is in (from `scopeId`, run by the token `scopeExecution`):
 * at each, first the event sub-processes started by its kind of event (not the one it came
 * from), then the boundary events of the sub-process; last the process's own event
 * sub-processes. Answers the nearest handler, or none.
 */
export async function handlerInScopes({
  tokens,
  graph,
  scopeId,
  scopeExecution,
  thrown,
}: {
  tokens: TokenStore;
  graph: ProcessGraph;
  scopeId: string | undefined;
  scopeExecution: number | null;
  thrown: Thrown;
}): Promise<Handler | undefined> {
  let scope = scopeId === undefined ? undefined : graph.nodes[scopeId];
  let execution = scopeExecution;
  let cameFrom: string | undefined;
  for (;;) {
    const eventSubProcesses = (scope ? scope.eventSubProcesses : graph.eventSubProcesses) ?? [];
    const start = pickCatcher(
      eventSubProcesses.filter((id) => id !== cameFrom).map((id) => eventStartOf(graph, id)),
      thrown,
    );
    if (start) return { start, scopeId: scope ? execution : null };
    if (!scope || execution === null) return undefined;
    // A top-level sub-process's token has no parent: nothing to read.
    const parentId = scope.scope === undefined ? null : await tokens.parentOf(execution);
    const boundary = pickCatcher(
      (scope.boundaries ?? []).map((id) => graph.nodes[id]),
      thrown,
    );
    if (boundary) return { boundary, execution: { id: execution, parent_id: parentId } };
    cameFrom = scope.id;
    scope = scope.scope === undefined ? undefined : graph.nodes[scope.scope];
    execution = parentId;
  }
}

/** The handler of an event thrown at an activity's token: its own boundary events first, then its scopes'. */
export async function handlerAt({
  tokens,
  graph,
  node,
  execution,
  thrown,
}: {
  tokens: TokenStore;
  graph: ProcessGraph;
  node: ProcessNode;
  execution: { id: number; parent_id: number | null };
  thrown: Thrown;
}): Promise<Handler | undefined> {
  const boundary = pickCatcher(
    (node.boundaries ?? []).map((id) => graph.nodes[id]),
    thrown,
  );
  return boundary
    ? { boundary, execution }
    : handlerInScopes({ tokens, graph, scopeId: node.scope, scopeExecution: execution.parent_id, thrown });
}
