import type { Feature } from '../../lib/feature.js';
import { syncWorkflowMenus } from './menus.js';
import { workflowRoutes } from './routes/index.js';
import { workflowTableSpecs } from './tables.js';

/** The BPMN engine: models, deployments, instances, tasks, history, timer jobs. */
export const workflowFeature: Feature = {
  name: 'workflow',
  tables: workflowTableSpecs,
  start: syncWorkflowMenus,
  routes: workflowRoutes,
};
