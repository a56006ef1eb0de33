import { sql } from 'kysely';
import type { AppContext } from '../../lib/context.js';
import { inTransaction } from '../../lib/db/transaction.js';
import { AppError } from '../../lib/errors.js';
import type { Localizer } from '../../lib/i18n.js';
import type { Actor } from '../../lib/sql/toolkit.js';
import { checkedFormData } from './forms.js';
import type { ProcessGraph } from './graph.js';
import { openRun, setVariables } from './activity.js';
import { endInstance, startTokens } from './interpreter.js';
import { instanceById, type InstanceView } from './queries.js';
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

interface DefinitionRow {
  id: number;
  process_key: string;
  name: string | null;
  suspended: boolean;
  graph: ProcessGraph;
}

/** The definition a start names: by id, or the latest version of a key (in the caller's tenant). */
async function definitionToStart(
  db: AppContext['db'],
  tenantCode: string,
  input: StartInput,
): Promise<DefinitionRow> {
  const rows =
    input.processDefinitionId !== undefined
      ? await sql<DefinitionRow>`select id, process_key, name, suspended, graph from wf_definition
          where id = ${input.processDefinitionId} and tenant_code = ${tenantCode}`.execute(db)
      : await sql<DefinitionRow>`select id, process_key, name, suspended, graph from wf_definition
          where process_key = ${input.processDefinitionKey ?? ''} and tenant_code = ${tenantCode}
          order by version desc limit 1`.execute(db);
  const definition = rows.rows[0];
  if (!definition)
    throw new AppError('notFound', {
      entity: 'processDefinition',
      key: input.processDefinitionId ?? input.processDefinitionKey ?? '',
    });
  if (definition.suspended) throw new AppError('wfDefinitionSuspended', { key: definition.process_key });
  return definition;
}

export async function startInstance(
  ctx: AppContext,
  actor: Actor & { userId: number },
  l10n: Localizer,
  input: StartInput,
): Promise<InstanceView> {
  const id = await inTransaction(ctx.db, async (trx) => {
    const definition = await definitionToStart(trx, actor.tenantCode, input);
    const { graph } = definition;
    const start = graph.nodes[graph.startId];
    const formValues = checkedFormData(ctx, l10n, start?.formKey, input.formData);
    const rows = await sql<{
      id: number;
      tenant_code: string;
      definition_id: number;
      name: string | null;
    }>`insert into wf_instance (tenant_code, definition_id,
        process_key, name, business_key, description, start_user_id, start_username, status, start_time)
      values (${actor.tenantCode}, ${definition.id}, ${definition.process_key}, ${definition.name},
        ${input.businessKey ?? null}, ${input.description}, ${actor.userId}, ${actor.username}, 'running', now())
      returning id, tenant_code, definition_id, name`.execute(trx);
    const instance = rows.rows[0];
    if (!instance) throw new Error('no instance row');
    const run = await openRun(ctx, trx, instance, graph, actor);
    await setVariables(
      run,
      {
        ...(input.variables ?? {}),
        ...formValues,
        initiator: actor.username,
        ...(start?.initiator ? { [start.initiator]: actor.username } : {}),
      },
      { activityId: graph.startId },
    );
    await startTokens(run);
    return instance.id;
  });
  return instanceById(ctx.db, actor.tenantCode, id);
}

/** Suspends or activates a running instance: a suspended one refuses task actions (409). */
export async function setInstanceSuspended(
  ctx: AppContext,
  actor: Actor,
  id: number,
  suspended: boolean,
): Promise<InstanceView> {
  await inTransaction(ctx.db, async (trx) => {
    const instance = await lockInstance(trx, actor.tenantCode, id);
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
  return instanceById(ctx.db, actor.tenantCode, id);
}

/** Ends a running instance as terminated (or rejected): its open tasks are closed. */
export async function finishInstance(
  ctx: AppContext,
  actor: Actor,
  input: { id: number; comment: string; status: 'terminated' | 'rejected' },
): Promise<InstanceView> {
  await inTransaction(ctx.db, async (trx) => {
    const instance = await lockInstance(trx, actor.tenantCode, input.id);
    assertRunning(instance);
    const run = await openRun(ctx, trx, instance, await definitionGraph(trx, instance.definition_id), actor);
    await addComment(trx, {
      tenantCode: actor.tenantCode,
      instanceId: input.id,
      taskId: null,
      username: actor.username,
      action: input.status === 'rejected' ? 'reject' : 'terminate',
      message: input.comment,
    });
    await endInstance(run, input.status, input.status);
  });
  return instanceById(ctx.db, actor.tenantCode, input.id);
}
