import { evaluateCondition, ExpressionError } from '../expressions.js';
import type { ProcessNode } from '../graph.js';
import type { Incident } from '../instance-store.js';

/** Skip expressions apply (Activiti's variable, or Flowable's of the same meaning, is true). */
export const isSkipEnabled = (variables: Record<string, unknown>): boolean =>
  [variables._ACTIVITI_SKIP_EXPRESSION_ENABLED, variables._FLOWABLE_SKIP_EXPRESSION_ENABLED].some(
    (value) => value === true || value === 'true',
  );

/** The incident of an expression that could not be evaluated at an element (or one of its flows). */
export function expressionIncident(
  activityId: string,
  flowId: string | null,
  error: ExpressionError,
): Incident {
  return {
    activityId,
    flowId,
    message: error.message,
    ...(error.variable === undefined ? {} : { variable: error.variable }),
  };
}

/**
 * An activity's skip expression while skip expressions apply: true when it holds (the activity is
 * passed without its work), the incident when it cannot be evaluated, else false.
 */
export function skipOf({
  node,
  variables,
}: {
  node: ProcessNode;
  variables: Record<string, unknown>;
}): boolean | Incident {
  if (node.skipExpression === undefined || !isSkipEnabled(variables)) return false;
  try {
    return evaluateCondition(node.skipExpression, variables);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    return expressionIncident(node.id, null, error);
  }
}
