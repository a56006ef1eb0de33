import type { Config } from '../../lib/config.js';
import type { DatabaseHandle } from '../../lib/db/database.js';
import { openStore, type SharedStore } from '../../lib/store/index.js';
import { SessionCache } from '../../lib/store/session-cache.js';
import { watchSessions } from './watch.js';

export interface SharedState {
  store: SharedStore;
  sessionCache: SessionCache;
  close(): Promise<void>;
}

/**
 * Everything several server processes share beyond the tables: the store of counters and codes,
 * and the session cache kept exact by the database's change notifications. Close it before the
 * database.
 */
export async function openSharedState(
  config: Pick<Config, 'redisUrl' | 'redisPrefix' | 'databaseUrl'>,
  database: DatabaseHandle,
  userTable: string,
): Promise<SharedState> {
  const sessionCache = new SessionCache();
  const watch = await watchSessions({
    db: database.db,
    cache: sessionCache,
    userTable,
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
    close: async () => {
      await watch.close();
      await store.close();
    },
  };
}
