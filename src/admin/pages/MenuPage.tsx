import { Spin } from 'antd';
import { lazy } from 'react';
import { Navigate, useParams } from 'react-router';
import { useT } from '../i18n.js';
import { entityOf, findPage, firstPageUnder, type AppRoute } from '../lib/menus.js';
import { useMenus } from '../layout/MenuProvider.js';

const Workbench = lazy(() => import('./Workbench.js'));
const Profile = lazy(() => import('./Profile.js'));
const EntityList = lazy(() => import('../entity/EntityList.js'));
const Placeholder = lazy(() => import('./Placeholder.js'));
const DataPermission = lazy(() => import('../screens/pages/DataPermission.js'));
const OnlineUsers = lazy(() => import('../screens/pages/OnlineUsers.js'));
const MyNotification = lazy(() => import('../screens/pages/MyNotification.js'));
const FileManager = lazy(() => import('../screens/files/FileManager.js'));

/** Pages that exist whatever the menus say (SPEC §2.3 constant routes). */
const CONSTANT: Record<string, AppRoute> = {
  '/workbench': constant('workbench', '/workbench', 'workbench'),
  '/profile/index': constant('profile', '/profile/index', 'profile'),
};

function constant(code: string, path: string, component: string): AppRoute {
  return { code, path, name: code, icon: undefined, component, meta: {}, buttons: [], children: [] };
}

function Page({ route }: { route: AppRoute }) {
  const entity = entityOf(route);
  if (entity) return <EntityList key={entity} resource={entity} route={route} />;
  if (route.component === 'workbench') return <Workbench />;
  if (route.component === 'profile') return <Profile />;
  if (route.component === 'authority/datapermission') return <DataPermission route={route} />;
  if (route.component === 'admin/onlinesysuser') return <OnlineUsers route={route} />;
  if (route.component === 'mynotification') return <MyNotification route={route} />;
  if (route.component === 'file/upload-download') return <FileManager route={route} />;
  return <Placeholder route={route} />;
}

/**
 * Resolves the current path against the server-driven route table. Unknown paths go to /404 only
 * once the menus have loaded, so a refresh on a server-driven route never lands on 404.
 */
export function MenuPage({ path: keptPath }: { path?: string }) {
  const { routes, isLoading } = useMenus();
  // A kept-alive page renders its own path, whatever the browser shows now.
  const splat = useParams()['*'];
  const path = keptPath ?? `/${splat ?? ''}`;
  useT();
  const route = findPage(routes, path) ?? CONSTANT[path];
  if (route) return <Page route={route} />;
  const first = firstPageUnder(routes, path);
  if (first) return <Navigate to={first.path} replace />;
  if (isLoading) return <Spin className="admin-page-spin" />;
  return <Navigate to="/404" replace />;
}
