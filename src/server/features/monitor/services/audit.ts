import { sql } from 'kysely';
import type { AuditEntry, FieldChange, Page } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';

/** Columns every record carries that say nothing about the change itself. */
const BOOKKEEPING = new Set(['version', 'updatedAt', 'updatedBy', 'updated_at', 'updated_by']);

/** The fields that differ between before and after (an add lists its values, a delete what was lost). */
export function diffRecords(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): FieldChange[] {
  const names = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changes: FieldChange[] = [];
  for (const field of names) {
    if (BOOKKEEPING.has(field)) continue;
    const was = before?.[field] ?? null;
    const now = after?.[field] ?? null;
    if (JSON.stringify(was) !== JSON.stringify(now)) changes.push({ field, before: was, after: now });
  }
  return changes.sort((a, b) => a.field.localeCompare(b.field));
}

export interface AuditQuery {
  tenantCode: string;
  entity?: string;
  recordKey?: string;
  username?: string;
  action?: string;
  from?: string;
  to?: string;
  currentPage: number;
  pageSize: number;
}

/** Audit rows of a tenant, newest first, each with its diff. */
export async function queryAudit(ctx: AppContext, query: AuditQuery): Promise<Page<AuditEntry>> {
  const conditions = [sql`tenant_code = ${query.tenantCode}`];
  if (query.entity) conditions.push(sql`entity = ${query.entity}`);
  if (query.recordKey) conditions.push(sql`record_key = ${query.recordKey}`);
  if (query.username) conditions.push(sql`username = ${query.username}`);
  if (query.action) conditions.push(sql`action = ${query.action}`);
  if (query.from) conditions.push(sql`at >= ${new Date(query.from)}`);
  if (query.to) conditions.push(sql`at <= ${new Date(query.to)}`);
  const where = sql.join(conditions, sql` and `);
  const offset = (query.currentPage - 1) * query.pageSize;
  const [rows, count] = await Promise.all([
    sql<{
      id: number;
      entity: string;
      record_key: string;
      action: string;
      user_id: number | null;
      username: string | null;
      before: Record<string, unknown> | null;
      after: Record<string, unknown> | null;
      at: Date;
    }>`select id, entity, record_key, action, user_id, username, before, after, at from sys_audit_log
      where ${where} order by id desc limit ${query.pageSize} offset ${offset}`.execute(ctx.db),
    sql<{ n: number }>`select count(*)::int as n from sys_audit_log where ${where}`.execute(ctx.db),
  ]);
  return {
    records: rows.rows.map((row) => ({
      id: row.id,
      entity: row.entity,
      recordKey: row.record_key,
      action: row.action,
      userId: row.user_id,
      username: row.username,
      at: new Date(row.at).toISOString(),
      changes: diffRecords(row.before, row.after),
    })),
    total: count.rows[0]?.n ?? 0,
    currentPage: query.currentPage,
    pageSize: query.pageSize,
  };
}
