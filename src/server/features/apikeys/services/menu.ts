import type { AppContext } from '../../../lib/context.js';
import type { I18n } from '../../../lib/i18n.js';
import { ensureMenus, systemPageMenu } from '../../../lib/menus.js';

export const API_KEY_MENU = 'sysapikey';

/**
 * The API keys page under 系统管理, added on start when missing (a database seeded before keys
 * existed gets it too); a menu an administrator moved or renamed is left as it is.
 */
export async function syncApiKeyMenu(ctx: AppContext, i18n: I18n): Promise<void> {
  await ensureMenus(ctx, [
    systemPageMenu(API_KEY_MENU, i18n.t('zh', `menus.${API_KEY_MENU}`), {
      icon: 'key',
      sequence: 110,
      buttons: ['view', 'add', 'revoke'],
    }),
  ]);
}
