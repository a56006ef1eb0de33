/**
 * A line-based three-way merge (diff3): the previous generated text (base), the developer's file
 * (ours) and the new generated text (theirs). A stretch changed on one side only takes that
 * side's lines; a stretch changed on both sides the same way takes them once; a stretch changed
 * differently on both is a conflict, written with git's markers so that nothing is dropped.
 */

export interface MergeResult {
  text: string;
  /** How many stretches conflict (each written between <<<<<<< and >>>>>>>). */
  conflicts: number;
}

/** The longest lines work a merge does: beyond it, the files are treated as wholly different. */
const MAX_CELLS = 16_000_000;

/** For each line of `from`, the index of the line of `to` it is matched with (longest common subsequence), or -1. */
function matchLines(from: readonly string[], to: readonly string[]): Int32Array {
  const matched = new Int32Array(from.length).fill(-1);
  // Lines equal at the start and at the end are matched without the table.
  let start = 0;
  while (start < from.length && start < to.length && from[start] === to[start]) {
    matched[start] = start;
    start += 1;
  }
  let fromEnd = from.length;
  let toEnd = to.length;
  while (fromEnd > start && toEnd > start && from[fromEnd - 1] === to[toEnd - 1]) {
    fromEnd -= 1;
    toEnd -= 1;
    matched[fromEnd] = toEnd;
  }
  const rows = fromEnd - start;
  const columns = toEnd - start;
  if (rows === 0 || columns === 0 || (rows + 1) * (columns + 1) > MAX_CELLS) return matched;
  // lengths[i][j]: the longest common subsequence of from[start+i..fromEnd) and to[start+j..toEnd).
  const width = columns + 1;
  const lengths = new Uint32Array((rows + 1) * width);
  for (let i = rows - 1; i >= 0; i -= 1)
    for (let j = columns - 1; j >= 0; j -= 1)
      lengths[i * width + j] =
        from[start + i] === to[start + j]
          ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
  let i = 0;
  let j = 0;
  while (i < rows && j < columns) {
    if (from[start + i] === to[start + j]) {
      matched[start + i] = start + j;
      i += 1;
      j += 1;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) i += 1;
    else j += 1;
  }
  return matched;
}

const sameLines = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((line, index) => line === b[index]);

export interface MergeLabels {
  ours: string;
  base: string;
  theirs: string;
}

const DEFAULT_LABELS: MergeLabels = { ours: 'yours', base: 'generated before', theirs: 'generated now' };

/** Merges three texts line by line (each split on \n; CRLF is the caller's to normalise). */
export function merge3(base: string, ours: string, theirs: string, labels = DEFAULT_LABELS): MergeResult {
  const baseLines = base.split('\n');
  const ourLines = ours.split('\n');
  const theirLines = theirs.split('\n');
  const inOurs = matchLines(baseLines, ourLines);
  const inTheirs = matchLines(baseLines, theirLines);
  const out: string[] = [];
  let conflicts = 0;
  let b = 0;
  let o = 0;
  let t = 0;
  while (b < baseLines.length || o < ourLines.length || t < theirLines.length) {
    if (b < baseLines.length && inOurs[b] === o && inTheirs[b] === t) {
      out.push(baseLines[b] ?? '');
      b += 1;
      o += 1;
      t += 1;
      continue;
    }
    // The next base line both sides kept: the end of this changed stretch.
    let next = b;
    while (next < baseLines.length && !((inOurs[next] ?? -1) >= o && (inTheirs[next] ?? -1) >= t)) next += 1;
    const ourEnd = next < baseLines.length ? (inOurs[next] ?? ourLines.length) : ourLines.length;
    const theirEnd = next < baseLines.length ? (inTheirs[next] ?? theirLines.length) : theirLines.length;
    const was = baseLines.slice(b, next);
    const mine = ourLines.slice(o, ourEnd);
    const fresh = theirLines.slice(t, theirEnd);
    if (sameLines(mine, was)) out.push(...fresh);
    else if (sameLines(fresh, was) || sameLines(mine, fresh)) out.push(...mine);
    else {
      conflicts += 1;
      out.push(
        `<<<<<<< ${labels.ours}`,
        ...mine,
        `||||||| ${labels.base}`,
        ...was,
        '=======',
        ...fresh,
        `>>>>>>> ${labels.theirs}`,
      );
    }
    b = next;
    o = ourEnd;
    t = theirEnd;
  }
  return { text: out.join('\n'), conflicts };
}
