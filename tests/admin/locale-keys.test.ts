import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SIZES } from '../../src/admin/lib/settings.js';

type Tree = { [key: string]: string | Tree };

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.test.ts') ? [path] : [];
  });
}

function has(tree: Tree, key: string): boolean {
  let node: string | Tree | undefined = tree;
  for (const part of key.split('.')) {
    if (typeof node !== 'object') return false;
    node = node[part];
  }
  return typeof node === 'string';
}

/** Static keys the shell passes to t(); dynamic ones are listed by hand below. */
const used = new Set(
  [...files('src/admin'), ...files('src/web')].flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/\bt\(\s*'((?:admin|errors)\.[A-Za-z0-9_.]+)'/g)].map(
      (match) => match[1] ?? '',
    ),
  ),
);
const dynamic = [
  ...SIZES.map((size) => `admin.size.${size}`),
  ...['tagsView', 'fixedHeader', 'sidebarLogo', 'supportPinyinSearch'].map(
    (flag) => `admin.settings.${flag}`,
  ),
  ...['401', '404'].flatMap((status) => [`admin.error.${status}.title`, `admin.error.${status}.text`]),
  'errors.generic',
  'errors.network',
  'errors.invalidToken',
  'errors.reloginTitle',
  'errors.reloginText',
  'errors.relogin',
];

describe('back-office texts', () => {
  it('finds the keys the shell uses', () => {
    expect(used.size).toBeGreaterThan(50);
  });

  it.each(['zh', 'tw', 'en'])('%s has every key the shell uses', (language) => {
    const tree = JSON.parse(readFileSync(`locales/${language}.json`, 'utf8')) as Tree;
    expect([...used, ...dynamic].filter((key) => !has(tree, key))).toEqual([]);
  });
});
