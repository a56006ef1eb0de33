import { sql } from 'kysely';
import type { RequestLogEntry } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { MONITOR_PARAMS, numberParam } from './settings.js';

/**
 * Request logs in the database for the log search (sys_request_log), beside the same JSON line
 * on stdout for an outside collector. Rows are written in batches off the request path, and
 * pruned in batches once older than the retention param.
 */

/** A request log row as the monitoring hook hands it over: the answer's entry before it has an id. */
export type RequestLogRow = Omit<RequestLogEntry, 'id' | 'at'> & { at: Date };

/** Rows per insert statement, and the most kept waiting when the database is slow (older ones are dropped). */
const BATCH = 200;
const MAX_PENDING = 10_000;

export interface RequestLogWriter {
  push(row: RequestLogRow): void;
  /** Writes what is waiting (the search calls it, so the caller's own requests are found). */
  flush(): Promise<void>;
}

export function requestLogWriter(db: Db): RequestLogWriter {
  let pending: RequestLogRow[] = [];
  let running: Promise<void> | undefined;

  async function write(rows: RequestLogRow[]): Promise<void> {
    for (let start = 0; start < rows.length; start += BATCH) {
      const values = rows.slice(start, start + BATCH).map(
        (row) =>
          sql`(${row.at}, ${row.level}, ${row.instance}, ${row.requestId}, ${row.tenantCode}, ${row.userId},
            ${row.username}, ${row.method}, ${row.route}, ${row.path}, ${row.status}, ${row.durationMs}, ${row.message})`,
      );
      await sql`insert into sys_request_log (at, level, instance, request_id, tenant_code, user_id, username,
        method, route, path, status, duration_ms, message) values ${sql.join(values)}`.execute(db);
    }
  }

  async function flush(): Promise<void> {
    while (running) await running;
    if (pending.length === 0) return;
    const rows = pending;
    pending = [];
    running = write(rows)
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
      });
    await running;
  }

  return {
    push(row) {
      if (pending.length >= MAX_PENDING) pending.shift();
      pending.push(row);
    },
    flush,
  };
}

/** Deletes log rows and metric samples older than the retention, a batch at a time; answers the count. */
export async function pruneMonitorRows({
  ctx,
  now = new Date(),
  batchSize = 5000,
}: {
  ctx: AppContext;
  now?: Date;
  batchSize?: number;
}): Promise<{ logs: number; samples: number }> {
  const { param, fallback } = MONITOR_PARAMS.logRetentionDays;
  const days = await numberParam({ ctx, key: param, fallback });
  const logCutoff = new Date(now.getTime() - days * 86_400_000);
  // Samples serve the dashboard's last day at most.
  const sampleCutoff = new Date(now.getTime() - 86_400_000);
  const prune = async (tableName: 'sys_request_log' | 'sys_metric_sample', cutoff: Date): Promise<number> => {
    let total = 0;
    for (;;) {
      // Small deletes keep each transaction short, so a large backlog never blocks the writers.
      const result = await sql`delete from ${sql.table(tableName)} where id in
        (select id from ${sql.table(tableName)} where at < ${cutoff} limit ${batchSize})`.execute(ctx.db);
      const deleted = Number(result.numAffectedRows ?? 0);
      total += deleted;
      if (deleted < batchSize) return total;
    }
  };
  return {
    logs: await prune('sys_request_log', logCutoff),
    samples: await prune('sys_metric_sample', sampleCutoff),
  };
}

export interface LogSearch {
  from?: string;
  to?: string;
  level?: RequestLogEntry['level'];
  text?: string;
  requestId?: string;
  username?: string;
  status?: number;
  /** Rows after this id only (the live tail). */
  afterId?: number;
  tenantCode?: string;
  limit: number;
}

/** Log rows that match, newest first. */
export async function searchLogs(ctx: AppContext, search: LogSearch): Promise<RequestLogEntry[]> {
  const conditions = [sql`true`];
  if (search.from) conditions.push(sql`at >= ${new Date(search.from)}`);
  if (search.to) conditions.push(sql`at <= ${new Date(search.to)}`);
  if (search.level) conditions.push(sql`level = ${search.level}`);
  if (search.requestId) conditions.push(sql`request_id = ${search.requestId}`);
  if (search.username) conditions.push(sql`username = ${search.username}`);
  if (search.status !== undefined) conditions.push(sql`status = ${search.status}`);
  if (search.afterId !== undefined) conditions.push(sql`id > ${search.afterId}`);
  if (search.tenantCode) conditions.push(sql`tenant_code = ${search.tenantCode}`);
  if (search.text) {
    const like = `%${search.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(
      sql`(path ilike ${like} or route ilike ${like} or message ilike ${like} or username ilike ${like})`,
    );
  }
  const rows = await sql<
    Omit<RequestLogEntry, 'at'> & { at: Date }
  >`select id, at, level, instance, request_id as "requestId",
    tenant_code as "tenantCode", user_id as "userId", username, method, route, path, status,
    duration_ms as "durationMs", message from sys_request_log where ${sql.join(conditions, sql` and `)}
    order by id desc limit ${search.limit}`.execute(ctx.db);
  return rows.rows.map((row) => ({ ...row, at: new Date(row.at).toISOString() }));
}
