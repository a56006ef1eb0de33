import type { Config } from '../../../lib/config.js';
import type { DatabaseHandle } from '../../../lib/db/database.js';
import { openStore, type SharedStore } from '../../../lib/store/index.js';
import { ParamCache } from '../../../lib/store/param-cache.js';
import { SessionCache } from '../../../lib/store/session-cache.js';
import { watchSessions } from './watch.js';

export interface SharedState {
  store: SharedStore;
  sessionCache: SessionCache;
  paramCache: ParamCache;
  close(): Promise<void>;
}

/**
 * Everything several server processes share beyond the tables: the store of counters and codes,
 * and the session and param caches kept exact by the database's change notifications. Close it before the
 * database.
 */
export async function openSharedState({
  config,
  database,
  tables,
}: {
  config: Pick<Config, 'redisUrl' | 'redisPrefix' | 'databaseUrl'>;
  database: DatabaseHandle;
  /** The tables of the user and param entities (their writes end sessions and drop params). */
  tables: { user: string; param: string };
}): Promise<SharedState> {
  const sessionCache = new SessionCache();
  const paramCache = new ParamCache();
  const watch = await watchSessions({
    db: database.db,
    cache: sessionCache,
    userTable: tables.user,
    params: paramCache,
    paramTable: tables.param,
    listen: database.listen,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
  });
  let store: SharedStore;
  try {
    store = await openStore(config, database.db);
  } catch (error) {
    await watch.close();
    throw error;
  }
  return {
    store,
    sessionCache,
    paramCache,
    close: async () => {
      await watch.close();
      await store.close();
    },
  };
}
