import { readNumber, readQuoted } from './expression-text.js';
import { DECIMAL_TEXT, INT64_TEXT, decimalOf, isInt64, numberToDecimalText } from './decimal.js';
import type { FieldSchema } from './types.js';

/**
 * The one expression language of schemas (x-computed, x-rules), run the same in the browser and
 * on the server. A small parser and a tree-walking interpreter: no eval, no Function (filtrex,
 * which the workflow uses on the server, compiles to a Function, which the admin's
 * Content-Security-Policy refuses), and every evaluation bounded in length, nesting and steps.
 *
 * The language: numbers, "text" or 'text', true, false, null; field names; `+ - * / %` (mod);
 * `== != < <= > >=` (also eq ne lt le gt ge); `and or not` (also && || !);
 * `if c then a else b`; parentheses; the functions round(x[, scale]), abs, floor, ceil,
 * min(…), max(…), empty(x).
 *
 * Values are exact: every number (a literal, an integer or number field, a decimal or int64
 * field's text) is a decimal of arbitrary digits; + - * and % are exact, / keeps
 * DIVISION_SCALE digits after the point (rounded half away from zero). A computed decimal field
 * is then rounded half away from zero (PostgreSQL's round) to its own scale.
 * A date (format date) compares as its text, a date-time as its instant; a date against a
 * date-time compares as the date's first instant in UTC.
 * Empty values (null, missing, ""): arithmetic on them gives null, and a comparison with an
 * empty side holds (true), so a rule checks only what has been filled in; `==` and `!=` compare
 * emptiness as it is (`deadline == null`).
 */

/** How long an expression may be, how deep, and how many steps one evaluation may take. */
export const EXPRESSION_LIMITS = {
  /** Characters of one expression. */
  length: 1_000,
  /** Nesting of parentheses, operators and calls. */
  depth: 32,
  /** Nodes one evaluation may visit (each operator, value and call counts one). */
  steps: 10_000,
  /** Digits of any number met while evaluating. */
  digits: 100,
} as const;

/** Digits after the point a division keeps. */
export const DIVISION_SCALE = 20;

export class ExpressionError extends Error {
  /** The variable the expression names that is not set, when that is what went wrong. */
  readonly variable: string | undefined;

  constructor(message: string, variable?: string) {
    super(message);
    this.name = 'ExpressionError';
    this.variable = variable;
  }
}

// ---------------------------------------------------------------- values

/** An exact decimal: units / 10^scale. */
export class Exact {
  constructor(
    readonly units: bigint,
    readonly scale: number,
  ) {
    const digits = (units < 0n ? -units : units).toString().length;
    if (digits > EXPRESSION_LIMITS.digits)
      throw new ExpressionError(`a number of more than ${EXPRESSION_LIMITS.digits} digits`);
  }

  static ofText(text: string): Exact {
    const negative = text.startsWith('-');
    const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
    const units = BigInt(whole + fraction);
    return new Exact(negative ? -units : units, fraction.length);
  }

  static ofNumber(value: number): Exact {
    const text = numberToDecimalText(value);
    if (text === undefined) throw new ExpressionError(`${value} is not a number`);
    return Exact.ofText(text);
  }

  at(scale: number): bigint {
    return scale >= this.scale ? this.units * 10n ** BigInt(scale - this.scale) : roundUnits(this, scale);
  }

  /** Rounded half away from zero to `scale` digits after the point. */
  round(scale: number): Exact {
    return new Exact(this.at(scale), scale);
  }

  toText(): string {
    const negative = this.units < 0n;
    const digits = (negative ? -this.units : this.units).toString().padStart(this.scale + 1, '0');
    const whole = digits.slice(0, digits.length - this.scale);
    const fraction = digits.slice(digits.length - this.scale);
    return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
  }
}

function roundUnits(value: Exact, scale: number): bigint {
  const divisor = 10n ** BigInt(value.scale - scale);
  const quotient = value.units / divisor;
  const remainder = value.units % divisor;
  const twice = (remainder < 0n ? -remainder : remainder) * 2n;
  if (twice >= divisor) return quotient + (value.units < 0n ? -1n : 1n);
  return quotient;
}

/** A date-time: its instant. */
export class Instant {
  constructor(readonly ms: number) {}
}

/** A date (format date): YYYY-MM-DD. */
export class Day {
  constructor(readonly text: string) {}
  get ms(): number {
    return Date.parse(`${this.text}T00:00:00Z`);
  }
}

export type Value = null | boolean | string | Exact | Instant | Day | readonly unknown[] | object;

// ---------------------------------------------------------------- parser

type Node =
  | { kind: 'literal'; value: Value }
  | { kind: 'name'; name: string }
  | { kind: 'unary'; op: '-' | 'not'; operand: Node }
  | { kind: 'binary'; op: string; left: Node; right: Node }
  | { kind: 'if'; test: Node; then: Node; else: Node }
  | { kind: 'call'; name: string; args: Node[] };

type Token =
  | { kind: 'number'; text: string }
  | { kind: 'string'; text: string }
  | { kind: 'word'; text: string }
  | { kind: 'op'; text: string };

const WORD_OPERATORS: Record<string, string> = {
  and: 'and',
  or: 'or',
  not: 'not',
  eq: '==',
  ne: '!=',
  lt: '<',
  gt: '>',
  le: '<=',
  ge: '>=',
  mod: '%',
};

const FUNCTIONS = new Set(['round', 'abs', 'floor', 'ceil', 'min', 'max', 'empty']);
const KEYWORDS = new Set(['if', 'then', 'else', 'true', 'false', 'null']);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    const two = text.slice(i, i + 2);
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === "'") {
      const quoted = readQuoted(text, i);
      if (!quoted) throw new ExpressionError('a text is not closed by its quote');
      tokens.push({ kind: 'string', text: quoted.value });
      i = quoted.end;
    } else if (/[0-9]/.test(c)) {
      const number = readNumber(text, i);
      tokens.push({ kind: 'number', text: number });
      i += number.length;
    } else if (/[A-Za-z_$]/.test(c)) {
      const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(i))?.[0] ?? c;
      const op = WORD_OPERATORS[word];
      tokens.push(op ? { kind: 'op', text: op } : { kind: 'word', text: word });
      i += word.length;
    } else if (['&&', '||', '==', '!=', '<=', '>='].includes(two)) {
      tokens.push({ kind: 'op', text: two === '&&' ? 'and' : two === '||' ? 'or' : two });
      i += 2;
    } else if (c === '!') {
      tokens.push({ kind: 'op', text: 'not' });
      i++;
    } else if ('<>+-*/%(),'.includes(c)) {
      tokens.push({ kind: 'op', text: c });
      i++;
    } else {
      throw new ExpressionError(`unexpected "${c}"`);
    }
  }
  return tokens;
}

const PRECEDENCE: Record<string, number> = {
  or: 1,
  and: 2,
  '==': 3,
  '!=': 3,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
  '+': 5,
  '-': 5,
  '*': 6,
  '/': 6,
  '%': 6,
};

/** A parsed expression and the field names it reads. */
export interface ParsedExpression {
  text: string;
  root: Node;
  names: string[];
}

const parsedCache = new Map<string, ParsedExpression>();

/** Parses an expression (cached): an ExpressionError says what is wrong with it. */
export function parseExpression(text: string): ParsedExpression {
  const cached = parsedCache.get(text);
  if (cached) return cached;
  if (typeof text !== 'string' || text.trim() === '') throw new ExpressionError('the expression is empty');
  if (text.length > EXPRESSION_LIMITS.length)
    throw new ExpressionError(
      `the expression is longer than ${EXPRESSION_LIMITS.length} characters (expressions.length)`,
    );
  const tokens = tokenize(text);
  const names = new Set<string>();
  let at = 0;
  const peek = (): Token | undefined => tokens[at];
  const isOp = (token: Token | undefined, op: string): boolean => token?.kind === 'op' && token.text === op;
  const isWord = (token: Token | undefined, word: string): boolean =>
    token?.kind === 'word' && token.text === word;
  const expect = (op: string): void => {
    if (!isOp(peek(), op)) throw new ExpressionError(`"${op}" expected`);
    at++;
  };
  const nest = (depth: number): number => {
    if (depth > EXPRESSION_LIMITS.depth)
      throw new ExpressionError(
        `the expression nests deeper than ${EXPRESSION_LIMITS.depth} (expressions.depth)`,
      );
    return depth + 1;
  };
  const primary = (depth: number): Node => {
    const token = peek();
    const inner = nest(depth);
    if (!token) throw new ExpressionError('the expression ends too early');
    at++;
    if (token.kind === 'number') return { kind: 'literal', value: Exact.ofText(token.text) };
    if (token.kind === 'string') return { kind: 'literal', value: token.text };
    if (token.kind === 'op') {
      if (token.text === '(') {
        const node = expression(inner, 0);
        expect(')');
        return node;
      }
      if (token.text === '-') return { kind: 'unary', op: '-', operand: unaryOperand(inner) };
      // not binds looser than comparisons: not a < b is not (a < b).
      if (token.text === 'not')
        return { kind: 'unary', op: 'not', operand: expression(inner, PRECEDENCE.and ?? 2) };
      throw new ExpressionError(`unexpected "${token.text}"`);
    }
    const word = token.text;
    if (word === 'true' || word === 'false') return { kind: 'literal', value: word === 'true' };
    if (word === 'null') return { kind: 'literal', value: null };
    if (word === 'if') {
      const test = expression(inner, 0);
      if (!isWord(peek(), 'then')) throw new ExpressionError('"then" expected');
      at++;
      const then = expression(inner, 0);
      if (!isWord(peek(), 'else')) throw new ExpressionError('"else" expected');
      at++;
      return { kind: 'if', test, then, else: expression(inner, 0) };
    }
    if (KEYWORDS.has(word)) throw new ExpressionError(`unexpected "${word}"`);
    if (isOp(peek(), '(')) {
      if (!FUNCTIONS.has(word)) throw new ExpressionError(`unknown function ${word}()`);
      at++;
      const args: Node[] = [];
      if (!isOp(peek(), ')')) {
        args.push(expression(inner, 0));
        while (isOp(peek(), ',')) {
          at++;
          args.push(expression(inner, 0));
        }
      }
      expect(')');
      return { kind: 'call', name: word, args };
    }
    names.add(word);
    return { kind: 'name', name: word };
  };
  // Unary minus binds tighter than any binary operator.
  const unaryOperand = (depth: number): Node => primary(depth);
  const expression = (depth: number, minimum: number): Node => {
    let left = primary(depth);
    for (;;) {
      const token = peek();
      const precedence = token?.kind === 'op' ? PRECEDENCE[token.text] : undefined;
      if (token === undefined || precedence === undefined || precedence <= minimum) break;
      at++;
      const right = expression(nest(depth), precedence);
      left = { kind: 'binary', op: token.text, left, right };
    }
    return left;
  };
  const root = expression(0, 0);
  const rest = peek();
  if (rest) throw new ExpressionError(`unexpected "${rest.text}"`);
  const parsed = { text, root, names: [...names] };
  if (parsedCache.size > 2_000) parsedCache.clear();
  parsedCache.set(text, parsed);
  return parsed;
}

// ---------------------------------------------------------------- evaluation

const isEmpty = (value: unknown): boolean => value === null || value === undefined || value === '';

function describe(value: Value): string {
  if (value === null) return 'empty';
  if (value instanceof Exact) return 'a number';
  if (value instanceof Instant || value instanceof Day) return 'a date';
  if (typeof value === 'string') return 'a text';
  if (typeof value === 'boolean') return 'true or false';
  return 'a list';
}

function number(value: Value, op: string): Exact {
  if (value instanceof Exact) return value;
  throw new ExpressionError(`${op} needs numbers, not ${describe(value)}`);
}

function truth(value: Value, op: string): boolean {
  if (typeof value === 'boolean') return value;
  throw new ExpressionError(`${op} needs true or false, not ${describe(value)}`);
}

function align(a: Exact, b: Exact): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.at(scale), b.at(scale), scale];
}

const MAX_SCALE = 40;
const capped = (value: Exact): Exact => (value.scale > MAX_SCALE ? value.round(MAX_SCALE) : value);

function divide(a: Exact, b: Exact): Exact {
  if (b.units === 0n) throw new ExpressionError('division by zero');
  const scale = Math.max(DIVISION_SCALE, a.scale);
  const numerator = a.units * 10n ** BigInt(b.scale + scale - a.scale);
  let quotient = numerator / b.units;
  const remainder = numerator % b.units;
  const absolute = (x: bigint): bigint => (x < 0n ? -x : x);
  if (absolute(remainder) * 2n >= absolute(b.units)) quotient += numerator < 0n !== b.units < 0n ? -1n : 1n;
  return new Exact(quotient, scale);
}

/** An instant of a date, a date-time or date text, for comparisons across them. */
function instantOf(value: Value): number | undefined {
  if (value instanceof Instant || value instanceof Day) return value.ms;
  if (typeof value === 'string') {
    const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

/** Compares two non-empty values: negative, zero or positive. */
function compare(a: Value, b: Value, op: string): number {
  if (a instanceof Exact && b instanceof Exact) {
    const [x, y] = align(a, b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a instanceof Day && b instanceof Day) return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  if (a instanceof Instant || b instanceof Instant || a instanceof Day || b instanceof Day) {
    const x = instantOf(a);
    const y = instantOf(b);
    if (x === undefined || y === undefined)
      throw new ExpressionError(`${op} cannot compare ${describe(a)} with ${describe(b)}`);
    return x - y;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new ExpressionError(`${op} cannot compare ${describe(a)} with ${describe(b)}`);
}

function equals(a: Value, b: Value): boolean {
  if (isEmpty(a) || isEmpty(b)) return isEmpty(a) && isEmpty(b);
  if (Array.isArray(a) || Array.isArray(b)) return JSON.stringify(a) === JSON.stringify(b);
  try {
    return compare(a, b, '==') === 0;
  } catch {
    return false;
  }
}

interface Run {
  steps: number;
  values: Readonly<Record<string, Value>>;
}

function run(node: Node, state: Run): Value {
  state.steps += 1;
  if (state.steps > EXPRESSION_LIMITS.steps)
    throw new ExpressionError(
      `the expression took more than ${EXPRESSION_LIMITS.steps} steps (expressions.steps)`,
    );
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'name':
      return Object.hasOwn(state.values, node.name) ? (state.values[node.name] ?? null) : null;
    case 'unary': {
      const operand = run(node.operand, state);
      if (node.op === 'not') return isEmpty(operand) ? null : !truth(operand, 'not');
      if (isEmpty(operand)) return null;
      const value = number(operand, '-');
      return new Exact(-value.units, value.scale);
    }
    case 'if': {
      const test = run(node.test, state);
      return test === true ? run(node.then, state) : run(node.else, state);
    }
    case 'call':
      return call(
        node.name,
        node.args.map((arg) => run(arg, state)),
      );
    case 'binary':
      return binary(node, state);
  }
}

function binary(node: Extract<Node, { kind: 'binary' }>, state: Run): Value {
  const { op } = node;
  if (op === 'and' || op === 'or') {
    // Three-valued: an empty side leaves the outcome open (null) unless the other decides it.
    const decides = op === 'or';
    const left = run(node.left, state);
    if (left !== null && truth(left, op) === decides) return decides;
    const right = run(node.right, state);
    if (right !== null && truth(right, op) === decides) return decides;
    return left === null || right === null ? null : !decides;
  }
  const left = run(node.left, state);
  const right = run(node.right, state);
  if (op === '==') return equals(left, right);
  if (op === '!=') return !equals(left, right);
  if (op === '<' || op === '<=' || op === '>' || op === '>=') {
    // A comparison with an empty side holds: a rule checks only what has been filled in.
    if (isEmpty(left) || isEmpty(right)) return true;
    const order = compare(left, right, op);
    return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;
  }
  if (isEmpty(left) || isEmpty(right)) return null;
  if (op === '+' && typeof left === 'string' && typeof right === 'string') return left + right;
  if (op === '+' && (typeof left === 'string' || typeof right === 'string'))
    return textOf(left) + textOf(right);
  const a = number(left, op);
  const b = number(right, op);
  switch (op) {
    case '+': {
      const [x, y, scale] = align(a, b);
      return new Exact(x + y, scale);
    }
    case '-': {
      const [x, y, scale] = align(a, b);
      return new Exact(x - y, scale);
    }
    case '*':
      return capped(new Exact(a.units * b.units, a.scale + b.scale));
    case '/':
      return divide(a, b);
    case '%': {
      if (b.units === 0n) throw new ExpressionError('division by zero');
      const [x, y, scale] = align(a, b);
      return new Exact(x % y, scale);
    }
    default:
      throw new ExpressionError(`unknown operator ${op}`);
  }
}

function textOf(value: Value): string {
  if (value instanceof Exact) return value.toText();
  if (value instanceof Instant) return new Date(value.ms).toISOString();
  if (value instanceof Day) return value.text;
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function call(name: string, args: Value[]): Value {
  const arity = (min: number, max: number): void => {
    if (args.length < min || args.length > max)
      throw new ExpressionError(`${name}() takes ${min === max ? min : `${min} to ${max}`} values`);
  };
  if (name === 'empty') {
    arity(1, 1);
    const [value] = args;
    return isEmpty(value) || (Array.isArray(value) && value.length === 0);
  }
  if (name === 'min' || name === 'max') {
    if (args.length === 0) throw new ExpressionError(`${name}() needs values`);
    const present = args.filter((value) => !isEmpty(value));
    if (present.length < args.length) return null;
    return present.reduce((best, value) => {
      const order = compare(value, best, name);
      return (name === 'min' ? order < 0 : order > 0) ? value : best;
    });
  }
  arity(1, name === 'round' ? 2 : 1);
  const [first = null, second = null] = args;
  if (isEmpty(first)) return null;
  const value = number(first, `${name}()`);
  switch (name) {
    case 'abs':
      return new Exact(value.units < 0n ? -value.units : value.units, value.scale);
    case 'round': {
      const scale = second === null ? 0 : Number(number(second, 'round()').toText());
      if (!Number.isInteger(scale) || scale < 0 || scale > MAX_SCALE)
        throw new ExpressionError(`round() takes a scale of 0 to ${MAX_SCALE}`);
      return value.round(scale);
    }
    case 'floor':
    case 'ceil': {
      const whole = value.units / 10n ** BigInt(value.scale);
      const exact = whole * 10n ** BigInt(value.scale) === value.units;
      if (exact) return new Exact(whole, 0);
      const down = value.units < 0n ? whole - 1n : whole;
      return new Exact(name === 'floor' ? down : down + 1n, 0);
    }
    default:
      throw new ExpressionError(`unknown function ${name}()`);
  }
}

// ---------------------------------------------------------------- fields in, values out

/** A record's value as the expression sees it, by its field's schema. */
export function valueOfField(schema: FieldSchema | undefined, value: unknown): Value {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? Exact.ofNumber(value) : null;
  if (typeof value === 'bigint') return new Exact(value, 0);
  if (value instanceof Date) {
    if (schema?.format === 'date') return new Day(value.toISOString().slice(0, 10));
    return new Instant(value.getTime());
  }
  if (typeof value === 'string' && schema) {
    if ((decimalOf(schema) && DECIMAL_TEXT.test(value)) || (isInt64(schema) && INT64_TEXT.test(value)))
      return Exact.ofText(value);
    if (schema.format === 'date-time') {
      const ms = Date.parse(value);
      return Number.isNaN(ms) ? value : new Instant(ms);
    }
    if (schema.format === 'date' && /^\d{4}-\d{2}-\d{2}/.test(value)) return new Day(value.slice(0, 10));
  }
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'object') return value;
  return null;
}

/** The values of a record for an expression, by the schemas of its fields. */
export function expressionValues(
  properties: Readonly<Record<string, FieldSchema>>,
  record: Readonly<Record<string, unknown>>,
): Record<string, Value> {
  const values: Record<string, Value> = {};
  for (const [name, value] of Object.entries(record)) values[name] = valueOfField(properties[name], value);
  return values;
}

/** Evaluates an expression over values made by expressionValues. */
export function evaluateExpression(text: string, values: Readonly<Record<string, Value>>): Value {
  return run(parseExpression(text).root, { steps: 0, values });
}

/**
 * The value of a computed field as its schema stores it: a decimal as text rounded half away
 * from zero to its scale, an int64 as its digits, an integer or number as a number, a date-time
 * as ISO text. An ExpressionError when the value does not fit the field.
 */
export function fieldValueOf(schema: FieldSchema, value: Value): unknown {
  if (value === null) return null;
  const decimal = decimalOf(schema);
  if (decimal || isInt64(schema) || schema.type === 'integer' || schema.type === 'number') {
    if (!(value instanceof Exact)) throw new ExpressionError(`gives ${describe(value)}, not a number`);
    if (decimal) {
      const rounded = value.round(decimal.scale);
      const whole = rounded.toText().replace(/^-/, '').split('.')[0] ?? '';
      if ((whole === '0' ? 0 : whole.length) > decimal.precision - decimal.scale)
        throw new ExpressionError(`gives ${rounded.toText()}, too large for the field`);
      return rounded.toText();
    }
    if (isInt64(schema)) {
      const text = value.round(0).toText();
      if (!INT64_TEXT.test(text)) throw new ExpressionError(`gives ${text}, too large for the field`);
      return text;
    }
    if (schema.type === 'integer') {
      const whole = Number(value.round(0).toText());
      if (!Number.isSafeInteger(whole)) throw new ExpressionError('gives a number too large for the field');
      return whole;
    }
    return Number(value.toText());
  }
  if (schema.type === 'boolean') {
    if (typeof value !== 'boolean') throw new ExpressionError(`gives ${describe(value)}, not true or false`);
    return value;
  }
  if (schema.type === 'string') {
    if (schema.format === 'date-time') {
      const ms = instantOf(value);
      if (ms === undefined) throw new ExpressionError(`gives ${describe(value)}, not a date`);
      return new Date(ms).toISOString();
    }
    if (schema.format === 'date') {
      if (value instanceof Day) return value.text;
      const ms = instantOf(value);
      if (ms === undefined) throw new ExpressionError(`gives ${describe(value)}, not a date`);
      return new Date(ms).toISOString().slice(0, 10);
    }
    return textOf(value);
  }
  throw new ExpressionError(`cannot compute a field of type ${schema.type}`);
}

/** Whether an expression's value makes a rule hold: only false (or 0) breaks it. */
export function ruleHolds(value: Value): boolean {
  if (value === false) return false;
  if (value instanceof Exact) return value.units !== 0n;
  return true;
}

/** What is wrong with an expression over these field names (undefined: nothing). */
export function expressionProblem(text: unknown, fields: ReadonlySet<string>): string | undefined {
  if (typeof text !== 'string') return 'the expression must be text';
  try {
    const parsed = parseExpression(text);
    const unknown = parsed.names.find((name) => !fields.has(name));
    if (unknown !== undefined) return `"${unknown}" is not a field of this schema`;
    return undefined;
  } catch (error) {
    if (error instanceof ExpressionError) return error.message;
    throw error;
  }
}
