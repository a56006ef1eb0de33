import { sql } from 'kysely';
import type { AppContext } from '../../../lib/context.js';
import type { PoolStats } from '../../../lib/db/database.js';
import type { CatalogueRow, DatabaseReport, SlowStatement } from '../../../../engine/api-types.js';

type Row = CatalogueRow;

const rows = async (ctx: AppContext, query: ReturnType<typeof sql<Row>>): Promise<Row[]> =>
  (await query.execute(ctx.db)).rows;

/** Sizes and rows of the app's tables: both databases have the catalogues this reads. */
function tableSizes(ctx: AppContext): Promise<Row[]> {
  return rows(
    ctx,
    sql<Row>`select c.relname as "table", c.reltuples::bigint as "estimatedRows",
      coalesce(s.n_live_tup, 0)::bigint as "liveRows", pg_total_relation_size(c.oid)::bigint as "bytes"
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      left join pg_stat_user_tables s on s.relid = c.oid
      where c.relkind = 'r' and n.nspname = current_schema() order by pg_total_relation_size(c.oid) desc limit 200`,
  );
}

export async function databaseReport(
  ctx: AppContext,
  slow: { statements: SlowStatement[]; thresholdMs: number; pool: PoolStats | undefined },
): Promise<DatabaseReport> {
  const report: DatabaseReport = {
    kind: ctx.dbKind,
    tables: await tableSizes(ctx),
    activity: [],
    indexUse: [],
    locks: [],
    statements: null,
    slowStatements: slow.statements
      .filter((statement) => statement.maxMs >= slow.thresholdMs)
      .sort((a, b) => b.maxMs - a.maxMs),
    slowThresholdMs: slow.thresholdMs,
    pool: slow.pool ?? null,
  };
  if (ctx.dbKind !== 'postgres') return report;
  report.activity = await rows(
    ctx,
    sql<Row>`select pid, usename as "user", application_name as "application", client_addr::text as "client",
      state, wait_event_type as "waitEventType", wait_event as "waitEvent",
      extract(epoch from (now() - query_start)) * 1000 as "runningMs", left(query, 500) as "query"
      from pg_stat_activity where datname = current_database() order by query_start nulls last limit 100`,
  );
  report.indexUse = await rows(
    ctx,
    sql<Row>`select relname as "table", seq_scan as "seqScans", coalesce(idx_scan, 0) as "indexScans",
      n_live_tup as "liveRows" from pg_stat_user_tables order by seq_scan desc limit 100`,
  );
  report.locks = await rows(
    ctx,
    sql<Row>`select l.pid, l.locktype as "lockType", l.mode, l.granted, c.relname as "relation"
      from pg_locks l left join pg_class c on c.oid = l.relation
      join pg_database d on d.oid = l.database where d.datname = current_database() limit 200`,
  );
  const extension = await rows(
    ctx,
    sql<Row>`select 1 as present from pg_extension where extname = 'pg_stat_statements'`,
  );
  if (extension.length > 0) {
    try {
      report.statements = await rows(
        ctx,
        sql<Row>`select left(query, 1000) as "query", calls, round(total_exec_time::numeric, 2) as "totalMs",
          round(mean_exec_time::numeric, 2) as "meanMs", rows from pg_stat_statements
          order by mean_exec_time desc limit 50`,
      );
    } catch {
      // The extension is created but not preloaded (shared_preload_libraries): nothing to show.
      report.statements = null;
    }
  }
  return report;
}
