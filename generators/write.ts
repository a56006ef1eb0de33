import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { GeneratedFile } from './forward.js';
import { mergeGenerated, type MergeOutcome } from './regions.js';

export interface WriteReport {
  path: string;
  outcome: MergeOutcome['kind'];
  /** Why a file was left alone. */
  reason?: 'editedOutsideRegions' | 'notGenerated';
}

/**
 * Writes generated files under a directory, keeping the text of protected regions of files that
 * are already there and leaving alone (reporting) files a person changed outside them.
 */
export function writeGenerated(outDir: string, files: readonly GeneratedFile[]): WriteReport[] {
  const root = resolve(outDir);
  return files.map((file) => {
    const target = resolve(root, file.path);
    if (target !== root && !target.startsWith(root + sep)) throw new Error(`${file.path} leaves ${outDir}`);
    const existing = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    const outcome = mergeGenerated(file.path, file.content, existing);
    if (outcome.kind === 'conflict')
      return { path: file.path, outcome: outcome.kind, reason: outcome.reason };
    if (outcome.kind !== 'unchanged') {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, outcome.text);
    }
    return { path: file.path, outcome: outcome.kind };
  });
}

/** From a module folder <out>/<package>/<entity>/ to the project's src/, for generated imports. */
export function srcRootFrom(outDir: string, packageName: string, projectRoot: string): string {
  const from = join(resolve(outDir), packageName, 'entity');
  return relative(from, join(projectRoot, 'src')).split(sep).join('/');
}
