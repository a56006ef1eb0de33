import { buildApp } from './app.js';
import { readConfig } from './lib/config.js';
import { flushLog, logStream } from './lib/log-stream.js';

async function main(): Promise<void> {
  const config = readConfig();
  const started = Date.now();
  const stream = logStream();
  const { app, seed } = await buildApp({
    config,
    logger: { level: process.env.LOG_LEVEL ?? 'info', stream },
  });
  const address = await app.listen({ port: config.port, host: config.host });
  const url = address.replace('://127.0.0.1', '://localhost');
  const lines = [
    `EcoBid is running (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`}), started in ${Date.now() - started} ms`,
    `  Portal:      ${url}/${config.product}`,
    `  Back-office: ${url}/admin/`,
  ];
  if (seed.generatedAdminPassword) {
    lines.push(
      `  First start: sign in as "admin" with password ${seed.generatedAdminPassword}`,
      '  (shown only this once; set ADMIN_PASSWORD to choose it yourself)',
    );
  }
  // The start-up's log lines first, then the banner below them.
  // A log that cannot be flushed must not stop a server that is up: the banner goes out anyway.
  await flushLog(stream).catch(() => undefined);
  console.log(`\n${lines.join('\n')}\n`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void app.close().then(() => process.exit(0));
    });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
