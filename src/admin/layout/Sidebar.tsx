import { Badge, ConfigProvider, Layout, Menu, type MenuProps } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { routeTitle, useT } from '../i18n.js';
import { activeMenuPath, openGroups, sidebarTree, type AppRoute } from '../lib/menus.js';
import { SIDEBAR_WIDTH } from '../lib/settings.js';
import { useApp } from '../store.js';
import { badgeOf, useOpenTaskCounts, type OpenCounts } from '../screens/workflow/badges.js';
import { MenuIcon } from './icons.js';
import { LogoMark } from './Logo.js';
import { useMenus } from './MenuProvider.js';
import { sidebarMenuTheme } from './sidebarTheme.js';

type Item = Required<MenuProps>['items'][number];

function toItems(routes: readonly AppRoute[], counts: OpenCounts | undefined): Item[] {
  return routes.map((route) => {
    const count = badgeOf(route.path, counts);
    return {
      key: route.path,
      icon: <MenuIcon name={route.icon} />,
      // open tasks of the personal office (issue 13)
      label:
        count > 0 ? (
          <span className="admin-menu-badged">
            {routeTitle(route)}
            <Badge
              count={count}
              size="small"
              className="admin-menu-badge"
              data-testid={`badge-${route.code}`}
            />
          </span>
        ) : (
          routeTitle(route)
        ),
      ...(route.children.length > 0 ? { children: toItems(route.children, counts) } : {}),
    };
  });
}

/** SPEC §2.4: permitted routes, 210 px, logo and platform title; collapsible; a drawer on mobile. */
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
  const items = useMemo(() => toItems(shown, counts), [shown, app.language, counts]);
  const [openKeys, setOpenKeys] = useState<string[]>([]);

  useEffect(() => {
    const groups = openGroups(routes, activeMenuPath(routes, location.pathname));
    setOpenKeys((keys) => [...new Set([...keys, ...groups])]);
    // SPEC §4: on mobile the sidebar closes on route change.
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
        </ConfigProvider>
      </Layout.Sider>
    </>
  );
}
