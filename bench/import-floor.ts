/**
 * The import bench's floor (bench/import.ts runs this as a child process once the server has
 * stopped): the same rows as the import's, inserted into the same table (portal_purchase, with
 * every index the server built) by bare multi-row INSERT statements through the same driver as
 * the app's (lib/db/database.ts's openDatabase: pg's pool, or PGlite with the app's settings), in
 * one transaction, without checks or audit rows. Prints one JSON line: {"seconds", "cpuSeconds",
 * "databaseCpuSeconds", "rows"} (databaseCpuSeconds: on PostgreSQL the CPU of the transaction's
 * backend, read from /proc, the bench and the database being on one machine; 0 on PGlite).
 *
 * Arguments: <sample tag> <new tag> <rows>. The columns the import filled that the bench's rows do
 * not name (tenant, creator, times, …) take the values of an imported row of the sample tag; the
 * table is then emptied (truncate), so the floor inserts into the empty table the import found.
 */
import { readFileSync } from 'node:fs';
import { CompiledQuery } from 'kysely';
import { openDatabase } from '../src/server/lib/db/database.js';
import { readConfig } from '../src/server/lib/config.js';

const [sampleTag = '', tag = '', rowsText = '100000'] = process.argv.slice(2);
const count = Number(rowsText);
/** Rows per INSERT statement, as the import writes them (IMPORT_CHUNK_ROWS). */
const STATEMENT_ROWS = 2_000;

/** CPU seconds a process has used (utime + stime of /proc/<pid>/stat, in clock ticks of 1/100 s). */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const config = readConfig();
const handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const { db } = handle;
try {
  const sample = (
    await db.executeQuery<Record<string, unknown>>(
      CompiledQuery.raw('select * from portal_purchase where title like $1 limit 1', [
        `Bench import ${sampleTag} %`,
      ]),
    )
  ).rows[0];
  if (!sample) throw new Error(`no imported row of ${sampleTag}`);
  const identity = (
    await db.executeQuery<{ column_name: string }>(
      CompiledQuery.raw(
        `select column_name from information_schema.columns
          where table_name = 'portal_purchase' and (is_identity = 'YES' or is_generated = 'ALWAYS' or column_default like 'nextval%')`,
        [],
      ),
    )
  ).rows.map((row) => row.column_name);
  const own = ['title', 'project_code', 'buyer_name', 'category', 'budget', 'published'];
  const fixed = Object.keys(sample).filter((column) => !identity.includes(column) && !own.includes(column));
  const columns = [...own, ...fixed];
  const valuesOf = (index: number): unknown[] => [
    `Bench import ${tag} ${index}`,
    `BI-${tag}-${index}`,
    `Buyer ${index % 500}`,
    `Category ${index % 20}`,
    (index % 1000) * 1000,
    index % 2 === 0,
    ...fixed.map((column) => sample[column]),
  ];
  // The same table as the import found it: empty (the import's rows gone, its indexes kept), and
  // every page written out.
  await db.executeQuery(CompiledQuery.raw('truncate portal_purchase cascade', []));
  await db.executeQuery(CompiledQuery.raw('checkpoint', []));
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let databaseCpuSeconds = 0;
  await db.transaction().execute(async (trx) => {
    // PostgreSQL: the backend of this transaction (PGlite works in this process).
    const backend = config.databaseUrl
      ? (await trx.executeQuery<{ pid: number }>(CompiledQuery.raw('select pg_backend_pid() as pid', [])))
          .rows[0]?.pid
      : undefined;
    const backendBefore = backend === undefined ? 0 : cpuSecondsOf(backend);
    for (let first = 0; first < count; first += STATEMENT_ROWS) {
      const last = Math.min(count, first + STATEMENT_ROWS);
      const params: unknown[] = [];
      const tuples: string[] = [];
      for (let index = first; index < last; index += 1) {
        const values = valuesOf(index);
        tuples.push(`(${values.map((value) => `$${params.push(value)}`).join(', ')})`);
      }
      await trx.executeQuery(
        CompiledQuery.raw(
          `insert into portal_purchase (${columns.map((column) => `"${column}"`).join(', ')}) values ${tuples.join(', ')}`,
          params,
        ),
      );
    }
    if (backend !== undefined) databaseCpuSeconds = cpuSecondsOf(backend) - backendBefore;
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  // CPU of this process: on PGlite the database's too (it runs in this thread).
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  console.log(JSON.stringify({ seconds, cpuSeconds, databaseCpuSeconds, rows: count }));
} finally {
  await handle.close();
}
