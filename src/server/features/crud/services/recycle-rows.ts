import { sql } from 'kysely';
import {
  DELETED_AT_COLUMN,
  DELETED_BY_COLUMN,
  hasRecycleBin,
  type EntityDef,
} from '../../../../engine/index.js';
import type { Db } from '../../../lib/db/database.js';
import { table, updateBookkeeping, type Actor, type Condition } from '../../../lib/sql/toolkit.js';

/**
 * The SQL of a recycle bin that the generic delete needs (x-entity.softDelete): kept apart from
 * the bin's own service (recycle.ts), which builds on the CRUD service.
 */

/** Rows of `entity` in its recycle bin do not count (a reference from a deleted record does not block). */
export const binnedLeftOut = (entity: EntityDef): Condition[] =>
  hasRecycleBin(entity) ? [sql`${sql.ref(DELETED_AT_COLUMN)} is null`] : [];

/** Moves the rows `where` selects to the entity's recycle bin: who and when, a new version. */
export async function moveToRecycleBin({
  trx,
  entity,
  actor,
  where,
}: {
  trx: Db;
  entity: EntityDef;
  actor: Actor;
  where: Condition;
}): Promise<void> {
  const assignments = [
    sql`${sql.ref(DELETED_AT_COLUMN)} = now()`,
    sql`${sql.ref(DELETED_BY_COLUMN)} = ${actor.username}`,
    ...updateBookkeeping(entity, actor),
  ];
  await sql`update ${table(entity)} set ${sql.join(assignments)} ${where}`.execute(trx);
}
