import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { addressGuard, type AddressGuard } from '../../../lib/address-guard.js';
import type { AppContext } from '../../../lib/context.js';
import { ExpressionError } from './expressions.js';

/**
 * Camunda's HTTP connector (camunda:connector, connectorId http-connector) without Java: the
 * service task's input parameters url, method, headers and payload make one request, within
 * CONNECTOR_BUDGETS (time and answer size) and the tighter limits of its request-config
 * (connection-timeout, socket-timeout), only to addresses the address guard allows (private
 * and loopback ones refused unless WEBHOOK_ALLOWED_ADDRESSES lets them through, checked at the
 * connection's own lookup); its answer is offered to the output parameters as statusCode,
 * response (the body's text) and headers. A failure (refused address, timeout, oversized answer,
 * no answer) is an ExpressionError: the token stops in an incident naming it.
 */

export const CONNECTOR_BUDGETS = {
  /** Time one call may take, connection to the end of the answer. */
  requestMs: 10_000,
  /** Bytes of an answer read (a larger one is a failure). */
  answerBytes: 64 * 1024,
  /** Bytes of a payload sent. */
  payloadBytes: 64 * 1024,
} as const;

/** A call's own time limits (Camunda's request-config), each within CONNECTOR_BUDGETS.requestMs. */
export interface CallLimits {
  /** Time to connect (connection-timeout). */
  connectMs?: number;
  /** Longest silence of the connection once open (socket-timeout). */
  idleMs?: number;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export interface ConnectorAnswer {
  statusCode: number;
  response: string;
  headers: Record<string, string>;
}

const guards = new WeakMap<object, AddressGuard>();

function guardOf(ctx: AppContext): AddressGuard {
  let guard = guards.get(ctx);
  if (!guard) {
    guard = addressGuard(ctx.config.webhooks.allowedAddresses);
    guards.set(ctx, guard);
  }
  return guard;
}

/** Makes the request; throws an ExpressionError saying why when there is no usable answer. */
export function callHttp({
  ctx,
  url,
  method,
  headers,
  payload,
  limits = {},
}: {
  ctx: AppContext;
  url: string;
  method: string;
  headers: Record<string, string>;
  payload: string | undefined;
  limits?: CallLimits;
}): Promise<ConnectorAnswer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ExpressionError(`the HTTP connector's url "${url.slice(0, 200)}" is not a URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new ExpressionError(`the HTTP connector's url must be http or https (${target.protocol})`);
  const verb = method.toUpperCase();
  if (!METHODS.has(verb)) throw new ExpressionError(`the HTTP connector's method ${verb} is not supported`);
  if (payload !== undefined && Buffer.byteLength(payload) > CONNECTOR_BUDGETS.payloadBytes)
    throw new ExpressionError(
      `the HTTP connector's payload is over ${CONNECTOR_BUDGETS.payloadBytes / 1024} KB`,
    );
  const guard = guardOf(ctx);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !guard.isAllowed(host))
    return Promise.reject(
      new ExpressionError(`the HTTP connector may not call ${host}: address not allowed`),
    );
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let isDone = false;
    let connecting: NodeJS.Timeout | undefined;
    const fail = (why: string): void => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      clearTimeout(connecting);
      request.destroy();
      reject(
        new ExpressionError(`the HTTP connector's ${verb} ${target.origin}${target.pathname} failed: ${why}`),
      );
    };
    const request = send(
      target,
      {
        method: verb,
        lookup: guard.lookup,
        headers: {
          'user-agent': 'EcoBid-Workflow/1',
          ...headers,
          ...(payload === undefined ? {} : { 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        let size = 0;
        answer.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > CONNECTOR_BUDGETS.answerBytes) {
            fail(`the answer is over ${CONNECTOR_BUDGETS.answerBytes / 1024} KB`);
            return;
          }
          chunks.push(chunk);
        });
        answer.on('error', (error) => fail(error.message));
        answer.on('end', () => {
          if (isDone) return;
          isDone = true;
          clearTimeout(timer);
          clearTimeout(connecting);
          const answerHeaders: Record<string, string> = {};
          for (const [name, value] of Object.entries(answer.headers))
            if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
          resolve({
            statusCode: answer.statusCode ?? 0,
            response: Buffer.concat(chunks).toString('utf8'),
            headers: answerHeaders,
          });
        });
      },
    );
    const timer = setTimeout(
      () => fail(`no answer within ${CONNECTOR_BUDGETS.requestMs} ms`),
      CONNECTOR_BUDGETS.requestMs,
    );
    const { connectMs, idleMs } = limits;
    if (connectMs !== undefined)
      request.on('socket', (socket) => {
        // A socket the agent kept open is connected already.
        if (!socket.connecting) return;
        connecting = setTimeout(() => fail(`no connection within ${connectMs} ms`), connectMs);
        socket.once('connect', () => clearTimeout(connecting));
      });
    if (idleMs !== undefined) request.setTimeout(idleMs, () => fail(`nothing received for ${idleMs} ms`));
    request.on('error', (error: NodeJS.ErrnoException) =>
      fail(error.code === 'EADDRFORBIDDEN' ? 'address not allowed' : error.message),
    );
    request.end(payload);
  });
}
