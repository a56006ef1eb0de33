#!/usr/bin/env node
// npm start: build the front-ends when they are missing or older than their sources, then run the server.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const builtIndex = join(root, 'dist/web/index.html');
const sources = [
  'src/index.html',
  'src/admin',
  'src/portal',
  'src/web',
  'src/engine',
  'locales',
  'vite.config.ts',
];

function newestChange(path) {
  const full = join(root, path);
  if (!existsSync(full)) return 0;
  const stat = statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(full).reduce(
    (newest, entry) => Math.max(newest, newestChange(join(path, entry))),
    stat.mtimeMs,
  );
}

const isBuildStale =
  !existsSync(builtIndex) || sources.some((source) => newestChange(source) > statSync(builtIndex).mtimeMs);
if (isBuildStale) {
  console.log('Building the portal and the back-office (vite build)…');
  const build = spawnSync(
    process.execPath,
    [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// The server is bundled to plain JavaScript each time (a fraction of a second), then run.
const serverBuild = spawnSync(process.execPath, [join(root, 'scripts/build-server.mjs')], {
  cwd: root,
  stdio: 'inherit',
});
if (serverBuild.status !== 0) process.exit(serverBuild.status ?? 1);

const server = spawn(process.execPath, ['--enable-source-maps', join(root, 'dist/server/main.js')], {
  cwd: process.cwd(),
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
