import { SessionCache } from '../../services/sessions/session.js';
import { watchSessions } from '../../services/sessions/watch.js';
import type { Config } from '../config.js';
import type { DatabaseHandle, Db } from '../db/database.js';
import { databaseStore } from './database.js';
import { redisStore } from './redis.js';
import type { SharedStore } from './types.js';

export type * from './types.js';
export { MAX_CODE_ATTEMPTS } from './types.js';

/** The shared store of the configuration: Redis when REDIS_URL is set, else the database. */
export async function openStore(
  config: Pick<Config, 'redisUrl' | 'redisPrefix'>,
  db: Db,
): Promise<SharedStore> {
  if (config.redisUrl) return redisStore({ url: config.redisUrl, prefix: config.redisPrefix });
  return databaseStore(db);
}

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
