import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { EntityRegistry } from './entities/registry.js';
import type { SessionCache } from './auth/session.js';

/** What every feature plugin needs, built once by buildApp. */
export interface AppContext {
  config: Config;
  db: Db;
  dbKind: 'pglite' | 'postgres';
  registry: EntityRegistry;
  /** Embedded database only (see SessionCache). */
  sessionCache?: SessionCache;
}

/** One registered route: method, URL pattern and its config (isPublic, isSelfService). */
export interface RouteEntry {
  method: string;
  url: string;
  config: { isPublic?: boolean; isSelfService?: boolean };
}
