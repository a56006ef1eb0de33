#!/usr/bin/env node
// npm run dev: the API server restarting on change (port 3000) and Vite's dev server with hot reload
// (http://localhost:5173/ and /admin/), which forwards /api to the API server.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const children = [
  spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), 'watch', 'src/server/main.ts'], {
    cwd: root,
    stdio: 'inherit',
  }),
  spawn(process.execPath, [join(root, 'node_modules/vite/bin/vite.js')], { cwd: root, stdio: 'inherit' }),
];
const stop = () => children.forEach((child) => child.kill('SIGTERM'));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
children.forEach((child) =>
  child.on('exit', (code) => {
    stop();
    process.exitCode = code ?? 0;
  }),
);
