import { describe, expect, it } from 'vitest';
import { lineDiff } from '../../src/admin/features/generator/line-diff.js';

const shown = (before: string, after: string): string[] =>
  lineDiff(before, after).map((line) => `${{ same: ' ', added: '+', removed: '-' }[line.kind]}${line.text}`);

describe('lineDiff', () => {
  it('marks changed, added and removed lines between common ones', () => {
    expect(shown('a\nb\nc\nd', 'a\nB\nc\nd\ne')).toEqual([' a', '-b', '+B', ' c', ' d', '+e']);
    expect(shown('a\nb\nc', 'a\nc')).toEqual([' a', '-b', ' c']);
  });

  it('numbers lines in the old and in the new text', () => {
    const lines = lineDiff('x\ny\nz', 'x\nnew\ny\nz');
    expect(lines.map((line) => [line.kind, line.oldLine, line.newLine])).toEqual([
      ['same', 1, 1],
      ['added', undefined, 2],
      ['same', 2, 3],
      ['same', 3, 4],
    ]);
  });

  it('finds the longest run of common lines in the middle', () => {
    expect(shown('1\nx\n2\ny\n3', '1\n2\nz\n3')).toEqual([' 1', '-x', ' 2', '-y', '+z', ' 3']);
  });

  it('says nothing changed for equal texts and handles empty ones', () => {
    expect(lineDiff('a\nb', 'a\nb').every((line) => line.kind === 'same')).toBe(true);
    expect(shown('', 'a')).toEqual(['-', '+a']);
  });
});
