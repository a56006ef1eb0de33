import type { AppContext } from '../../../lib/context.js';
import type { I18n } from '../../../lib/i18n.js';
import { ensureMenus, systemPageMenu } from '../../../lib/menus.js';

export const WEBHOOK_MENU = 'syswebhook';

/**
 * The webhooks page under 系统管理, added on start when missing (a database seeded before webhooks
 * existed gets it too); a menu an administrator moved or renamed is left as it is.
 */
export async function syncWebhookMenu(ctx: AppContext, i18n: I18n): Promise<void> {
  await ensureMenus(ctx, [
    systemPageMenu(WEBHOOK_MENU, i18n.t('zh', `menus.${WEBHOOK_MENU}`), {
      icon: 'api',
      sequence: 115,
      buttons: ['view', 'add', 'edit', 'delete'],
    }),
  ]);
}
