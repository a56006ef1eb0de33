import { compileExpression } from 'filtrex';
import { BUDGETS } from '../../../lib/budgets.js';
import { ExpressionError } from '../../../../engine/expressions.js';
import { readNumber, readQuoted } from '../../../../engine/expression-text.js';

/**
 * `${…}` expressions of a process (conditions, assignees, collections, completion conditions):
 * the JUEL subset BPMN tools write (comparisons, `&&` `||` `!`, `and` `or` `not` `eq` `ne` `lt`
 * `gt` `le` `ge`, arithmetic, strings in either quotes, `empty x`, property access a.b) is
 * translated to filtrex and run by it — never by eval or Function. Variables are the instance's.
 */

// One error class for every expression of the product (the schemas' share engine/expressions.ts).
export { ExpressionError };

const WORDS: Record<string, string> = {
  and: 'and',
  or: 'or',
  not: 'not',
  eq: '==',
  ne: '!=',
  lt: '<',
  gt: '>',
  le: '<=',
  ge: '>=',
  div: '/',
  mod: 'mod',
};

const CONSTANTS = { true: true, false: false, null: null };

const quote = (value: string): string => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** The filtrex text of a JUEL body (what stands between `${` and `}`). */
export function toFiltrex(body: string): string {
  const out: string[] = [];
  let i = 0;
  const peekIdentifier = (from: number): { name: string; end: number } | undefined => {
    let j = from;
    while (j < body.length && /\s/.test(body[j] ?? '')) j++;
    const match = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*/.exec(body.slice(j));
    return match ? { name: match[0], end: j + match[0].length } : undefined;
  };
  while (i < body.length) {
    const c = body[i] ?? '';
    const two = body.slice(i, i + 2);
    if (/\s/.test(c)) {
      out.push(' ');
      i++;
    } else if (c === '"' || c === "'") {
      const quoted = readQuoted(body, i);
      if (!quoted) throw new ExpressionError('unterminated string');
      out.push(quote(quoted.value));
      i = quoted.end;
    } else if (/[0-9]/.test(c)) {
      const number = readNumber(body, i);
      out.push(number);
      i += number.length;
    } else if (/[A-Za-z_$]/.test(c)) {
      const identifier = peekIdentifier(i);
      if (!identifier) throw new ExpressionError(`unexpected "${c}"`);
      const word = WORDS[identifier.name];
      if (identifier.name === 'empty') {
        const operand = peekIdentifier(identifier.end);
        if (!operand) throw new ExpressionError('empty needs a variable');
        out.push(` empty('${operand.name}') `);
        i = operand.end;
        continue;
      }
      out.push(word ? ` ${word} ` : `'${identifier.name}'`);
      i = identifier.end;
      if (!word && body[i] === '(')
        throw new ExpressionError(`methods are not supported: ${identifier.name}()`);
    } else if (two === '&&' || two === '||') {
      out.push(two === '&&' ? ' and ' : ' or ');
      i += 2;
    } else if (two === '==' || two === '!=' || two === '<=' || two === '>=') {
      out.push(` ${two} `);
      i += 2;
    } else if (c === '!') {
      out.push(' not ');
      i++;
    } else if (c === '%') {
      out.push(' mod ');
      i++;
    } else if ('<>+-*/(),'.includes(c)) {
      out.push(c === '(' || c === ')' || c === ',' ? c : ` ${c} `);
      i++;
    } else {
      throw new ExpressionError(`unexpected "${c}"`);
    }
  }
  return out.join('');
}

type Compiled = (data: Record<string, unknown>) => unknown;
const compiled = new Map<string, Compiled>();
const MAX_CACHED = 2000;

/** A variable by a dotted path (a.b.c); undefined when a step is missing. */
function lookup(data: Record<string, unknown>, path: string): { found: boolean; value: unknown } {
  let value: unknown = data;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, step))
      return { found: false, value: undefined };
    value = (value as Record<string, unknown>)[step];
  }
  return { found: true, value };
}

function compile(body: string): Compiled {
  const cached = compiled.get(body);
  if (cached) return cached;
  let fn: Compiled;
  try {
    fn = compileExpression(toFiltrex(body), {
      constants: CONSTANTS,
      customProp: (name, _get, object) => {
        if (name in CONSTANTS) return CONSTANTS[name as keyof typeof CONSTANTS];
        const found = lookup(object as Record<string, unknown>, name);
        if (!found.found) throw new ExpressionError(`unknown variable ${name}`, name);
        return found.value;
      },
    }) as Compiled;
  } catch (error) {
    if (error instanceof ExpressionError) throw error;
    throw new ExpressionError(`cannot read the expression: ${(error as Error).message.split('\n')[0] ?? ''}`);
  }
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(body, fn);
  return fn;
}

const WHOLE = /^\s*\$\{([\s\S]*)\}\s*$/;

/** Whether a text is one `${…}` expression. */
export const isExpression = (text: string): boolean => WHOLE.test(text);

/** Checks an expression at deploy time (syntax only): the error, or undefined. */
export function expressionProblem(text: string): string | undefined {
  const parts = isExpression(text)
    ? [WHOLE.exec(text)?.[1] ?? '']
    : [...text.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1] ?? '');
  for (const part of parts) {
    try {
      compile(part);
    } catch (error) {
      return (error as Error).message;
    }
  }
  return undefined;
}

/** The value of `${…}` (or of a bare expression body) over the variables. */
export function evaluate(text: string, variables: Record<string, unknown>): unknown {
  const body = WHOLE.exec(text)?.[1] ?? text;
  let result: unknown;
  try {
    result = compile(body)(variables);
  } catch (error) {
    if (error instanceof ExpressionError) throw error;
    throw new ExpressionError((error as Error).message);
  }
  if (result instanceof ExpressionError) throw result;
  if (result instanceof Error) throw new ExpressionError(result.message);
  return result;
}

/** A condition: must come out true or false. */
export function evaluateCondition(text: string, variables: Record<string, unknown>): boolean {
  const value = evaluate(text, variables);
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  throw new ExpressionError(`the condition gave ${JSON.stringify(value)}, not true or false`);
}

/**
 * A text that may hold expressions (an assignee "${starter}", a title "Order ${no}"): one
 * whole expression gives its value; otherwise each `${…}` is replaced by its text.
 */
export function interpolate(text: string, variables: Record<string, unknown>): unknown {
  if (isExpression(text)) return evaluate(text, variables);
  // The text made is bounded as a variable is (a field naming a long value many times).
  let length = text.length;
  return text.replace(/\$\{([^}]*)\}/g, (_whole, body: string) => {
    const value = evaluate(body, variables);
    const part = value === null || value === undefined ? '' : String(value);
    length += part.length;
    if (length > BUDGETS.workflow.variableBytes)
      throw new ExpressionError(
        `the text made from "${text.slice(0, 40)}" would be over ${BUDGETS.workflow.variableBytes / 1024} KB (workflow.variableBytes)`,
      );
    return part;
  });
}
