import { describe, expect, it } from 'vitest';
import { evaluateExpression, expressionValues, parseExpression } from '../../src/engine/expressions.js';
import { readNumber, readQuoted } from '../../src/engine/expression-text.js';
import { evaluate, toFiltrex } from '../../src/server/features/workflow/services/expressions.js';

/** The literal reader shared by the schemas' expressions and the workflow's JUEL bodies. */
describe('readQuoted and readNumber', () => {
  it('reads a text in either quotes, a backslash taking the next character as it is', () => {
    expect(readQuoted(`x == "a\\"b" and y`, 5)).toEqual({ value: 'a"b', end: 11 });
    expect(readQuoted(`'it''s'`, 0)).toEqual({ value: 'it', end: 4 });
    expect(readQuoted(`"open`, 0)).toBeUndefined();
  });

  it('reads digits with an optional fraction', () => {
    expect(readNumber('a * 1.13 + 2', 4)).toBe('1.13');
    expect(readNumber('12.x', 0)).toBe('12');
  });

  it('gives both languages the same literals', () => {
    expect(evaluateExpression(`name == 'O\\'Neil'`, expressionValues({}, { name: "O'Neil" }))).toBe(true);
    expect(evaluate(`name == 'O\\'Neil'`, { name: "O'Neil" })).toBe(true);
    expect(toFiltrex(`amount > 10.50 && tag == "a\\"b"`).replace(/\s+/g, ' ')).toBe(
      `'amount' > 10.50 and 'tag' == "a\\"b"`,
    );
    expect(parseExpression('budget * 1.13').names).toEqual(['budget']);
    expect(() => toFiltrex('"open')).toThrow('unterminated string');
  });
});
