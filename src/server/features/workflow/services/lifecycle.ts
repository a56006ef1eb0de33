import type { Run } from './activity.js';
import { recordFollowsEnd } from './record-status.js';

/**
 * What the interpreter tells the rest of the engine about an instance's life, in the run's
 * transaction: its end (every way an instance ends passes here once: the last token gone, a
 * terminate end, a rejection, a termination, a withdrawal). The approval of records
 * (record-status.ts) follows it; nothing else is read for a process that approves no record.
 */
export async function instanceEnded(run: Run, status: string): Promise<void> {
  await recordFollowsEnd({
    ctx: run.ctx,
    trx: run.trx,
    actor: run.actor,
    tenantCode: run.tenantCode,
    instanceId: run.instanceId,
    processKey: run.graph.key,
    status,
  });
}
