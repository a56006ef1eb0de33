import type { FastifyInstance } from 'fastify';
import { addressGuard } from '../../../lib/address-guard.js';
import type { FeatureHookOptions } from '../../../lib/feature.js';
import { startEventPoller, type EventPoller } from '../services/poller.js';
import { liveHubOf, liveRoutes } from './live.js';
import { webhookRoutes } from './webhooks.js';

/**
 * The webhooks' API, and the poller that dispatches events (telling every process's live streams
 * of them) and posts deliveries: run by every server process once it listens (an app that only
 * answers injected requests, as in tests, runs a round when told: runEventRound); the
 * live-update streams of signed-in sessions (live.ts).
 */
export async function eventRoutes(app: FastifyInstance, options: FeatureHookOptions): Promise<void> {
  const guard = addressGuard(app.ctx.config.webhooks.allowedAddresses);
  const hub = liveHubOf(app);
  let poller: EventPoller | undefined;
  app.addHook('onListen', async () => {
    poller ??= startEventPoller({
      ctx: app.ctx,
      i18n: app.i18n,
      guard,
      isHurried: () => hub.isListened,
      onError: (error, module) => app.log.warn({ err: error, module }, 'events: a round failed'),
    });
  });
  app.addHook('onClose', async () => {
    await poller?.stop();
  });
  await app.register(webhookRoutes(guard));
  await app.register(liveRoutes(options, hub));
}
