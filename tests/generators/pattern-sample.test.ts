import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { patternSample } from '../../generators/pattern-sample.js';
import { PROJECT_ROOT } from './support.js';

interface Property {
  pattern?: string;
  items?: { pattern?: string };
}

describe('patternSample: a text built from a field pattern, for the generated test (issue 35)', () => {
  it('matches each pattern of schemas/, and its variants differ where the pattern allows', () => {
    const patterns = readdirSync(join(PROJECT_ROOT, 'schemas'))
      .filter((file) => file.endsWith('.schema.json'))
      .flatMap((file) => {
        const schema = JSON.parse(readFileSync(join(PROJECT_ROOT, 'schemas', file), 'utf8')) as {
          properties?: Record<string, Property>;
        };
        return Object.values(schema.properties ?? {}).flatMap((property) =>
          [property.pattern, property.items?.pattern].filter((pattern) => pattern !== undefined),
        );
      });
    expect(patterns).toContain('^\\+[1-9][0-9]{0,3}$');
    for (const pattern of patterns)
      for (const variant of [0, 1, 2, 3])
        expect(patternSample(pattern, variant)).toMatch(new RegExp(pattern, 'u'));
    expect(patternSample('^\\+[1-9][0-9]{0,3}$', 0)).toBe('+1');
    expect(patternSample('^\\+[1-9][0-9]{0,3}$', 1)).toBe('+2');
    expect(patternSample('^ROLE_[A-Z0-9_]+$', 1)).toBe('ROLE_B');
  });

  it('gives up on what it cannot build (look-arounds, negated classes, back-references)', () => {
    for (const pattern of ['^(?=a)a$', '^[^a]$', '^(a)\\1$', '^\\p{L}+$'])
      expect(patternSample(pattern, 0)).toBeUndefined();
  });
});
