import { Spin } from 'antd';
import { lazy, useEffect, type ComponentType, type LazyExoticComponent } from 'react';
import { Navigate, useParams } from 'react-router';
import { useT } from '../i18n.js';
import { GENERATED_PAGES } from '../lib/generated-pages.js';
import { entityOf, findPage, firstPageUnder, type AppRoute } from '../lib/menus.js';
import { useMenus } from './MenuProvider.js';
import { markPageShown } from './pageShown.js';
import { isWorkflowScreen } from '../features/workflow/routes.js';
import { ChartsDemoPage, isChartsDemo } from '../features/demo/charts/DemoPage.js';
import { COMPONENT_DEMO_PAGES } from '../features/demo/components/pages.js';
import { EXAMPLE_PAGES } from '../features/demo/examples/pages.js';

const Workbench = lazy(() => import('../features/workbench/Workbench.js'));
const Profile = lazy(() => import('../features/accounts/Profile.js'));
const EntityList = lazy(() => import('../entity/EntityList.js'));
const Placeholder = lazy(() => import('./Placeholder.js'));
const DataPermission = lazy(() => import('../features/rbac/datafields/DataPermission.js'));
const OnlineUsers = lazy(() => import('../features/sessions/OnlineUsers.js'));
const ApiKeys = lazy(() => import('../features/apikeys/ApiKeys.js'));
const MyNotification = lazy(() => import('../features/notifications/MyNotification.js'));
const FileManager = lazy(() => import('../features/files/FileManager.js'));
const Netdisc = lazy(() => import('../features/files/Netdisc.js'));
const FormGenerator = lazy(() => import('../features/forms/published/FormGenerator.js'));
const ModelList = lazy(() => import('../features/workflow/modeler/ModelList.js'));
// bpmn-js with its CSS and fonts comes with this page only, so the first load stays small
const ProcessDesign = lazy(() => import('../features/workflow/modeler/ProcessDesign.js'));
const WorkflowScreen = lazy(() => import('../features/workflow/WorkflowScreen.js'));
const FormDesigner = lazy(() => import('../features/forms/designer/FormDesigner.js'));
const FormPreviewPage = lazy(() => import('../features/forms/designer/FormPreviewPage.js'));
const ForwardGenerator = lazy(() => import('../features/generator/ForwardGenerator.js'));
const ReverseGenerator = lazy(() => import('../features/generator/ReverseGenerator.js'));
const GeneratorTemplates = lazy(() => import('../features/generator/GeneratorTemplates.js'));
const MONITOR_PAGES: Record<string, LazyExoticComponent<ComponentType<{ route: AppRoute }>>> = {
  'monitor/metrics': lazy(() => import('../features/monitor/MetricsDashboard.js')),
  'monitor/database': lazy(() => import('../features/monitor/DatabaseMonitor.js')),
  'monitor/flowcontrol': lazy(() => import('../features/monitor/FlowControl.js')),
  'monitor/configcenter': lazy(() => import('../features/monitor/ConfigCenter.js')),
  'monitor/apidoc': lazy(() => import('../features/monitor/ApiDoc.js')),
  'monitor/audit': lazy(() => import('../features/monitor/AuditTrail.js')),
  'distributedlog/elk': lazy(() => import('../features/monitor/LogSearch.js')),
};

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

function Page({ route }: { route: AppRoute }) {
  const entity = entityOf(route);
  if (entity) return <EntityList key={entity} resource={entity} route={route} />;
  if (route.component === 'workbench') return <Workbench />;
  if (route.component === 'profile') return <Profile />;
  if (route.component === 'authority/datapermission') return <DataPermission route={route} />;
  if (route.component === 'admin/onlinesysuser') return <OnlineUsers route={route} />;
  if (route.component === 'admin/sysapikey') return <ApiKeys route={route} />;
  if (route.component === 'mynotification') return <MyNotification route={route} />;
  if (route.component === 'file/upload-download') return <FileManager route={route} />;
  if (route.component === 'file/netdisc') return <Netdisc route={route} />;
  // /formgenerator (a group) opens its first page, this list at /formgenerator/list
  if (route.component === 'devtool/formgenerator') return <FormGenerator route={route} />;
  if (route.component === 'workflow/model') return <ModelList route={route} />;
  if (route.component === 'workflow/processdesign') return <ProcessDesign route={route} />;
  if (isWorkflowScreen(route.component)) return <WorkflowScreen key={route.code} route={route} />;
  if (route.component === 'devtool/formdesign') return <FormDesigner route={route} />;
  if (route.component === 'formdesign/preview') return <FormPreviewPage />;
  if (route.component === 'devtool/forwardgenerator') return <ForwardGenerator route={route} />;
  if (route.component === 'devtool/reversegenerator') return <ReverseGenerator route={route} />;
  if (route.component === 'devtool/generatortemplate') return <GeneratorTemplates route={route} />;
  if (isChartsDemo(route)) return <ChartsDemoPage route={route} />;
  const MonitorPage = MONITOR_PAGES[route.component];
  if (MonitorPage) return <MonitorPage route={route} />;
  const ComponentDemo = COMPONENT_DEMO_PAGES[route.component];
  if (ComponentDemo) return <ComponentDemo route={route} />;
  const ExamplePage = EXAMPLE_PAGES[route.component];
  if (ExamplePage) return <ExamplePage key={route.code} route={route} />;
  // A generated module's list (src/modules/<package>/<entity>/), mounted by its menu.sql's component.
  const GeneratedPage = GENERATED_PAGES[route.component];
  if (GeneratedPage) return <GeneratedPage key={route.code} />;
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
