import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Plugin } from 'vite';

/**
 * `virtual:ecobid-admin-modules`: the project's admin modules, by module name, each the lazy import
 * of its admin.tsx (a chunk of its own): src/modules/<name>/admin.tsx (or, in a package of
 * modules without one, src/modules/<package>/<name>/admin.tsx), then
 * <dir>/<name>/admin.tsx for each entry of MODULE_DIRS (comma-separated, relative to the project
 * root; the server reads the same variable for the modules' server.ts). Two modules of one name are
 * refused: the build fails naming both folders. Found when the build (or the dev server) starts.
 */
const ID = 'virtual:ecobid-admin-modules';
const RESOLVED = `\0${ID}`;
const NAME = /^[a-z0-9][a-z0-9_-]*$/i;

/** The module roots: src/modules and MODULE_DIRS's entries (blank entries left out). */
export function moduleRoots(moduleDirs: string | undefined): string[] {
  const extra = (moduleDirs ?? '')
    .split(',')
    .map((dir) => dir.trim())
    .filter((dir) => dir !== '');
  return ['src/modules', ...extra];
}

/** Module name → absolute path of its admin.tsx, from the roots under the project root. */
export function findAdminModules(root: string, roots: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const dir of roots) {
    const base = resolve(root, dir);
    if (!existsSync(base)) continue;
    const add = (name: string, file: string): void => {
      const other = found.get(name);
      if (other) throw new Error(`two admin modules named ${name}: ${other} and ${file}`);
      found.set(name, file);
    };
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      if (!entry.isDirectory() || !NAME.test(entry.name)) continue;
      const file = join(base, entry.name, 'admin.tsx');
      if (existsSync(file)) {
        add(entry.name, file);
        continue;
      }
      // A package of modules (the code generator's <package>/<entity>/): each inner module, named <package>-<entity>.
      for (const inner of readdirSync(join(base, entry.name), { withFileTypes: true })) {
        const innerFile = join(base, entry.name, inner.name, 'admin.tsx');
        if (inner.isDirectory() && NAME.test(inner.name) && existsSync(innerFile))
          add(`${entry.name}-${inner.name}`, innerFile);
      }
    }
  }
  return found;
}

/** The virtual module's code: `export default { name: () => import('/abs/admin.tsx'), … }`. */
export function adminModulesCode(modules: ReadonlyMap<string, string>): string {
  const entries = [...modules].map(
    ([name, file]) => `  ${JSON.stringify(name)}: () => import(${JSON.stringify(file)}),`,
  );
  return `export default {\n${entries.join('\n')}\n};\n`;
}

export function adminModules(options: { root: string; moduleDirs: string | undefined }): Plugin {
  return {
    name: 'ecobid-admin-modules',
    resolveId: (id) => (id === ID ? RESOLVED : undefined),
    load: (id) =>
      id === RESOLVED
        ? adminModulesCode(findAdminModules(options.root, moduleRoots(options.moduleDirs)))
        : undefined,
  };
}
