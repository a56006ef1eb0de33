import { evaluate, interpolate } from '../expressions.js';
import type { CallSpec, VariableMapping } from '../graph.js';

/**
 * Call-activity semantics: which process a call activity calls and the variables it passes in
 * and takes back (camunda:in / camunda:out, activiti:in / out). Starting the called instance and
 * resuming the caller are the interpreter's (interpreter.ts callProcess, returnFromCall).
 */

/** The key of the process called: the called element with its expressions evaluated. */
export function calledKey({
  call,
  variables,
}: {
  call: CallSpec;
  variables: Record<string, unknown>;
}): string {
  return String(interpolate(call.calledElement, variables) ?? '');
}

/**
 * The variables passed one way: every one when `all`, then each mapping over them (a source
 * variable that is unset passes nothing; a source expression is evaluated against `from`).
 */
export function mappedVariables({
  all,
  mappings,
  from,
}: {
  all: boolean | undefined;
  mappings: VariableMapping[];
  from: Record<string, unknown>;
}): Record<string, unknown> {
  const values: Record<string, unknown> = all ? { ...from } : {};
  for (const mapping of mappings) {
    if (mapping.sourceExpression !== undefined)
      values[mapping.target] = evaluate(mapping.sourceExpression, from);
    else if (mapping.source !== undefined && mapping.source in from)
      values[mapping.target] = from[mapping.source];
  }
  return values;
}

/** The variables the called instance starts with. */
export const variablesIn = ({
  call,
  variables,
}: {
  call: CallSpec;
  variables: Record<string, unknown>;
}): Record<string, unknown> => mappedVariables({ all: call.inAll, mappings: call.ins, from: variables });

/** The variables the caller takes back from the called instance when it ends. */
export const variablesOut = ({
  call,
  calledVariables,
}: {
  call: CallSpec;
  calledVariables: Record<string, unknown>;
}) => mappedVariables({ all: call.outAll, mappings: call.outs, from: calledVariables });
