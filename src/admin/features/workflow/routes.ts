/**
 * The menu components the workflow screens render, apart from the modeler's
 * (workflow/model, workflow/processdesign). Kept apart from the screens so that the menu page
 * can ask without loading them.
 */
export const WORKFLOW_SCREENS: ReadonlySet<string> = new Set([
  'workflow/deployment',
  'workflow/processdefinition',
  'workflow/processinstance',
  'workflow/execution',
  'workflow/task',
  'workflow/taskdetails',
  'workflow/historicprocessinstance',
  'workflow/historicactivityinstance',
  'workflow/historicdetail',
  'workflow/historicvariableinstance',
  'workflow/historictaskinstance',
  'workflow/historictaskdetails',
  'oa/startprocess',
  'oa/myprocess',
  'oa/myprocessdetails',
  'oa/candidatetask',
  'oa/assigneetask',
  'oa/finishedtask',
  'oa/copytask',
  'oa/mytaskdetails',
]);

export const isWorkflowScreen = (component: string | undefined): boolean =>
  component !== undefined && WORKFLOW_SCREENS.has(component);
