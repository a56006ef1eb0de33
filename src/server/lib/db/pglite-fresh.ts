import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/**
 * A fresh in-memory database (DATA_DIR=:memory:, as the tests and throwaway demos use) starts
 * from PostgreSQL's initdb, which takes 3–4 s of CPU in PGlite's WebAssembly on every start. The
 * data directory initdb leaves is always the same for one PGlite version and one set of start
 * parameters, so it is kept once as a tarball (PGlite's dumpDataDir, as its own clone() does) and
 * every later fresh database is loaded from it (loadDataDir): the same bytes initdb would write.
 * The file lives in a directory of the user's own under the system's temporary directory, named
 * by the PGlite version and the start parameters; it is written to a file of its own and renamed
 * into place, so that processes starting together never read half a file. A file that cannot be
 * loaded is made again; one that cannot be written only costs the next start its initdb.
 */

const require = createRequire(import.meta.url);
let version: string | undefined;

/** PGlite's version, from the package.json above its entry point (the package does not export it). */
function pgliteVersion(): string {
  if (version !== undefined) return version;
  version = 'unknown';
  try {
    let dir = dirname(require.resolve('@electric-sql/pglite'));
    for (let depth = 0; depth < 5; depth += 1, dir = dirname(dir)) {
      const manifest = join(dir, 'package.json');
      if (!existsSync(manifest)) continue;
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === '@electric-sql/pglite') {
        version = parsed.version ?? 'unknown';
        break;
      }
    }
  } catch {
    // 'unknown': the start parameters still name the file.
  }
  return version;
}

/** The directory of the kept files: the user's own (mode 0700), under the temporary directory. */
function keptDir(): string {
  const user = typeof process.getuid === 'function' ? String(process.getuid()) : 'user';
  return join(tmpdir(), `ecobid-pglite-${user}`);
}

/** The file of the fresh data directory for these start parameters. */
export function freshDumpPath(startParams: readonly string[]): string {
  const key = createHash('sha256')
    .update(JSON.stringify([pgliteVersion(), ...startParams]))
    .digest('hex')
    .slice(0, 16);
  return join(keptDir(), `initdb-${key}.tar`);
}

/** Whether the directory of the kept files is the user's own, writable by nobody else. */
function isOwnDir(): boolean {
  if (typeof process.getuid !== 'function') return true;
  try {
    const stat = statSync(keptDir());
    return stat.uid === process.getuid() && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The fresh data directory kept earlier, if any. */
export function keptFreshDump(startParams: readonly string[]): Blob | undefined {
  if (!isOwnDir()) return undefined;
  try {
    return new Blob([readFileSync(freshDumpPath(startParams))]);
  } catch {
    return undefined;
  }
}

/** Keeps the data directory of a database that has just been made by initdb (nothing written yet). */
export async function keepFreshDump(pglite: PGlite, startParams: readonly string[]): Promise<void> {
  const path = freshDumpPath(startParams);
  const partial = `${path}.${randomBytes(6).toString('hex')}`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const dump = await pglite.dumpDataDir('none');
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
  } catch {
    rmSync(partial, { force: true });
  }
}

/** Forgets a kept data directory that could not be loaded (the next fresh start makes it again). */
export function forgetFreshDump(startParams: readonly string[]): void {
  rmSync(freshDumpPath(startParams), { force: true });
}
