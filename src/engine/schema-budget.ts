import { patternProblem, type PatternProblemKind } from './pattern-check.js';

/**
 * The budgets of one entity or form schema, checked before anything compiles it (the
 * meta-schema's `uniqueItems` on an enum alone is quadratic in its values; a pattern is
 * compiled and run on every write): its size as JSON, the values of each `enum`, and each
 * regular expression (`pattern`, the keys of `patternProperties`: see pattern-check.ts).
 */

export interface SchemaLimits {
  /** Characters of one pattern. */
  patternLength: number;
  /** Values of one enum. */
  enumValues: number;
  /** The schema as JSON, in UTF-8 bytes. */
  schemaBytes: number;
}

export type SchemaBudgetKind = 'schemaBytes' | 'enumValues' | PatternProblemKind;

export interface SchemaBudgetProblem {
  /** JSON pointer of the value past its budget, in the schema. */
  pointer: string;
  kind: SchemaBudgetKind;
  /** The budget's name in BUDGETS: schemas.schemaBytes, schemas.enumValues, schemas.patternLength or schemas.pattern. */
  budget: string;
  params: Record<string, string | number>;
}

const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Keywords whose value is data (not a schema): what they hold is never a pattern to check. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
/** Keywords whose value maps names to schemas (a property may be called "default" or "enum"). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every budget the schema goes past (empty when none), the size first. */
export function schemaBudgetProblems(json: unknown, limits: SchemaLimits): SchemaBudgetProblem[] {
  const bytes = new TextEncoder().encode(JSON.stringify(json) ?? '').length;
  if (bytes > limits.schemaBytes)
    return [
      {
        pointer: '',
        kind: 'schemaBytes',
        budget: 'schemas.schemaBytes',
        params: { bytes, limit: limits.schemaBytes },
      },
    ];
  const problems: SchemaBudgetProblem[] = [];
  const checkPattern = (pattern: string, pointer: string): void => {
    const problem = patternProblem(pattern, limits.patternLength);
    if (problem)
      problems.push({
        pointer,
        kind: problem.kind,
        budget: problem.kind === 'patternLength' ? 'schemas.patternLength' : 'schemas.pattern',
        params: problem.params,
      });
  };
  const walk = (node: unknown, pointer: string, isSchemaMap: boolean): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, `${pointer}/${index}`, false));
      return;
    }
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const at = `${pointer}/${escapePointer(key)}`;
      if (isSchemaMap) {
        walk(value, at, false);
        continue;
      }
      if (key === 'enum' && Array.isArray(value) && value.length > limits.enumValues)
        problems.push({
          pointer: at,
          kind: 'enumValues',
          budget: 'schemas.enumValues',
          params: { count: value.length, limit: limits.enumValues },
        });
      if (key === 'pattern' && typeof value === 'string') checkPattern(value, at);
      if (key === 'patternProperties' && isObject(value))
        for (const pattern of Object.keys(value)) checkPattern(pattern, `${at}/${escapePointer(pattern)}`);
      if (!DATA_KEYWORDS.has(key)) walk(value, at, SCHEMA_MAPS.has(key));
    }
  };
  walk(json, '', false);
  return problems;
}

/** The problem in English, for start-up messages and logs (answers use the locales' budgets.problems). */
export function describeSchemaBudgetProblem(problem: SchemaBudgetProblem): string {
  const details = Object.entries(problem.params)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
  return `past the budget ${problem.budget}: ${problem.kind}${details ? ` (${details})` : ''}`;
}
