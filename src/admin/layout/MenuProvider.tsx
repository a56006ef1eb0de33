import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createContext, useContext, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react';
import { ApiError, apiGet, apiPost } from '../../web/http.js';
import { getActingRole, getRoles, getToken, onSessionChange } from '../../web/session.js';
import { toRoutes, type AppRoute, type MenuNode } from '../lib/menus.js';

export interface MenuState {
  routes: AppRoute[];
  isLoading: boolean;
  isError: boolean;
  /** Buttons the roles may use, by menu code. */
  buttons: Record<string, string[]>;
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
  topMenu: undefined,
  setTopMenu: () => undefined,
  post: undefined,
  setPost: () => undefined,
  role: undefined,
});

export function useMenus(): MenuState {
  return useContext(MenuContext);
}

/** POST /api/account/sysuserdetail/queryCurrentAuthority (SPEC §6: menus for the user's roles). */
interface CurrentAuthority {
  /** The roles the answer is for: the roles acted in, narrowed by the post. */
  roles: string[];
  menus: MenuNode[];
  menu: string[];
  buttons: Record<string, string[]>;
}

async function loadAuthority(postCode: string | undefined): Promise<CurrentAuthority> {
  try {
    return await apiPost<CurrentAuthority>('/api/account/sysuserdetail/queryCurrentAuthority', undefined, {
      params: postCode ? { postCode } : {},
      silent: true,
    });
  } catch (error) {
    // A server without the per-role endpoint: the whole tree, filtered by the held roles below.
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    const menus = await apiGet<MenuNode[]>('/api/admin/sysmenu/querySysMenuTree');
    return { roles: [...getRoles()], menus, menu: [], buttons: {} };
  }
}

/**
 * The server's menu tree for the signed-in user's roles, as the route table. SPEC §4: switching
 * the role (RoleCode header) or the post (postCode) regenerates the routes; the previous routes
 * stay until the new ones arrive, so the sidebar does not blink.
 */
export function MenuProvider({ children }: { children: ReactNode }) {
  const token = getToken();
  const role = useSyncExternalStore(onSessionChange, getActingRole);
  const [post, setPost] = useState<string | undefined>(undefined);
  const query = useQuery({
    queryKey: ['admin', 'menus', token, role ?? '', post ?? ''],
    queryFn: () => loadAuthority(post),
    staleTime: 5 * 60_000,
    enabled: token !== undefined,
    placeholderData: keepPreviousData,
  });
  const [topMenu, setTopMenu] = useState<string | undefined>(undefined);
  // The roles the answer is for (acting role, post); the held roles before it arrives.
  const roles = (query.data?.roles ?? getRoles()).join(',');
  const value = useMemo<MenuState>(
    () => ({
      routes: toRoutes(query.data?.menus ?? [], roles ? roles.split(',') : []),
      buttons: query.data?.buttons ?? {},
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
