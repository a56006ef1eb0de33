import type { AppContext } from '../../../lib/context.js';
import { callHttp, CONNECTOR_BUDGETS, type CallLimits, type ConnectorAnswer } from './connector.js';
import { ExpressionError, interpolate } from './expressions.js';
import type { ProcessNode } from './graph.js';
import { sendTaskMail } from './mail-task.js';
import { oversizedVariable, VARIABLE_LIMIT_KB } from './store.js';

/**
 * The calls a process makes to the outside: the HTTP connector and mail tasks. A token reaching
 * one waits there and leaves a job (wf_job kind 'serviceCall'); the job runner (jobs.ts) reads the
 * call from the variables in one transaction, makes it with no transaction open, and hands the
 * answer to the token in another. So a slow endpoint holds no database connection or lock (on
 * PGlite, where every request shares one connection, it would stop them all), and a step that
 * rolls back has called nobody. A multi-instance one leaves a job per item, each read with its item.
 */

/** What one call does, read from the variables when its job is taken. */
export type PreparedCall =
  | {
      kind: 'http';
      url: string;
      method: string;
      headers: Record<string, string>;
      payload: string | undefined;
      /** Camunda's request-config: connection-timeout and socket-timeout (ms), within the budget. */
      limits: CallLimits;
    }
  | { kind: 'mail'; fields: Record<string, unknown> };

/**
 * A connector or mail task (not an event-based gateway's catch): called after its step; a
 * multi-instance one once per item.
 */
export const isCalledAfterCommit = (node: ProcessNode): boolean =>
  (node.service?.kind === 'http' || node.service?.kind === 'mail') && node.eventGateway === undefined;

/** The call of a connector or mail task over `scope` (the variables); an ExpressionError if it cannot be read. */
export function prepareCall(node: ProcessNode, scope: Record<string, unknown>): PreparedCall {
  const service = node.service;
  if (service?.kind === 'mail') {
    const fields: Record<string, unknown> = {};
    for (const [name, text] of Object.entries(service.fields)) fields[name] = interpolate(text, scope);
    return { kind: 'mail', fields };
  }
  const inputs = service?.inputs ?? {};
  const textOf = (name: string): string | undefined => {
    const raw = inputs[name];
    if (typeof raw !== 'string') return undefined;
    const value = interpolate(raw, scope);
    return value === null || value === undefined ? undefined : String(value);
  };
  const headers: Record<string, string> = {};
  const rawHeaders = inputs.headers;
  if (rawHeaders && typeof rawHeaders === 'object')
    for (const [name, text] of Object.entries(rawHeaders))
      headers[name] = String(interpolate(text, scope) ?? '');
  return {
    kind: 'http',
    url: textOf('url') ?? '',
    method: textOf('method') ?? 'GET',
    headers,
    payload: textOf('payload'),
    limits: limitsOf(inputs['request-config'], scope),
  };
}

/** Camunda's request-config keys this connector honours, and the limit each sets. */
const LIMIT_KEYS = { 'connection-timeout': 'connectMs', 'socket-timeout': 'idleMs' } as const;

/**
 * The time limits of a connector's request-config map (milliseconds, expressions allowed). A limit
 * above the budget is held to it (CONNECTOR_BUDGETS.requestMs stays the limit of the whole call);
 * one that is not a positive whole number is an ExpressionError naming it. Other keys are left to
 * the defaults.
 */
function limitsOf(
  config: string | Record<string, string> | undefined,
  scope: Record<string, unknown>,
): CallLimits {
  const limits: CallLimits = {};
  if (!config || typeof config !== 'object') return limits;
  for (const [key, limit] of Object.entries(LIMIT_KEYS)) {
    const text = config[key];
    if (text === undefined) continue;
    const value = Number(interpolate(text, scope));
    if (!Number.isInteger(value) || value <= 0)
      throw new ExpressionError(
        `the HTTP connector's request-config ${key} "${String(text).slice(0, 100)}" is not a whole number of milliseconds`,
      );
    limits[limit] = Math.min(value, CONNECTOR_BUDGETS.requestMs);
  }
  return limits;
}

/**
 * Makes the call: the HTTP request (answering it), or the mail through the outbox. A failure the
 * process should show (no answer, a refused address, a bad recipient) is an ExpressionError.
 */
export async function performCall({
  ctx,
  tenantCode,
  where,
  call,
}: {
  ctx: AppContext;
  tenantCode: string;
  /** How the element is named in an error. */
  where: string;
  call: PreparedCall;
}): Promise<ConnectorAnswer | undefined> {
  if (call.kind === 'mail') {
    await sendTaskMail({ ctx, tenantCode, where, fields: call.fields });
    return undefined;
  }
  return callHttp({
    ctx,
    url: call.url,
    method: call.method,
    headers: call.headers,
    payload: call.payload,
    limits: call.limits,
  });
}

/**
 * The variables a connector's output parameters make of its answer (statusCode, response and
 * headers beside the variables). An answer of 400 or more that no output parameter reads the
 * statusCode of, or a variable over the size limit: an ExpressionError.
 */
export function answerVariables({
  node,
  where,
  scope,
  answer,
}: {
  node: ProcessNode;
  where: string;
  scope: Record<string, unknown>;
  answer: ConnectorAnswer;
}): Record<string, unknown> {
  const outputs = node.service?.outputs ?? {};
  const readsStatus = Object.values(outputs).some((text) => text.includes('statusCode'));
  if (answer.statusCode >= 400 && !readsStatus)
    throw new ExpressionError(
      `the HTTP connector of ${where} was answered ${answer.statusCode}: ${answer.response.slice(0, 200)}`,
    );
  const values: Record<string, unknown> = {};
  const answerScope = { ...scope, ...answer };
  for (const [name, text] of Object.entries(outputs)) values[name] = interpolate(text, answerScope);
  const oversized = oversizedVariable(values);
  if (oversized !== undefined)
    throw new ExpressionError(
      `the variable ${oversized} would be over ${VARIABLE_LIMIT_KB} KB (workflow.variableBytes)`,
    );
  return values;
}
