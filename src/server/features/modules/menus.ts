import type { AppContext } from '../../lib/context.js';
import { ensureMenus } from '../../lib/menus.js';

/**
 * Every start: the menus modules declare (ModuleDefinition.menus) are added in the default tenant
 * when no menu has their code, under their parent menu, with their per-action buttons. A module
 * folder placed in src/modules (or a MODULE_DIRS folder) thus shows in the menu with no other step;
 * a menu an administrator moved, renamed or trimmed stays as they left it.
 */
export async function syncModuleMenus(ctx: AppContext): Promise<void> {
  await ensureMenus(
    ctx,
    ctx.modules.definitions.flatMap((module) => module.menus ?? []),
  );
}
