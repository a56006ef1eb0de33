import { buildApp } from '../../src/server/app.js';
import { readConfig } from '../../src/server/lib/config.js';
import { logStream } from '../../src/server/lib/log-stream.js';
import { ADMIN_PASSWORD, BROWSER_CLIENT } from './util.js';

/** The real app as main.ts builds it, in this process (app.inject or listen). */
export type BenchApp = Awaited<ReturnType<typeof buildApp>>['app'];

/**
 * Boots the real app in this process, as main.ts does: the benchmark's administrator password,
 * DATA_DIR, DATABASE_URL (PGlite when absent) and MONITORING passed on; pino's buffered stream at
 * LOG_LEVEL (warn) to `logTo` (a file descriptor or path).
 */
export async function bootApp({
  dataDir,
  databaseUrl,
  env = {},
  logTo = 1,
}: {
  dataDir: string | undefined;
  databaseUrl?: string | undefined;
  /** Further settings (LIST_EXACT_COUNT_LIMIT, …). */
  env?: NodeJS.ProcessEnv;
  logTo?: number | string;
}): Promise<{ app: BenchApp; bootMs: number }> {
  const config: NodeJS.ProcessEnv = { ADMIN_PASSWORD, DATA_DIR: dataDir, ...env };
  if (databaseUrl) config.DATABASE_URL = databaseUrl;
  // Passed on: without it, MONITORING=off never reached the app.
  if (process.env.MONITORING && !config.MONITORING) config.MONITORING = process.env.MONITORING;
  const started = Date.now();
  const { app } = await buildApp({
    config: readConfig(config),
    logger: { level: process.env.LOG_LEVEL ?? 'warn', stream: logStream(logTo) },
  });
  return { app, bootMs: Date.now() - started };
}

/** A bearer token of a user of the default tenant (password grant of the browser client). */
export async function signInApp(
  app: BenchApp,
  username = 'admin',
  password = ADMIN_PASSWORD,
): Promise<string> {
  const answer = await app.inject({
    method: 'POST',
    url: '/api/uaa/oauth/token',
    headers: { authorization: BROWSER_CLIENT, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'password',
      scope: 'ui',
      client_id: 'browser',
      tenantCode: 'default',
      username,
      password,
    }).toString(),
  });
  if (answer.statusCode !== 200) throw new Error(`sign-in of ${username} failed: ${answer.body}`);
  return (answer.json() as { access_token: string }).access_token;
}
