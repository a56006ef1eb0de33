import type { Feature } from '../../lib/feature.js';
import { apiKeyHook } from './key-hook.js';
import { apiKeyRoutes } from './routes/keys.js';
import { syncApiKeyMenu } from './services/menu.js';
import { installKeyTriggers } from './services/triggers.js';
import { apiKeyTableSpecs } from './tables.js';

/**
 * API keys for integrations: made by an administrator for a user (a person or a service
 * account), sent as `Authorization: Bearer ek_…`, checked like a session by the one permission
 * policy, rate limited per key, every use logged.
 */
export const apiKeysFeature: Feature = {
  name: 'apikeys',
  tables: apiKeyTableSpecs,
  start: async (ctx, i18n) => {
    await installKeyTriggers(ctx.db);
    await syncApiKeyMenu(ctx, i18n);
  },
  hooks: apiKeyHook,
  routes: apiKeyRoutes,
};
