import { getToken, onSessionChange, requestRoles } from './session.js';

/**
 * The server's live-update stream (GET /api/events/stream, server-sent events), shared by the
 * back-office (admin/providers/live.ts) and the portal. One stream per tab, open while anyone
 * listens; read with fetch so that the token goes in the Authorization header as on every call
 * (an EventSource could only put it in the URL). A dropped stream reconnects with Last-Event-ID
 * (the server's cursor) and the server replays what was missed; a refused one (signed out)
 * waits for the next session. What each session is told is decided on the server.
 */

/** One message of the stream, as the server sends it (features/events/services/live-hub.ts). */
export interface LiveMessage {
  id: number;
  type: string;
  entity: string | null;
  key: string | null;
  version: number | null;
  changed: string[];
  isMine: boolean;
  at: string;
  /** A notification now in the user's inbox. */
  inbox?: true;
}

export interface LiveListener {
  message: (message: LiveMessage) => void;
  /** Too far behind to replay: everything shown may be out of date. */
  reset: () => void;
}

const STREAM_URL = '/api/events/stream';
const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

const listeners = new Set<LiveListener>();
let controller: AbortController | undefined;
let lastEventId: string | undefined;
let failures = 0;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
/** The token the stream was refused for: not tried again until the session changes. */
let refusedToken: string | undefined;

function parseBlock(block: string): void {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (id !== undefined) lastEventId = id;
  if (event === 'reset') for (const listener of [...listeners]) listener.reset();
  if (event !== 'message' || data.length === 0) return;
  let message: LiveMessage;
  try {
    message = JSON.parse(data.join('\n')) as LiveMessage;
  } catch {
    // A message this client does not understand is skipped.
    return;
  }
  for (const listener of [...listeners]) listener.message(message);
}

async function run(signal: AbortSignal, token: string): Promise<void> {
  const roles = requestRoles();
  const answer = await fetch(STREAM_URL, {
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      ...(roles.length > 0 ? { RoleCode: roles.join(',') } : {}),
      ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }),
    },
    signal,
    cache: 'no-store',
  });
  if (answer.status === 401 || answer.status === 403) {
    refusedToken = token;
    return;
  }
  if (!answer.ok || !answer.body) throw new Error(`live stream: ${answer.status}`);
  const reader = answer.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    failures = 0;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      parseBlock(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
    }
  }
  // The server ended the stream (a restart, a sign-out): try again; a refusal stops it.
  throw new Error('live stream ended');
}

function connect(): void {
  clearTimeout(retryTimer);
  retryTimer = undefined;
  const token = getToken();
  if (controller || listeners.size === 0 || !token || token === refusedToken) return;
  const current = new AbortController();
  controller = current;
  run(current.signal, token)
    .catch(() => {
      if (current.signal.aborted) return;
      const delay = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)] ?? 30_000;
      failures += 1;
      retryTimer = setTimeout(connect, delay);
    })
    .finally(() => {
      if (controller === current) controller = undefined;
    });
}

function disconnect(): void {
  clearTimeout(retryTimer);
  retryTimer = undefined;
  controller?.abort();
  controller = undefined;
}

// Another session (sign-in, sign-out, role switch): a new stream, from now on.
onSessionChange(() => {
  disconnect();
  lastEventId = undefined;
  refusedToken = undefined;
  connect();
});

/** Listens to the stream (opened for the first listener); answers the function that stops. */
export function listenLive(listener: LiveListener): () => void {
  listeners.add(listener);
  connect();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) disconnect();
  };
}
