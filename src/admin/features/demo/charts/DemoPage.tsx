import { Card } from 'antd';
import { lazy, type ReactNode } from 'react';
import { routeTitle, useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import type { ChartKind } from './ChartPage.js';
import type { ScreenName } from './bigscreens.js';

const ChartPage = lazy(() => import('./ChartPage.js'));
const BigScreen = lazy(() => import('./BigScreen.js'));
const ReportDesigner = lazy(() => import('./ReportDesigner.js'));
const ReportView = lazy(() => import('./ReportView.js'));

const CHARTS: Record<string, ChartKind> = {
  'demo/charts/line': 'line',
  'demo/charts/bar': 'bar',
  'demo/charts/pie': 'pie',
  'demo/charts/mix': 'mix',
};
const SCREENS: Record<string, ScreenName> = {
  'demo/bigscreen/construction': 'construction',
  'demo/bigscreen/electronic': 'electronic',
  'demo/bigscreen/maintenance': 'maintenance',
  'demo/bigscreen/dataanalysis': 'dataanalysis',
};
const REPORT_VIEW = /^\/report\/view\/(\d{1,15})$/;

/** The menu components of these pages (report/view: a saved report's path, /report/view/<id>). */
export const CHARTS_DEMO_COMPONENTS: readonly string[] = [
  ...Object.keys(CHARTS),
  ...Object.keys(SCREENS),
  'demo/report/reportdesigner',
  'report/view',
];

/** Whether a menu's component is one of the charts, big screens or report pages. */
export function isChartsDemo(route: AppRoute): boolean {
  return (
    route.component in CHARTS ||
    route.component in SCREENS ||
    route.component === 'demo/report/reportdesigner' ||
    (route.component === 'report/view' && REPORT_VIEW.test(route.path))
  );
}

function page(route: AppRoute): ReactNode {
  const chart = CHARTS[route.component];
  if (chart) return <ChartPage key={chart} kind={chart} />;
  const screen = SCREENS[route.component];
  if (screen) return <BigScreen key={screen} name={screen} />;
  if (route.component === 'demo/report/reportdesigner') return <ReportDesigner />;
  const id = Number(REPORT_VIEW.exec(route.path)?.[1]);
  return <ReportView key={id} id={id} />;
}

/** The chart gallery, the big screens, the report designer and saved reports' pages, in the page card. */
export function ChartsDemoPage({ route }: { route: AppRoute }) {
  useT();
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      {page(route)}
    </Card>
  );
}
