import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { patternProblem } from '../../src/engine/pattern-check.js';

const LIMIT = 512;

/** Every `pattern` and `patternProperties` key of a JSON document. */
function patternsOf(json: unknown): string[] {
  if (Array.isArray(json)) return json.flatMap(patternsOf);
  if (typeof json !== 'object' || json === null) return [];
  return Object.entries(json).flatMap(([key, value]) => [
    ...(key === 'pattern' && typeof value === 'string' ? [value] : []),
    ...(key === 'patternProperties' && typeof value === 'object' && value !== null ? Object.keys(value) : []),
    ...patternsOf(value),
  ]);
}

const SCHEMA_DIRS = ['schemas', 'schemas/_meta'];
const projectPatterns = [
  ...new Set(
    SCHEMA_DIRS.flatMap((dir) =>
      readdirSync(dir)
        .filter((file) => file.endsWith('.json'))
        .flatMap((file) => patternsOf(JSON.parse(readFileSync(join(dir, file), 'utf8')))),
    ),
  ),
];

describe('pattern check', () => {
  it('finds the patterns of the project schemas', () => {
    expect(projectPatterns.length).toBeGreaterThan(15);
  });

  it.each(projectPatterns)('accepts the project pattern %s', (pattern) => {
    expect(patternProblem(pattern, LIMIT)).toBeUndefined();
  });

  it.each([
    '^[a-z]+$',
    '^\\d{3}-\\d{4}$',
    '^(\\d{1,3}\\.){3}\\d{1,3}$',
    '^[\\w.+-]+@[\\w-]+(\\.[\\w-]+)+$',
    '^([a-z0-9]+[-.])*[a-z0-9]+$',
    '^(/[a-z]+)*$',
    '^(a+b)*$',
    '^(a+)?$',
    '^(ab|cd)*$',
    '^-?[0-9]+(,-?[0-9]+)*$',
    '\\d+',
    'ab\\d*',
    '^[a-z]+[0-9]+$',
    '^\\w+@\\w+$',
    '^a*(ba*)*$',
    'abc',
    '^\\p{L}+$',
    '^[^\\s]+$',
    '^(?:[A-Z]{2}|[0-9]{3})$',
    '^(?=.*[0-9])[a-z0-9]{8,}$',
    '^\\u{1F600}+$',
    '^[\\-\\]]+$',
    '',
  ])('accepts %s', (pattern) => {
    expect(patternProblem(pattern, LIMIT)).toBeUndefined();
  });

  it.each([
    ['^(a+)+$', 'nestedQuantifier'],
    ['(a+)+', 'nestedQuantifier'],
    ['^(\\w+\\s?)*$', 'nestedQuantifier'],
    ['^(a+a+)+$', 'nestedQuantifier'],
    ['^(a+b?a+)+$', 'nestedQuantifier'],
    ['^a*a{1,3}a*$', 'adjacentQuantifiers'],
    ['^a+((.)?([ab]*|\\d*)?\\w{2,})$', 'adjacentQuantifiers'],
    ['^.*foo.*$', 'adjacentQuantifiers'],
    ['(.a{2,})?(a?)?-+', 'unanchoredRepeat'],
    ['abc.*def', 'unanchoredRepeat'],
    ['^(a+b?)+$', 'nestedQuantifier'],
    ['^(\\w+\\.?)+$', 'nestedQuantifier'],
    ['^(([a-z])+.)+[A-Z]([a-z])+$', 'nestedQuantifier'],
    ['^(a{1,10}){1,10}$', 'nestedQuantifier'],
    ['^(a*)*$', 'emptyRepeat'],
    ['^(a?)+$', 'emptyRepeat'],
    ['^(a|)+$', 'emptyRepeat'],
    ['^(a|a)*$', 'ambiguousAlternation'],
    ['^(a|ab)+$', 'ambiguousAlternation'],
    ['^(\\d|[0-9a-f])+$', 'ambiguousAlternation'],
    ['^a*a*$', 'adjacentQuantifiers'],
    ['^\\d+\\.?\\d*$', 'adjacentQuantifiers'],
    ['^.*.*=.*$', 'adjacentQuantifiers'],
    ['\\d+x', 'unanchoredRepeat'],
    ['\\d+$', 'unanchoredRepeat'],
    ['^(a)\\1$', 'backreference'],
    ['^(?<x>a)\\k<x>$', 'backreference'],
    ['^(a+', 'patternInvalid'],
    ['[z-a]', 'patternInvalid'],
    [`^${'a'.repeat(LIMIT)}$`, 'patternLength'],
  ])('refuses %s (%s)', (pattern, kind) => {
    expect(patternProblem(pattern, LIMIT)?.kind).toBe(kind);
  });

  it('each refused pattern is really slow, each accepted one quick (the check is not for nothing)', () => {
    const time = (pattern: string, input: string): number => {
      const started = performance.now();
      new RegExp(pattern, 'u').test(input);
      return performance.now() - started;
    };
    expect(time('^(a+)+$', `${'a'.repeat(25)}!`)).toBeGreaterThan(50);
    expect(time('^(/[a-z]+)*$', `${'/abc'.repeat(4_000)}!`)).toBeLessThan(500);
  });

  it('checks a long pattern quickly', () => {
    const pattern = `^${'(a|b)'.repeat(100)}$`;
    const started = performance.now();
    expect(patternProblem(pattern, 1_000)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(100);
  });
});
