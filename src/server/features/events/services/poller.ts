import type { AppContext } from '../../../lib/context.js';
import type { I18n } from '../../../lib/i18n.js';
import type { AddressGuard } from '../../../lib/address-guard.js';
import { BUDGETS } from '../../../lib/budgets.js';
import { deliverDue } from './deliver.js';
import { dispatchEvents, DISPATCH_BATCH, hasPendingEvents } from './dispatch.js';
import { closeReceiverConnections } from './post.js';

export interface EventPoller {
  /** Stops polling and waits for a round under way. */
  stop(): Promise<void>;
}

/**
 * While this process has live streams, how often it looks at the outbox: the most a live update
 * waits for its dispatch (one index probe each time while nothing is pending).
 */
export const LIVE_POLL_MS = 100;

/** Batches one round dispatches at most: a round under a lasting flood of events still ends. */
const ROUND_BATCHES = 10;

type OnError = (error: unknown, module?: string) => void;

/**
 * Dispatches the events committed until now: a dispatch that took less than a whole batch
 * emptied the outbox (what commits meanwhile is for the next round). Answers how many events
 * it took and whether more were left.
 */
async function dispatchCommitted(
  ctx: AppContext,
  onError: OnError,
): Promise<{ events: number; hasMore: boolean }> {
  let events = 0;
  for (let batch = 0; batch < ROUND_BATCHES; batch += 1) {
    const taken = await dispatchEvents(ctx, onError);
    events += taken;
    if (taken < DISPATCH_BATCH) return { events, hasMore: false };
  }
  return { events, hasMore: true };
}

/**
 * One round: the events committed since are dispatched (deliveries made, live streams told,
 * modules' subscriptions run) and the deliveries due are posted. Every process runs rounds;
 * SKIP LOCKED shares the work. Answers how many events and attempts it handled, and whether
 * work was left for another round at once.
 */
export async function runEventRound(options: {
  ctx: AppContext;
  i18n: I18n;
  guard: AddressGuard;
  now?: Date;
  onError: (error: unknown, module?: string) => void;
}): Promise<number> {
  return (await eventRound(options)).handled;
}

/** A round, and whether it left deliveries due (a whole batch was taken: the next round is at once). */
async function eventRound({
  ctx,
  i18n,
  guard,
  now,
  onError,
}: {
  ctx: AppContext;
  i18n: I18n;
  guard: AddressGuard;
  now?: Date;
  onError: OnError;
}): Promise<{ handled: number; hasMore: boolean }> {
  const dispatched = await dispatchCommitted(ctx, onError);
  const attempts = await deliverDue({ ctx, i18n, guard, ...(now ? { now } : {}) });
  return {
    handled: dispatched.events + attempts,
    hasMore: dispatched.hasMore || attempts >= BUDGETS.webhooks.batch,
  };
}

/**
 * Runs a round every WEBHOOK_POLL_MS, and again at once while work was left. While `isHurried`
 * (this process has live streams) it also looks every LIVE_POLL_MS for events to dispatch.
 * Under a steady stream of changes a round takes what gathered since the last one, in a few
 * statements, instead of running back to back for every few events.
 */
export function startEventPoller(options: {
  ctx: AppContext;
  i18n: I18n;
  guard: AddressGuard;
  isHurried?: () => boolean;
  onError: OnError;
}): EventPoller {
  const { ctx, isHurried, onError } = options;
  const pollMs = ctx.config.webhooks.pollMs;
  let running: Promise<void> = Promise.resolve();
  let isStopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastRound = 0;
  const poll = (): void => {
    running = running.then(async () => {
      if (isStopped) return;
      let hasMore = false;
      try {
        if (Date.now() - lastRound >= pollMs) {
          lastRound = Date.now();
          hasMore = (await eventRound(options)).hasMore;
        } else if (isHurried?.() && (await hasPendingEvents(ctx)))
          hasMore = (await dispatchCommitted(ctx, onError)).hasMore;
      } catch (error) {
        onError(error);
      }
      if (isStopped) return;
      // A stream opened meanwhile is served from the next tick on (a tick without streams and
      // before the round is due reads nothing).
      const untilRound = Math.max(lastRound + pollMs - Date.now(), 0);
      timer = setTimeout(poll, hasMore ? 0 : Math.min(LIVE_POLL_MS, untilRound));
      timer.unref();
    });
  };
  poll();
  return {
    stop: async () => {
      isStopped = true;
      if (timer) clearTimeout(timer);
      await running;
      closeReceiverConnections();
    },
  };
}
