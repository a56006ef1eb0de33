import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

/**
 * `virtual:antd-static.css`: antd's styles for the back-office's theme, rendered at build time
 * (scripts/antd-static-styles.tsx, in a child process: it loads antd's CommonJS build and React's
 * server renderer, which the config's own process need not hold). src/admin/main.tsx imports it
 * first, so it comes before every app stylesheet, where antd's run-time styles stood.
 *
 * The dev server gets an empty sheet: its class hashes are `css-dev-only-…`, and antd writes its
 * styles at run time there as before.
 */
const ID = 'virtual:antd-static.css';
const RESOLVED = `\0${ID}`;
const SCRIPT = fileURLToPath(new URL('./antd-static-styles.tsx', import.meta.url));

export function antdStaticStyles(): Plugin {
  let isBuild = false;
  return {
    name: 'ecobid-antd-static-styles',
    configResolved: (config) => {
      isBuild = config.command === 'build';
    },
    // the id ends in .css, so Vite's CSS pipeline takes the text: one file with the app's styles
    resolveId: (id) => (id === ID ? RESOLVED : undefined),
    load: (id) => {
      if (id !== RESOLVED) return undefined;
      if (!isBuild) return '';
      return execFileSync(process.execPath, ['--import', 'tsx', SCRIPT], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        // antd's production build: the same class hashes as the bundle's
        env: { ...process.env, NODE_ENV: 'production' },
      });
    },
  };
}
