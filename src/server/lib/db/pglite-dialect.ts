import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

/**
 * Kysely over PGlite. PGlite is one connection, so the driver hands it out to one user at a
 * time: a transaction holds it until commit or rollback, and other queries wait their turn.
 */
/** Told the SQL of every statement that is not a plain read, after it ran. */
export type WriteListener = (statement: string) => void;

const READ_ONLY = /^\s*(select|show|begin|commit|rollback)\b/i;

class PGliteConnection implements DatabaseConnection {
  constructor(
    private readonly pglite: PGlite,
    private readonly onWrite: WriteListener | undefined,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    if (this.onWrite && !READ_ONLY.test(compiledQuery.sql)) this.onWrite(compiledQuery.sql);
    const affected = result.affectedRows;
    return affected === undefined
      ? { rows: result.rows }
      : { rows: result.rows, numAffectedRows: BigInt(affected) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not stream; read in pages instead');
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private queue: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;

  constructor(
    private readonly pglite: PGlite,
    onWrite: WriteListener | undefined,
  ) {
    this.connection = new PGliteConnection(pglite, onWrite);
  }

  async init(): Promise<void> {
    await this.pglite.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.release = release;
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    await this.queue;
    if (!this.pglite.closed) await this.pglite.close();
  }
}

/**
 * Kysely dialect for PGlite. onWrite sees every statement that may change data: PGlite lives in
 * this process only, so in-process caches of database state can be kept exact through it.
 */
export class PGliteDialect implements Dialect {
  constructor(
    private readonly pglite: PGlite,
    private readonly onWrite?: WriteListener,
  ) {}
  createDriver(): Driver {
    return new PGliteDriver(this.pglite, this.onWrite);
  }
  createQueryCompiler(): PostgresQueryCompiler {
    return new PostgresQueryCompiler();
  }
  createAdapter(): PostgresAdapter {
    return new PostgresAdapter();
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Dialect interface is declared with any
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}
