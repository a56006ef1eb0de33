import Handlebars from 'handlebars';

/**
 * The template engine of the code generator: handlebars in an isolated environment with a fixed
 * set of helpers. Templates are user text (editable in the back-office), so they are only ever
 * data: prototype access stays off (handlebars' default since 4.6), no partials, and any helper
 * outside the fixed set is a compile error (knownHelpersOnly). No helper reads files, runs code
 * or reaches the network; they only transform the values they are given.
 */

export interface TemplateProblem {
  message: string;
  /** 1-based line of the template, when handlebars knows it. */
  line?: number;
  /** 1-based column of the template, when handlebars knows it. */
  column?: number;
}

export class TemplateError extends Error {
  readonly problem: TemplateProblem;
  constructor(problem: TemplateProblem) {
    super(
      problem.line === undefined
        ? problem.message
        : `${problem.line}:${problem.column ?? 1} ${problem.message}`,
    );
    this.name = 'TemplateError';
    this.problem = problem;
  }
}

/** Words of an identifier: "sysUserPost", "sys_user-post" and "SysUserPost" give sys, user, post. */
export function wordsOf(value: string): string[] {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 0)
    .map((word) => word.toLowerCase());
}

const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

export const pascalCase = (value: string): string => wordsOf(value).map(capital).join('');
export const camelCase = (value: string): string => {
  const pascal = pascalCase(value);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
};
export const snakeCase = (value: string): string => wordsOf(value).join('_');
export const kebabCase = (value: string): string => wordsOf(value).join('-');

/** English plural of the last word (the generated names are English identifiers). */
export function plural(value: string): string {
  if (/[^aeiou]y$/i.test(value)) return `${value.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(value)) return `${value}es`;
  return `${value}s`;
}

/** TypeScript type of a JSON Schema scalar type name. */
export function tsTypeOf(type: unknown): string {
  switch (type) {
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    case 'array':
      return 'unknown[]';
    default:
      return 'unknown';
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value : String(value ?? ''));

/**
 * The helper set: pure functions of their arguments. Block helpers are handlebars' own (if,
 * unless, each, with) plus eq/ne as plain values for `{{#if (eq a b)}}`.
 */
const HELPERS: Record<string, (...args: unknown[]) => unknown> = {
  camelCase: (value) => camelCase(text(value)),
  pascalCase: (value) => pascalCase(text(value)),
  snakeCase: (value) => snakeCase(text(value)),
  kebabCase: (value) => kebabCase(text(value)),
  upperCase: (value) => text(value).toUpperCase(),
  lowerCase: (value) => text(value).toLowerCase(),
  plural: (value) => plural(text(value)),
  tsType: (value) => tsTypeOf(value),
  eq: (a, b) => a === b,
  ne: (a, b) => a !== b,
  and: (a, b) => Boolean(a) && Boolean(b),
  or: (a, b) => Boolean(a) || Boolean(b),
  not: (a) => !a,
  // JSON of a value; an optional number indents it (the options hash is always the last argument).
  json: (...args) => {
    const indent = typeof args[1] === 'number' ? args[1] : undefined;
    return JSON.stringify(args[0] ?? null, null, indent);
  },
  // A string literal for TypeScript or JavaScript source.
  quote: (value) => JSON.stringify(text(value)),
  // A string literal for SQL.
  sqlString: (value) => `'${text(value).replace(/'/g, "''")}'`,
};

const BUILT_IN_HELPERS = ['if', 'unless', 'each', 'with', 'lookup', 'log'];

const KNOWN_HELPERS: Record<string, boolean> = Object.fromEntries(
  [...Object.keys(HELPERS), ...BUILT_IN_HELPERS].map((name) => [name, true]),
);

export const HELPER_NAMES: readonly string[] = Object.keys(HELPERS);

interface ParseErrorHash {
  line?: number;
  loc?: { first_line: number; first_column: number };
}

// Handlebars' parser reports positions only through this hook; the error keeps them so a
// template's author sees where the problem is (line and column), not just "Parse error".
Handlebars.parse('');
const parserState = (Handlebars as unknown as { Parser: { yy: Record<string, unknown> } }).Parser.yy;
parserState.parseError = (message: string, hash: ParseErrorHash): never => {
  throw Object.assign(new Error(message), { hash });
};

const environment = Handlebars.create();
for (const [name, helper] of Object.entries(HELPERS)) environment.registerHelper(name, helper);
// `log` would write to the server's console; a template has nothing to say there.
environment.registerHelper('log', () => '');

const COMPILE_OPTIONS: CompileOptions = {
  noEscape: true,
  strict: false,
  knownHelpers: KNOWN_HELPERS,
  knownHelpersOnly: true,
  preventIndent: false,
};

type Render = (model: object) => string;

function problemOf(error: unknown): TemplateProblem {
  const raw = error instanceof Error ? error : new Error(String(error));
  const details = raw as Error & { hash?: ParseErrorHash; lineNumber?: number; column?: number };
  const firstLine = raw.message.split('\n')[0] ?? raw.message;
  if (details.hash?.loc)
    return {
      message: raw.message.split('\n').slice(-1)[0] ?? firstLine,
      line: details.hash.loc.first_line,
      column: details.hash.loc.first_column + 1,
    };
  if (details.hash?.line !== undefined) return { message: firstLine, line: details.hash.line + 1, column: 1 };
  if (typeof details.lineNumber === 'number')
    return {
      message: firstLine.replace(/ - \d+:\d+$/, ''),
      line: details.lineNumber,
      column: (details.column ?? 0) + 1,
    };
  return { message: firstLine };
}

/** Compiles a template, throwing TemplateError with line and column on any problem. */
export function compileTemplate(source: string): Render {
  let template: HandlebarsTemplateDelegate;
  try {
    // Precompiling parses and checks the whole template now rather than on first render.
    environment.precompile(source, COMPILE_OPTIONS);
    template = environment.compile(source, COMPILE_OPTIONS);
  } catch (error) {
    throw new TemplateError(problemOf(error));
  }
  return (model) => {
    try {
      return template(model, {
        allowProtoPropertiesByDefault: false,
        allowProtoMethodsByDefault: false,
        allowCallsToHelperMissing: false,
      });
    } catch (error) {
      throw new TemplateError(problemOf(error));
    }
  };
}

/** The problems of a template (empty when it compiles). */
export function checkTemplate(source: string): TemplateProblem[] {
  try {
    compileTemplate(source);
    return [];
  } catch (error) {
    if (error instanceof TemplateError) return [error.problem];
    throw error;
  }
}
