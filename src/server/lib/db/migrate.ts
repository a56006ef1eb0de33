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

/** pg_trgm, for the trigram indexes of "contains" filters: installed when the database offers it. */
async function ensureTrigram(db: Db): Promise<boolean> {
  const installed = async (): Promise<boolean> =>
    (await sql`select 1 from pg_extension where extname = 'pg_trgm'`.execute(db)).rows.length > 0;
  if (await installed()) return true;
  try {
    await sql`create extension if not exists pg_trgm`.execute(db);
  } catch {
    // Not offered, or no right to install it: "contains" works without the index, only slower.
  }
  return installed();
}

export interface MigrateOptions {
  /** PostgreSQL: list indexes of existing tables are built concurrently, the table taking writes. */
  isConcurrent?: boolean;
}

/**
 * Creates missing tables, columns, indexes and foreign keys, in one transaction and under an
 * advisory lock so that two processes starting together do not race. Unsafe differences stop
 * start-up with a message that says what to do. List indexes of tables that already hold rows
 * are then built concurrently (PostgreSQL), under a session advisory lock of their own.
 */
export async function migrate(db: Db, specs: TableSpec[], options: MigrateOptions = {}): Promise<string[]> {
  const hasTrigram = await ensureTrigram(db);
  const planOptions = { hasTrigram, isConcurrent: options.isConcurrent === true };
  const concurrent: string[] = [];
  const statements = await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7243001)`.execute(trx);
    const existing = await readExistingTables(trx);
    const planned: string[] = [];
    const problems: string[] = [];
    for (const spec of specs) {
      const plan = planTableMigration(spec, existing.get(spec.name), planOptions);
      planned.push(...plan.statements);
      concurrent.push(...(plan.concurrentStatements ?? []));
      problems.push(...plan.problems);
    }
    if (problems.length > 0) throw new MigrationError(problems);
    for (const statement of planned) await sql.raw(statement).execute(trx);
    return planned;
  });
  if (concurrent.length === 0) return statements;
  // CREATE INDEX CONCURRENTLY cannot run in a transaction: one connection holds the lock and builds.
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(7243002)`.execute(connection);
    try {
      // A build that was interrupted leaves an invalid index under the name; build it again.
      const invalid = await sql<{ name: string }>`
        select c.relname as name from pg_index x join pg_class c on c.oid = x.indexrelid
        join pg_namespace n on n.oid = c.relnamespace
        where not x.indisvalid and n.nspname = current_schema()`.execute(connection);
      for (const { name } of invalid.rows) {
        if (concurrent.some((statement) => statement.includes(`"${name}"`)))
          await sql`drop index concurrently if exists ${sql.id(name)}`.execute(connection);
      }
      for (const statement of concurrent) await sql.raw(statement).execute(connection);
    } finally {
      await sql`select pg_advisory_unlock(7243002)`.execute(connection);
    }
  });
  return [...statements, ...concurrent];
}
