import type { Feature } from '../../lib/feature.js';
import { eventRoutes } from './routes/index.js';
import { removeEventTrigger } from './services/live-feed.js';
import { syncWebhookMenu } from './services/menu.js';
import { webhookTableSpecs } from './tables.js';

/**
 * Events out (docs/extending.md "Events"): the outbox (lib/events) dispatched once to the
 * modules' subscriptions and to the tenants' webhooks, delivered signed, retried, logged.
 */
export const eventsFeature: Feature = {
  name: 'events',
  tables: webhookTableSpecs,
  start: async (ctx, i18n) => {
    await syncWebhookMenu(ctx, i18n);
    // The dispatcher tells every process of the events committed (live-feed.ts).
    await removeEventTrigger(ctx);
  },
  routes: eventRoutes,
};
