import { lazy } from 'react';
import { defineAdminModule, type ModulePage } from '../../lib/modules.js';
import { WORKFLOW_SCREENS } from './routes.js';

const WorkflowScreen = lazy(() => import('./WorkflowScreen.js'));
const screen: ModulePage = WorkflowScreen;

/** The process modeler and the workflow screens (one lazy screen for all of them). */
export default defineAdminModule({
  pages: {
    'workflow/model': lazy(() => import('./modeler/ModelList.js')),
    // bpmn-js with its CSS and fonts comes with this page only, so the first load stays small
    'workflow/processdesign': lazy(() => import('./modeler/ProcessDesign.js')),
    ...Object.fromEntries([...WORKFLOW_SCREENS].map((component) => [component, screen])),
  },
});
