import type { ErrorObject } from 'ajv';
import type { FieldError } from './types.js';

/** Translates a message key with parameters; the server and the browser pass their i18next `t`. */
export type Translate = (key: string, params: Record<string, unknown>) => string;

const ENGLISH: Record<string, string> = {
  'validation.required': 'is required',
  'validation.minLength': 'must be at least {{limit}} characters',
  'validation.maxLength': 'must be at most {{limit}} characters',
  'validation.pattern': 'is not in the expected format',
  'validation.format': 'must be a valid {{format}}',
  'validation.type': 'must be of type {{type}}',
  'validation.enum': 'must be one of the allowed values',
  'validation.minimum': 'must be at least {{limit}}',
  'validation.maximum': 'must be at most {{limit}}',
  'validation.minItems': 'must have at least {{limit}} items',
  'validation.maxItems': 'must have at most {{limit}} items',
  'validation.uniqueItems': 'must not repeat items',
  'validation.additionalProperties': 'is not a field of this form',
  'validation.invalid': 'is invalid',
  'errors.unknownSortField': 'cannot sort by "{{field}}"',
  'errors.unknownFilterField': '"{{field}}" is not a filter of this list',
};

export const englishTranslate: Translate = (key, params) =>
  (ENGLISH[key] ?? ENGLISH['validation.invalid'] ?? key).replace(/\{\{(\w+)\}\}/g, (_, name: string) =>
    String(params[name] ?? ''),
  );

/** Turns ajv errors into field errors keyed by JSON pointer, one per field (the first problem wins). */
export function toFieldErrors(
  errors: readonly ErrorObject[],
  translate: Translate = englishTranslate,
): FieldError[] {
  const byField = new Map<string, string>();
  for (const error of errors) {
    const params = error.params as Record<string, unknown>;
    let field = error.instancePath || '/';
    let key = `validation.${error.keyword}`;
    if (error.keyword === 'required') field = `${error.instancePath}/${String(params.missingProperty)}`;
    if (error.keyword === 'additionalProperties')
      field = `${error.instancePath}/${String(params.additionalProperty)}`;
    if (!(key in ENGLISH)) key = 'validation.invalid';
    if (!byField.has(field)) byField.set(field, translate(key, params));
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}
