import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A new embedded database's first start, in a short-lived child process.
 *
 * On an empty data directory PGlite runs initdb in a second PostgreSQL instance on an in-memory
 * file system (its files are JavaScript buffers), dumps that as a tar and unpacks it into the
 * directory: about 640 MB resident at its peak (measured: 648 MB of WebAssembly and buffer memory,
 * 301 MB of it buffers), and the server process kept 50-120 MB of it for good afterwards (memory
 * a WebAssembly instance has touched is not given back). Done in a child that exits, the server
 * opens an initialised directory as on every later start.
 */
export async function initPgliteDir(dir: string): Promise<void> {
  if (existsSync(join(dir, 'PG_VERSION'))) return;
  const pglite = import.meta.resolve('@electric-sql/pglite');
  const code = [
    `const { PGlite } = await import(${JSON.stringify(pglite)});`,
    'const db = await PGlite.create(process.argv[1]);',
    'await db.close();',
  ].join('\n');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--liftoff-only', '--input-type=module', '-e', code, dir], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: process.env,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr = (stderr + text).slice(-4000);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else
        reject(new Error(`initialising the embedded database in ${dir} failed (${code}): ${stderr.trim()}`));
    });
  });
}
