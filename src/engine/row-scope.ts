import { isValidDateText } from './list-query.js';
import { DECIMAL_TEXT, INT64_TEXT } from './decimal.js';
import type { Translate } from './messages.js';
import type { EntityDef, FieldDef, FieldError } from './types.js';

/**
 * Row data scopes (RuoYi's 数据权限): which records of an entity a role sees and changes.
 * - all: every record of the tenant (also what a role without a scope row gets);
 * - org: records of the caller's organisation; orgBelow: of it and the organisations below it;
 * - self: records the caller created (created_by);
 * - orgs: records of the chosen organisations;
 * - condition: records matching a condition written in the filter vocabulary of the entity.
 *
 * A record's organisation is the field named by x-entity.scope.org, or, when the entity declares
 * none, the organisation of the user who created it (created_by). A caller with several roles
 * sees the union of their scopes.
 */
export const DATA_SCOPES = ['all', 'org', 'orgBelow', 'self', 'orgs', 'condition'] as const;
export type DataScope = (typeof DATA_SCOPES)[number];

/** One role's scope on one entity (menu code = entity name), as the role page sets it. */
export interface DataScopeSetting {
  menuCode: string;
  scope: DataScope;
  /** The chosen organisations (scope orgs). */
  orgIds: number[];
  /** The condition (scope condition). */
  condition: string | null;
}

/** The caller's values a condition may name ($user.…). */
export const SCOPE_VARIABLES = {
  id: 'integer',
  username: 'string',
  orgId: 'integer',
  orgs: 'integers',
  orgsBelow: 'integers',
} as const;
export type ScopeVariable = keyof typeof SCOPE_VARIABLES;

export type ScopeValue =
  { kind: 'literal'; value: string | number | boolean } | { kind: 'variable'; name: ScopeVariable };

export type ScopeComparison = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** A parsed condition: field names are fields of the entity, values typed as the field. */
export type ScopeExpr =
  | { op: 'and' | 'or'; items: ScopeExpr[] }
  | { op: 'not'; item: ScopeExpr }
  | { op: 'compare'; field: FieldDef; comparison: ScopeComparison; value: ScopeValue }
  | { op: 'in'; field: FieldDef; isNegated: boolean; values: ScopeValue[] }
  | { op: 'null'; field: FieldDef; isNegated: boolean };

/** The longest condition text accepted (a condition is a rule, not a list of records). */
export const MAX_SCOPE_CONDITION = 2000;
const MAX_DEPTH = 20;

type Token =
  | { type: 'word'; text: string; at: number }
  | { type: 'variable'; text: string; at: number }
  | { type: 'number'; value: number; text: string; at: number }
  | { type: 'string'; value: string; at: number }
  | { type: 'symbol'; text: string; at: number };

class ScopeSyntaxError extends Error {
  constructor(
    readonly at: number,
    readonly key: string,
    readonly params: Record<string, unknown> = {},
  ) {
    super(key);
  }
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index] ?? '';
    if (/\s/.test(char)) {
      index += 1;
      continue;
    }
    const rest = text.slice(index);
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    const variable = /^\$user\.([A-Za-z]+)/.exec(rest);
    const number = /^-?\d+(\.\d+)?/.exec(rest);
    const symbol = /^(<=|>=|!=|<>|=|<|>|\(|\)|,)/.exec(rest);
    if (variable) {
      tokens.push({ type: 'variable', text: variable[1] ?? '', at: index });
      index += variable[0].length;
    } else if (word) {
      tokens.push({ type: 'word', text: word[0], at: index });
      index += word[0].length;
    } else if (number) {
      tokens.push({ type: 'number', value: Number(number[0]), text: number[0], at: index });
      index += number[0].length;
    } else if (char === "'" || char === '"') {
      const end = text.indexOf(char, index + 1);
      if (end < 0) throw new ScopeSyntaxError(index, 'errors.scopeSyntax');
      tokens.push({ type: 'string', value: text.slice(index + 1, end), at: index });
      index = end + 1;
    } else if (symbol) {
      tokens.push({ type: 'symbol', text: symbol[0] === '<>' ? '!=' : symbol[0], at: index });
      index += symbol[0].length;
    } else {
      throw new ScopeSyntaxError(index, 'errors.scopeSyntax');
    }
  }
  return tokens;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'is', 'null', 'true', 'false']);

/** Parses a condition against an entity; throws ScopeSyntaxError. */
class Parser {
  private index = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly entity: EntityDef,
    private readonly length: number,
  ) {}

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }
  private at(): number {
    return this.peek()?.at ?? this.length;
  }
  private isKeyword(text: string): boolean {
    const token = this.peek();
    return token?.type === 'word' && token.text.toLowerCase() === text;
  }
  private isSymbol(text: string): boolean {
    const token = this.peek();
    return token?.type === 'symbol' && token.text === text;
  }
  private expectSymbol(text: string): void {
    if (!this.isSymbol(text)) throw new ScopeSyntaxError(this.at(), 'errors.scopeSyntax');
    this.index += 1;
  }

  parse(): ScopeExpr {
    if (this.tokens.length === 0) throw new ScopeSyntaxError(0, 'errors.scopeSyntax');
    const expr = this.or(0);
    if (this.index < this.tokens.length) throw new ScopeSyntaxError(this.at(), 'errors.scopeSyntax');
    return expr;
  }

  private or(depth: number): ScopeExpr {
    const items = [this.and(depth)];
    while (this.isKeyword('or')) {
      this.index += 1;
      items.push(this.and(depth));
    }
    return items.length === 1 && items[0] ? items[0] : { op: 'or', items };
  }

  private and(depth: number): ScopeExpr {
    const items = [this.factor(depth)];
    while (this.isKeyword('and')) {
      this.index += 1;
      items.push(this.factor(depth));
    }
    return items.length === 1 && items[0] ? items[0] : { op: 'and', items };
  }

  private factor(depth: number): ScopeExpr {
    if (depth > MAX_DEPTH) throw new ScopeSyntaxError(this.at(), 'errors.scopeSyntax');
    if (this.isKeyword('not')) {
      this.index += 1;
      return { op: 'not', item: this.factor(depth + 1) };
    }
    if (this.isSymbol('(')) {
      this.index += 1;
      const inner = this.or(depth + 1);
      this.expectSymbol(')');
      return inner;
    }
    return this.comparison();
  }

  private fieldAt(): FieldDef {
    const token = this.peek();
    if (token?.type !== 'word' || KEYWORDS.has(token.text.toLowerCase()))
      throw new ScopeSyntaxError(this.at(), 'errors.scopeSyntax');
    const field = this.entity.fieldsByName.get(token.text);
    // The vocabulary of the list's filters: a field the API filters on, scalar.
    if (!field?.filter || field.type === 'array' || field.type === 'object' || field.detail)
      throw new ScopeSyntaxError(token.at, 'errors.unknownFilterField', { field: token.text });
    this.index += 1;
    return field;
  }

  private comparison(): ScopeExpr {
    const field = this.fieldAt();
    if (this.isKeyword('is')) {
      this.index += 1;
      const isNegated = this.isKeyword('not');
      if (isNegated) this.index += 1;
      if (!this.isKeyword('null')) throw new ScopeSyntaxError(this.at(), 'errors.scopeSyntax');
      this.index += 1;
      return { op: 'null', field, isNegated };
    }
    let isNegated = false;
    if (this.isKeyword('not')) {
      this.index += 1;
      isNegated = true;
      if (!this.isKeyword('in')) throw new ScopeSyntaxError(this.at(), 'errors.scopeSyntax');
    }
    if (this.isKeyword('in')) {
      this.index += 1;
      const token = this.peek();
      if (token?.type === 'variable') {
        const value = this.value(field, true);
        return { op: 'in', field, isNegated, values: [value] };
      }
      this.expectSymbol('(');
      const values = [this.value(field, false)];
      while (this.isSymbol(',')) {
        this.index += 1;
        values.push(this.value(field, false));
      }
      this.expectSymbol(')');
      return { op: 'in', field, isNegated, values };
    }
    const token = this.peek();
    if (token?.type !== 'symbol' || !['=', '!=', '<', '<=', '>', '>='].includes(token.text))
      throw new ScopeSyntaxError(this.at(), 'errors.scopeSyntax');
    this.index += 1;
    return {
      op: 'compare',
      field,
      comparison: token.text as ScopeComparison,
      value: this.value(field, false),
    };
  }

  /** A value for `field`: a literal of its type, or a $user variable (a list one only after in). */
  private value(field: FieldDef, isListAllowed: boolean): ScopeValue {
    const token = this.peek();
    if (!token) throw new ScopeSyntaxError(this.length, 'errors.scopeSyntax');
    const mismatch = () =>
      new ScopeSyntaxError(token.at, 'errors.scopeType', { field: field.name, type: field.type });
    this.index += 1;
    if (token.type === 'variable') {
      if (!(token.text in SCOPE_VARIABLES))
        throw new ScopeSyntaxError(token.at, 'errors.scopeVariable', { name: `$user.${token.text}` });
      const name = token.text as ScopeVariable;
      const kind = SCOPE_VARIABLES[name];
      if (kind === 'integers' && !isListAllowed) throw new ScopeSyntaxError(token.at, 'errors.scopeSyntax');
      const isNumeric = field.type === 'integer' || field.type === 'number';
      if (kind === 'string' ? field.type !== 'string' : !isNumeric) throw mismatch();
      return { kind: 'variable', name };
    }
    if (token.type === 'word' && ['true', 'false'].includes(token.text.toLowerCase())) {
      if (field.type !== 'boolean') throw mismatch();
      return { kind: 'literal', value: token.text.toLowerCase() === 'true' };
    }
    if (token.type === 'number') {
      if (field.type === 'string') return { kind: 'literal', value: token.text };
      if (field.type === 'integer' && !Number.isSafeInteger(token.value)) throw mismatch();
      if (field.type !== 'integer' && field.type !== 'number') throw mismatch();
      return { kind: 'literal', value: token.value };
    }
    if (token.type === 'string') {
      if (field.type !== 'string') throw mismatch();
      if (token.value.includes('\u0000')) throw mismatch();
      const isDate = field.schema.format === 'date' || field.schema.format === 'date-time';
      if (isDate && !isValidDateText(token.value)) throw mismatch();
      // exact numbers travel as text, but only their digits are values of theirs
      if (field.schema.format === 'decimal' && !DECIMAL_TEXT.test(token.value)) throw mismatch();
      if (field.schema.format === 'int64' && !INT64_TEXT.test(token.value)) throw mismatch();
      return { kind: 'literal', value: token.value };
    }
    throw new ScopeSyntaxError(token.at, 'errors.scopeSyntax');
  }
}

/**
 * Reads a scope condition (`status = 1 and orgId in $user.orgs`) against an entity: fields of its
 * filter vocabulary, comparisons = != < <= > >=, in (…), not in, is [not] null, and / or / not,
 * parentheses, literals of the field's type and $user.id, .username, .orgId, .orgs, .orgsBelow.
 * Answers the parsed condition, or the error to report on `pointer`.
 */
export function parseScopeCondition(
  entity: EntityDef,
  text: string,
  translate: Translate,
  pointer: string,
): { expr: ScopeExpr } | { error: FieldError } {
  if (text.length > MAX_SCOPE_CONDITION)
    return {
      error: { field: pointer, message: translate('validation.maxLength', { limit: MAX_SCOPE_CONDITION }) },
    };
  try {
    return { expr: new Parser(tokenize(text), entity, text.length).parse() };
  } catch (error) {
    if (!(error instanceof ScopeSyntaxError)) throw error;
    return {
      error: { field: pointer, message: translate(error.key, { at: error.at + 1, ...error.params }) },
    };
  }
}
