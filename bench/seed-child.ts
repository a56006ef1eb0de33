/**
 * Child process: prepares a database for a benchmark, then exits. Boots the app once on
 * DATA_DIR / DATABASE_URL (creating the tables and the first-start data, as main.ts would) and
 * inserts BENCH_USERS users with SQL. The embedded database can have only one process, so this
 * runs and closes before the measured server starts.
 */
import { buildApp } from '../src/server/app.js';
import { readConfig } from '../src/server/lib/config.js';
import { seedUsers } from './lib/seed.js';
import { ADMIN_PASSWORD } from './lib/util.js';

const users = Number(process.env.BENCH_USERS ?? '0');
const env: NodeJS.ProcessEnv = { ADMIN_PASSWORD, DATA_DIR: process.env.DATA_DIR };
if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
if (process.env.SCHEMAS_DIR) env.SCHEMAS_DIR = process.env.SCHEMAS_DIR;
const started = Date.now();
const { app } = await buildApp({ config: readConfig(env) });
try {
  const booted = Date.now();
  if (users > 0) await seedUsers(app.ctx.db, app.ctx.registry.require('sysuser').table, users);
  console.log(`seeded ${users} users in ${Date.now() - booted} ms (boot ${booted - started} ms)`);
} finally {
  await app.close();
}
