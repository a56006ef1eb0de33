import { sql } from 'kysely';
import type { WfInstance, WfStarted } from '../../../../engine/api-types.js';
import { PREPARED } from '../../../lib/db/prepared.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { checkedFormData } from './forms.js';
import { nextTasksOf, openRun, type Run } from './activity.js';
import { endInstance, startTokens } from './interpreter.js';
import { instanceById } from './queries.js';
import { addComment, assertRunning, definitionGraph, lockInstance, variableParts } from './store.js';

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
 * written in one statement (none when the definition is suspended), then its first token runs.
 * startUser: the starting user (the initiator), or null for a timer start.
 */
export async function startIn({
  ctx,
  trx,
  actor,
  startUser,
  input,
  checkForm,
  onStepBudget = 'refuse',
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  startUser: { userId: number | null; username: string } | null;
  input: StartInput & { formValues?: Record<string, unknown> };
  checkForm?: (formKey: string | undefined) => Record<string, unknown>;
  /** What passing the step budget of the transaction does (Run.onStepBudget): a timer start stops in an incident. */
  onStepBudget?: Run['onStepBudget'];
}): Promise<WfStarted> {
  const rows = await sql<Started>`${PREPARED}with d as (${definitionToStart(actor.tenantCode, input)}),
      i as (insert into wf_instance (tenant_code, definition_id, process_key, name, business_key, description,
          start_user_id, start_username, status, start_time)
        select ${actor.tenantCode}, d.id, d.process_key, d.name, ${input.businessKey ?? null}, ${input.description},
          ${startUser?.userId ?? null}, ${startUser?.username ?? null}, 'running', now()
        from d where not d.suspended
        returning id, start_time)
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
  const graph = await definitionGraph({ ctx, trx, definitionId: started.definition_id });
  const start = graph.nodes[graph.startId];
  const formValues = checkForm ? checkForm(start?.formKey) : {};
  const instance = {
    id: started.id,
    tenant_code: actor.tenantCode,
    definition_id: started.definition_id,
    name: started.name,
  };
  // A new instance has no variables yet: nothing to read.
  const run = await openRun({ ctx, trx, instance, graph, actor, variables: {}, onStepBudget });
  const values = {
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
  // The variables are written by the statement that makes the first token (and task).
  await startTokens(
    run,
    variableParts(
      {
        tenantCode: actor.tenantCode,
        instanceId: started.id,
        activityId: graph.startId,
        username: actor.username,
      },
      values,
    ),
  );
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
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor & { userId: number };
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
      checkForm: (formKey) => checkedFormData({ ctx, l10n, formKey, formData: input.formData }),
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
