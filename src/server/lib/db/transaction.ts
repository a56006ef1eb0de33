import { AppError } from '../errors.js';
import type { Db } from './database.js';

const PG_UNIQUE_VIOLATION = '23505';
const PG_FOREIGN_KEY_VIOLATION = '23503';

function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export interface TransactionOptions {
  /** What a unique clash names (the entity's title); the checks before the write name the field. */
  clashSubject?: string;
  /**
   * An integrity constraint the database refused (class 23: CHECK, NOT NULL, foreign key,
   * unique), after the rollback: the error naming the field, or undefined for the default answer.
   */
  onConstraint?: (error: unknown) => Promise<Error | undefined>;
}

/**
 * Runs a change in one transaction, rolled back on a throw. A constraint that a parallel request
 * won after the service's own checks passed is a 409 like the check would have given, not a 500.
 * Called inside a transaction, the work joins it: a service that writes in several steps (a role
 * and its grants) runs them all in its own transaction, and a throw in any step undoes every one.
 */
export async function inTransaction<T>(
  db: Db,
  work: (trx: Db) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  try {
    return await (db.isTransaction ? work(db) : db.transaction().execute(work));
  } catch (error) {
    if (options.onConstraint && !db.isTransaction && /^23/.test(pgCode(error) ?? '')) {
      const named = await options.onConstraint(error);
      if (named) throw named;
    }
    if (pgCode(error) === PG_UNIQUE_VIOLATION)
      throw new AppError('uniqueClash', { value: options.clashSubject ?? '' });
    if (pgCode(error) === PG_FOREIGN_KEY_VIOLATION) throw new AppError('referenced', { by: '…' });
    throw error;
  }
}
