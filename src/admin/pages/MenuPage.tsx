import { Spin } from 'antd';
import { lazy, useEffect, type ComponentType, type LazyExoticComponent } from 'react';
import { Navigate, useParams } from 'react-router';
import { useT } from '../i18n.js';
import { GENERATED_PAGES } from '../lib/generated-pages.js';
import { entityOf, findPage, firstPageUnder, type AppRoute } from '../lib/menus.js';
import { useMenus } from '../layout/MenuProvider.js';
import { markPageShown } from '../layout/pageShown.js';
import { isWorkflowScreen } from '../screens/workflow/routes.js';
import { ChartsDemoPage, isChartsDemo } from '../screens/charts/DemoPage.js';
import { COMPONENT_DEMO_PAGES } from '../demo-components/pages.js';
import { EXAMPLE_PAGES } from '../screens/examples/pages.js';

const Workbench = lazy(() => import('./Workbench.js'));
const Profile = lazy(() => import('./Profile.js'));
const EntityList = lazy(() => import('../entity/EntityList.js'));
const Placeholder = lazy(() => import('./Placeholder.js'));
const DataPermission = lazy(() => import('../screens/pages/DataPermission.js'));
const OnlineUsers = lazy(() => import('../screens/pages/OnlineUsers.js'));
const MyNotification = lazy(() => import('../screens/pages/MyNotification.js'));
const FileManager = lazy(() => import('../screens/files/FileManager.js'));
const Netdisc = lazy(() => import('../screens/files/Netdisc.js'));
const FormGenerator = lazy(() => import('../screens/forms/FormGenerator.js'));
const ModelList = lazy(() => import('../screens/workflow-model/ModelList.js'));
// bpmn-js with its CSS and fonts comes with this page only (first-load budget, issue 13)
const ProcessDesign = lazy(() => import('../screens/workflow-model/ProcessDesign.js'));
const WorkflowScreen = lazy(() => import('../screens/workflow/WorkflowScreen.js'));
const FormDesigner = lazy(() => import('../screens/formdesign/FormDesigner.js'));
const FormPreviewPage = lazy(() => import('../screens/formdesign/FormPreviewPage.js'));
const ForwardGenerator = lazy(() => import('../screens/codegen/ForwardGenerator.js'));
const ReverseGenerator = lazy(() => import('../screens/codegen/ReverseGenerator.js'));
const GeneratorTemplates = lazy(() => import('../screens/codegen/GeneratorTemplates.js'));
const MONITOR_PAGES: Record<string, LazyExoticComponent<ComponentType<{ route: AppRoute }>>> = {
  'monitor/metrics': lazy(() => import('../screens/monitor/MetricsDashboard.js')),
  'monitor/database': lazy(() => import('../screens/monitor/DatabaseMonitor.js')),
  'monitor/flowcontrol': lazy(() => import('../screens/monitor/FlowControl.js')),
  'monitor/configcenter': lazy(() => import('../screens/monitor/ConfigCenter.js')),
  'monitor/apidoc': lazy(() => import('../screens/monitor/ApiDoc.js')),
  'monitor/audit': lazy(() => import('../screens/monitor/AuditTrail.js')),
  'distributedlog/elk': lazy(() => import('../screens/monitor/LogSearch.js')),
};

/** Pages that exist whatever the menus say (SPEC §2.3 constant routes). */
const CONSTANT: Record<string, AppRoute> = {
  '/workbench': constant('workbench', '/workbench', 'workbench'),
  '/profile/index': constant('profile', '/profile/index', 'profile'),
  // SPEC §2.4 preview mode: renders the form a parent window posts
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
