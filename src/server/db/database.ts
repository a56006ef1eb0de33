import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { PGliteDialect } from './pglite-dialect.js';

/** Tables are derived from schemas at run time, so rows are plain records. */
export type Row = Record<string, unknown>;
export type Database = Record<string, Row>;
export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  /**
   * Embedded database only: registers a listener told of every data-changing statement. The
   * embedded database belongs to this one process, so what it hears is every change there is.
   */
  watchWrites?: (listener: (statement: string) => void) => void;
  close(): Promise<void>;
}

const INT8 = 20;
const DATE = 1082;
const NUMERIC = 1700;

// Keys and counts are bigint in SQL; they stay far below 2^53, so JavaScript numbers carry them.
const toNumber = (value: string): number => Number(value);
const asIs = (value: string): string => value;

export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    // Per-pool parsers leave pg's global defaults alone.
    const typeParsers = {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === INT8 || oid === NUMERIC) return toNumber;
        if (oid === DATE) return asIs;
        return pg.types.getTypeParser(oid, format);
      }) as typeof pg.types.getTypeParser,
    };
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10, types: typeParsers });
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
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      kind: 'postgres',
      close: async () => {
        await db.destroy();
        await Promise.all(closing);
      },
    };
  }
  const inMemory = config.dataDir === ':memory:';
  if (!inMemory) mkdirSync(config.dataDir, { recursive: true });
  // PGlite starts with shared_buffers=128MB, most of a small server's memory; 16 MB serves an
  // embedded database well and keeps the process light.
  const defaults = (PGlite as unknown as { defaultStartParams?: string[] }).defaultStartParams ?? [];
  const pglite = await PGlite.create(inMemory ? undefined : join(config.dataDir, 'pg'), {
    ...(defaults.length > 0 ? { startParams: [...defaults, '-c', 'shared_buffers=16MB'] } : {}),
    parsers: {
      [INT8]: toNumber,
      [NUMERIC]: toNumber,
      [DATE]: asIs,
      [types.TIMESTAMPTZ]: (value: string) => new Date(value),
    },
  });
  const listeners: ((statement: string) => void)[] = [];
  const db = new Kysely<Database>({
    dialect: new PGliteDialect(pglite, (statement) => listeners.forEach((listener) => listener(statement))),
  });
  return {
    db,
    kind: 'pglite',
    watchWrites: (listener) => listeners.push(listener),
    close: () => db.destroy(),
  };
}
