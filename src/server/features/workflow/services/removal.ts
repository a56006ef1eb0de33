import { sql } from 'kysely';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Actor } from '../../../lib/sql/toolkit.js';

/**
 * The delete buttons of the definition, instance and history lists (docs/product.md §2.3 workflow). What an
 * instance owns (tokens, tasks, variables, comments, history, jobs) goes with it by the tables'
 * cascades; each call is one transaction, checked against the caller's tenant.
 */

/** A definition with its ended instances; 409 while one of its instances runs. */
export async function deleteDefinition({
  ctx,
  actor,
  id,
}: {
  ctx: AppContext;
  actor: Actor;
  id: number;
}): Promise<{ deleted: number }> {
  return inTransaction(ctx.db, async (trx) => {
    const rows = await sql<{ key: string; version: number }>`select process_key as key, version
      from wf_definition where id = ${id} and tenant_code = ${actor.tenantCode} for update`.execute(trx);
    const definition = rows.rows[0];
    if (!definition) throw new AppError('notFound', { entity: 'processDefinition', key: id });
    const running = await sql<{ count: number }>`select count(*)::int as count from wf_instance
      where definition_id = ${id} and end_time is null`.execute(trx);
    const count = running.rows[0]?.count ?? 0;
    if (count > 0) throw new AppError('wfDefinitionInUse', { count });
    await sql`delete from wf_definition where id = ${id}`.execute(trx);
    await writeAudit({
      trx,
      actor,
      entries: [{ entity: 'wfDefinition', recordKey: id, action: 'delete', before: definition, after: null }],
    });
    return { deleted: 1 };
  });
}

/**
 * An instance with everything it owns. `endedOnly` (the history list's delete): 409 while it
 * runs; the running list's delete removes a running one too (terminate keeps the history).
 */
export async function deleteInstance({
  ctx,
  actor,
  id,
  endedOnly,
}: {
  ctx: AppContext;
  actor: Actor;
  id: number;
  /** Only an ended instance (409 while it runs). */
  endedOnly: boolean;
}): Promise<{ deleted: number }> {
  return inTransaction(ctx.db, async (trx) => {
    const rows = await sql<{
      key: string;
      ended: boolean;
    }>`select process_key as key, end_time is not null as ended
      from wf_instance where id = ${id} and tenant_code = ${actor.tenantCode} for update`.execute(trx);
    const instance = rows.rows[0];
    if (!instance) throw new AppError('notFound', { entity: 'processInstance', key: id });
    if (endedOnly && !instance.ended) throw new AppError('wfInstanceRunning', { id });
    await sql`delete from wf_instance where id = ${id}`.execute(trx);
    await writeAudit({
      trx,
      actor,
      entries: [{ entity: 'wfInstance', recordKey: id, action: 'delete', before: instance, after: null }],
    });
    return { deleted: 1 };
  });
}

/** A finished task's history record; 409 while the task is open. */
export async function deleteHistoricTask({
  ctx,
  actor,
  id,
}: {
  ctx: AppContext;
  actor: Actor;
  id: number;
}): Promise<{ deleted: number }> {
  return inTransaction(ctx.db, async (trx) => {
    const rows = await sql<{ name: string | null; open: boolean }>`select name, end_time is null as open
      from wf_task where id = ${id} and tenant_code = ${actor.tenantCode} for update`.execute(trx);
    const task = rows.rows[0];
    if (!task) throw new AppError('notFound', { entity: 'task', key: id });
    if (task.open) throw new AppError('wfTaskOpen', { id });
    await sql`delete from wf_task where id = ${id}`.execute(trx);
    await writeAudit({
      trx,
      actor,
      entries: [
        { entity: 'wfTask', recordKey: id, action: 'delete', before: { name: task.name }, after: null },
      ],
    });
    return { deleted: 1 };
  });
}
