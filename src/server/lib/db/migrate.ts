import { sql } from 'kysely';
import {
  planTableMigration,
  quoteIdentifier,
  type DecimalConversion,
  type ExistingTable,
  type TableSpec,
} from '../../../engine/index.js';
import type { Db } from './database.js';

export class MigrationError extends Error {
  constructor(problems: string[]) {
    super(
      `The database does not match the schemas, and EcoBid will not change it on its own:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'MigrationError';
  }
}

export async function readExistingTables(db: Db): Promise<Map<string, ExistingTable>> {
  const tables = new Map<string, ExistingTable>();
  const table = (name: string): ExistingTable => {
    let found = tables.get(name);
    if (!found) {
      found = { columns: new Map(), indexes: new Set(), constraints: new Set() };
      tables.set(name, found);
    }
    return found;
  };
  // A numeric column with a precision reads numeric(p,s), as a decimal field's SqlType says it.
  const columns = await sql<{ table_name: string; column_name: string; data_type: string }>`
    select table_name, column_name,
      case when data_type = 'numeric' and numeric_precision is not null
        then 'numeric(' || numeric_precision || ',' || numeric_scale || ')' else data_type end as data_type
    from information_schema.columns
    where table_schema = current_schema() order by table_name, ordinal_position`.execute(db);
  for (const row of columns.rows) table(row.table_name).columns.set(row.column_name, row.data_type);
  // An invalid index (a concurrent build that failed or was stopped) counts as missing: the plan
  // builds it again (startIndexBuild drops the invalid one first).
  const indexes = await sql<{ tablename: string; indexname: string }>`
    select c.relname as tablename, i.relname as indexname from pg_index x
    join pg_class i on i.oid = x.indexrelid join pg_class c on c.oid = x.indrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and x.indisvalid`.execute(db);
  for (const row of indexes.rows) tables.get(row.tablename)?.indexes.add(row.indexname);
  const constraints = await sql<{ table_name: string; constraint_name: string }>`
    select table_name, constraint_name from information_schema.table_constraints
    where table_schema = current_schema()`.execute(db);
  for (const row of constraints.rows) tables.get(row.table_name)?.constraints.add(row.constraint_name);
  const storage = await sql<{ table_name: string; fillfactor: string }>`
    select c.relname as table_name, split_part(o.option, '=', 2) as fillfactor
    from pg_class c join pg_namespace n on n.oid = c.relnamespace, unnest(c.reloptions) as o (option)
    where n.nspname = current_schema() and c.relkind = 'r' and o.option like 'fillfactor=%'`.execute(db);
  for (const row of storage.rows) {
    const found = tables.get(row.table_name);
    if (found) found.fillfactor = Number(row.fillfactor);
  }
  return tables;
}

/** How many rows a refused decimal conversion names. */
const SHOWN_ROWS = 20;

/**
 * The values of a column that a decimal conversion would change: a value not equal to itself
 * rounded to the scale (its exact decimal text: a double's shortest round-trip digits, 1.005
 * stays 1.005 where a cast to numeric would keep only 15 digits), or beyond the precision.
 * Undefined when every value survives; otherwise the message that stops start-up.
 */
async function decimalConversionProblem(db: Db, conversion: DecimalConversion): Promise<string | undefined> {
  const value = sql`${sql.ref(conversion.column)}::text::numeric`;
  const limit = sql`power(10::numeric, ${conversion.precision - conversion.scale})`;
  const bad = await sql<{ key: string; value: string }>`
    select ${sql.ref(conversion.keyColumn)}::text as key, ${sql.ref(conversion.column)}::text as value
    from ${sql.table(conversion.table)}
    where ${sql.ref(conversion.column)} is not null
      and (${sql.ref(conversion.column)}::text in ('NaN', 'Infinity', '-Infinity')
        or ${value} <> round(${value}, ${conversion.scale}) or abs(${value}) >= ${limit})
    order by 1 limit ${SHOWN_ROWS + 1}`.execute(db);
  if (bad.rows.length === 0) return undefined;
  const shown = bad.rows
    .slice(0, SHOWN_ROWS)
    .map((row) => `${conversion.keyColumn} ${row.key} (${row.value})`)
    .join(', ');
  return (
    `Table ${conversion.table}, column ${conversion.column}: the schema wants ${conversion.to} but ` +
    `${bad.rows.length > SHOWN_ROWS ? `more than ${SHOWN_ROWS}` : bad.rows.length} row(s) hold values it cannot keep exactly: ${shown}. ` +
    `Correct them (update ${conversion.table} set ${conversion.column} = … where ${conversion.keyColumn} = …) or give the field a scale that fits, then start again.`
  );
}

/** The conversion itself, once every value survives: each value's exact digits, at the scale. */
function decimalConversionSql(conversion: DecimalConversion): string {
  const column = quoteIdentifier(conversion.column);
  return `alter table ${quoteIdentifier(conversion.table)} alter column ${column} type ${conversion.to} using ${column}::text::${conversion.to}`;
}

/** pg_trgm, for the trigram indexes of "contains" filters: installed when the database offers it. */
export async function ensureTrigram(db: Db): Promise<boolean> {
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
  /**
   * Leave those concurrent builds to the caller (`buildIndexes`), so that a server answers while
   * the indexes of a big table are built: the app starts them once it is ready.
   */
  isIndexBuildDeferred?: boolean;
}

export interface MigrationResult {
  /** The statements run (tables, columns, constraints, and indexes built on the spot). */
  applied: string[];
  /** CREATE INDEX CONCURRENTLY statements left to `buildIndexes` (isIndexBuildDeferred). */
  pendingIndexes: string[];
}

/**
 * Creates missing tables, columns, indexes and foreign keys, in one transaction and under an
 * advisory lock so that two processes starting together do not race. Unsafe differences stop
 * start-up with a message that says what to do. List indexes of tables that already hold rows
 * are then built concurrently (PostgreSQL), here or, deferred, by the caller.
 */
export async function migrate(
  db: Db,
  specs: TableSpec[],
  options: MigrateOptions = {},
): Promise<MigrationResult> {
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
      for (const conversion of plan.conversions ?? []) {
        const refused = await decimalConversionProblem(trx, conversion);
        if (refused) problems.push(refused);
        else planned.push(decimalConversionSql(conversion));
      }
      planned.push(...plan.statements);
      concurrent.push(...(plan.concurrentStatements ?? []));
      problems.push(...plan.problems);
    }
    if (problems.length > 0) throw new MigrationError(problems);
    for (const statement of planned) await sql.raw(statement).execute(trx);
    return planned;
  });
  if (options.isIndexBuildDeferred === true) return { applied: statements, pendingIndexes: concurrent };
  await buildIndexes(db, concurrent);
  return { applied: [...statements, ...concurrent], pendingIndexes: [] };
}

/** The session lock one process holds while it builds list indexes (not taken by anything else). */
const INDEX_BUILD_LOCK = 7243020;

/** A running index build: `cancel` stops it (the next start builds what is missing). */
export interface IndexBuild {
  done: Promise<void>;
  cancel: () => Promise<void>;
}

/**
 * Runs CREATE INDEX CONCURRENTLY statements on one connection (they cannot run in a
 * transaction) under a session advisory lock, so that one process of several builds them; an
 * index a broken build left invalid is dropped and built again.
 */
export function startIndexBuild(db: Db, statements: string[]): IndexBuild {
  let backend: number | undefined;
  let isCancelled = false;
  const done = db.connection().execute(async (connection) => {
    const pid = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection);
    backend = pid.rows[0]?.pid;
    if (isCancelled) return;
    await sql`select pg_advisory_lock(${INDEX_BUILD_LOCK})`.execute(connection);
    try {
      const invalid = await invalidIndexes(connection);
      for (const { name } of invalid) {
        if (statements.some((statement) => statement.includes(`"${name}"`)))
          await sql`drop index concurrently if exists ${sql.id(name)}`.execute(connection);
      }
      for (const statement of statements) {
        if (isCancelled) return;
        await sql.raw(statement).execute(connection);
      }
    } finally {
      await sql`select pg_advisory_unlock(${INDEX_BUILD_LOCK})`.execute(connection);
    }
  });
  let isRunning = true;
  const settled = done.then(
    () => void (isRunning = false),
    () => void (isRunning = false),
  );
  const cancel = async (): Promise<void> => {
    isCancelled = true;
    // Only the build's own statement, while it runs (its connection goes back to the pool after).
    if (isRunning && backend !== undefined)
      await sql`select pg_cancel_backend(${backend}::int) where ${backend}::int <> pg_backend_pid()`.execute(
        db,
      );
    await settled;
  };
  return { done, cancel };
}

/**
 * Invalid indexes of the current schema that no build is working on: left so by a concurrent
 * build that failed or was stopped (a killed process, a cancelled statement). An index being
 * built concurrently is invalid too until its build ends; those are left to their build.
 */
async function invalidIndexes(db: Db): Promise<{ name: string }[]> {
  const found = await sql<{ name: string }>`
    select c.relname as name from pg_index x join pg_class c on c.oid = x.indexrelid
    join pg_namespace n on n.oid = c.relnamespace
    where not x.indisvalid and n.nspname = current_schema()
      and not exists (select 1 from pg_stat_progress_create_index p where p.index_relid = x.indexrelid)
    order by 1`.execute(db);
  return found.rows;
}

export interface IndexRepairOptions {
  /** Time between two checks. */
  everyMs: number;
  /** The statement that builds each index the engine owns, by name (see rebuildableIndexes). */
  statements: () => Map<string, string>;
  /** Told of each repair: the indexes built again, or the failure. */
  onRepair?: (names: string[], error?: unknown) => void;
}

/** The periodic check of IndexRepairOptions; stop() ends it and any build it started. */
export interface IndexRepair {
  /** One check now; resolves with the indexes it built again. */
  check: () => Promise<string[]>;
  stop: () => Promise<void>;
}

/**
 * Looks every `everyMs` for engine indexes left invalid while the server runs (a concurrent
 * build killed half-way, by this process or by another) and builds them again, so that a list
 * does not stay on a scan until the next start. Nothing happens while a build holds the build
 * lock (that build repairs what it names; the next check sees what it left).
 */
export function startIndexRepair(db: Db, options: IndexRepairOptions): IndexRepair {
  let timer: NodeJS.Timeout | undefined;
  let build: IndexBuild | undefined;
  let running: Promise<string[]> | undefined;
  let isStopped = false;

  const repair = async (): Promise<string[]> => {
    const wanted = options.statements();
    const names = (await invalidIndexes(db)).map((row) => row.name).filter((name) => wanted.has(name));
    if (names.length === 0 || isStopped) return [];
    const isBuilding = await sql`
      select 1 from pg_locks where locktype = 'advisory' and classid = 0
        and objid = ${INDEX_BUILD_LOCK} and objsubid = 1 and granted`.execute(db);
    if (isBuilding.rows.length > 0) return [];
    build = startIndexBuild(
      db,
      names.map((name) => wanted.get(name) ?? ''),
    );
    try {
      await build.done;
    } finally {
      build = undefined;
    }
    return names;
  };
  const check = (): Promise<string[]> => {
    running ??= repair()
      .then(
        (names) => {
          if (names.length > 0) options.onRepair?.(names);
          return names;
        },
        (error: unknown) => {
          if (!isStopped) options.onRepair?.([], error);
          return [];
        },
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const schedule = (): void => {
    if (isStopped) return;
    timer = setTimeout(() => void check().then(schedule), options.everyMs);
    timer.unref();
  };
  schedule();
  return {
    check,
    stop: async () => {
      isStopped = true;
      clearTimeout(timer);
      await build?.cancel();
      await running;
    },
  };
}

async function buildIndexes(db: Db, statements: string[]): Promise<void> {
  if (statements.length > 0) await startIndexBuild(db, statements).done;
}
