import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineModule, type ModuleDefinition } from './define.js';

/** Where a discovered module came from (start-up log, error messages). */
export interface DiscoveredModule {
  definition: ModuleDefinition;
  file: string;
}

const serverFileIn = (folder: string): string | undefined =>
  ['server.ts', 'server.js'].map((base) => join(folder, base)).find((path) => existsSync(path));

const subfolders = (folder: string): string[] =>
  readdirSync(folder)
    .sort()
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isDirectory());

/**
 * The server parts under the module roots: `<root>/<name>/server.ts` (or .js), by root then
 * name. A folder without one is a package of modules (the code generator writes its modules to
 * `<root>/<package>/<entity>/`): its `<name>/server.ts` are modules too, in name order.
 */
export function moduleFiles(roots: readonly string[]): string[] {
  const files: string[] = [];
  for (const root of roots) {
    if (!existsSync(root) || !statSync(root).isDirectory()) continue;
    for (const folder of subfolders(root)) {
      const file = serverFileIn(folder);
      if (file) files.push(file);
      else
        for (const inner of subfolders(folder)) {
          const innerFile = serverFileIn(inner);
          if (innerFile) files.push(innerFile);
        }
    }
  }
  return files;
}

/**
 * Imports a module's TypeScript: directly where TypeScript is understood (tsx, the tests), else
 * (the bundled server under plain Node) through tsx's loader API.
 */
async function importModule(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  try {
    return await import(url);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
    const { tsImport } = await import('tsx/esm/api');
    return tsImport(url, import.meta.url);
  }
}

/**
 * Loads every module found under the roots (config.moduleDirs), in the order of moduleFiles.
 * A module whose file has no valid default export, or two modules of one name, stop the start.
 */
export async function discoverModules(roots: readonly string[]): Promise<DiscoveredModule[]> {
  const found: DiscoveredModule[] = [];
  for (const file of moduleFiles(roots)) {
    const loaded = (await importModule(file)) as { default?: unknown };
    const definition = loaded.default as ModuleDefinition | undefined;
    if (!definition || typeof definition !== 'object' || typeof definition.name !== 'string')
      throw new Error(`${file}: a module's server.ts must default-export defineModule({ name, … })`);
    const clash = found.find((item) => item.definition.name === definition.name);
    if (clash) throw new Error(`${file}: module "${definition.name}" is already defined by ${clash.file}`);
    found.push({ definition: defineModule(definition), file });
  }
  return found;
}
