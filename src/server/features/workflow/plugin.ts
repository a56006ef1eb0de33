import type { Feature } from '../../lib/feature.js';
import { syncWorkflowDicts } from './dicts.js';
import { syncWorkflowMenus } from './menus.js';
import { workflowRoutes } from './routes/index.js';
import { workflowTableSpecs } from './tables.js';

/** The BPMN engine: models, deployments, instances, tasks, history, timer jobs. */
export const workflowFeature: Feature = {
  name: 'workflow',
  tables: workflowTableSpecs,
  start: async (ctx, i18n) => {
    await syncWorkflowMenus(ctx, i18n);
    await syncWorkflowDicts(ctx, i18n);
  },
  routes: workflowRoutes,
};
