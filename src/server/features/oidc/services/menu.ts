import type { AppContext } from '../../../lib/context.js';
import type { I18n } from '../../../lib/i18n.js';
import { ensureMenus, systemPageMenu } from '../../../lib/menus.js';

export const OIDC_MENU = 'sysoidc';

/**
 * The single sign-on page under 系统管理, added on start when missing; a menu an administrator
 * moved or renamed is left as it is.
 */
export async function syncOidcMenu(ctx: AppContext, i18n: I18n): Promise<void> {
  await ensureMenus(ctx, [
    systemPageMenu(OIDC_MENU, i18n.t('zh', `menus.${OIDC_MENU}`), {
      icon: 'login',
      sequence: 120,
      buttons: ['view', 'add', 'edit', 'delete'],
    }),
  ]);
}
