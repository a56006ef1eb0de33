/**
 * Camunda settings the workflow engine does not honour (issue 40.3): set, they change nothing,
 * so deploy (server parse.ts) and the modeler's lint (admin lint.ts) each warn about every one set,
 * naming the element and the setting. One list for both, so they cannot disagree.
 */

/** Attributes: a true or non-empty value counts as set. */
export const IGNORED_ATTRIBUTES: readonly string[] = [
  'asyncBefore',
  'asyncAfter',
  'jobPriority',
  'historyTimeToLive',
  'taskPriority',
  'dueDate',
  'followUpDate',
  'priority',
];

/** Extension elements, by moddle type → the setting they are (a workflow.settings key). */
export const IGNORED_EXTENSIONS: Readonly<Record<string, string>> = {
  'camunda:InputOutput': 'inputOutput',
  'camunda:FailedJobRetryTimeCycle': 'failedJobRetryTimeCycle',
};
