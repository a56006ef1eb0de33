import { createHmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { BUDGETS } from '../../../lib/budgets.js';
import type { AddressGuard } from '../../../lib/address-guard.js';

/** What a delivery attempt got: the answer's status and its start, or why there was none. */
export interface PostOutcome {
  status: number | null;
  excerpt: string;
  error: string | null;
}

/** The signature header's value: HMAC-SHA256 of "<timestamp>.<body>" with the webhook's secret. */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Receivers (origins) whose connections are kept for reuse at most; the oldest is let go. */
const AGENTS_KEPT = 64;
const agents = new Map<string, HttpAgent>();

/**
 * The keep-alive agent of one receiver (protocol, host and port): the next delivery to it reuses
 * an open connection instead of a new TCP (and TLS) handshake; at most BUDGETS.webhooks.concurrent
 * sockets to one receiver. A connection is made only to an address the guard allowed at its
 * lookup, so reusing it is checked too.
 */
function agentOf(target: URL): HttpAgent {
  const key = `${target.protocol}//${target.host}`;
  const found = agents.get(key);
  if (found) {
    // Most recently used last: the first is the one let go.
    agents.delete(key);
    agents.set(key, found);
    return found;
  }
  const options = {
    keepAlive: true,
    maxSockets: BUDGETS.webhooks.concurrent,
    maxFreeSockets: BUDGETS.webhooks.concurrent,
    timeout: BUDGETS.webhooks.requestMs * 3,
  };
  const agent = target.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
  agents.set(key, agent);
  for (const [oldKey, old] of agents) {
    if (agents.size <= AGENTS_KEPT) break;
    agents.delete(oldKey);
    old.destroy();
  }
  return agent;
}

/** Closes the connections kept open to receivers (the process stops). */
export function closeReceiverConnections(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

/**
 * POSTs a signed JSON body: within BUDGETS.webhooks.requestMs, reading at most answerBytes of the
 * answer, connecting only to addresses the guard allows (an IP literal checked here, a name at
 * its lookup). Never throws: a failure is an outcome.
 */
export async function postSigned(options: {
  url: string;
  body: string;
  secret: string;
  headers: Record<string, string>;
  guard: AddressGuard;
  now?: Date;
}): Promise<PostOutcome> {
  const first = await postOnce(options);
  // A kept connection the receiver closed just as it was reused: once more, on a new one.
  return first.isStale ? postOnce(options) : first;
}

function postOnce({
  url,
  body,
  secret,
  headers,
  guard,
  now = new Date(),
}: {
  url: string;
  body: string;
  secret: string;
  headers: Record<string, string>;
  guard: AddressGuard;
  now?: Date;
}): Promise<PostOutcome & { isStale?: boolean }> {
  const budget = BUDGETS.webhooks;
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !guard.isAllowed(host))
    return Promise.resolve({ status: null, excerpt: '', error: `address ${host} is not allowed` });
  const timestamp = Math.floor(now.getTime() / 1000);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let isDone = false;
    const finish = (outcome: PostOutcome & { isStale?: boolean }): void => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = send(
      target,
      {
        method: 'POST',
        agent: agentOf(target),
        lookup: guard.lookup,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'EcoBid-Webhook/1',
          'x-ecobid-timestamp': String(timestamp),
          'x-ecobid-signature': signature(secret, timestamp, body),
          ...headers,
        },
      },
      (answer: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const settle = (): void => {
          const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, budget.excerptChars);
          finish({ status: answer.statusCode ?? null, excerpt, error: null });
        };
        answer.on('data', (chunk: Buffer) => {
          if (size >= budget.answerBytes) return;
          chunks.push(chunk.subarray(0, budget.answerBytes - size));
          size += chunk.length;
          if (size >= budget.answerBytes) {
            settle();
            answer.destroy();
          }
        });
        answer.on('end', settle);
        answer.on('error', settle);
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${budget.requestMs} ms`));
    }, budget.requestMs);
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish({
        status: null,
        excerpt: '',
        error: error.message.slice(0, 500),
        isStale: request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE'),
      }),
    );
    request.end(body);
  });
}
