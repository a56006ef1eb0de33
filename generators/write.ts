import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { GeneratedFile } from './forward.js';
import { mergeGenerated, type MergeOutcome } from './regions.js';

export interface WriteReport {
  path: string;
  outcome: MergeOutcome['kind'];
  /** Why a file was left alone, or written with conflict markers (mergeConflict). */
  reason?: 'editedOutsideRegions' | 'notGenerated' | 'mergeConflict';
  /** mergeConflict: how many stretches carry conflict markers. */
  conflicts?: number;
}

/**
 * Where the text generated last time is kept for the next three-way merge: beside the file, in
 * a `.generated/` folder, as `<file>.base` (no tool of the project reads that extension: tsc,
 * eslint and prettier leave it alone). Commit it with the module.
 */
export function basePathOf(target: string): string {
  return join(dirname(target), '.generated', `${basename(target)}.base`);
}

/**
 * Writes generated files under a directory. A file a person changed only inside its <custom>
 * regions (or only reformatted) gets the new text with their regions; one changed elsewhere is
 * merged three ways with the text generated last time and the new one (conflicts written as
 * markers and reported); a file that was never generated is left alone.
 */
export function writeGenerated(outDir: string, files: readonly GeneratedFile[]): WriteReport[] {
  const root = resolve(outDir);
  return files.map((file) => {
    const target = resolve(root, file.path);
    if (target !== root && !target.startsWith(root + sep)) throw new Error(`${file.path} leaves ${outDir}`);
    const existing = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    if (file.isSource) {
      // The module's own schema: the developer's from the first write on.
      if (existing !== undefined) return { path: file.path, outcome: 'unchanged' };
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, file.content);
      return { path: file.path, outcome: 'new' };
    }
    const basePath = basePathOf(target);
    const base = existsSync(basePath) ? readFileSync(basePath, 'utf8') : undefined;
    const outcome = mergeGenerated(file.path, file.content, existing, base);
    if (outcome.kind === 'conflict' && outcome.reason !== 'mergeConflict')
      return { path: file.path, outcome: outcome.kind, reason: outcome.reason };
    if (outcome.kind !== 'unchanged') {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, outcome.text);
    }
    mkdirSync(dirname(basePath), { recursive: true });
    writeFileSync(basePath, file.content);
    if (outcome.kind === 'conflict')
      return { path: file.path, outcome: outcome.kind, reason: outcome.reason, conflicts: outcome.conflicts };
    return { path: file.path, outcome: outcome.kind };
  });
}

/** From a module folder <out>/<package>/<entity>/ to the project's src/, for generated imports. */
export function srcRootFrom(outDir: string, packageName: string, projectRoot: string): string {
  const from = join(resolve(outDir), packageName, 'entity');
  return relative(from, join(projectRoot, 'src')).split(sep).join('/');
}
