import { Spin } from 'antd';
import { lazy, useEffect } from 'react';
import { Navigate, useParams } from 'react-router';
import { useT } from '../i18n.js';
import { adminModules } from '../lib/admin-modules.js';
import { entityOf, findPage, firstPageUnder, type AppRoute } from '../lib/menus.js';
import { useMenus } from './MenuProvider.js';
import { markPageShown } from './pageShown.js';

const EntityList = lazy(() => import('../entity/EntityList.js'));
const Placeholder = lazy(() => import('./Placeholder.js'));

/** Pages that exist whatever the menus say (docs/product.md §2.3 constant routes). */
const CONSTANT: Record<string, AppRoute> = {
  '/workbench': constant('workbench', '/workbench', 'workbench'),
  '/profile/index': constant('profile', '/profile/index', 'profile'),
  // docs/product.md §2.4 preview mode: renders the form a parent window posts
  '/formdesign/preview': constant('formpreview', '/formdesign/preview', 'formdesign/preview'),
  // Opened from a list's record history and the monitor pages; the server checks the URL grant.
  '/monitor/audit': constant('audit', '/monitor/audit', 'monitor/audit'),
};

function constant(code: string, path: string, component: string): AppRoute {
  return { code, path, name: code, icon: undefined, component, meta: {}, buttons: [], children: [] };
}

/**
 * An entity's menu opens its generated list; any other menu the page a module registered for the
 * menu's component (lib/modules.ts `pages`: the features' own in src/admin/features/<feature>/module.ts,
 * a project's in src/modules/<name>/admin.tsx), else a placeholder.
 */
function Page({ route }: { route: AppRoute }) {
  const entity = entityOf(route);
  if (entity) return <EntityList key={entity} resource={entity} route={route} />;
  const ModulePage = adminModules.page(route.component);
  if (ModulePage) return <ModulePage key={route.code} route={route} />;
  return <Placeholder route={route} />;
}

/**
 * Beside a route's screen, in the route's Suspense boundary (KeepAliveOutlet.tsx): its effect runs
 * once the screen (a lazy chunk) is committed, not while the menus or the chunk are loading.
 */
function PageShown() {
  useEffect(markPageShown, []);
  return null;
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
  if (route)
    return (
      <>
        <Page route={route} />
        <PageShown />
      </>
    );
  const first = firstPageUnder(routes, path);
  if (first) return <Navigate to={first.path} replace />;
  if (isLoading) return <Spin className="admin-page-spin" />;
  return <Navigate to="/404" replace />;
}
