// Fails on an import cycle in src/, between files or between folders, and on an import that
// crosses a server feature's boundary (docs/architecture.md: features and their boundaries).
// Type-only imports count too: a loop of types is still a loop a reader has to untangle.
// Run by `npm run lint`; a plain scan of relative specifiers, so it takes well under a second.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const show = (path) => relative(root, path) || '.';
const src = join(root, 'src');
const SKIP = new Set(['generated']);

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIP.has(name) ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !/\.d\.ts$/.test(name) ? [path] : [];
  });
}

const files = sourceFiles(src);
const known = new Set(files);
const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function target(from, specifier) {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    base,
    `${base}.ts`,
    `${base}.tsx`,
    join(base, 'index.ts'),
  ]) {
    if (known.has(candidate)) return candidate;
  }
  return undefined;
}

const fileEdges = new Map(files.map((file) => [file, new Set()]));
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(SPECIFIER)) {
    const to = target(file, match[1] ?? match[2]);
    if (to && to !== file) fileEdges.get(file).add(to);
  }
}

/** The server feature a file belongs to (src/server/features/<name>/…), or undefined. */
function featureOf(file) {
  const parts = relative(src, file).split('/');
  return parts[0] === 'server' && parts[1] === 'features' && parts.length > 3 ? parts[2] : undefined;
}

/**
 * A feature's mount (plugin.ts) and routes: app.ts alone imports them, so they sit outside the
 * feature's own unit and a loop through them would need app.ts (it imports every feature).
 */
function isFeatureMount(file) {
  const parts = relative(src, file).split('/');
  return (
    featureOf(file) !== undefined &&
    (parts[3] === 'plugin.ts' || parts[3] === 'routes' || parts[3] === 'routes.ts')
  );
}

/**
 * The folders whose loops count: each server feature (its services: the features form a chain
 * of dependencies, never a loop), the server's lib and plugins, and each top folder of src/
 * (engine, web, admin, portal). Inside a front-end, pages and the shell import each other by
 * design; the file check still holds there.
 */
function unit(file) {
  const parts = relative(src, file).split('/');
  const feature = featureOf(file);
  if (feature !== undefined) return `server/features/${feature}${isFeatureMount(file) ? ' (routes)' : ''}`;
  if (parts[0] === 'server' && parts.length > 2) return parts.slice(0, 2).join('/');
  return parts[0].endsWith('.ts') ? '.' : parts[0];
}

/**
 * The boundaries: a feature reaches another feature only through that feature's index.ts (its
 * exported service functions); lib/ and plugins/ know no feature; nothing but app.ts mounts a
 * feature (its plugin.ts).
 */
function boundaryProblem(from, to) {
  const [a, b] = [featureOf(from), featureOf(to)];
  const where = relative(src, from).split('/');
  if (b !== undefined && where[0] === 'server' && (where[1] === 'lib' || where[1] === 'plugins'))
    return 'lib/ and plugins/ know no feature';
  if (
    b !== undefined &&
    relative(src, to).split('/')[3] === 'plugin.ts' &&
    relative(src, from) !== 'server/app.ts'
  )
    return "only app.ts mounts a feature's plugin.ts";
  if (
    a !== undefined &&
    b !== undefined &&
    a !== b &&
    relative(src, to).split('/').slice(3).join('/') !== 'index.ts'
  )
    return `features/${b} is reached through its index.ts`;
  return undefined;
}

const folderEdges = new Map();
const folderWitness = new Map();
for (const [from, targets] of fileEdges) {
  for (const to of targets) {
    const [a, b] = [unit(from), unit(to)];
    if (!folderWitness.has(`${a}>${b}`)) folderWitness.set(`${a}>${b}`, `${show(from)} → ${show(to)}`);
    if (a === b) continue;
    if (!folderEdges.has(a)) folderEdges.set(a, new Set());
    if (!folderEdges.has(b)) folderEdges.set(b, new Set());
    folderEdges.get(a).add(b);
  }
}

/** Strongly connected components of more than one node (Tarjan, iterative). */
function cycles(edges) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  for (const start of edges.keys()) {
    if (indexOf.has(start)) continue;
    const work = [[start, [...(edges.get(start) ?? [])], 0]];
    indexOf.set(start, index);
    low.set(start, index++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, next] = frame;
      if (frame[2] < next.length) {
        const to = next[frame[2]++];
        if (!indexOf.has(to)) {
          indexOf.set(to, index);
          low.set(to, index++);
          stack.push(to);
          onStack.add(to);
          work.push([to, [...(edges.get(to) ?? [])], 0]);
        } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), indexOf.get(to)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === indexOf.get(node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1) found.push(component);
      }
    }
  }
  return found;
}

const boundaries = [];
for (const [from, targets] of fileEdges) {
  for (const to of targets) {
    const problem = boundaryProblem(from, to);
    if (problem) boundaries.push(`boundary: ${show(from)} → ${show(to)}: ${problem}`);
  }
}

const problems = [
  ...boundaries,
  ...cycles(fileEdges).map((loop) => `files: ${loop.map(show).sort().join(' ↔ ')}`),
  ...cycles(folderEdges).map((loop) => {
    const members = new Set(loop);
    const witnesses = [...folderWitness]
      .filter(([key]) => key.split('>').every((name) => members.has(name)))
      .map(([, edge]) => `\n      ${edge}`);
    return `folders: src/${loop.sort().join(' ↔ src/')}${witnesses.join('')}`;
  }),
];
if (problems.length > 0) {
  console.error(`Import cycles and boundaries in src/ (${problems.length}):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
