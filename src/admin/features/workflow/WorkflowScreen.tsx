import type { AppRoute } from '../../lib/menus.js';
import { AllTasks, Definitions, Deployments, HistoricInstances, HistoricTasks, Instances } from './Admin.js';
import { ExecutionPage, HistoryOfInstance, MyProcessDetails, TaskDetailsPage } from './Details.js';
import {
  AssigneeTasks,
  CandidateTasks,
  CopyTasks,
  FinishedTasks,
  MyProcess,
  StartProcess,
} from './Office.js';
import { TaskHandle } from './TaskHandle.js';

/**
 * The workflow screens by menu component (routes.ts lists them). Loaded on demand by the menu
 * page: this module, bpmn-js (Diagram.tsx, later still) and its styles stay out of the first load.
 */
export default function WorkflowScreen({ route }: { route: AppRoute }) {
  switch (route.component) {
    case 'workflow/deployment':
      return <Deployments route={route} />;
    case 'workflow/processdefinition':
      return <Definitions route={route} />;
    case 'workflow/processinstance':
      return <Instances route={route} />;
    case 'workflow/execution':
      return <ExecutionPage route={route} />;
    case 'workflow/task':
      return <AllTasks route={route} />;
    case 'workflow/taskdetails':
    case 'workflow/historictaskdetails':
      return <TaskDetailsPage route={route} />;
    case 'workflow/historicprocessinstance':
      return <HistoricInstances route={route} />;
    case 'workflow/historicactivityinstance':
      return <HistoryOfInstance route={route} view="activity" />;
    case 'workflow/historicdetail':
      return <HistoryOfInstance route={route} view="detail" />;
    case 'workflow/historicvariableinstance':
      return <HistoryOfInstance route={route} view="variable" />;
    case 'workflow/historictaskinstance':
      return <HistoricTasks route={route} />;
    case 'oa/startprocess':
      return <StartProcess route={route} />;
    case 'oa/myprocess':
      return <MyProcess route={route} />;
    case 'oa/myprocessdetails':
      return <MyProcessDetails route={route} />;
    case 'oa/candidatetask':
      return <CandidateTasks route={route} />;
    case 'oa/assigneetask':
      return <AssigneeTasks route={route} />;
    case 'oa/finishedtask':
      return <FinishedTasks route={route} />;
    case 'oa/copytask':
      return <CopyTasks route={route} />;
    case 'oa/mytaskdetails':
      return <TaskHandle route={route} />;
    default:
      return null;
  }
}
