// Fails on an import cycle in src/, between files or between folders (DESIGN.md: no import
// cycles). Type-only imports count too: a loop of types is still a loop a reader has to untangle.
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

/**
 * The folders whose loops count: each room of the server's services, the server's lib, plugins and
 * routes, and each top folder of src/ (engine, web, admin, portal). Inside a front-end, pages and
 * the shell import each other by design; the file check still holds there.
 */
function unit(file) {
  const parts = relative(src, file).split('/');
  if (parts[0] === 'server' && parts.length > 2)
    return parts.slice(0, parts[1] === 'services' && parts.length > 3 ? 3 : 2).join('/');
  return parts[0].endsWith('.ts') ? '.' : parts[0];
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

const problems = [
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
  console.error(`Import cycles in src/ (${problems.length}):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
