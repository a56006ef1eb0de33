import type { EntitySchema, FieldError } from './types.js';
import type { Translate } from './messages.js';

/**
 * Visibility conditions of a designed form (root allOf, FieldCondition): a field is shown only
 * while another field equals a value. The rule, the same in the browser and on the server:
 * - a hidden field has no value: the form drops it as the condition turns, and the server refuses
 *   a value sent for it (400 naming the field, validation.hidden);
 * - a field required by its condition is required only while shown;
 * - on an update the conditions are read against the record as it will be (stored values with the
 *   body over them), and a hidden field's stored value is cleared (NULL), so no stale value stays.
 */

type Values = Readonly<Record<string, unknown>>;

const isEmpty = (value: unknown): boolean => value === undefined || value === null || value === '';

/** The fields hidden by their visibility condition for these values. */
export function hiddenByConditions(schema: Pick<EntitySchema, 'allOf'>, values: Values): Set<string> {
  const hidden = new Set<string>();
  for (const entry of schema.allOf ?? []) {
    const [other, test] = Object.entries(entry.if.properties)[0] ?? [];
    if (other === undefined || values[other] === test?.const) continue;
    for (const name of Object.keys(entry.else.properties)) hidden.add(name);
  }
  return hidden;
}

/** What an update does about the conditions: errors to answer, stored values to clear. */
export interface ConditionOutcome {
  errors: FieldError[];
  /** Hidden fields whose stored value is cleared by this update. */
  clear: string[];
}

/**
 * Checks an update against the conditions. `stored` is the record before the update, `values`
 * the validated body, `cleared` the fields the body empties.
 */
export function checkConditionsOnUpdate(
  schema: Pick<EntitySchema, 'allOf'>,
  stored: Values,
  values: Values,
  cleared: readonly string[],
  translate: Translate,
): ConditionOutcome {
  if (!schema.allOf?.length) return { errors: [], clear: [] };
  const after: Record<string, unknown> = { ...stored, ...values };
  for (const name of cleared) after[name] = null;
  const hidden = hiddenByConditions(schema, after);
  const errors: FieldError[] = [];
  const clear: string[] = [];
  for (const name of hidden) {
    if (!isEmpty(values[name]))
      errors.push({ field: `/${name}`, message: translate('validation.hidden', {}) });
    else if (!isEmpty(stored[name]) && !cleared.includes(name)) clear.push(name);
  }
  for (const entry of schema.allOf) {
    for (const name of entry.then?.required ?? []) {
      if (!hidden.has(name) && isEmpty(after[name]))
        errors.push({ field: `/${name}`, message: translate('validation.required', {}) });
    }
  }
  return { errors, clear };
}
