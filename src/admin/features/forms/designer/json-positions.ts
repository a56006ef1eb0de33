/**
 * Where each value of a JSON text starts and ends, by JSON pointer: the JSON view puts a
 * problem the meta-schema reports (/properties/age/maximum) on its own line. The text is
 * known to parse (JSON.parse accepted it), so the scanner need not report syntax errors.
 */
export interface Span {
  from: number;
  to: number;
}

function pointerSegment(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function jsonPositions(text: string): Map<string, Span> {
  const spans = new Map<string, Span>();
  let at = 0;
  const skip = (): void => {
    while (at < text.length && /\s/.test(text[at] ?? '')) at += 1;
  };
  const readString = (): string => {
    const start = at;
    at += 1;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at += 1;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (pointer: string): void => {
    skip();
    const from = at;
    const char = text[at];
    if (char === '{') {
      at += 1;
      skip();
      while (text[at] !== '}' && at < text.length) {
        skip();
        const key = readString();
        skip();
        at += 1; // :
        value(`${pointer}/${pointerSegment(key)}`);
        skip();
        if (text[at] === ',') at += 1;
        skip();
      }
      at += 1;
    } else if (char === '[') {
      at += 1;
      skip();
      let index = 0;
      while (text[at] !== ']' && at < text.length) {
        value(`${pointer}/${index}`);
        index += 1;
        skip();
        if (text[at] === ',') at += 1;
        skip();
      }
      at += 1;
    } else if (char === '"') {
      readString();
    } else {
      while (at < text.length && !/[\s,\]}]/.test(text[at] ?? '')) at += 1;
    }
    spans.set(pointer, { from, to: at });
  };
  value('');
  return spans;
}

/** The span of a pointer, or of its nearest parent the text has (a missing key's object). */
export function spanOf(spans: ReadonlyMap<string, Span>, pointer: string): Span {
  let current = pointer;
  for (;;) {
    const span = spans.get(current);
    if (span) return span;
    if (current === '') return { from: 0, to: 0 };
    current = current.slice(0, current.lastIndexOf('/'));
  }
}
