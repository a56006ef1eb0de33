import { sql } from 'kysely';
import type { Db } from '../../../lib/db/database.js';
import type { ProcessMetrics, RouteStat, SlowStatement } from './metrics.js';

/**
 * What each server process knows only of itself, shared through the database every process
 * already uses: its route table and the statements it timed as slow. Each process
 * writes one row (sys_metric_instance) with every sample and deletes it when it stops; the pages
 * read the rows written lately, so a process that died without a word drops out by itself.
 */

/** A row older than this belongs to a process that stopped sampling (samples come every 5 s). */
export const LIVE_MS = 20_000;
/** Rows of processes gone for this long are pruned. */
const KEEP_MS = 86_400_000;

export interface InstanceSnapshot {
  instance: string;
  /** When the process wrote it (now, for the process answering). */
  at: string;
  routes: RouteStat[];
  slowStatements: SlowStatement[];
}

/** Writes (or replaces) this process's row. */
export async function publishInstance(db: Db, metrics: ProcessMetrics): Promise<void> {
  const routes = JSON.stringify(metrics.routes());
  const slow = JSON.stringify(metrics.slowStatements());
  await sql`insert into sys_metric_instance (instance, at, routes, slow)
    values (${metrics.instance}, now(), ${routes}::jsonb, ${slow}::jsonb)
    on conflict (instance) do update set at = excluded.at, routes = excluded.routes, slow = excluded.slow`.execute(
    db,
  );
}

/** Removes this process's row (it is stopping). */
export async function forgetInstance(db: Db, instance: string): Promise<void> {
  await sql`delete from sys_metric_instance where instance = ${instance}`.execute(db);
}

/** Removes the rows of processes gone for a day; answers the count. */
export async function pruneInstances(db: Db, now = new Date()): Promise<number> {
  const result = await sql`delete from sys_metric_instance
    where at < ${new Date(now.getTime() - KEEP_MS)}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Every live process's routes and slow statements, the answering process's own read live
 * rather than from its last row; ordered by instance name.
 */
export async function liveInstances(db: Db, own: ProcessMetrics | undefined): Promise<InstanceSnapshot[]> {
  const since = new Date(Date.now() - LIVE_MS);
  const found = await sql<{
    instance: string;
    at: Date | string;
    routes: RouteStat[];
    slow: SlowStatement[];
  }>`select instance, at, routes, slow from sys_metric_instance where at >= ${since}`.execute(db);
  const snapshots = new Map<string, InstanceSnapshot>(
    found.rows.map((row) => [
      row.instance,
      {
        instance: row.instance,
        at: new Date(row.at).toISOString(),
        routes: row.routes,
        slowStatements: row.slow,
      },
    ]),
  );
  if (own) {
    snapshots.set(own.instance, {
      instance: own.instance,
      at: new Date().toISOString(),
      routes: own.routes(),
      slowStatements: own.slowStatements(),
    });
  }
  return [...snapshots.values()].sort((a, b) => a.instance.localeCompare(b.instance));
}
