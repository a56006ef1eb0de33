/**
 * The check of a schema's regular expressions (`pattern`, `patternProperties`) before any of them
 * is compiled or run: JavaScript's engine backtracks, so a pattern such as `^(a+)+$` takes
 * exponential time on a short input that does not match, and every other request waits (on
 * PGlite the database shares the thread). Refused, at check time:
 *
 * - back-references (`\1`, `\k<name>`): no backtracking engine bounds them;
 * - a repeated part that can match nothing (`(a*)*`, `(a|)+`);
 * - inside a repeated part, a repetition whose characters may also continue after it: the same
 *   text then splits between the two repetitions in many ways (`(a+)+`, `(\w+\s?)*`, `(a+a+)+`);
 * - inside a repeated part, a choice whose branches may start with the same character
 *   (`(a|a)*`, `(a|ab)+`);
 * - two unbounded repetitions next to each other that can trade characters (`a*a*`, `\d+\.?\d*`),
 *   or one at the start of a pattern without `^` with more after it (the search tries every
 *   start: `\d+$`): polynomial time.
 *
 * The check is conservative (some harmless patterns are refused too, such as `(ab|ac)*`) and
 * simple: it compares the first characters of the parts, as sets of code points. Patterns whose
 * repetitions are separated by a character they cannot match, such as `^(/[a-z]+)*$`, pass.
 */

export type PatternProblemKind =
  | 'patternLength'
  | 'patternInvalid'
  | 'backreference'
  | 'emptyRepeat'
  | 'nestedQuantifier'
  | 'ambiguousAlternation'
  | 'adjacentQuantifiers'
  | 'unanchoredRepeat'
  | 'unsupported';

export interface PatternProblem {
  kind: PatternProblemKind;
  /** What the problem's text names: the limit and length, or the unsupported construct. */
  params: Record<string, string | number>;
}

// Sets of code points ---------------------------------------------------------------------------

type Range = readonly [number, number];
type CharSet = readonly Range[];

const MAX_CODE_POINT = 0x10ffff;
const NONE: CharSet = [];
const ANY: CharSet = [[0, MAX_CODE_POINT]];

function normalize(ranges: Range[]): CharSet {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = merged[merged.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else merged.push([lo, hi]);
  }
  return merged;
}

const union = (...sets: CharSet[]): CharSet => normalize(sets.flat().map(([lo, hi]) => [lo, hi]));

function complement(set: CharSet): CharSet {
  const result: Range[] = [];
  let next = 0;
  for (const [lo, hi] of normalize([...set])) {
    if (lo > next) result.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT]);
  return result;
}

function intersects(a: CharSet, b: CharSet): boolean {
  for (const [alo, ahi] of a) for (const [blo, bhi] of b) if (alo <= bhi && blo <= ahi) return true;
  return false;
}

const char = (code: number): CharSet => [[code, code]];
const DIGIT: CharSet = [[0x30, 0x39]];
const WORD: CharSet = normalize([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]);
const SPACE: CharSet = normalize([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
const LINE_TERMINATORS: CharSet = normalize([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
]);
const DOT = complement(LINE_TERMINATORS);

// Syntax -----------------------------------------------------------------------------------------

type Node =
  | { type: 'empty' }
  | { type: 'chars'; set: CharSet }
  /** ^ $ \b \B: match no character. */
  | { type: 'assert'; start: boolean }
  /** (?= ) (?! ) (?<= ) (?<! ): match no character; their body is checked on its own. */
  | { type: 'look'; body: Node }
  | { type: 'seq'; items: Node[] }
  | { type: 'alt'; branches: Node[] }
  | { type: 'repeat'; body: Node; min: number; max: number };

class Refused extends Error {
  readonly problem: PatternProblem;
  constructor(kind: PatternProblemKind, params: Record<string, string | number> = {}) {
    super(kind);
    this.problem = { kind, params };
  }
}

const SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);

/** A recursive-descent parser of the pattern syntax (with the `u` flag, as ajv compiles them). */
class Parser {
  private readonly chars: string[];
  private at = 0;

  constructor(pattern: string) {
    this.chars = Array.from(pattern);
  }

  parse(): Node {
    const node = this.disjunction();
    if (this.at < this.chars.length) throw new Refused('patternInvalid');
    return node;
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.at + offset];
  }

  private eat(text: string): boolean {
    const parts = Array.from(text);
    if (parts.every((part, index) => this.chars[this.at + index] === part)) {
      this.at += parts.length;
      return true;
    }
    return false;
  }

  private disjunction(): Node {
    const branches = [this.alternative()];
    while (this.eat('|')) branches.push(this.alternative());
    return branches.length === 1 ? (branches[0] ?? { type: 'empty' }) : { type: 'alt', branches };
  }

  private alternative(): Node {
    const items: Node[] = [];
    while (this.at < this.chars.length && this.peek() !== '|' && this.peek() !== ')') items.push(this.term());
    if (items.length === 0) return { type: 'empty' };
    return items.length === 1 ? (items[0] ?? { type: 'empty' }) : { type: 'seq', items };
  }

  private term(): Node {
    const c = this.peek();
    if (c === '^' || c === '$') {
      this.at += 1;
      return { type: 'assert', start: c === '^' };
    }
    if (this.eat('\\b') || this.eat('\\B')) return { type: 'assert', start: false };
    if (this.eat('(?=') || this.eat('(?!') || this.eat('(?<=') || this.eat('(?<!')) {
      const body = this.disjunction();
      if (!this.eat(')')) throw new Refused('patternInvalid');
      // A quantified lookahead (Annex B) repeats nothing: it still matches no character.
      this.quantifier();
      return { type: 'look', body };
    }
    const atom = this.atom();
    const bounds = this.quantifier();
    return bounds ? { type: 'repeat', body: atom, ...bounds } : atom;
  }

  private quantifier(): { min: number; max: number } | undefined {
    const c = this.peek();
    let bounds: { min: number; max: number } | undefined;
    if (c === '*') bounds = { min: 0, max: Infinity };
    else if (c === '+') bounds = { min: 1, max: Infinity };
    else if (c === '?') bounds = { min: 0, max: 1 };
    if (bounds) this.at += 1;
    else if (c === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.chars.slice(this.at, this.at + 24).join(''));
      if (!match) return undefined;
      this.at += match[0].length;
      const min = Number(match[1]);
      bounds = { min, max: match[2] === undefined ? min : match[3] ? Number(match[3]) : Infinity };
    }
    if (bounds) this.eat('?');
    return bounds;
  }

  private atom(): Node {
    const c = this.peek();
    if (c === undefined) throw new Refused('patternInvalid');
    if (c === '(') {
      this.at += 1;
      if (this.eat('?:')) {
        // non-capturing
      } else if (this.peek() === '?' && this.peek(1) === '<') {
        const close = this.chars.indexOf('>', this.at);
        if (close < 0) throw new Refused('patternInvalid');
        this.at = close + 1;
      } else if (this.peek() === '?') {
        throw new Refused('unsupported', {
          construct: `(${this.chars.slice(this.at, this.at + 3).join('')}`,
        });
      }
      const body = this.disjunction();
      if (!this.eat(')')) throw new Refused('patternInvalid');
      return body;
    }
    if (c === '[') return { type: 'chars', set: this.characterClass() };
    if (c === '.') {
      this.at += 1;
      return { type: 'chars', set: DOT };
    }
    if (c === '\\') return { type: 'chars', set: this.escape(false) };
    if (c === ')' || c === '*' || c === '+' || c === '?') throw new Refused('patternInvalid');
    this.at += 1;
    return { type: 'chars', set: char(c.codePointAt(0) ?? 0) };
  }

  /** An escape after `\`: a set (\d, \p{…}) or one character. */
  private escape(inClass: boolean): CharSet {
    this.at += 1;
    const c = this.peek();
    if (c === undefined) throw new Refused('patternInvalid');
    this.at += 1;
    switch (c) {
      case 'd':
        return DIGIT;
      case 'D':
        return complement(DIGIT);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement(SPACE);
      case 'p':
      case 'P': {
        // A Unicode property: taken as any character (the check stays on the safe side).
        const close = this.chars.indexOf('}', this.at);
        if (this.peek() !== '{' || close < 0) throw new Refused('patternInvalid');
        this.at = close + 1;
        return ANY;
      }
      case 'k':
        throw new Refused('backreference');
      case 't':
        return char(0x09);
      case 'n':
        return char(0x0a);
      case 'v':
        return char(0x0b);
      case 'f':
        return char(0x0c);
      case 'r':
        return char(0x0d);
      case 'b':
        if (inClass) return char(0x08);
        throw new Refused('patternInvalid');
      case '0':
        return char(0);
      case 'c': {
        const letter = this.peek();
        if (!letter || !/[A-Za-z]/.test(letter)) throw new Refused('patternInvalid');
        this.at += 1;
        return char((letter.codePointAt(0) ?? 0) % 32);
      }
      case 'x': {
        const hex = this.chars.slice(this.at, this.at + 2).join('');
        if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new Refused('patternInvalid');
        this.at += 2;
        return char(parseInt(hex, 16));
      }
      case 'u': {
        if (this.peek() === '{') {
          const close = this.chars.indexOf('}', this.at);
          const hex = this.chars.slice(this.at + 1, close).join('');
          if (close < 0 || !/^[0-9A-Fa-f]{1,6}$/.test(hex)) throw new Refused('patternInvalid');
          this.at = close + 1;
          return char(parseInt(hex, 16));
        }
        const hex = this.chars.slice(this.at, this.at + 4).join('');
        if (!/^[0-9A-Fa-f]{4}$/.test(hex)) throw new Refused('patternInvalid');
        this.at += 4;
        return char(parseInt(hex, 16));
      }
      default:
        if (/[1-9]/.test(c)) {
          if (inClass) throw new Refused('patternInvalid');
          throw new Refused('backreference');
        }
        if (SYNTAX.has(c) || (inClass && c === '-')) return char(c.codePointAt(0) ?? 0);
        throw new Refused('patternInvalid');
    }
  }

  private characterClass(): CharSet {
    this.at += 1;
    const negated = this.eat('^');
    const parts: CharSet[] = [];
    const single = (): CharSet => {
      if (this.peek() === '\\') return this.escape(true);
      const c = this.peek();
      if (c === undefined) throw new Refused('patternInvalid');
      this.at += 1;
      return char(c.codePointAt(0) ?? 0);
    };
    while (this.peek() !== ']') {
      if (this.peek() === undefined) throw new Refused('patternInvalid');
      const from = single();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.at += 1;
        const to = single();
        const [lo] = from[0] ?? [0];
        const [hi] = to[0] ?? [0];
        if (from.length !== 1 || to.length !== 1 || from[0]?.[0] !== from[0]?.[1] || hi < lo)
          throw new Refused('patternInvalid');
        parts.push([[lo, hi]]);
      } else parts.push(from);
    }
    this.at += 1;
    const set = union(...parts);
    return negated ? complement(set) : set;
  }
}

// Analysis ---------------------------------------------------------------------------------------

function nullable(node: Node): boolean {
  switch (node.type) {
    case 'empty':
    case 'assert':
    case 'look':
      return true;
    case 'chars':
      return false;
    case 'seq':
      return node.items.every(nullable);
    case 'alt':
      return node.branches.some(nullable);
    case 'repeat':
      return node.min === 0 || nullable(node.body);
  }
}

/** The characters the node's match may start with. */
function first(node: Node): CharSet {
  switch (node.type) {
    case 'empty':
    case 'assert':
    case 'look':
      return NONE;
    case 'chars':
      return node.set;
    case 'seq': {
      const sets: CharSet[] = [];
      for (const item of node.items) {
        sets.push(first(item));
        if (!nullable(item)) break;
      }
      return union(...sets);
    }
    case 'alt':
      return union(...node.branches.map(first));
    case 'repeat':
      return first(node.body);
  }
}

/** The characters the node's match may end with. */
function last(node: Node): CharSet {
  switch (node.type) {
    case 'seq': {
      const sets: CharSet[] = [];
      for (const item of [...node.items].reverse()) {
        sets.push(last(item));
        if (!nullable(item)) break;
      }
      return union(...sets);
    }
    case 'alt':
      return union(...node.branches.map(last));
    case 'repeat':
      return last(node.body);
    default:
      return first(node);
  }
}

/** Every character the node's match may hold. */
function chars(node: Node): CharSet {
  switch (node.type) {
    case 'seq':
      return union(...node.items.map(chars));
    case 'alt':
      return union(...node.branches.map(chars));
    case 'repeat':
      return chars(node.body);
    default:
      return first(node);
  }
}

/**
 * Two repetitions next to each other can trade whole iterations of the first for the start of
 * the second: an iteration of the first then starts like the second and ends with a character
 * the second can match.
 */
const canTrade = (a: Node, b: Node): boolean =>
  intersects(first(a), first(b)) && intersects(last(a), chars(b));

const isUnbounded = (node: Node): node is Extract<Node, { type: 'repeat' }> =>
  node.type === 'repeat' && node.max === Infinity;

/**
 * Walks the pattern with what may follow each part (`follow`) and how many repeated parts
 * (max > 1) hold it (`depth`), refusing the ambiguities described above.
 */
function visit(node: Node, follow: CharSet, depth: number): void {
  switch (node.type) {
    case 'empty':
    case 'chars':
    case 'assert':
      return;
    case 'look':
      visit(node.body, NONE, depth);
      return;
    case 'alt':
      if (depth > 0) {
        const firsts = node.branches.map(first);
        for (let i = 0; i < firsts.length; i += 1)
          for (let j = i + 1; j < firsts.length; j += 1)
            if (intersects(firsts[i] ?? NONE, firsts[j] ?? NONE)) throw new Refused('ambiguousAlternation');
      }
      for (const branch of node.branches) visit(branch, follow, depth);
      return;
    case 'seq': {
      const { items } = node;
      let after = follow;
      const follows: CharSet[] = new Array<CharSet>(items.length);
      for (let i = items.length - 1; i >= 0; i -= 1) {
        follows[i] = after;
        const item = items[i];
        if (item) after = nullable(item) ? union(first(item), after) : first(item);
      }
      items.forEach((item, i) => visit(item, follows[i] ?? follow, depth));
      return;
    }
    case 'repeat': {
      const repeats = node.max > 1;
      if (repeats && nullable(node.body)) throw new Refused('emptyRepeat');
      if (depth > 0 && node.max > node.min && intersects(first(node.body), follow))
        throw new Refused('nestedQuantifier');
      if (repeats) visit(node.body, union(first(node.body), follow), depth + 1);
      else visit(node.body, follow, depth);
      return;
    }
  }
}

/**
 * The polynomial check: `open` holds the unbounded repetitions that may have just ended, with
 * only characters they could have taken themselves matched since. An unbounded repetition met
 * then can trade characters with one of them (`a*a*`, `\d+\.?\d*`, `a*a{1,3}a*`): refused.
 * Answers the repetitions open after the node.
 */
function reach(node: Node, open: readonly Node[]): Node[] {
  switch (node.type) {
    case 'empty':
    case 'assert':
    case 'look':
      return [...open];
    case 'chars':
      return open.filter((repeat) => repeat.type === 'repeat' && intersects(node.set, chars(repeat.body)));
    case 'seq':
      return node.items.reduce<Node[]>((now, item) => reach(item, now), [...open]);
    case 'alt':
      return [...new Set(node.branches.flatMap((branch) => reach(branch, open)))];
    case 'repeat': {
      if (isUnbounded(node))
        for (const before of open)
          if (before.type === 'repeat' && canTrade(before.body, node.body))
            throw new Refused('adjacentQuantifiers');
      // Once through the body, and again for a repeated one (what its last iteration left open).
      let after = reach(node.body, open);
      if (node.max > 1) after = [...new Set([...after, ...reach(node.body, after)])];
      const skipped = node.min === 0 ? open : [];
      return [...new Set([...skipped, ...after, ...(isUnbounded(node) ? [node] : [])])];
    }
  }
}

/** Whether every match must start at the start of the input (a leading `^` on every branch). */
function anchored(node: Node): boolean {
  switch (node.type) {
    case 'assert':
      return node.start;
    case 'seq':
      return node.items[0] !== undefined && anchored(node.items[0]);
    case 'alt':
      return node.branches.every(anchored);
    default:
      return false;
  }
}

function hasUnbounded(node: Node): boolean {
  switch (node.type) {
    case 'repeat':
      return node.max === Infinity || hasUnbounded(node.body);
    case 'seq':
      return node.items.some(hasUnbounded);
    case 'alt':
      return node.branches.some(hasUnbounded);
    case 'look':
      return hasUnbounded(node.body);
    default:
      return false;
  }
}

/**
 * Not anchored, the search starts at every position, so an unbounded repetition with anything
 * after it runs from each of them (`\d+x`, `\d+$`, `.*=`): quadratic. Only a last one passes
 * (`\d+`, `ab\d*`: the first run that matches ends the search).
 */
function unanchoredRepeat(node: Node): boolean {
  if (anchored(node)) return false;
  if (node.type === 'alt') return node.branches.some(unanchoredRepeat);
  if (node.type === 'repeat') return hasUnbounded(node.body);
  if (node.type !== 'seq') return hasUnbounded(node);
  const lastItem = node.items[node.items.length - 1];
  return (
    node.items.slice(0, -1).some(hasUnbounded) ||
    (lastItem !== undefined && lastItem.type !== 'repeat' && hasUnbounded(lastItem)) ||
    (lastItem?.type === 'repeat' && hasUnbounded(lastItem.body))
  );
}

/**
 * The problem of a pattern, or undefined when it is accepted. `maxLength` is the budget of its
 * length in characters (BUDGETS.schemas.patternLength on the server).
 */
export function patternProblem(pattern: string, maxLength: number): PatternProblem | undefined {
  if (pattern.length > maxLength)
    return { kind: 'patternLength', params: { length: pattern.length, limit: maxLength } };
  try {
    new RegExp(pattern, 'u');
  } catch {
    return { kind: 'patternInvalid', params: {} };
  }
  try {
    const tree = new Parser(pattern).parse();
    visit(tree, NONE, 0);
    reach(tree, []);
    if (unanchoredRepeat(tree)) throw new Refused('unanchoredRepeat');
    return undefined;
  } catch (error) {
    if (error instanceof Refused) return error.problem;
    throw error;
  }
}
