import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { EntityRegistry } from './entities/registry.js';

/** What every feature plugin needs, built once by buildApp. */
export interface AppContext {
  config: Config;
  db: Db;
  dbKind: 'pglite' | 'postgres';
  registry: EntityRegistry;
}
