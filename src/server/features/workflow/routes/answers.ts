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
  definitions: arrayOf(record({ processDefinitionId: id(), key: string(), version: integer(1) })),
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

export const DEPLOYMENT_RESOURCES = arrayOf(
  record({
    deploymentId: id(),
    name: string('The file name (key.bpmn20.xml)'),
    size: count('Its size in bytes (UTF-8)'),
    xml: string('The BPMN file as it was deployed'),
    definitions: arrayOf(record({ id: id(), key: string(), name: maybeString(), version: integer(1) }), {
      description: 'The process definitions it defined',
    }),
  }),
  { description: 'The files of the deployment' },
);

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

export const DEFINITION_SUSPENDED = record({
  id: id(),
  suspended: bool(),
  instances: count('How many running instances were suspended (or activated) with it'),
});

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
    object(
      {
        activityId: string(),
        activityName: maybeString('The name of the element where it stopped'),
        flowId: maybeString(),
        message: string(),
        variable: maybeString('The unset variable an expression named, when that stopped it'),
      },
      ['activityId', 'flowId', 'message'],
      { description: 'What stopped a token (an element or its flow), until someone deals with it' },
    ),
  ),
};

export const INSTANCE = record(INSTANCE_PROPERTIES);

const TASK_PROPERTIES = {
  id: id(),
  name: maybeString(),
  status: string(
    'created, assigned, delegated, waiting (for its signers, 加签), completed, canceled, regressed, rejected or terminated',
  ),
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
  processDescription: maybeString("Its instance's description (流程描述)"),
  businessKey: maybeString("Its instance's business key"),
  parentTaskId: maybeId('加签: the task this signer was added to'),
  signType: maybeString('加签: before or after, while the task waits for its signers'),
};

export const TASK = record(TASK_PROPERTIES);

/** 抄送: an instance copied to the caller. */
export const COPY = record({
  id: id(),
  processInstanceId: id(),
  processInstanceName: maybeString(),
  processDescription: maybeString("The instance's description (流程描述)"),
  businessKey: maybeString("The instance's business key"),
  startUserId: maybeString("The instance's starter"),
  status: string("The instance's status"),
  taskId: maybeId('The task whose completion copied it'),
  taskName: maybeString(),
  copiedBy: maybeString('Who copied it'),
  message: maybeString('Their comment'),
  time: time(),
});

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
  candidates: record({
    users: names('User names'),
    groups: names('Groups: role:X, post:X or org:N'),
    groupNames: names("Each group's role, post or organisation name (its code when it has none), in order"),
  }),
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
    'complete, delegate, resolve, transfer, addSignBefore, addSignAfter, copy, regress, reject, terminate, withdraw, assign, suspend, activate, retry or variables (the names set, in message)',
  ),
  message: maybeString(),
  target: maybeString(
    'Whom the action gave the task to (transfer), added as signers (加签) or copied to (抄送)',
  ),
  time: time(),
});

export const INSTANCE_DETAIL = record({
  ...INSTANCE_PROPERTIES,
  activities: arrayOf(ACTIVITY),
  variables: arrayOf(VARIABLE),
  tasks: arrayOf(TASK, { description: 'Its open tasks' }),
  comments: arrayOf(COMMENT_ENTRY),
  startFormKey: maybeString('The formKey of its start event: the start form, its data among the variables'),
});

// The screens' calls ---------------------------------------------------------------------------

export const OPEN_COUNTS = record({
  personal: count('Open tasks assigned to the caller (待办)'),
  candidate: count('Open unclaimed tasks the caller is a candidate of (待签收)'),
});

export const DIAGRAM = record({
  processInstanceId: id(),
  processDefinitionId: id(),
  processKey: string(),
  resourceName: string(),
  xml: string('The BPMN file'),
  completed: names('Activities passed and finished (events, gateways, tasks done)'),
  active: names('Activities where the instance waits now (open tasks, joins, incidents)'),
  rejected: names(
    'Activities whose last run a rejection (驳回) or a send-back (退回) ended, not run again since',
  ),
  flows: names('Sequence flows the instance went along'),
});

export const EXECUTION = record({
  id: id(),
  activityId: string(),
  state: string(
    'active, joining, waiting (at a timer, signal or message catch event, a receive task or an event-based gateway), incident, loop or scope',
  ),
  parentId: maybeId(),
  createdAt: time(),
  processInstanceId: id(),
  name: string("The activity's name (its id when it has none)"),
  waitsFor: arrayOf(
    record({
      kind: oneOf(['message', 'signal']),
      name: string('The message or signal name'),
      activityId: string('The element that catches it (catch event, receive task, boundary event)'),
    }),
    { description: 'The messages and signals the token waits for there' },
  ),
});

/** What a message or signal reached (engine/api-types.ts WfCorrelated). */
export const CORRELATED = record({
  processInstanceIds: arrayOf(id(), { description: 'The running instances it reached' }),
  startedInstanceIds: arrayOf(id(), {
    description: 'The instances it started (message or signal start events)',
  }),
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

// Approval of records (x-entity.workflow) ------------------------------------------------------

const RECORD = {
  type: 'object',
  additionalProperties: true,
  description: "The record as the caller's field rights show it (its entity's fields and approvalStatus)",
};

export const APPROVED_RECORD = record({
  entity: string('The entity the record belongs to (its schema name)'),
  key: { type: ['integer', 'string'], description: "The record's key" },
  record: RECORD,
  taskId: maybeId("The caller's open task of the instance, while the record is under approval"),
  editable: names(
    'The fields that task may edit (x-entity.workflow.edit), less those the caller may not write',
  ),
});

export const SUBMITTED = record({ instance: STARTED, record: RECORD });

export const APPROVAL_RECORD = RECORD;

// External tasks ---------------------------------------------------------------------------------

const EXTERNAL_TASK_PROPERTIES = {
  id: id(),
  topicName: string("The topic workers fetch it by (a foreign file's Java class or expression)"),
  workerId: maybeString('The worker holding its lock'),
  lockExpirationTime: maybeTime(
    'When the lock ends (after a failure with retries: when it is offered again)',
  ),
  processInstanceId: id(),
  processDefinitionKey: string(),
  activityId: string('The service task of the process'),
  retries: nullable(count('Retries left (null: it never failed)')),
  errorMessage: maybeString(),
  errorDetails: maybeString(),
  suspended: bool(),
  createTime: time(),
};

export const EXTERNAL_TASK = record(EXTERNAL_TASK_PROPERTIES);
export const LOCKED_TASK = record({
  ...EXTERNAL_TASK_PROPERTIES,
  variables: object({}, [], { additionalProperties: true, description: "The instance's variables" }),
});
