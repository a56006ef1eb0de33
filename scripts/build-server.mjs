#!/usr/bin/env node
// Bundles the server (src/server/main.ts and everything it imports from src/) into
// dist/server/main.js; packages stay in node_modules. Plain JavaScript starts faster and lighter
// than TypeScript compiled on the fly. Two worker threads are entries beside it, which the bundled
// server starts from beside main.js: the import's .xlsx reader (src/server/lib/xlsx/worker.ts,
// dist/server/xlsx-worker.js) and the template renderer (features/generator/render,
// dist/server/template-worker.js).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  absWorkingDir: root,
  entryPoints: {
    main: 'src/server/main.ts',
    'xlsx-worker': 'src/server/lib/xlsx/worker.ts',
    'template-worker': 'src/server/features/generator/render/template-worker.ts',
  },
  outdir: 'dist/server',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
