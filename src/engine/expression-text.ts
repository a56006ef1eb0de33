/**
 * Reading the literals of an expression's text, shared by the schemas' expressions
 * (engine/expressions.ts) and the workflow's JUEL bodies (server/features/workflow/services/expressions.ts):
 * a text in either quotes (a backslash takes the next character as it is) and a number (digits,
 * an optional fraction).
 */

/**
 * The text quoted at `at` (text[at] is its quote, ' or "): its value and the index after the
 * closing quote; undefined when no quote closes it.
 */
export function readQuoted(text: string, at: number): { value: string; end: number } | undefined {
  const quote = text[at];
  let j = at + 1;
  let value = '';
  while (j < text.length && text[j] !== quote) {
    if (text[j] === '\\' && j + 1 < text.length) j++;
    value += text[j];
    j++;
  }
  return j >= text.length ? undefined : { value, end: j + 1 };
}

/** The number at `at` (text[at] is a digit), as written: digits and an optional fraction. */
export function readNumber(text: string, at: number): string {
  return /^[0-9]+(\.[0-9]+)?/.exec(text.slice(at))?.[0] ?? text[at] ?? '';
}
