import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
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
