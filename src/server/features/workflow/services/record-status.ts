import { sql } from 'kysely';
import {
  APPROVAL_INSTANCE,
  APPROVAL_STATUS,
  approvalStateOnEnd,
  parseBusinessKey,
  workflowOf,
  type ApprovalState,
  type EntityDef,
} from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { recordEvents } from '../../../lib/events/index.js';
import { column, table, type Actor } from '../../../lib/sql/toolkit.js';

/**
 * The approval status of records (x-entity.workflow, engine/approval.ts), as the engine keeps
 * it: the record an instance approves (its business key `<entity>:<key>`, the record naming the
 * instance), set pending when a submit makes the instance (records.ts) and set by the instance's
 * end (lifecycle.ts, in the interpreter's transaction). Imports nothing of the interpreter.
 */

/** The entities of each registry approved by a process key, kept per registry generation. */
const approvedBy = new WeakMap<object, { generation: number; byProcess: Map<string, EntityDef[]> }>();

function entitiesApprovedBy(ctx: AppContext, processKey: string): readonly EntityDef[] {
  const { registry } = ctx;
  let known = approvedBy.get(registry);
  if (known?.generation !== registry.generation) {
    const byProcess = new Map<string, EntityDef[]>();
    for (const entity of registry.all) {
      const workflow = workflowOf(entity);
      if (workflow) byProcess.set(workflow.process, [...(byProcess.get(workflow.process) ?? []), entity]);
    }
    known = { generation: registry.generation, byProcess };
    approvedBy.set(registry, known);
  }
  return known.byProcess.get(processKey) ?? [];
}

/** The key a business key's text names, typed as the entity's key (undefined: not a key of it). */
function keyOf(entity: EntityDef, text: string): number | string | undefined {
  if (entity.key.type !== 'integer') return text;
  const key = Number(text);
  return /^\d{1,16}$/.test(text) && Number.isSafeInteger(key) ? key : undefined;
}

/** The record an instance approves: its entity and key (undefined: the instance approves none). */
export async function approvedRecord({
  ctx,
  db,
  tenantCode,
  instanceId,
}: {
  ctx: AppContext;
  db: Db;
  tenantCode: string;
  instanceId: number;
}): Promise<{ entity: EntityDef; key: number | string } | undefined> {
  const rows = await sql<{
    process_key: string;
    business_key: string | null;
  }>`select process_key, business_key
    from wf_instance where id = ${instanceId} and tenant_code = ${tenantCode}`.execute(db);
  const instance = rows.rows[0];
  const named = parseBusinessKey(instance?.business_key);
  if (!instance || !named) return undefined;
  const entity = entitiesApprovedBy(ctx, instance.process_key).find((item) => item.name === named.entity);
  const key = entity ? keyOf(entity, named.key) : undefined;
  return entity && key !== undefined ? { entity, key } : undefined;
}

/** Sets the status of the record an instance approves (its row names the instance), with a live-update event. */
export async function setRecordStatus({
  trx,
  actor,
  entity,
  key,
  instanceId,
  status,
}: {
  trx: Db;
  actor: Actor;
  entity: EntityDef;
  key: number | string;
  instanceId: number;
  status: ApprovalState;
}): Promise<boolean> {
  const statusField = entity.fieldsByName.get(APPROVAL_STATUS);
  const instanceField = entity.fieldsByName.get(APPROVAL_INSTANCE);
  const version = entity.fieldsByName.get('version');
  if (!statusField || !instanceField) return false;
  const tenant = entity.isTenantScoped ? sql` and tenant_code = ${actor.tenantCode}` : sql``;
  const bump = version ? sql`, ${column(version)} = ${column(version)} + 1` : sql``;
  // A submit names the new instance; an end moves only the record that names the ending one.
  const owned = status === 'pending' ? sql`` : sql` and ${column(instanceField)} = ${instanceId}`;
  const updated = await sql<{ version: number | null }>`update ${table(entity)}
    set ${column(statusField)} = ${status}, ${column(instanceField)} = ${instanceId}${bump}
    where ${column(entity.key)} = ${key}${owned}${tenant}
    returning ${version ? column(version) : sql`null`} as version`.execute(trx);
  const row = updated.rows[0];
  if (!row) return false;
  await recordEvents({
    trx,
    actor,
    events: [
      {
        type: 'record.changed',
        entity: entity.name,
        key,
        ...(row.version === null ? {} : { version: Number(row.version) }),
        changed: [APPROVAL_STATUS],
        detail: { approvalStatus: status, instanceId },
      },
    ],
  });
  return true;
}

/**
 * An instance ended (the interpreter, in its transaction): the record it approves takes the
 * status of the end. Nothing is read for a process that approves no entity.
 */
export async function recordFollowsEnd({
  ctx,
  trx,
  actor,
  tenantCode,
  instanceId,
  processKey,
  status,
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  tenantCode: string;
  instanceId: number;
  processKey: string;
  /** The instance's status at its end (over, rejected, terminated, withdrawn). */
  status: string;
}): Promise<void> {
  if (entitiesApprovedBy(ctx, processKey).length === 0) return;
  const record = await approvedRecord({ ctx, db: trx, tenantCode, instanceId });
  if (!record) return;
  await setRecordStatus({
    trx,
    actor: { ...actor, tenantCode },
    ...record,
    instanceId,
    status: approvalStateOnEnd(status),
  });
}
