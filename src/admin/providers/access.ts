import type { AccessControlProvider } from '@refinedev/core';
import type { CurrentAuthority } from '../../engine/api-types.js';

/**
 * Buttons (docs/product.md §6): a button of a menu is usable when the roles' authority
 * (queryCurrentAuthority) lists it under the menu's code.
 */
export function isButtonGranted(
  buttons: CurrentAuthority['buttons'],
  menuCode: string,
  button: string,
): boolean {
  return buttons[menuCode]?.includes(button) ?? false;
}

/**
 * Refine's access control (useCan, CanAccess) over the same authority the menus come from:
 * resource is a menu code, action a button code. The authority is the one the auth provider loaded
 * last (for the role and post acted in now).
 */
export function createAccessControlProvider(
  authority: () => Promise<CurrentAuthority>,
): AccessControlProvider {
  return {
    can: async ({ resource, action }) => {
      if (!resource) return { can: false };
      return { can: isButtonGranted((await authority()).buttons, resource, action) };
    },
  };
}
