import { dirname, join } from 'node:path';
import type { Rolldown } from 'vite';

/**
 * The first load's scripts in a few files rather than seventy (the cold load). By
 * default every set of modules shared by a different set of entries and lazy screens is a chunk
 * of its own, and the back-office's first page asked for about 95 scripts: on HTTP/1.1's six
 * connections per host each waited its turn and cost the server a request.
 *
 * Every module a page runs before its first render (what its entry imports statically, all the
 * way down) goes into one chunk per kind of page:
 * - `web`: what the portal and the back-office both load at once (React, the shared src/web);
 * - `admin-boot`: what only the back-office loads at once;
 * - `portal-boot`: what only the portal loads at once.
 * A lazy screen's own modules are left to the default splitting.
 *
 * An index that re-exports a library's parts (antd's, the icons') is followed only into the parts
 * its importer names: otherwise every antd component and icon a lazy screen uses would join the
 * first load.
 */

type ChunkingContext = Rolldown.ChunkingContext;

const RE_EXPORT = /export\s*\{\s*default\s+as\s+(\w+)\s*\}\s*from\s*['"]([^'"]+)['"]/g;
const NAMED_IMPORT = /import\s*(?:\w+\s*,\s*)?\{([^}]*)\}\s*from/g;
/** An index of parts: many `export { default as X } from './x'` lines. */
const MIN_PARTS = 20;

interface Barrel {
  /** Exported name → the module it re-exports. */
  parts: Map<string, string>;
  /** Its other imports (followed whatever is named). */
  rest: string[];
}

/** The names a module imports by name (`import { A, B as C } from …`: A and B). */
function importedNames(code: string): Set<string> {
  const names = new Set<string>();
  for (const match of code.matchAll(NAMED_IMPORT))
    for (const part of (match[1] ?? '').split(',')) {
      const name = part.trim().split(/\s+/)[0];
      if (name && name !== 'type') names.add(name);
    }
  return names;
}

function barrelOf(id: string, code: string, imported: string[]): Barrel | undefined {
  const matches = [...code.matchAll(RE_EXPORT)];
  if (matches.length < MIN_PARTS) return undefined;
  const parts = new Map<string, string>();
  const taken = new Set<string>();
  for (const [, name, spec] of matches) {
    if (!name || !spec) continue;
    const base = join(dirname(id), spec);
    const target = imported.find(
      (candidate) =>
        candidate === base || candidate.startsWith(`${base}/`) || candidate.startsWith(`${base}.`),
    );
    if (!target) continue;
    parts.set(name, target);
    taken.add(target);
  }
  return { parts, rest: imported.filter((candidate) => !taken.has(candidate)) };
}

interface Closure {
  modules: Set<string>;
  /** The imports followed from each module (an index's unnamed parts are not). */
  edges: Map<string, Set<string>>;
}

/**
 * The modules an entry runs before its first render; with `lazy`, also every module its lazy
 * screens load (what a page may ever load).
 */
function closureOf(entry: string, ctx: ChunkingContext, lazy: boolean): Closure {
  const seen = new Set<string>();
  const edges = new Map<string, Set<string>>();
  const follow = (from: string, to: string): void => {
    let set = edges.get(from);
    if (!set) edges.set(from, (set = new Set()));
    set.add(to);
  };
  const barrels = new Map<string, Barrel | undefined>();
  const barrel = (id: string): Barrel | undefined => {
    if (!barrels.has(id)) {
      const info = ctx.getModuleInfo(id);
      barrels.set(id, info?.code ? barrelOf(id, info.code, info.importedIds) : undefined);
    }
    return barrels.get(id);
  };
  // a module reached, with the names wanted of it when it is an index (undefined: all)
  const stack: [string, Set<string> | undefined][] = [[entry, undefined]];
  const wantedOf = new Map<string, Set<string> | 'all'>();
  /** An index (or an `export *` of one) is visited again when new names are wanted of it. */
  const isNewWant = (id: string, names: Set<string> | undefined): string[] | undefined | false => {
    const had = wantedOf.get(id);
    if (had === 'all') return false;
    const fresh = names ? [...names].filter((name) => !had?.has(name)) : undefined;
    if (had && fresh?.length === 0) return false;
    wantedOf.set(id, names ? new Set([...(had ?? []), ...names]) : 'all');
    return fresh;
  };
  while (stack.length > 0) {
    const [id, names] = stack.pop() as [string, Set<string> | undefined];
    const info = ctx.getModuleInfo(id);
    const index = barrel(id);
    if (index) {
      const fresh = isNewWant(id, names);
      if (fresh === false) continue;
      const first = !seen.has(id);
      seen.add(id);
      const targets = fresh
        ? fresh.flatMap((name) => index.parts.get(name) ?? [])
        : [...index.parts.values()];
      for (const target of targets) {
        follow(id, target);
        stack.push([target, undefined]);
      }
      if (first)
        for (const other of index.rest) {
          follow(id, other);
          stack.push([other, names]);
        }
      continue;
    }
    const code = info?.code ?? '';
    // `export * from './index'` passes the names wanted of it on (all of them when unnamed)
    const passesOn = /export\s*\*\s*from/.test(code);
    if (passesOn) {
      if (isNewWant(id, names) === false) continue;
    } else if (seen.has(id)) continue;
    seen.add(id);
    if (!info) continue;
    const own = !passesOn ? importedNames(code) : names && new Set([...names, ...importedNames(code)]);
    for (const imported of info.importedIds) {
      const next = ctx.getModuleInfo(imported);
      // a file some screen loads lazily and that imports nothing (a locale) keeps its own chunk
      if (!lazy && next && next.dynamicImporters.length > 0 && next.importedIds.length === 0) continue;
      follow(id, imported);
      stack.push([imported, own]);
    }
    if (lazy) for (const imported of info.dynamicallyImportedIds) stack.push([imported, undefined]);
  }
  return { modules: seen, edges };
}

/**
 * The modules of `wanted` whose followed imports all stay in `wanted` or `below`, all the way down:
 * a group chunk that imported a module left outside it, which imports the group back, would be a
 * cycle of chunks (run in the wrong order: "o is not a function").
 */
function downwardClosed(
  wanted: Set<string>,
  below: Set<string>,
  edges: Map<string, Set<string>>,
): Set<string> {
  const kept = new Set(wanted);
  let changed = true;
  while (changed) {
    changed = false;
    for (const id of kept) {
      const imports = edges.get(id) ?? new Set<string>();
      if ([...imports].every((to) => kept.has(to) || below.has(to))) continue;
      kept.delete(id);
      changed = true;
    }
  }
  return kept;
}

/**
 * The groups: `web` for what both pages run at once, `admin-boot` and `portal-boot` for what only
 * one of them runs at once and the other never loads (else the other would load the whole group).
 */
export function bootChunkGroups(entries: { admin: string; portal: string }): Rolldown.CodeSplittingGroup[] {
  let groups: Map<string, string> | undefined;
  const plan = (ctx: ChunkingContext): Map<string, string> => {
    const admin = closureOf(entries.admin, ctx, false);
    const portal = closureOf(entries.portal, ctx, false);
    const adminEver = closureOf(entries.admin, ctx, true).modules;
    const portalEver = closureOf(entries.portal, ctx, true).modules;
    const edges = new Map([...admin.edges, ...portal.edges]);
    const web = downwardClosed(
      new Set([...admin.modules].filter((id) => portal.modules.has(id))),
      new Set(),
      edges,
    );
    const adminOnly = downwardClosed(
      new Set([...admin.modules].filter((id) => !web.has(id) && !portalEver.has(id))),
      web,
      admin.edges,
    );
    const portalOnly = downwardClosed(
      new Set([...portal.modules].filter((id) => !web.has(id) && !adminEver.has(id))),
      web,
      portal.edges,
    );
    const named = new Map<string, string>();
    for (const id of web) named.set(id, 'web');
    for (const id of adminOnly) named.set(id, 'admin-boot');
    for (const id of portalOnly) named.set(id, 'portal-boot');
    return named;
  };
  const kind = (id: string, ctx: ChunkingContext): string | null => {
    groups ??= plan(ctx);
    return groups.get(id) ?? null;
  };
  return [{ name: kind, includeDependenciesRecursively: false }];
}
