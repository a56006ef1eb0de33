import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';
import { PGlite, types, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { CompiledQuery, Kysely, PostgresDialect, type DatabaseConnection, type LogEvent } from 'kysely';
import { deferBegin } from './deferred-begin.js';
import { preparedNames } from './prepared.js';
import pg from 'pg';
import type { Config } from '../config.js';
import { PGliteDialect } from './pglite-dialect.js';
import { forgetFreshDump, keepFreshDump, keptFreshDump } from './pglite-fresh.js';
import { initPgliteDir } from './pglite-init.js';
import { enablePGliteRawRows, enablePostgresRawRows } from './raw-rows.js';
import type { Database, Db } from './types.js';

export type { Database, Db, Row } from './types.js';

export type NotificationHandler = (payload: string, connectionPid: number | null) => void;

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  /**
   * LISTEN on a channel on every connection this process queries through, so that the
   * notification of a transaction this process committed arrives before the statement that
   * committed it returns. The handler gets the backend pid of the connection that heard it
   * (null on the embedded database, whose one connection is this process's own).
   */
  listen: (channel: string, onNotification: NotificationHandler) => Promise<void>;
  /** Every statement run through Kysely, timed (the monitoring's DB time and slowest statements). */
  observeQueries(observer: QueryObserver | undefined): void;
  /** Connections of the pool (PostgreSQL); undefined on the embedded database's one connection. */
  poolStats(): PoolStats | undefined;
  close(): Promise<void>;
}

export interface QueryObserver {
  (event: { sql: string; parameterCount: number; ms: number; isError: boolean }): void;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

/** Kysely's log hook, reporting to whichever observer is set (none: a no-op call). */
function queryLog(): { log: (event: LogEvent) => void; set: (observer: QueryObserver | undefined) => void } {
  let current: QueryObserver | undefined;
  return {
    log: (event) => {
      current?.({
        sql: event.query.sql,
        parameterCount: event.query.parameters.length,
        ms: event.queryDurationMillis,
        isError: event.level === 'error',
      });
    },
    set: (observer) => {
      current = observer;
    },
  };
}

const INT8 = 20;
const DATE = 1082;
const TIMESTAMP = 1114;
const NUMERIC = 1700;

// Keys and counts are bigint in SQL; they stay far below 2^53, so JavaScript numbers carry them.
const toNumber = (value: string): number => Number(value);
/** A bigint beyond 2^53 (an adopted table's snowflake id) stays text rather than become another number. */
const int8Value = (value: string): number | string => {
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : value;
};
const asIs = (value: string): string => value;
/**
 * A timestamp without time zone (an adopted table's column) holds UTC, as the engine writes it:
 * read as UTC whatever the process's own time zone (pg would read it as local time).
 */
const utcTimestamp = (value: string): Date | string => {
  const date = new Date(`${value.replace(' ', 'T')}Z`);
  return Number.isNaN(date.getTime()) ? value : date;
};

/**
 * PGlite's start parameters. It starts with shared_buffers=128MB, most of a small server's memory;
 * 16 MB serves an embedded database well and keeps the process light.
 */
export function pgliteStartParams(): string[] {
  const defaults = (PGlite as unknown as { defaultStartParams?: string[] }).defaultStartParams ?? [];
  return defaults.length > 0 ? [...defaults, '-c', 'shared_buffers=16MB'] : [];
}

/** A fresh in-memory database, loaded from the data directory initdb left before (pglite-fresh.ts). */
async function freshInMemory(options: PGliteOptions, startParams: readonly string[]): Promise<PGlite> {
  const dump = keptFreshDump(startParams);
  if (dump) {
    try {
      return await PGlite.create(undefined, { ...options, loadDataDir: dump });
    } catch {
      forgetFreshDump(startParams);
    }
  }
  const pglite = await PGlite.create(undefined, options);
  await keepFreshDump(pglite, startParams);
  return pglite;
}

export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'isPreparing'>>,
): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    // Per-pool parsers leave pg's global defaults alone.
    const typeParsers = {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === INT8) return int8Value;
        if (oid === NUMERIC) return toNumber;
        if (oid === DATE) return asIs;
        if (oid === TIMESTAMP) return utcTimestamp;
        return pg.types.getTypeParser(oid, format);
      }) as typeof pg.types.getTypeParser,
    };
    const connection: pg.ClientConfig = {
      connectionString: config.databaseUrl,
      types: typeParsers,
      // No parallel workers for the app's statements: its requests run side by side, so workers
      // only add their start and hand-over to each. A "contains" page at 10,000,000 users served
      // 56 requests/s with them and 168 without (10 clients, 2 cores); an export's database CPU a
      // row was a fifth higher with them. The one big read a user asks for on purpose, the exact
      // count, takes them back (list-page.ts).
      options: '-c max_parallel_workers_per_gather=0',
    };
    const pool = new pg.Pool({ ...connection, max: 10 });
    // Statements marked PREPARED go as named prepared statements (lib/db/prepared.ts).
    const preparedName = preparedNames(config.isPreparing === false ? 0 : undefined);
    // A transaction's `begin` goes out with its first statement (deferred-begin.ts).
    const deferred = new WeakMap<pg.PoolClient, () => void>();
    pool.on('connect', (client) => {
      const { query, reset } = deferBegin(
        client.query.bind(client) as (...args: unknown[]) => unknown,
        preparedName,
      );
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = query;
      deferred.set(client, reset);
    });
    pool.on('release', (_error: Error | undefined, client: pg.PoolClient) => deferred.get(client)?.());
    // An idle connection the database server ends (restart, failover, an administrator's command)
    // is dropped from the pool and replaced on the next query; it must not bring the process down.
    pool.on('error', () => undefined);
    // pool.end() resolves before its connections have closed; close() waits for them, so that
    // whoever drops or restarts the database next does not cut live connections.
    const closing = new Set<Promise<void>>();
    pool.on('remove', (client) => {
      if ((client as { _ended?: boolean })._ended === true) return;
      // A connection that never says goodbye must not hold shutdown forever.
      closing.add(
        new Promise((resolve) => {
          const timer = setTimeout(resolve, 2000);
          client.once('end', () => {
            clearTimeout(timer);
            resolve();
          });
        }),
      );
    });
    // LISTEN is sent on a connection before its first use after a channel was added (awaited
    // before the connection is handed out), so it is in place before any statement of this
    // process runs there; notifications are heard on every pooled client.
    const channels = new Map<string, NotificationHandler[]>();
    const hearing = new WeakSet<pg.PoolClient>();
    pool.on('acquire', (client) => {
      if (hearing.has(client)) return;
      hearing.add(client);
      const pid = (client as { processID?: number | null }).processID ?? null;
      client.on('notification', (message) => {
        for (const handler of channels.get(message.channel) ?? []) handler(message.payload ?? '', pid);
      });
    });
    const listening = new WeakMap<DatabaseConnection, Set<string>>();
    const onReserveConnection = async (connection: DatabaseConnection): Promise<void> => {
      const heard = listening.get(connection) ?? new Set<string>();
      listening.set(connection, heard);
      const missing = [...channels.keys()].filter((channel) => !heard.has(channel));
      if (missing.length === 0) return;
      await connection.executeQuery(
        CompiledQuery.raw(missing.map((channel) => `listen ${channel}`).join('; ')),
      );
      for (const channel of missing) heard.add(channel);
    };
    const observed = queryLog();
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool, onReserveConnection }),
      log: observed.log,
    });
    enablePostgresRawRows(db, connection);
    return {
      db,
      kind: 'postgres',
      listen: async (channel, onNotification) => {
        if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
        channels.set(channel, [...(channels.get(channel) ?? []), onNotification]);
      },
      observeQueries: observed.set,
      poolStats: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        max: 10,
      }),
      close: async () => {
        await db.destroy();
        await Promise.all(closing);
      },
    };
  }
  const inMemory = config.dataDir === ':memory:';
  if (!inMemory) mkdirSync(config.dataDir, { recursive: true });
  // PGlite's WebAssembly (PostgreSQL, 9 MB) runs on V8's baseline compiler only. The optimising
  // compiler recompiles PostgreSQL's hot functions at start and again under load, with working
  // memory the process keeps: 40-60 MB more resident memory, varying from run to run, and a
  // start twice as long. Statements run 10-20 % slower on the baseline code.
  v8.setFlagsFromString('--liftoff-only');
  if (!inMemory) await initPgliteDir(join(config.dataDir, 'pg'));
  const startParams = pgliteStartParams();
  const options: PGliteOptions = {
    // Trigram indexes serve the lists' "contains" filters (ILIKE '%x%') at any table size.
    extensions: { pg_trgm },
    ...(startParams.length > 0 ? { startParams } : {}),
    parsers: {
      [INT8]: int8Value,
      [NUMERIC]: toNumber,
      [DATE]: asIs,
      [TIMESTAMP]: utcTimestamp,
      [types.TIMESTAMPTZ]: (value: string) => new Date(value),
    },
  };
  const pglite = inMemory
    ? await freshInMemory(options, startParams)
    : await PGlite.create(join(config.dataDir, 'pg'), options);
  const observed = queryLog();
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite), log: observed.log });
  enablePGliteRawRows(db, pglite);
  return {
    db,
    kind: 'pglite',
    listen: async (channel, onNotification) => {
      await pglite.listen(channel, (payload) => onNotification(payload, null));
    },
    observeQueries: observed.set,
    poolStats: () => undefined,
    close: () => db.destroy(),
  };
}
