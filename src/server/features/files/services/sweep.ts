import { sql } from 'kysely';
import type { AppContext } from '../../../lib/context.js';
import type { FileStorage, ListedObject } from '../../../lib/storage/index.js';

/**
 * An object with no row that is younger than this may be an upload whose row is being written;
 * older, it is what a process left when it died between storing the object and committing its
 * row.
 */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;

const BATCH = 500;

/**
 * Removes stored objects that no sys_file row refers to and that are older than `minAgeMs` at
 * `now`. Returns the keys removed.
 */
export async function sweepOrphans({
  ctx,
  storage,
  now = new Date(),
  minAgeMs = ORPHAN_MIN_AGE_MS,
}: {
  ctx: AppContext;
  storage: FileStorage;
  now?: Date;
  minAgeMs?: number;
}): Promise<string[]> {
  const removed: string[] = [];
  const cutoff = now.getTime() - minAgeMs;
  let batch: ListedObject[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const keys = batch.map((item) => item.key);
    batch = [];
    const known = await sql<{ storage_key: string }>`select storage_key from sys_file
      where storage_key in (${sql.join(keys)})`.execute(ctx.db);
    const referred = new Set(known.rows.map((row) => row.storage_key));
    for (const key of keys) {
      if (referred.has(key)) continue;
      await storage.delete(key);
      removed.push(key);
    }
  };
  for await (const item of storage.list()) {
    if (item.modifiedAt.getTime() >= cutoff) continue;
    batch.push(item);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return removed;
}
