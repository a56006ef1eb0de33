/**
 * A line diff of two texts (longest common subsequence), for a template's version against the
 * current one. Templates are a few hundred lines; texts past MAX_CELLS compared cells fall back
 * to "all removed, all added" rather than block the page.
 */

export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
  /** 1-based line in the old text (same, removed) and in the new one (same, added). */
  oldLine?: number;
  newLine?: number;
}

const MAX_CELLS = 4_000_000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // Common head and tail first: versions usually differ in a few places.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail += 1;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const lines: DiffLine[] = [];
  for (let i = 0; i < head; i += 1)
    lines.push({ kind: 'same', text: a[i] ?? '', oldLine: i + 1, newLine: i + 1 });
  lines.push(...middle(midA, midB, head));
  for (let i = tail; i > 0; i -= 1) {
    const oldIndex = a.length - i;
    lines.push({ kind: 'same', text: a[oldIndex] ?? '', oldLine: oldIndex + 1, newLine: b.length - i + 1 });
  }
  return lines;
}

function middle(a: string[], b: string[], offset: number): DiffLine[] {
  const removed = (i: number): DiffLine => ({ kind: 'removed', text: a[i] ?? '', oldLine: offset + i + 1 });
  const added = (j: number): DiffLine => ({ kind: 'added', text: b[j] ?? '', newLine: offset + j + 1 });
  if (a.length * b.length > MAX_CELLS) return [...a.map((_, i) => removed(i)), ...b.map((_, j) => added(j))];
  const width = b.length + 1;
  // lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1)
    for (let j = b.length - 1; j >= 0; j -= 1)
      lengths[i * width + j] =
        a[i] === b[j]
          ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i] ?? '', oldLine: offset + i + 1, newLine: offset + j + 1 });
      i += 1;
      j += 1;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      lines.push(removed(i));
      i += 1;
    } else {
      lines.push(added(j));
      j += 1;
    }
  }
  while (i < a.length) lines.push(removed(i++));
  while (j < b.length) lines.push(added(j++));
  return lines;
}
