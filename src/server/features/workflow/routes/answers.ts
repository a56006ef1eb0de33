import { arrayOf, bool, id, integer, nullable, object, oneOf } from '../../../lib/route-schema.js';

/**
 * What the workflow calls answer in `data`, field by field: the shapes of engine/api-types.ts
 * (WfModel, WfTask, …) as the API document shows them and Fastify writes them. Fastify drops a
 * field an answer's schema does not name, and the integration suite fails on any answer that
 * differs from its schema: a field added to a service's select is added here too.
 *
 * Texts of the answers are not bounded (names and documentation come from BPMN files); times
 * are ISO-8601 text (the database's dates as JSON writes them).
 */
type Json = Record<string, unknown>;

const string = (description?: string): Json => ({
  type: 'string',
  ...(description ? { description } : {}),
});
const maybeString = (description?: string): Json => nullable(string(description));
const time = (description?: string): Json => ({
  type: 'string',
  format: 'date-time',
  ...(description ? { description } : {}),
});
const maybeTime = (description?: string): Json => nullable(time(description));
const maybeId = (description?: string): Json => nullable(id(description));
const count = (description?: string): Json =>
  integer(0, Number.MAX_SAFE_INTEGER, description ? { description } : {});
const names = (description: string): Json => arrayOf(string(), { description });

/** Every property of an answer's object is sent (null when it has no value). */
const record = (properties: Record<string, Json>, extra: Json = {}): Json =>
  object(properties, Object.keys(properties), extra);

const FIELD_ERROR = record({
  field: string('Where: a JSON pointer, or the BPMN element id'),
  message: string(),
});
const WARNINGS = arrayOf(FIELD_ERROR, { description: 'What the BPMN parser warns of (the file was taken)' });

/** A page of a list: {records, total, totalExact, currentPage, pageSize}. */
export const pageOf = (item: Json): Json =>
  record({
    records: arrayOf(item),
    total: count('Every record the filters match'),
    totalExact: bool(),
    currentPage: integer(1),
    pageSize: integer(1),
  });

export const DELETED = record({ deleted: count('How many were deleted') });

// Models and deployments -----------------------------------------------------------------------

const MODEL_PROPERTIES = {
  id: id(),
  name: string(),
  key: string('The process key (the BPMN process id)'),
  category: maybeString(),
  description: maybeString(),
  version: count('The version last deployed from it (0 before the first deployment)'),
  revision: count('Counts changes: model/update sends the one it read'),
  orgId: maybeId(),
  referGroup: maybeString(),
  referUsers: names('User names'),
  usedForm: maybeString(),
  deploymentId: maybeId('The last deployment made from it'),
  deploymentTime: maybeTime(),
  createTime: time(),
  updateTime: time(),
  hasXml: bool({ description: 'Whether a diagram has been saved' }),
};

export const MODEL = record(MODEL_PROPERTIES);
export const MODEL_WITH_XML = record({
  ...MODEL_PROPERTIES,
  xml: maybeString('The saved BPMN diagram (null before the first save)'),
});
export const SAVED_MODEL = record({ ...MODEL_PROPERTIES, warnings: WARNINGS });
export const IMPORTED_MODEL = record({
  ...MODEL_PROPERTIES,
  warnings: WARNINGS,
  replaced: bool({ description: 'The key existed and that model got the diagram' }),
});
export const MODEL_XML = record({ id: id(), xml: maybeString('null before the first save') });

export const DEPLOY_ANSWER = record({
  deploymentId: id(),
  processDefinitionId: id(),
  key: string(),
  version: integer(1),
  warnings: WARNINGS,
});

export const DEPLOYMENT = record({
  id: id(),
  name: string(),
  category: maybeString(),
  resourceName: string(),
  deploymentTime: time(),
  deployedBy: maybeString(),
  warnings: WARNINGS,
});

// Definitions ----------------------------------------------------------------------------------

export const DEFINITION = record({
  id: id(),
  key: string(),
  name: maybeString(),
  version: integer(1),
  category: maybeString(),
  resourceName: string(),
  deploymentId: id(),
  suspended: bool(),
  deploymentTime: time(),
  startFormKey: maybeString('The formKey of its start event'),
});

export const DEFINITION_XML = record({ id: id(), resourceName: string(), xml: string() });

export const DEFINITION_SUSPENDED = record({ id: id(), suspended: bool() });

// Instances and tasks --------------------------------------------------------------------------

const INSTANCE_PROPERTIES = {
  id: id(),
  name: maybeString(),
  processDefinitionId: id(),
  processDefinitionKey: string(),
  processDefinitionVersion: integer(1),
  businessKey: maybeString(),
  description: maybeString(),
  startUserId: maybeString("The starter's user name (null for a timer start)"),
  startTime: time(),
  endTime: maybeTime(),
  suspended: bool(),
  ended: bool(),
  status: string('running, over, rejected, terminated or withdrawn'),
  incident: nullable(
    record(
      { activityId: string(), flowId: maybeString(), message: string() },
      { description: 'What stopped a token at a gateway, until someone deals with it' },
    ),
  ),
};

export const INSTANCE = record(INSTANCE_PROPERTIES);

const TASK_PROPERTIES = {
  id: id(),
  name: maybeString(),
  status: string('created, assigned, delegated, completed, canceled, regressed, rejected or terminated'),
  assignee: maybeString(),
  owner: maybeString('Who delegated it'),
  delegationState: maybeString('pending while delegated, resolved once handed back'),
  claimTime: maybeTime(),
  startTime: time(),
  endTime: maybeTime(),
  endReason: maybeString(),
  description: maybeString(),
  processInstanceId: id(),
  processDefinitionId: id(),
  taskDefinitionKey: string('The BPMN element id'),
  formKey: maybeString(),
  processInstanceName: maybeString(),
  startUserId: maybeString("The instance's starter"),
  suspended: bool({ description: 'Its instance is suspended: the task refuses actions' }),
};

export const TASK = record(TASK_PROPERTIES);

/**
 * The tasks the caller can act on next (start, completeTask): made by this call, still open,
 * assigned to the caller or naming them as a candidate user. A client goes on with these instead
 * of asking for its task list again.
 */
const NEXT_TASKS = arrayOf(
  record({ id: id(), name: string(), taskDefinitionKey: string(), assignee: maybeString() }),
  { description: 'The tasks the caller can act on next' },
);

export const STARTED = record({ ...INSTANCE_PROPERTIES, nextTasks: NEXT_TASKS });
export const COMPLETED = record({ ...TASK_PROPERTIES, nextTasks: NEXT_TASKS });

export const TASK_DETAIL = record({
  ...TASK_PROPERTIES,
  candidates: record({ users: names('User names'), groups: names('Groups: role:X, post:X or org:N') }),
  form: nullable(
    record({
      formKey: string(),
      schema: {
        type: ['object', 'null'],
        additionalProperties: true,
        description: "The entity's JSON Schema, for the form (null when the formKey names no entity)",
      },
    }),
  ),
});

export const REGRESS_NODE = record({ activityId: string(), name: maybeString(), assignee: maybeString() });

// History --------------------------------------------------------------------------------------

export const ACTIVITY = record({
  id: id(),
  key: string('The BPMN element id'),
  name: maybeString(),
  type: string('The BPMN element type (userTask, exclusiveGateway, …)'),
  assignee: maybeString(),
  taskId: maybeId(),
  executionId: maybeId(),
  startTime: time(),
  endTime: maybeTime(),
  endReason: maybeString(),
  processInstanceId: id(),
});

const VALUE = { description: 'The value: any JSON, as it was set' };
const VALUE_TYPE = string('string, integer, double, boolean, list, object or null');

export const VARIABLE = record({
  id: id(),
  name: string(),
  type: VALUE_TYPE,
  value: VALUE,
  updateTime: time(),
  processInstanceId: id(),
});

export const VARIABLE_CHANGE = record({
  id: id(),
  name: string(),
  type: VALUE_TYPE,
  value: VALUE,
  taskId: maybeId(),
  activityId: maybeString(),
  username: maybeString(),
  time: time(),
  processInstanceId: id(),
});

const COMMENT_ENTRY = record({
  id: id(),
  taskId: maybeId(),
  username: maybeString(),
  action: string(
    'complete, delegate, resolve, regress, reject, terminate, withdraw, assign, suspend or activate',
  ),
  message: maybeString(),
  time: time(),
});

export const INSTANCE_DETAIL = record({
  ...INSTANCE_PROPERTIES,
  activities: arrayOf(ACTIVITY),
  variables: arrayOf(VARIABLE),
  tasks: arrayOf(TASK, { description: 'Its open tasks' }),
  comments: arrayOf(COMMENT_ENTRY),
});

// The screens' calls ---------------------------------------------------------------------------

export const OPEN_COUNTS = record({
  personal: count('Open tasks assigned to the caller (待办)'),
  candidate: count('Open unclaimed tasks the caller is a candidate of (待签收)'),
});

export const DIAGRAM = record({
  processInstanceId: id(),
  processDefinitionId: id(),
  resourceName: string(),
  xml: string('The BPMN file'),
  completed: names('Activities passed and finished (events, gateways, tasks done)'),
  active: names('Activities where the instance waits now (open tasks, joins, incidents)'),
  flows: names('Sequence flows the instance went along'),
});

export const EXECUTION = record({
  id: id(),
  activityId: string(),
  state: string('active, joining, incident, loop or scope'),
  parentId: maybeId(),
  createdAt: time(),
  processInstanceId: id(),
  name: string("The activity's name (its id when it has none)"),
});

/** An organisation with its sub-organisations and then its users (engine/api-types.ts OrgNode). */
const ORG_NODE = record({
  key: string('org-<id>'),
  type: oneOf(['org']),
  id: id(),
  title: string(),
  orgName: string(),
  orgType: maybeString(),
  orgParent: count('The parent organisation (0 at the top)'),
  children: arrayOf(
    { description: 'A node of this tree: an organisation (like this one) or a user' },
    { description: 'Its sub-organisations, then its users' },
  ),
});

/** A user under their organisation (engine/api-types.ts UserLeaf). */
const USER_LEAF = record({
  key: string('user-<id>'),
  type: oneOf(['user']),
  id: id(),
  title: string('The nickname, or the user name'),
  username: string(),
  nickname: maybeString(),
  orgId: maybeId(),
  status: maybeString(),
  checked: bool(),
  isMainRole: bool(),
  isLeaf: bool({ enum: [true] }),
});

export const ORG_USER_TREE = arrayOf(
  { anyOf: [ORG_NODE, USER_LEAF] },
  { description: 'The top organisations (and users without one), each with its children' },
);
