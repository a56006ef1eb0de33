import { Badge, ConfigProvider, Layout, Menu, type MenuProps } from 'antd';
import { createContext, startTransition, useContext, useEffect, useMemo, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { routeTitle, useT } from '../i18n.js';
import { activeMenuPath, openGroups, sidebarTree, type AppRoute } from '../lib/menus.js';
import { SIDEBAR_WIDTH } from '../lib/settings.js';
import { useApp } from '../store.js';
import { badgeOf, BADGE_PATHS, useOpenTaskCounts, type OpenCounts } from '../features/workflow/badges.js';
import { MenuIcon } from './icons.js';
import { LogoMark } from './Logo.js';
import { useMenus } from './MenuProvider.js';
import { onPageShown } from './pageShown.js';
import { sidebarMenuTheme } from './sidebarTheme.js';

type Item = Required<MenuProps>['items'][number];

/**
 * The open task counts, read by the labels that show them: counts that arrive or change repaint
 * those labels, not the whole menu (about a hundred items, rendered again with new items).
 */
const CountsContext = createContext<OpenCounts | undefined>(undefined);

/** A menu title with its open tasks. */
function BadgedLabel({ route }: { route: AppRoute }) {
  const count = badgeOf(route.path, useContext(CountsContext));
  if (count === 0) return routeTitle(route);
  return (
    <span className="admin-menu-badged">
      {routeTitle(route)}
      <Badge count={count} size="small" className="admin-menu-badge" data-testid={`badge-${route.code}`} />
    </span>
  );
}

function toItems(routes: readonly AppRoute[]): Item[] {
  return routes.map((route) => ({
    key: route.path,
    icon: <MenuIcon name={route.icon} />,
    label: BADGE_PATHS.has(route.path) ? <BadgedLabel route={route} /> : routeTitle(route),
    ...(route.children.length > 0 ? { children: toItems(route.children) } : {}),
  }));
}

/** The menu mounts by then even if no page has been shown (a page that failed to load). */
const MENU_AT_LATEST_MS = 3000;

/**
 * Whether the menu may be mounted: once the opened page has been shown (pageShown.ts), at the next
 * idle moment, as a transition. The menu is about a thousand components (rc-menu also renders
 * every item once more, hidden, to learn their paths); mounted with the shell it held up a cold
 * load's page by its whole render, and as a transition before the page it still came first (a
 * lazy screen's retry has a lower priority than a transition).
 */
function useMenuMount(): boolean {
  const [isReady, setReady] = useState(false);
  useEffect(() => {
    let cancel: (() => void) | undefined;
    const mount = (): void => startTransition(() => setReady(true));
    const afterPage = (): void => {
      if (cancel) return;
      if (typeof window.requestIdleCallback === 'function') {
        const id = window.requestIdleCallback(mount, { timeout: 300 });
        cancel = () => window.cancelIdleCallback(id);
      } else {
        const id = window.setTimeout(mount, 0);
        cancel = () => window.clearTimeout(id);
      }
    };
    const unsubscribe = onPageShown(afterPage);
    const latest = window.setTimeout(afterPage, MENU_AT_LATEST_MS);
    return () => {
      unsubscribe();
      window.clearTimeout(latest);
      cancel?.();
    };
  }, []);
  return isReady;
}

/** docs/product.md §2.4: permitted routes, 210 px, logo and platform title; collapsible; a drawer on mobile. */
export function Sidebar() {
  const { routes, topMenu } = useMenus();
  const app = useApp();
  const t = useT();
  const location = useLocation();
  const navigate = useNavigate();
  const isMobile = app.device === 'mobile';
  const shown = useMemo(() => {
    const top = topMenu ? routes.find((route) => route.code === topMenu) : undefined;
    return sidebarTree(top ? top.children : routes);
  }, [routes, topMenu]);
  const counts = useOpenTaskCounts(routes.some((route) => route.code === 'oa'));
  // The language is a dependency: toItems translates the titles.
  const items = useMemo(() => toItems(shown), [shown, app.language]);
  const [openKeys, setOpenKeys] = useState<string[]>([]);
  const isMenuMounted = useMenuMount();

  useEffect(() => {
    const groups = openGroups(routes, activeMenuPath(routes, location.pathname));
    setOpenKeys((keys) => [...new Set([...keys, ...groups])]);
    // docs/product.md §4: on mobile the sidebar closes on route change.
    if (isMobile) app.closeSidebar(false);
  }, [location.pathname, routes]);

  const menuTheme = useMemo(() => sidebarMenuTheme(app.settings.theme), [app.settings.theme]);
  const onClick: MenuProps['onClick'] = ({ key }) => navigate(String(key));
  const collapsed = !app.isSidebarOpened;

  return (
    <>
      {isMobile && app.isSidebarOpened && (
        <div className="admin-drawer-mask" onClick={() => app.closeSidebar(false)} />
      )}
      <Layout.Sider
        className={`admin-sider${isMobile ? ' is-mobile' : ''}${app.withoutAnimation ? ' no-animation' : ''}`}
        width={SIDEBAR_WIDTH}
        collapsedWidth={isMobile ? 0 : 54}
        collapsed={collapsed}
        trigger={null}
        theme="dark"
        data-testid="sidebar"
      >
        {app.settings.sidebarLogo && (
          <a
            className="admin-logo"
            href="/admin/workbench"
            // collapsed, the title is not shown: the link still needs its name
            aria-label={collapsed ? t('admin.platformTitle') : undefined}
            onClick={(event) => (event.preventDefault(), navigate('/workbench'))}
          >
            <LogoMark size={28} />
            {!collapsed && <h1>{t('admin.platformTitle')}</h1>}
          </a>
        )}
        <ConfigProvider theme={menuTheme}>
          <CountsContext.Provider value={counts}>
            {isMenuMounted ? (
              <Menu
                theme="dark"
                mode="inline"
                items={items}
                selectedKeys={[activeMenuPath(routes, location.pathname)]}
                openKeys={collapsed ? undefined : openKeys}
                onOpenChange={setOpenKeys}
                onClick={onClick}
                inlineIndent={20}
                className="admin-sider-menu"
              />
            ) : null}
          </CountsContext.Provider>
        </ConfigProvider>
      </Layout.Sider>
    </>
  );
}
