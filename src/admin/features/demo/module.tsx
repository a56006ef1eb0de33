import { lazy } from 'react';
import type { AppRoute } from '../../lib/menus.js';
import { defineAdminModule, type ModulePage } from '../../lib/modules.js';
import { CHARTS_DEMO_COMPONENTS, ChartsDemoPage, isChartsDemo } from './charts/DemoPage.js';
import { COMPONENT_DEMO_PAGES } from './components/pages.js';
import { EXAMPLE_PAGES } from './examples/pages.js';

const Placeholder = lazy(() => import('../../layout/Placeholder.js'));

/** A chart, big screen or report page; report/view only at a saved report's path. */
function ChartsPage({ route }: { route: AppRoute }) {
  return isChartsDemo(route) ? <ChartsDemoPage route={route} /> : <Placeholder route={route} />;
}

const charts: ModulePage = ChartsPage;

/** The template's demo pages: charts and reports, components, the article example. */
export default defineAdminModule({
  pages: {
    ...Object.fromEntries(CHARTS_DEMO_COMPONENTS.map((component) => [component, charts])),
    ...COMPONENT_DEMO_PAGES,
    ...EXAMPLE_PAGES,
  },
});
