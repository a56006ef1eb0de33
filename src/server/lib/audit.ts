import { sql } from 'kysely';
import type { Db } from './db/database.js';
import { eventOfAudit, recordEvents } from './events/index.js';
import type { EventInput } from './events/index.js';
import type { Actor } from './sql/toolkit.js';

/**
 * Record changes (restore: out of a recycle bin, purge: deleted for good from it), and signIn for
 * a password or mobile sign-in (the workbench counts them per day).
 */
export type AuditAction = 'add' | 'update' | 'delete' | 'restore' | 'purge' | 'signIn';

/** The audit action a successful password or mobile sign-in writes (a refresh is not a sign-in). */
export const SIGN_IN_ACTION: AuditAction = 'signIn';

export interface AuditEntry {
  entity: string;
  recordKey: unknown;
  action: AuditAction;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/**
 * One audit row per changed record, written in the caller's transaction, and the event it tells
 * of in the outbox (lib/events): every audited change is an event, in the same transaction.
 */
export async function writeAudit({
  trx,
  actor,
  entries,
}: {
  trx: Db;
  actor: Actor;
  entries: AuditEntry[];
}): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map(
    (entry) =>
      sql`(${actor.tenantCode}, ${entry.entity}, ${String(entry.recordKey)}, ${entry.action}, ${actor.userId}, ${actor.username}, ${
        entry.before ? JSON.stringify(entry.before) : null
      }::jsonb, ${entry.after ? JSON.stringify(entry.after) : null}::jsonb)`,
  );
  await sql`insert into sys_audit_log (tenant_code, entity, record_key, action, user_id, username, before, after)
    values ${sql.join(rows)}`.execute(trx);
  const events = entries.map(eventOfAudit).filter((event): event is EventInput => event !== undefined);
  await recordEvents({ trx, actor, events });
}
