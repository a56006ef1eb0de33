import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { adminModules } from './scripts/vite-admin-modules.js';
import { antdStaticStyles } from './scripts/vite-antd-static.js';
import { bootChunkGroups } from './scripts/vite-boot-chunks.js';
import { chinaGeo } from './scripts/vite-china-geo.js';

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/**
 * Two entry points served by one Node process: the portal at / and the back-office at /admin/.
 * They share only what src/web exports, so the portal never downloads the back-office bundle.
 */
export default defineConfig({
  root: here('./src'),
  publicDir: false,
  plugins: [
    react(),
    chinaGeo(),
    antdStaticStyles(),
    // src/modules/<name>/admin.tsx and <MODULE_DIRS entry>/<name>/admin.tsx (docs/extending.md)
    adminModules({ root: here('.'), moduleDirs: process.env.MODULE_DIRS }),
  ],
  build: {
    outDir: here('./dist/web'),
    emptyOutDir: true,
    reportCompressedSize: false,
    // dist/web/.vite/manifest.json: the server preloads a lazy screen's chunks for the page opened
    manifest: true,
    rollupOptions: {
      input: {
        portal: here('./src/index.html'),
        admin: here('./src/admin/index.html'),
      },
      // papaparse is imported at the top of @refinedev/core for its useImport/useExport hooks, which
      // the admin does not use (it has its own import and export): marked free of side effects,
      // it leaves the first load with those hooks instead of riding along (~6 KB gzip).
      treeshake: {
        // (undefined: every other module keeps its own package.json's sideEffects)
        moduleSideEffects: (id: string) =>
          /[\\/]node_modules[\\/]papaparse[\\/]/.test(id) ? false : undefined,
      },
      output: {
        // a page's first scripts in three files, not seventy (scripts/vite-boot-chunks.ts)
        codeSplitting: {
          groups: bootChunkGroups({
            admin: here('./src/admin/main.tsx'),
            portal: here('./src/portal/main.tsx'),
          }),
        },
      },
    },
  },
  server: {
    port: 5173,
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
