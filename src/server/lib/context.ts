import type { TableSpec } from '../../engine/index.js';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { EntityRegistry } from './registry.js';
import type { ModuleSet } from './modules/hooks.js';
import type { ParamCache } from './store/param-cache.js';
import type { SessionCache } from './store/session-cache.js';
import type { SharedStore } from './store/index.js';

/** What every feature plugin needs, built once by buildApp. */
export interface AppContext {
  config: Config;
  db: Db;
  dbKind: 'pglite' | 'postgres';
  registry: EntityRegistry;
  /** Checked sessions, kept exact across processes (see SessionCache and watchSessions). */
  sessionCache: SessionCache;
  /** Rate limits and monitoring settings, kept exact across processes the same way (ParamCache). */
  paramCache: ParamCache;
  /** Counters and one-time codes shared by every server process: the database, or Redis (REDIS_URL). */
  store: SharedStore;
  /** Every table the app wants as the schemas are now: the entities' and the features' own. */
  tableSpecs: () => TableSpec[];
  /** The modules' hooks and endpoints (lib/modules): the framework's own, then those discovered. */
  modules: ModuleSet;
}

/** One registered route: method, URL pattern and its config (isPublic, isSelfService, isPlatformOnly). */
export interface RouteEntry {
  method: string;
  url: string;
  config: { isPublic?: boolean; isSelfService?: boolean; isPlatformOnly?: boolean };
}
