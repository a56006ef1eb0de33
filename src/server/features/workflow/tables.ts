import type { ColumnSpec, ForeignKeySpec, IndexSpec, TableSpec } from '../../../engine/index.js';

/**
 * The workflow engine's tables (services/workflow): its whole state is rows, so any server
 * process on the database can carry an instance on. Every row carries its tenant.
 */

const id: ColumnSpec = { name: 'id', type: 'bigint', isNullable: false, isIdentity: true };
const tenant: ColumnSpec = { name: 'tenant_code', type: 'text', isNullable: false };
const createdAt: ColumnSpec = {
  name: 'created_at',
  type: 'timestamptz',
  isNullable: false,
  defaultSql: 'now()',
};
const text = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'text', isNullable });
const bigint = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'bigint', isNullable });
const time = (name: string, isNullable = true): ColumnSpec => ({ name, type: 'timestamptz', isNullable });
const int = (name: string, defaultSql: '0' | '1' = '0'): ColumnSpec => ({
  name,
  type: 'integer',
  isNullable: false,
  defaultSql,
});
const flag = (name: string): ColumnSpec => ({
  name,
  type: 'boolean',
  isNullable: false,
  defaultSql: 'false',
});
const json = (
  name: string,
  defaultSql: "'{}'::jsonb" | "'[]'::jsonb" | undefined = undefined,
): ColumnSpec => ({
  name,
  type: 'jsonb',
  isNullable: defaultSql === undefined,
  ...(defaultSql ? { defaultSql } : {}),
});

const index = (table: string, columns: string[], isUnique = false, suffix?: string): IndexSpec => ({
  name: `${table}_${suffix ?? columns.filter((c) => c !== 'tenant_code').join('_')}_${isUnique ? 'uq' : 'idx'}`,
  columns,
  isUnique,
});

const cascade = (table: string, column: string, refTable: string): ForeignKeySpec => ({
  name: `${table}_${column}_fk`,
  columns: [column],
  refTable,
  refColumns: ['id'],
  onDelete: 'cascade',
});

function spec(
  name: string,
  columns: ColumnSpec[],
  indexes: IndexSpec[] = [],
  foreignKeys: ForeignKeySpec[] = [],
): TableSpec {
  return { name, columns: [id, tenant, ...columns], primaryKey: ['id'], indexes, foreignKeys };
}

/**
 * Tables whose rows are updated within moments of their insert (an instance's row_version at
 * every action and its end, a token moving on, a task ending, a history row's end time): pages
 * are filled to this share only, so the new row version finds room on the row's own page. The
 * update is then HOT when no indexed column changes (instance, token, history row: no index
 * entry written, the old version pruned on the page), and a task's end stays on its page too.
 */
const UPDATED_IN_PLACE = 70;
const IN_PLACE = new Set(['wf_instance', 'wf_execution', 'wf_task', 'wf_hist_activity']);

export function workflowTableSpecs(): TableSpec[] {
  return tableSpecs().map((table) =>
    IN_PLACE.has(table.name) ? { ...table, fillfactor: UPDATED_IN_PLACE } : table,
  );
}

function tableSpecs(): TableSpec[] {
  return [
    // Models: what the designer edits; deploying one makes a deployment and a definition version.
    spec(
      'wf_model',
      [
        text('name', false),
        text('model_key', false),
        text('category'),
        text('description'),
        int('version'),
        int('revision', '1'),
        bigint('org_id'),
        text('refer_group'),
        json('refer_users', "'[]'::jsonb"),
        text('used_form'),
        text('xml'),
        bigint('deployment_id'),
        time('deployed_at'),
        createdAt,
        time('updated_at', false),
      ],
      [index('wf_model', ['tenant_code', 'model_key'], true)],
    ),
    spec(
      'wf_deployment',
      [
        text('name', false),
        text('category'),
        text('resource_name', false),
        text('xml', false),
        bigint('model_id'),
        text('deployed_by'),
        json('warnings', "'[]'::jsonb"),
        createdAt,
      ],
      [index('wf_deployment', ['tenant_code', 'created_at'])],
    ),
    // One version of a process per deployment; the parsed graph is what the interpreter reads.
    spec(
      'wf_definition',
      [
        bigint('deployment_id', false),
        text('process_key', false),
        text('name'),
        text('category'),
        int('version', '1'),
        text('resource_name', false),
        json('graph', "'{}'::jsonb"),
        flag('suspended'),
        createdAt,
      ],
      [
        index('wf_definition', ['tenant_code', 'process_key', 'version'], true),
        index('wf_definition', ['deployment_id']),
      ],
      [cascade('wf_definition', 'deployment_id', 'wf_deployment')],
    ),
    // Instances; row_version counts changes (every operation locks the row first).
    spec(
      'wf_instance',
      [
        bigint('definition_id', false),
        text('process_key', false),
        text('name'),
        text('business_key'),
        text('description'),
        bigint('start_user_id'),
        text('start_username'),
        text('status', false),
        flag('suspended'),
        json('incident'),
        time('start_time', false),
        time('end_time'),
        int('row_version', '1'),
        // Steps taken in the instance's life (BUDGETS.workflow.stepsPerInstance); added with
        // its default to the rows of a database made before it.
        int('steps'),
        // Started by a call activity: the calling instance and its token waiting there.
        bigint('super_instance_id'),
        bigint('super_execution_id'),
      ],
      [
        index('wf_instance', ['tenant_code', 'start_time']),
        index('wf_instance', ['definition_id']),
        index('wf_instance', ['tenant_code', 'start_username']),
        index('wf_instance', ['super_instance_id']),
      ],
      [cascade('wf_instance', 'definition_id', 'wf_definition')],
    ),
    // Tokens: where an instance stands. state: active (at a wait state), joining (waits at a
    // gateway for its siblings), incident (stopped at a gateway that could not choose), loop
    // (waits at a multi-instance task for its children). Found by instance only (an instance has
    // few tokens): no index holds activity_id or state, so a token moving on is a HOT update
    // (no index entry written); the earlier (instance_id, activity_id) index is dropped.
    {
      ...spec(
        'wf_execution',
        [
          bigint('instance_id', false),
          text('activity_id', false),
          text('state', false),
          // Multi-instance: the children of a loop point at the token that waits at the task
          // (loop_state: items, counts); each child has its element variable and loopCounter.
          bigint('parent_id'),
          json('local_vars'),
          json('loop_state'),
          createdAt,
        ],
        [index('wf_execution', ['instance_id'])],
        [cascade('wf_execution', 'instance_id', 'wf_instance')],
      ),
      retiredIndexes: ['wf_execution_instance_id_activity_id_idx'],
    },
    // Open and finished tasks (finished ones are the task history).
    spec(
      'wf_task',
      [
        bigint('instance_id', false),
        bigint('execution_id'),
        bigint('definition_id', false),
        text('activity_id', false),
        text('name'),
        text('description'),
        text('assignee'),
        text('owner'),
        text('delegation'),
        text('form_key'),
        text('status', false),
        text('end_reason'),
        time('claim_time'),
        time('start_time', false),
        time('end_time'),
        int('row_version', '1'),
        // 加签: a signer's task points at the task it was added to (which waits meanwhile, its
        // sign_type before or after: back to its assignee, or done, when the signers are).
        bigint('parent_task_id'),
        text('sign_type'),
      ],
      [
        index('wf_task', ['instance_id']),
        index('wf_task', ['tenant_code', 'assignee', 'end_time'], false, 'assignee'),
        index('wf_task', ['tenant_code', 'end_time']),
      ],
      [cascade('wf_task', 'instance_id', 'wf_instance')],
    ),
    // Candidates of a task: a user name, or a group "role:X", "post:X", "org:N".
    spec(
      'wf_identity_link',
      [
        bigint('task_id', false),
        bigint('instance_id', false),
        text('user_name'),
        text('group_key'),
        createdAt,
      ],
      [
        index('wf_identity_link', ['task_id']),
        index('wf_identity_link', ['tenant_code', 'user_name']),
        index('wf_identity_link', ['tenant_code', 'group_key']),
      ],
      [cascade('wf_identity_link', 'task_id', 'wf_task')],
    ),
    spec(
      'wf_variable',
      [
        bigint('instance_id', false),
        text('name', false),
        text('type', false),
        json('value'),
        time('updated_at', false),
      ],
      [index('wf_variable', ['instance_id', 'name'], true)],
      [cascade('wf_variable', 'instance_id', 'wf_instance')],
    ),
    spec(
      'wf_comment',
      [
        bigint('instance_id', false),
        bigint('task_id'),
        text('username'),
        text('action', false),
        text('message'),
        // whom the action gave the task to (a transfer's new assignee)
        text('target'),
        createdAt,
      ],
      [index('wf_comment', ['instance_id'])],
      [cascade('wf_comment', 'instance_id', 'wf_instance')],
    ),
    // 抄送: an instance copied to a user of the tenant (by a task's assignee as they complete it),
    // who may read it (not act on it) and finds it in 抄送我的.
    spec(
      'wf_copy',
      [
        bigint('instance_id', false),
        bigint('task_id'),
        text('username', false),
        text('copied_by'),
        text('message'),
        createdAt,
      ],
      [index('wf_copy', ['tenant_code', 'username']), index('wf_copy', ['instance_id'])],
      [cascade('wf_copy', 'instance_id', 'wf_instance')],
    ),
    spec(
      'wf_hist_activity',
      [
        bigint('instance_id', false),
        bigint('execution_id'),
        text('activity_id', false),
        text('activity_name'),
        text('activity_type', false),
        text('assignee'),
        bigint('task_id'),
        time('start_time', false),
        time('end_time'),
        text('end_reason'),
      ],
      [index('wf_hist_activity', ['instance_id', 'start_time'])],
      [cascade('wf_hist_activity', 'instance_id', 'wf_instance')],
    ),
    // Every change of a variable (history/detail): who set what, where.
    spec(
      'wf_hist_detail',
      [
        bigint('instance_id', false),
        bigint('task_id'),
        text('activity_id'),
        text('name', false),
        text('type', false),
        json('value'),
        text('username'),
        createdAt,
      ],
      [index('wf_hist_detail', ['instance_id', 'created_at'])],
      [cascade('wf_hist_detail', 'instance_id', 'wf_instance')],
    ),
    // Timer jobs, taken with FOR UPDATE SKIP LOCKED by whichever process comes first.
    spec(
      'wf_job',
      [
        bigint('instance_id', false),
        bigint('execution_id'),
        text('activity_id', false),
        text('kind', false),
        time('due_at', false),
        // A repeating timer (a non-interrupting boundary or event sub-process start with a time
        // cycle): the cycle it fires by next (elements/timers.ts nextOfCycle); null fires once.
        text('cycle'),
        int('attempts'),
        text('last_error'),
        createdAt,
      ],
      [index('wf_job', ['due_at'])],
      [cascade('wf_job', 'instance_id', 'wf_instance')],
    ),
    // Messages and signals a token waits for (catch events, receive tasks, boundary events,
    // event-based gateways): POST …/message and a thrown signal find the tokens of the tenant
    // here by name. waits_at is where the token stands (the activity, the gateway or the catch
    // itself), activity_id the catching element; a row whose token has moved on is void.
    spec(
      'wf_event_subscription',
      [
        bigint('instance_id', false),
        // null: the instance itself waits (an event sub-process of the process; waits_at '').
        bigint('execution_id'),
        text('waits_at', false),
        text('activity_id', false),
        text('kind', false),
        text('name', false),
        createdAt,
      ],
      [
        index('wf_event_subscription', ['tenant_code', 'kind', 'name']),
        index('wf_event_subscription', ['execution_id', 'activity_id'], true),
        index('wf_event_subscription', ['instance_id']),
      ],
      [cascade('wf_event_subscription', 'instance_id', 'wf_instance')],
    ),
    // External tasks (service tasks of camunda:type="external", and a foreign file's Java class
    // read as one): a worker fetches and locks them by topic (FOR UPDATE SKIP LOCKED), then
    // completes them or reports a failure; retries null = never failed, 0 = an incident. A row
    // whose token has left its activity is void (the fetch skips it; the token's next wait there
    // replaces it).
    spec(
      'wf_external_task',
      [
        bigint('instance_id', false),
        bigint('execution_id', false),
        text('process_key', false),
        text('activity_id', false),
        text('topic', false),
        text('worker_id'),
        time('lock_expires'),
        { name: 'retries', type: 'integer', isNullable: true },
        text('error_message'),
        text('error_details'),
        createdAt,
      ],
      [
        index('wf_external_task', ['tenant_code', 'topic']),
        index('wf_external_task', ['execution_id']),
        index('wf_external_task', ['instance_id']),
      ],
      [cascade('wf_external_task', 'instance_id', 'wf_instance')],
    ),
    // Timer start events: the next start of a definition (cycle: the repetitions left, R3/PT1H).
    // Only the latest version of a key has one; taken like the jobs, with SKIP LOCKED.
    spec(
      'wf_start_timer',
      [
        bigint('definition_id', false),
        text('process_key', false),
        time('due_at', false),
        text('cycle'),
        int('attempts'),
        text('last_error'),
        createdAt,
      ],
      [index('wf_start_timer', ['due_at']), index('wf_start_timer', ['tenant_code', 'process_key'])],
      [cascade('wf_start_timer', 'definition_id', 'wf_definition')],
    ),
    // Completed activities a compensation may undo (services/compensation.ts), in the order they
    // completed (id): an activity with a compensation handler, and a sub-process holding such
    // rows. scope_id is the token of the sub-process they completed in (null: the process) while
    // it runs; once that sub-process completed, parent_id is its own row. A row is used once.
    spec(
      'wf_compensation',
      [
        bigint('instance_id', false),
        bigint('scope_id'),
        bigint('parent_id'),
        text('activity_id', false),
        createdAt,
      ],
      [index('wf_compensation', ['instance_id', 'scope_id']), index('wf_compensation', ['parent_id'])],
      [cascade('wf_compensation', 'instance_id', 'wf_instance')],
    ),
  ];
}
