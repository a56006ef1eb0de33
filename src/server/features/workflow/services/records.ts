import { sql } from 'kysely';
import {
  APPROVAL_INSTANCE,
  APPROVAL_STATUS,
  approvalBusinessKey,
  SUBMITTABLE,
  workflowOf,
  type ApprovalState,
  type EntityDef,
} from '../../../../engine/index.js';
import type { WfStarted } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { entityTitle } from '../../../lib/titles.js';
import { getRecord, lockRecord, updateRecord, type CrudRequest } from '../../crud/index.js';
import { startIn } from './instances.js';
import type { Candidate } from './people.js';
import { deployShippedProcesses, isProcessDeployed } from './shipped.js';
import { approvedRecord, setRecordStatus } from './record-status.js';
import { lockInstance, oversizedVariable, writeVariables } from './store.js';

/**
 * Approval of records (x-entity.workflow, engine/approval.ts): 提交审批 starts an instance of the
 * entity's process for one record, and the record's approvalStatus follows the instance in the
 * transactions of the engine itself: pending when the instance is made (before its first token
 * runs), approved, rejected or draft again when it ends (the interpreter's end, through
 * lifecycle.ts). The business key `<entity>:<key>` names the record; the record names its
 * instance (approvalInstance), so an instance started by hand with the same business key changes
 * nothing.
 */

type Row = Record<string, unknown>;

/**
 * A record's fields as process variables: what the submitter sees of it, JSON values (dates as
 * text). A value over the variable budget (a long rich text) is left out: the record holds it,
 * and the task screens show the record.
 */
function variablesOf(request: CrudRequest, row: Row): Record<string, unknown> {
  const shown = request.policy.shown(row);
  const variables: Record<string, unknown> = {};
  for (const field of request.entity.fields) {
    if (field.isSystem || field.isSecret || field.detail || !(field.name in shown)) continue;
    const value = shown[field.name];
    if (value === undefined) continue;
    const variable = value instanceof Date ? value.toISOString() : value;
    if (oversizedVariable({ [field.name]: variable }) === undefined) variables[field.name] = variable;
  }
  return variables;
}

/**
 * 提交审批: starts the entity's process for a record of the caller's tenant and row scope (404
 * outside), with the business key `<entity>:<key>` and the record's fields as variables; the
 * record is pending from the moment the instance is made, in the same transaction. A record
 * under approval or approved is a 409 naming it; a process not deployed a 409 naming its key.
 */
export async function submitRecord({
  ctx,
  request,
  user,
  starter,
  key,
}: {
  ctx: AppContext;
  /** The caller's write request on the entity (its row scope and field rights). */
  request: CrudRequest;
  user: Actor & { userId: number };
  /**
   * The caller as a candidate starter: a process naming its starters lets only them submit (403).
   * Read only when the process names starters.
   */
  starter: (db: Db) => Promise<Candidate>;
  key: number | string;
}): Promise<{ instance: WfStarted; record: Row }> {
  const { entity, l10n } = request;
  const workflow = workflowOf(entity);
  if (!workflow) throw new AppError('notFound', { entity: entityTitle(l10n, entity), key: String(key) });
  const instance = await inTransaction(ctx.db, async (trx) => {
    const row = await lockRecord(request, trx, key);
    if (!row) throw new AppError('notFound', { entity: entityTitle(l10n, entity), key: String(key) });
    const subject = {
      entity: entityTitle(l10n, entity),
      label: String(row[entity.label] ?? row[entity.key.name] ?? ''),
    };
    const status = (row[APPROVAL_STATUS] ?? 'draft') as ApprovalState;
    if (status === 'pending') throw new AppError('recordUnderApproval', subject);
    if (!SUBMITTABLE.includes(status)) throw new AppError('recordApproved', subject);
    // A tenant added since the start lacks the product's processes until the next start's seed:
    // its first submit deploys the shipped one (services/shipped.ts), in this transaction.
    const tenantCode = user.tenantCode;
    const isDeployed = () => isProcessDeployed({ db: trx, tenantCode, key: workflow.process });
    if (!(await isDeployed())) {
      await deployShippedProcesses({ ctx, trx, tenantCode, l10n, only: workflow.process });
      // deployed now, here or by a submit of the same tenant just before (its lock held until then)
      if (!(await isDeployed())) throw new AppError('approvalNoProcess', { key: workflow.process });
    }
    return startIn({
      ctx,
      trx,
      actor: user,
      startUser: user,
      starter,
      input: {
        processDefinitionKey: workflow.process,
        businessKey: approvalBusinessKey(entity.name, row[entity.key.name]),
        description: `${subject.entity}：${subject.label}`,
        variables: variablesOf(request, row),
      },
      // The record is under approval from the instance's first moment: an instance that ends at
      // once (no task) finds it pending and ends its approval in the same transaction.
      onCreated: async (instanceId) => {
        await setRecordStatus({
          trx,
          actor: user,
          entity,
          key: row[entity.key.name] as number | string,
          instanceId,
          status: 'pending',
        });
      },
    });
  });
  return { instance, record: await getRecord(request, key) };
}

/** The open task of an approval, as the record view and the task-screen edit read it. */
interface OpenTask {
  id: number;
  instanceId: number;
  activityId: string;
  assignee: string | null;
}

/** The fields a task of the entity's process may edit (x-entity.workflow.edit), less those the caller may not write. */
function editableFields(request: CrudRequest, task: Pick<OpenTask, 'activityId'>): string[] {
  const named = workflowOf(request.entity)?.edit?.[task.activityId] ?? [];
  return named.filter((name) => request.policy.isVisible(name) && !request.policy.readOnlyFields.has(name));
}

/**
 * The business record of an instance (its business-record view on the task and instance
 * screens): read through the caller's policy (row scope: a record outside is a 404; hidden
 * fields left out), with the fields the caller's open task of the instance may edit.
 */
export async function recordOfInstance({
  ctx,
  actor,
  instanceId,
  requestFor,
}: {
  ctx: AppContext;
  actor: Actor;
  instanceId: number;
  requestFor: (entity: EntityDef) => Promise<CrudRequest>;
}): Promise<{
  entity: string;
  key: number | string;
  record: Row;
  taskId: number | null;
  editable: string[];
}> {
  const approved = await approvedRecord({ ctx, db: ctx.db, tenantCode: actor.tenantCode, instanceId });
  if (!approved) throw new AppError('notFound', { entity: 'record', key: `instance ${instanceId}` });
  const request = await requestFor(approved.entity);
  const record = await getRecord(request, approved.key);
  const tasks =
    await sql<OpenTask>`select id, instance_id as "instanceId", activity_id as "activityId", assignee
    from wf_task where instance_id = ${instanceId} and end_time is null and assignee = ${actor.username}
    order by id limit 1`.execute(ctx.db);
  const task = tasks.rows[0];
  const isPending = record[APPROVAL_STATUS] === 'pending' && Number(record[APPROVAL_INSTANCE]) === instanceId;
  return {
    entity: approved.entity.name,
    key: approved.key,
    record,
    taskId: task && isPending ? task.id : null,
    editable: task && isPending ? editableFields(request, task) : [],
  };
}

/**
 * The assignee of an open task edits the record under approval from the task screen: only the
 * fields x-entity.workflow.edit gives the task (403 naming another one changed), through the
 * ordinary update (its checks, field rights, row scope, audit), with the process variables of
 * the fields changed set in the same transaction.
 */
export async function updateRecordOfTask({
  ctx,
  actor,
  taskId,
  body,
  requestFor,
}: {
  ctx: AppContext;
  actor: Actor;
  taskId: number;
  body: Row;
  requestFor: (entity: EntityDef) => Promise<CrudRequest>;
}): Promise<Row> {
  const tasks = await sql<OpenTask & { endTime: Date | null }>`select id, instance_id as "instanceId",
      activity_id as "activityId", assignee, end_time as "endTime"
    from wf_task where id = ${taskId} and tenant_code = ${actor.tenantCode}`.execute(ctx.db);
  const task = tasks.rows[0];
  if (!task) throw new AppError('notFound', { entity: 'task', key: taskId });
  if (task.endTime !== null) throw new AppError('wfTaskDone', { id: taskId });
  if (task.assignee !== actor.username) throw new AppError('wfNotAssignee', { id: taskId });
  const approved = await approvedRecord({
    ctx,
    db: ctx.db,
    tenantCode: actor.tenantCode,
    instanceId: task.instanceId,
  });
  if (!approved) throw new AppError('notFound', { entity: 'record', key: `task ${taskId}` });
  const request = await requestFor(approved.entity);
  const fields = new Set(editableFields(request, task));
  return inTransaction(ctx.db, async (trx) => {
    // The instance is locked first, as every action on it: no task action runs meanwhile.
    await lockInstance({ trx, tenantCode: actor.tenantCode, id: task.instanceId });
    const saved = await updateRecord(
      { ...request, db: trx, approvalEdit: { instanceId: task.instanceId, fields } },
      { ...body, [approved.entity.key.name]: approved.key },
    );
    const changed = Object.fromEntries(
      [...fields].filter((name) => name in body).map((name) => [name, saved[name] ?? null]),
    );
    await writeVariables({
      trx,
      change: {
        tenantCode: actor.tenantCode,
        instanceId: task.instanceId,
        taskId,
        activityId: task.activityId,
        username: actor.username,
      },
      values: changed,
    });
    return saved;
  });
}
