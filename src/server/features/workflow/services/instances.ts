import { eventInsert } from '../../../lib/events/index.js';
import { sql } from 'kysely';
import type { WfInstance, WfStarted } from '../../../../engine/api-types.js';
import { PREPARED } from '../../../lib/db/prepared.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError, type ErrorCode } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { checkedFormData } from './forms.js';
import { nextTasksOf, openRun, setVariables, type Run } from './activity.js';
import { endInstance, enterNode, startTokens, variablesSetFromOutside } from './interpreter.js';
import { mayStart, namesStarters, type Candidate } from './people.js';
import { instanceById } from './queries.js';
import { addComment, assertRunning, definitionGraph, lockInstance } from './store.js';

/** Starting, suspending, activating and terminating process instances. */

export interface StartInput {
  processDefinitionKey?: string | undefined;
  processDefinitionId?: number | undefined;
  businessKey?: string | undefined;
  description: string;
  variables?: Record<string, unknown> | undefined;
  formData?: Record<string, unknown> | undefined;
}

/** The definition a start names: by id, or the latest version of a key (in the caller's tenant). */
const definitionToStart = (tenantCode: string, input: StartInput) =>
  input.processDefinitionId !== undefined
    ? sql`select id, process_key, name, version, suspended from wf_definition
        where id = ${input.processDefinitionId} and tenant_code = ${tenantCode}`
    : sql`select id, process_key, name, version, suspended from wf_definition
        where process_key = ${input.processDefinitionKey ?? ''} and tenant_code = ${tenantCode}
        order by version desc limit 1`;

interface Started {
  id: number | null;
  definition_id: number;
  process_key: string;
  name: string | null;
  version: number;
  suspended: boolean;
  start_time: Date | null;
}

/**
 * Starts an instance in the caller's transaction: the definition is found and the instance row
 * and its workflow.started event written in one statement (none when the definition is
 * suspended), then its first token runs.
 * startUser: the starting user (the initiator), or null for a timer start.
 */
export async function startIn({
  ctx,
  trx,
  actor,
  startUser,
  input,
  checkForm,
  onCreated,
  onStepBudget = 'refuse',
  startEventId,
  caller,
  starter,
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  startUser: { userId: number | null; username: string } | null;
  input: StartInput & { formValues?: Record<string, unknown> };
  checkForm?: (formKey: string | undefined) => Promise<Record<string, unknown>>;
  /**
   * Runs once the instance row is written, before its first token runs (in the transaction): the
   * approval of a record marks the record pending here (records.ts).
   */
  onCreated?: (instanceId: number) => Promise<void>;
  /** What passing the step budget of the transaction does (Run.onStepBudget): a timer start stops in an incident. */
  onStepBudget?: Run['onStepBudget'];
  /** A message or signal start event to start at (else the process's start event). */
  startEventId?: string;
  /** A call activity starts it: the calling instance and its token waiting there. */
  caller?: { instanceId: number; executionId: number };
  /**
   * A user starts it (发起流程): they must be among its candidate starters, if it names any (403).
   * Read in the transaction, and only for a process that names starters.
   */
  starter?: (db: Db) => Promise<Candidate>;
}): Promise<WfStarted> {
  const rows = await sql<Started>`${PREPARED}with d as (${definitionToStart(actor.tenantCode, input)}),
      i as (insert into wf_instance (tenant_code, definition_id, process_key, name, business_key, description,
          start_user_id, start_username, status, start_time, super_instance_id, super_execution_id)
        select ${actor.tenantCode}, d.id, d.process_key, d.name, ${input.businessKey ?? null}, ${input.description},
          ${startUser?.userId ?? null}, ${startUser?.username ?? null}, 'running', now(),
          ${caller?.instanceId ?? null}::bigint, ${caller?.executionId ?? null}::bigint
        from d where not d.suspended
        returning id, start_time),
      started_event as (${eventInsert({
        actor,
        type: 'workflow.started',
        entity: 'wfInstance',
        key: sql`i.id`,
        from: sql`i, d`,
        detailOf: sql`jsonb_build_object('processKey', d.process_key, 'definitionId', d.id)`,
      })})
    select i.id, d.id as definition_id, d.process_key, d.name, d.version, d.suspended, i.start_time
    from d left join i on true`.execute(trx);
  const started = rows.rows[0];
  if (!started)
    throw new AppError('notFound', {
      entity: 'processDefinition',
      key: input.processDefinitionId ?? input.processDefinitionKey ?? '',
    });
  if (started.suspended || started.id === null)
    throw new AppError('wfDefinitionSuspended', { key: started.process_key });
  await onCreated?.(started.id);
  const graph = await definitionGraph({ ctx, trx, definitionId: started.definition_id });
  // (the instance row written above goes with the transaction)
  if (starter && namesStarters(graph) && !mayStart(graph, await starter(trx)))
    throw new AppError('wfNotCandidateStarter', { key: started.process_key });
  const start = graph.nodes[startEventId ?? graph.startId];
  const formValues = checkForm ? await checkForm(start?.formKey) : {};
  const instance = {
    id: started.id,
    tenant_code: actor.tenantCode,
    definition_id: started.definition_id,
    name: started.name,
  };
  // A new instance has no variables yet: nothing to read.
  const run = await openRun({ ctx, trx, instance, graph, actor, variables: {}, onStepBudget });
  if (caller) run.caller = caller;
  const values = {
    ...graph.dataObjects,
    ...(input.variables ?? {}),
    ...formValues,
    ...(startUser
      ? {
          initiator: startUser.username,
          ...(start?.initiator ? { [start.initiator]: startUser.username } : {}),
        }
      : {}),
  };
  Object.assign(run.variables, values);
  // The variables are written with the first token (and task).
  await startTokens({
    run,
    startId: start?.id,
    variables: {
      values,
      activityId: start?.id ?? graph.startId,
      username: actor.username,
    },
  });
  const nextTasks = nextTasksOf(run);
  if (run.hasEnded || run.hasIncident)
    return { ...(await instanceById({ db: trx, tenantCode: actor.tenantCode, id: started.id })), nextTasks };
  // Still running as written: the answer needs no read.
  return {
    id: started.id,
    name: started.name,
    processDefinitionId: started.definition_id,
    processDefinitionKey: started.process_key,
    processDefinitionVersion: started.version,
    businessKey: input.businessKey ?? null,
    description: input.description,
    startUserId: startUser?.username ?? null,
    startTime: (started.start_time ?? new Date()).toISOString(),
    endTime: null,
    suspended: false,
    ended: false,
    status: 'running',
    incident: null,
    nextTasks,
  };
}

export async function startInstance({
  ctx,
  actor,
  roles,
  l10n,
  input,
  who,
}: {
  ctx: AppContext;
  actor: Actor & { userId: number };
  /** The caller as a candidate starter (read only when the process names starters). */
  who: (db: Db) => Promise<Candidate>;
  /** The caller's roles: their field rights hold on the start form's entity. */
  roles: readonly string[];
  l10n: Localizer;
  input: StartInput;
}): Promise<WfStarted> {
  return inTransaction(ctx.db, (trx) =>
    startIn({
      ctx,
      trx,
      actor,
      startUser: actor,
      input,
      starter: who,
      checkForm: (formKey) =>
        checkedFormData({
          ctx,
          l10n,
          formKey,
          formData: input.formData,
          tenantCode: actor.tenantCode,
          roles,
          db: trx,
        }),
    }),
  );
}

/** Suspends or activates a running instance: a suspended one refuses task actions (409). */
export async function setInstanceSuspended({
  ctx,
  actor,
  id,
  suspended,
}: {
  ctx: AppContext;
  actor: Actor;
  id: number;
  suspended: boolean;
}): Promise<WfInstance> {
  await inTransaction(ctx.db, async (trx) => {
    const instance = await lockInstance({ trx, tenantCode: actor.tenantCode, id });
    if (instance.end_time) throw new AppError('wfInstanceEnded', { id });
    await sql`update wf_instance set suspended = ${suspended}, row_version = row_version + 1 where id = ${id}`.execute(
      trx,
    );
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: id,
      taskId: null,
      username: actor.username,
      action: suspended ? 'suspend' : 'activate',
      message: '',
    });
  });
  return instanceById({ db: ctx.db, tenantCode: actor.tenantCode, id });
}

/** Ends a running instance as terminated (or rejected): its open tasks are closed. */
export async function finishInstance({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: { id: number; comment: string; status: 'terminated' | 'rejected' };
}): Promise<WfInstance> {
  await inTransaction(ctx.db, async (trx) => {
    const instance = await lockInstance({ trx, tenantCode: actor.tenantCode, id: input.id });
    assertRunning(instance);
    const run = await openRun({
      ctx,
      trx,
      instance,
      graph: await definitionGraph({ ctx, trx, definitionId: instance.definition_id }),
      actor,
    });
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: input.id,
      taskId: null,
      username: actor.username,
      action: input.status === 'rejected' ? 'reject' : 'terminate',
      message: input.comment,
    });
    await endInstance({ run, status: input.status, reason: input.status });
  });
  return instanceById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}

/**
 * Runs again the tokens of an instance stopped in an incident, from the element where each
 * stopped, after setting the variables given (what the incident said was missing). A retry that
 * stops again is refused (400, nothing written): the incident stays as it was.
 */
export async function retryIncident({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: { id: number; variables?: Record<string, unknown> | undefined };
}): Promise<WfInstance> {
  await inTransaction(ctx.db, async (trx) => {
    const instance = await lockInstance({ trx, tenantCode: actor.tenantCode, id: input.id });
    assertRunning(instance);
    const stopped = await sql<{
      id: number;
      activity_id: string;
      parent_id: number | null;
    }>`update wf_execution
      set state = 'active' where instance_id = ${input.id} and state = 'incident'
      returning id, activity_id, parent_id`.execute(trx);
    if (stopped.rows.length === 0) throw new AppError('wfNoIncident', { id: input.id });
    await sql`update wf_instance set incident = null where id = ${input.id}`.execute(trx);
    const graph = await definitionGraph({ ctx, trx, definitionId: instance.definition_id });
    const run = await openRun({ ctx, trx, instance, graph, actor });
    run.refusesConditionErrors = true;
    await setVariables({ run, values: input.variables ?? {} });
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: input.id,
      taskId: null,
      username: actor.username,
      action: 'retry',
      message: '',
    });
    for (const token of stopped.rows)
      await enterNode({ run, executionId: token.id, nodeId: token.activity_id, parentId: token.parent_id });
    if (run.hasIncident)
      throw await refusalOfIncident(run, { unset: 'wfRetryUnset', failed: 'wfRetryFailed' });
  });
  return instanceById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}

/**
 * The refusal of a request whose run stopped in an incident (rolled back with it): naming the
 * element and the unset variable, or the element and what failed.
 */
async function refusalOfIncident(
  run: Run,
  codes: { unset: ErrorCode; failed: ErrorCode },
): Promise<AppError> {
  const stored = await sql<{
    incident: { activityId: string; message: string; variable?: string } | null;
  }>`select incident from wf_instance where id = ${run.instanceId}`.execute(run.trx);
  const incident = stored.rows[0]?.incident;
  const node = run.graph.nodes[incident?.activityId ?? ''];
  const element = node?.name?.trim() || (incident?.activityId ?? '');
  return incident?.variable
    ? new AppError(codes.unset, { element, variable: incident.variable })
    : new AppError(codes.failed, { element, message: incident?.message ?? '' });
}

/**
 * Sets variables of a running instance from outside (an administrator, an integration; what
 * Camunda's setVariable and Flowable's evaluateConditionalEvents do): each change is kept in the
 * variables' history, and the conditional events whose condition now holds go on in the same
 * transaction (a catch event's token moves on, a conditional boundary event fires). A suspended
 * or ended instance refuses (409); a value over the variable budget is a 400 naming it, and a change
 * whose way on stops in an incident is a 400 naming the element: nothing written.
 */
export async function setInstanceVariables({
  ctx,
  actor,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  input: { id: number; variables: Record<string, unknown> };
}): Promise<WfInstance> {
  await inTransaction(ctx.db, async (trx) => {
    const instance = await lockInstance({ trx, tenantCode: actor.tenantCode, id: input.id });
    assertRunning(instance);
    const graph = await definitionGraph({ ctx, trx, definitionId: instance.definition_id });
    const run = await openRun({ ctx, trx, instance, graph, actor });
    await setVariables({ run, values: input.variables });
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: input.id,
      taskId: null,
      username: actor.username,
      action: 'variables',
      message: Object.keys(input.variables).join(', '),
    });
    await variablesSetFromOutside(run);
    // What the change set going stops in an incident: refused, as Camunda's setVariable throws.
    if (run.hasIncident)
      throw await refusalOfIncident(run, { unset: 'wfVariablesUnset', failed: 'wfVariablesFailed' });
  });
  return instanceById({ db: ctx.db, tenantCode: actor.tenantCode, id: input.id });
}
