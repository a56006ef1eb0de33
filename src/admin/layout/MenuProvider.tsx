import { usePermissions } from '@refinedev/core';
import { keepPreviousData } from '@tanstack/react-query';
import { createContext, useContext, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { CurrentAuthority } from '../../engine/api-types.js';
import { getActingRole, getRoles, getToken, onSessionChange } from '../../web/session.js';
import { toRoutes, type AppRoute } from '../lib/menus.js';
import type { PermissionParams } from '../providers/auth.js';

export interface MenuState {
  routes: AppRoute[];
  isLoading: boolean;
  isError: boolean;
  /** Buttons the roles may use, by menu code. */
  buttons: Record<string, string[]>;
  /** Fields the roles hide or keep read-only, by menu code (entity name); absent: none. */
  fieldRights: CurrentAuthority['fieldRights'];
  /** The top-level menu the menu-switch select narrowed the sidebar to (undefined: all). */
  topMenu: string | undefined;
  setTopMenu(code: string | undefined): void;
  /** The post the post-switch select narrowed the roles to (undefined: all posts). */
  post: string | undefined;
  setPost(code: string | undefined): void;
  /** The role the user acts in (role switch), undefined for all held roles. */
  role: string | undefined;
}

const MenuContext = createContext<MenuState>({
  routes: [],
  isLoading: true,
  isError: false,
  buttons: {},
  fieldRights: {},
  topMenu: undefined,
  setTopMenu: () => undefined,
  post: undefined,
  setPost: () => undefined,
  role: undefined,
});

export function useMenus(): MenuState {
  return useContext(MenuContext);
}

/**
 * The server's menu tree for the signed-in user's roles (the auth provider's permissions:
 * queryCurrentAuthority), as the route table. docs/product.md §4: switching
 * the role (RoleCode header) or the post (postCode) regenerates the routes; the previous routes
 * stay until the new ones arrive, so the sidebar does not blink.
 */
export function MenuProvider({ children }: { children: ReactNode }) {
  const token = getToken();
  const role = useSyncExternalStore(onSessionChange, getActingRole);
  const [post, setPost] = useState<string | undefined>(undefined);
  const query = usePermissions<CurrentAuthority, PermissionParams>({
    params: post ? { postCode: post } : {},
    options: {
      queryKey: ['admin', 'menus', token, role ?? '', post ?? ''],
      staleTime: 5 * 60_000,
      enabled: token !== undefined,
      placeholderData: keepPreviousData,
    },
  });
  const [topMenu, setTopMenu] = useState<string | undefined>(undefined);
  // The roles the answer is for (acting role, post); the held roles before it arrives.
  const roles = (query.data?.roles ?? getRoles()).join(',');
  const value = useMemo<MenuState>(
    () => ({
      routes: toRoutes(query.data?.menus ?? [], roles ? roles.split(',') : []),
      buttons: query.data?.buttons ?? {},
      // an answer of a server of before the field rights has none
      fieldRights: query.data?.fieldRights ?? {},
      isLoading: query.isLoading,
      isError: query.isError,
      topMenu,
      setTopMenu,
      post,
      setPost,
      role,
    }),
    [query.data, query.isLoading, query.isError, roles, topMenu, post, role],
  );
  return <MenuContext.Provider value={value}>{children}</MenuContext.Provider>;
}
