import type { LiveEvent, LiveProvider } from '@refinedev/core';
import { listenLive, type LiveMessage } from '../../web/live.js';

/**
 * Refine's live provider over the server's live-update stream (web/live.ts: one stream per tab,
 * open while anything subscribes, resumed with Last-Event-ID after a drop).
 *
 * Channels: `resources/<entity>` (created, updated, deleted: payload ids, changed field names,
 * version, isMine), `tasks` (the caller's open tasks changed) and `inbox` (created: a
 * notification reached the caller's inbox).
 */

interface Subscription {
  channel: string;
  types: readonly string[];
  callback: (event: LiveEvent) => void;
}

/** Everything on the screens can be out of date after a reset: each list reloads. */
export const TASKS_CHANNEL = 'tasks';
export const INBOX_CHANNEL = 'inbox';
export const resourceChannel = (entity: string): string => `resources/${entity}`;

const RECORD_TYPES: Record<string, LiveEvent['type']> = {
  'record.added': 'created',
  'record.changed': 'updated',
  'record.restored': 'updated',
  'record.deleted': 'deleted',
};

const subscriptions = new Set<Subscription>();
let stopListening: (() => void) | undefined;

function dispatch(channel: string, type: LiveEvent['type'], payload: LiveEvent['payload']): void {
  const event: LiveEvent = { channel, type, payload, date: new Date() };
  for (const subscription of [...subscriptions])
    if (
      subscription.channel === channel &&
      (subscription.types.includes('*') || subscription.types.includes(type))
    )
      subscription.callback(event);
}

function handle(message: LiveMessage): void {
  const recordType = RECORD_TYPES[message.type];
  if (message.inbox)
    dispatch(INBOX_CHANNEL, 'created', {
      ids: message.key === null ? [] : [message.key],
      isMine: message.isMine,
    });
  if (recordType && message.entity)
    dispatch(resourceChannel(message.entity), recordType, {
      ids: message.key === null ? [] : [message.key],
      changed: message.changed,
      version: message.version,
      isMine: message.isMine,
    });
  else if (message.type.startsWith('workflow.task'))
    dispatch(TASKS_CHANNEL, 'updated', {
      ids: message.key === null ? [] : [message.key],
      isMine: message.isMine,
    });
}

/** Too far behind to replay (or a first connection): every subscriber reloads what it shows. */
function reset(): void {
  const channels = new Set([...subscriptions].map((subscription) => subscription.channel));
  for (const channel of channels) dispatch(channel, 'reset', { isMine: false });
}

export const liveProvider: LiveProvider = {
  subscribe: ({ channel, types, callback }) => {
    const subscription: Subscription = { channel, types, callback };
    subscriptions.add(subscription);
    stopListening ??= listenLive({ message: handle, reset });
    return subscription;
  },
  unsubscribe: (subscription: Subscription) => {
    subscriptions.delete(subscription);
    if (subscriptions.size === 0) {
      stopListening?.();
      stopListening = undefined;
    }
  },
};
