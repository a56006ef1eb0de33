#!/usr/bin/env node
// Bundles the server (src/server/main.ts and everything it imports from src/) into
// dist/server/main.js, and the import's .xlsx reading thread (src/server/lib/xlsx/worker.ts, which
// lib/xlsx/pool.ts starts from beside main.js) into dist/server/xlsx-worker.js; packages stay in
// node_modules. Plain JavaScript starts faster and lighter
// than TypeScript compiled on the fly.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundles = [
  ['src/server/main.ts', 'dist/server/main.js'],
  ['src/server/lib/xlsx/worker.ts', 'dist/server/xlsx-worker.js'],
];
for (const [entry, outfile] of bundles)
  await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
