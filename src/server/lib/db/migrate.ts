import { sql } from 'kysely';
import { planTableMigration, type ExistingTable, type TableSpec } from '../../../engine/index.js';
import type { Db } from './database.js';

export class MigrationError extends Error {
  constructor(problems: string[]) {
    super(
      `The database does not match the schemas, and EcoBid will not change it on its own:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'MigrationError';
  }
}

async function readExistingTables(db: Db): Promise<Map<string, ExistingTable>> {
  const tables = new Map<string, ExistingTable>();
  const table = (name: string): ExistingTable => {
    let found = tables.get(name);
    if (!found) {
      found = { columns: new Map(), indexes: new Set(), constraints: new Set() };
      tables.set(name, found);
    }
    return found;
  };
  const columns = await sql<{ table_name: string; column_name: string; data_type: string }>`
    select table_name, column_name, data_type from information_schema.columns
    where table_schema = current_schema() order by table_name, ordinal_position`.execute(db);
  for (const row of columns.rows) table(row.table_name).columns.set(row.column_name, row.data_type);
  const indexes = await sql<{ tablename: string; indexname: string }>`
    select tablename, indexname from pg_indexes where schemaname = current_schema()`.execute(db);
  for (const row of indexes.rows) tables.get(row.tablename)?.indexes.add(row.indexname);
  const constraints = await sql<{ table_name: string; constraint_name: string }>`
    select table_name, constraint_name from information_schema.table_constraints
    where table_schema = current_schema()`.execute(db);
  for (const row of constraints.rows) tables.get(row.table_name)?.constraints.add(row.constraint_name);
  return tables;
}

/**
 * Creates missing tables, columns, indexes and foreign keys, in one transaction and under an
 * advisory lock so that two processes starting together do not race. Unsafe differences stop
 * start-up with a message that says what to do.
 */
export async function migrate(db: Db, specs: TableSpec[]): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7243001)`.execute(trx);
    const existing = await readExistingTables(trx);
    const statements: string[] = [];
    const problems: string[] = [];
    for (const spec of specs) {
      const plan = planTableMigration(spec, existing.get(spec.name));
      statements.push(...plan.statements);
      problems.push(...plan.problems);
    }
    if (problems.length > 0) throw new MigrationError(problems);
    for (const statement of statements) await sql.raw(statement).execute(trx);
    return statements;
  });
}
