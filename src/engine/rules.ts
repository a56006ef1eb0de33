import {
  evaluateExpression,
  ExpressionError,
  expressionProblem,
  expressionValues,
  fieldValueOf,
  parseExpression,
  ruleHolds,
} from './expressions.js';
import type { Translate } from './messages.js';
import type { ComputedOptions, EntitySchema, FieldError, FieldSchema } from './types.js';

/**
 * Computed fields (x-computed) and cross-field rules (x-rules) of an entity or designed form,
 * the same in the browser (the form as the user types) and on the server (every add, update,
 * import and published form's write): see engine/expressions.ts for the language.
 *
 * - A computed field is read-only; a stored one (stored: true) is a column written on every
 *   add and update from the record as it will be, a virtual one is computed when read.
 * - A rule holds unless its expression comes out false; a broken rule puts its message
 *   (an i18n key, or a designed form's own text) under each of its fields.
 */

type Schema = Pick<EntitySchema, 'properties' | 'x-rules'>;
type Values = Readonly<Record<string, unknown>>;

/** The computed fields of a schema, in schema order. */
export function computedFields(
  schema: Pick<EntitySchema, 'properties'>,
): [string, FieldSchema, ComputedOptions][] {
  return Object.entries(schema.properties).flatMap(([name, property]) => {
    const computed = property['x-computed'];
    return computed ? [[name, property, computed] as [string, FieldSchema, ComputedOptions]] : [];
  });
}

/** Whether a field is computed when read (x-computed without stored): no column of its own. */
export const isVirtual = (schema: FieldSchema): boolean =>
  schema['x-computed'] !== undefined && schema['x-computed'].stored !== true;

/** A rule's message as the reader reads it: a key through i18n, a designed form's text as it is. */
export function ruleMessage(message: string, translate: Translate): string {
  if (!/^[\w-]+(\.[\w-]+)+$/.test(message)) return message;
  const text = translate(message, {});
  return text && text !== message ? text : message;
}

export interface ComputedOutcome {
  /** The computed fields' values (stored and virtual alike), by name. */
  values: Record<string, unknown>;
  /** Computed fields that could not be computed (division by zero, too large for the field). */
  errors: FieldError[];
}

/** Computes the computed fields over a record (only the stored ones when `storedOnly`). */
export function computeFields(
  schema: Pick<EntitySchema, 'properties'>,
  record: Values,
  translate: Translate,
  storedOnly = false,
): ComputedOutcome {
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  const fields = computedFields(schema).filter(([, , computed]) => !storedOnly || computed.stored === true);
  if (fields.length === 0) return { values, errors };
  const inputs = expressionValues(schema.properties, record);
  for (const [name, property, computed] of fields) {
    try {
      values[name] = fieldValueOf(property, evaluateExpression(computed.expression, inputs));
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      values[name] = null;
      errors.push({
        field: `/${name}`,
        message: translate('validation.computed', { reason: error.message }),
      });
    }
  }
  return { values, errors };
}

/** The record with its virtual computed fields filled in (a read's answer). */
export function withVirtualFields<T extends Record<string, unknown>>(
  schema: Pick<EntitySchema, 'properties'>,
  record: T,
  translate: Translate,
): T {
  const virtual = computedFields(schema).filter(([, property]) => isVirtual(property));
  if (virtual.length === 0) return record;
  // A computed field never reads another (ruleSchemaProblems): one pass computes them all.
  const { values } = computeFields(schema, record, translate);
  const shown: Record<string, unknown> = { ...record };
  for (const [name] of virtual) shown[name] = values[name] ?? null;
  return shown as T;
}

/** The field errors of the rules the record breaks (one message per field, the first rule wins). */
export function ruleErrors(schema: Schema, record: Values, translate: Translate): FieldError[] {
  const rules = schema['x-rules'] ?? [];
  if (rules.length === 0) return [];
  const inputs = expressionValues(schema.properties, record);
  const byField = new Map<string, string>();
  for (const rule of rules) {
    let holds: boolean;
    try {
      holds = ruleHolds(evaluateExpression(rule.expression, inputs));
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      holds = false;
    }
    if (holds) continue;
    const fields = rule.fields?.length ? rule.fields : parseExpression(rule.expression).names;
    const message = ruleMessage(rule.message, translate);
    for (const name of fields.length > 0 ? fields : ['']) {
      const pointer = `/${name}`;
      if (!byField.has(pointer)) byField.set(pointer, message);
    }
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

/**
 * What a write does about computed fields and rules, over the record as it will be (`record`:
 * the stored values with the body over them, or the new record): the stored computed fields'
 * values to write and the errors to answer (rules broken, values that cannot be computed).
 */
export function checkRecord(schema: Schema, record: Values, translate: Translate): ComputedOutcome {
  const computed = computeFields(schema, record, translate, true);
  const errors = [...computed.errors];
  const full = { ...record, ...computed.values };
  for (const error of ruleErrors(schema, full, translate))
    if (!errors.some((other) => other.field === error.field)) errors.push(error);
  return { values: computed.values, errors };
}

/** A problem of a schema's x-computed and x-rules, by JSON pointer (what checkEntitySchema reports). */
export interface RuleSchemaProblem {
  pointer: string;
  message: string;
}

/** Checks every expression of a schema: syntax, budget, the fields it reads. */
export function ruleSchemaProblems(schema: Schema): RuleSchemaProblem[] {
  const problems: RuleSchemaProblem[] = [];
  const computed = new Set(computedFields(schema).map(([name]) => name));
  const readable = new Set(
    Object.entries(schema.properties)
      .filter(([name, property]) => !computed.has(name) && property['x-detail'] === undefined)
      .map(([name]) => name),
  );
  for (const [name, property, options] of computedFields(schema)) {
    const pointer = `/properties/${name}/x-computed`;
    const problem = expressionProblem(options.expression, readable);
    if (problem) {
      const detail = computed.has(problem.match(/^"(.*)" is not/)?.[1] ?? '')
        ? `${problem.replace(/ is not a field of this schema$/, '')} is itself computed; compute from the other fields`
        : problem;
      problems.push({ pointer: `${pointer}/expression`, message: `x-computed of "${name}": ${detail}` });
    }
    const kind =
      property['x-detail'] !== undefined || property.type === 'array' || property.type === 'object';
    if (kind)
      problems.push({
        pointer,
        message: `x-computed of "${name}": a list or object field cannot be computed`,
      });
    for (const keyword of ['x-auto', 'x-ref', 'x-dict', 'x-secret', 'x-unique'] as const)
      if (property[keyword] !== undefined)
        problems.push({ pointer, message: `x-computed of "${name}" cannot go with ${keyword}` });
  }
  const all = new Set([...readable, ...computed]);
  (schema['x-rules'] ?? []).forEach((rule, index) => {
    const pointer = `/x-rules/${index}`;
    const problem = expressionProblem(rule.expression, all);
    if (problem)
      problems.push({ pointer: `${pointer}/expression`, message: `x-rules ${index + 1}: ${problem}` });
    for (const field of rule.fields ?? [])
      if (!Object.hasOwn(schema.properties, field))
        problems.push({
          pointer: `${pointer}/fields`,
          message: `x-rules ${index + 1}: "${field}" is not a field of this schema`,
        });
  });
  return problems;
}
