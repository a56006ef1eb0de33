import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Tree = { [key: string]: string | Tree };

function keysOf(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'string' ? [`${prefix}${key}`] : keysOf(value, `${prefix}${key}.`),
  );
}

const load = (language: string): Tree => JSON.parse(readFileSync(`locales/${language}.json`, 'utf8')) as Tree;

describe('locales', () => {
  const zh = keysOf(load('zh')).sort();
  it.each(['tw', 'en'])('%s has exactly the keys of zh', (language) => {
    const other = keysOf(load(language)).sort();
    expect(other.filter((key) => !zh.includes(key))).toEqual([]);
    expect(zh.filter((key) => !other.includes(key))).toEqual([]);
  });

  it.each(['zh', 'tw', 'en'])('%s has no empty texts', (language) => {
    const tree = load(language);
    const empty = keysOf(tree).filter(
      (key) => key.split('.').reduce<string | Tree>((node, part) => (node as Tree)[part] ?? '', tree) === '',
    );
    expect(empty).toEqual([]);
  });
});
