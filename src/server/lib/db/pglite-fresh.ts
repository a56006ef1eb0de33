import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/**
 * A fresh in-memory database (DATA_DIR=:memory:, as the tests and throwaway demos use) starts
 * from PostgreSQL's initdb, which takes 3–4 s of CPU in PGlite's WebAssembly on every start. The
 * data directory initdb leaves is always the same for one PGlite version and one set of start
 * parameters, so it is kept once as a tarball (PGlite's dumpDataDir) and every later fresh
 * database is loaded from it (loadDataDir, under a second): the same bytes initdb would write.
 * Kept in this process and in the system's temporary directory, named by the PGlite version and
 * the start parameters; written to a file of its own and renamed into place, so that processes
 * starting together never read half a file. A file that cannot be read or loaded is made again.
 */

const require = createRequire(import.meta.url);
let kept: { key: string; dump: Blob } | undefined;

function pgliteVersion(): string {
  try {
    const manifest = JSON.parse(
      readFileSync(require.resolve('@electric-sql/pglite/package.json'), 'utf8'),
    ) as { version?: string };
    return manifest.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The file of the fresh data directory for these start parameters. */
export function freshDumpPath(startParams: readonly string[]): string {
  const key = createHash('sha256')
    .update(JSON.stringify([pgliteVersion(), ...startParams]))
    .digest('hex')
    .slice(0, 16);
  return join(tmpdir(), `ecobid-pglite-initdb-${key}.tar`);
}

/** The fresh data directory kept earlier (this process, else the file), if any. */
export function keptFreshDump(startParams: readonly string[]): Blob | undefined {
  const path = freshDumpPath(startParams);
  if (kept?.key === path) return kept.dump;
  try {
    const dump = new Blob([readFileSync(path)]);
    kept = { key: path, dump };
    return dump;
  } catch {
    return undefined;
  }
}

/** Keeps the data directory of a database that has just been made by initdb (nothing written yet). */
export async function keepFreshDump(pglite: PGlite, startParams: readonly string[]): Promise<void> {
  const path = freshDumpPath(startParams);
  const dump = await pglite.dumpDataDir('none');
  kept = { key: path, dump };
  const partial = `${path}.${randomBytes(6).toString('hex')}`;
  try {
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
  } catch {
    // A temporary directory that cannot be written only costs the next process its initdb.
    rmSync(partial, { force: true });
  }
}

/** Forgets a kept data directory that could not be loaded (the next fresh start makes it again). */
export function forgetFreshDump(startParams: readonly string[]): void {
  const path = freshDumpPath(startParams);
  if (kept?.key === path) kept = undefined;
  rmSync(path, { force: true });
}
