import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { ApiError, apiGet, apiPost } from '../../web/http.js';
import { getRoles, getToken } from '../../web/session.js';
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
}

const MenuContext = createContext<MenuState>({
  routes: [],
  isLoading: true,
  isError: false,
  buttons: {},
  topMenu: undefined,
  setTopMenu: () => undefined,
});

export function useMenus(): MenuState {
  return useContext(MenuContext);
}

/** POST /api/account/sysuserdetail/queryCurrentAuthority (SPEC §6: menus for the user's roles). */
interface CurrentAuthority {
  roles: string[];
  menus: MenuNode[];
  menu: string[];
  buttons: Record<string, string[]>;
}

async function loadAuthority(): Promise<CurrentAuthority> {
  try {
    return await apiPost<CurrentAuthority>('/api/account/sysuserdetail/queryCurrentAuthority', undefined, {
      silent: true,
    });
  } catch (error) {
    // A server without the per-role endpoint: the whole tree, filtered by the held roles below.
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    const menus = await apiGet<MenuNode[]>('/api/admin/sysmenu/querySysMenuTree');
    return { roles: [...getRoles()], menus, menu: [], buttons: {} };
  }
}

/** The server's menu tree for the signed-in user's roles, as the route table. */
export function MenuProvider({ children }: { children: ReactNode }) {
  const token = getToken();
  const query = useQuery({
    queryKey: ['admin', 'menus', token],
    queryFn: loadAuthority,
    staleTime: 5 * 60_000,
    enabled: token !== undefined,
  });
  const [topMenu, setTopMenu] = useState<string | undefined>(undefined);
  const roles = getRoles().join(',');
  const value = useMemo<MenuState>(
    () => ({
      routes: toRoutes(query.data?.menus ?? [], roles ? roles.split(',') : []),
      buttons: query.data?.buttons ?? {},
      isLoading: query.isLoading,
      isError: query.isError,
      topMenu,
      setTopMenu,
    }),
    [query.data, query.isLoading, query.isError, roles, topMenu],
  );
  return <MenuContext.Provider value={value}>{children}</MenuContext.Provider>;
}
