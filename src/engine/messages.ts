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
  'validation.type': 'must be {{type}}',
  'validation.typeName.integer': 'a whole number',
  'validation.typeName.number': 'a number',
  'validation.typeName.string': 'text',
  'validation.typeName.boolean': 'yes or no',
  'validation.typeName.array': 'a list',
  'validation.typeName.object': 'an object',
  'validation.typeName.null': 'empty',
  'validation.enum': 'must be one of the allowed values',
  'validation.minimum': 'must be at least {{limit}}',
  'validation.maximum': 'must be at most {{limit}}',
  'validation.minItems': 'must have at least {{limit}} items',
  'validation.maxItems': 'must have at most {{limit}} items',
  'validation.uniqueItems': 'must not repeat items',
  'validation.minProperties': 'must have at least {{limit}} entries',
  'validation.maxProperties': 'must have at most {{limit}} entries',
  'validation.additionalProperties': 'is not a field of this form',
  'validation.invalid': 'is invalid',
  'validation.hidden': 'is hidden by its condition and takes no value',
  'validation.computed': 'cannot be computed: {{reason}}',
  'validation.decimal': 'must be a decimal number written out, such as 12.50',
  'validation.decimalScale': 'must have at most {{scale}} digits after the decimal point',
  'validation.decimalPrecision': 'must have at most {{digits}} digits before the decimal point',
  'validation.int64': 'must be a whole number of at most 19 digits',
  'errors.unknownSortField': 'cannot sort by "{{field}}"',
  'errors.unknownFilterField': '"{{field}}" is not a filter of this list',
};

export const englishTranslate: Translate = (key, params) =>
  (ENGLISH[key] ?? ENGLISH['validation.invalid'] ?? key).replace(/\{\{(\w+)\}\}/g, (_, name: string) =>
    String(params[name] ?? ''),
  );

/** A JSON Schema type in words (整数, a whole number), never its code; the first of a list of types. */
export function typeWord(type: unknown, translate: Translate): string {
  const first = String(Array.isArray(type) ? type[0] : type).split(',')[0] ?? '';
  const key = `validation.typeName.${first}`;
  return key in ENGLISH ? translate(key, {}) : first;
}

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
    // A visibility condition (engine/conditions.ts): the field's own error says it is hidden;
    // the if/else wrapper adds nothing.
    if (error.keyword === 'if') continue;
    if (error.keyword === 'false schema') key = 'validation.hidden';
    if (!(key in ENGLISH)) key = 'validation.invalid';
    if (!byField.has(field))
      byField.set(
        field,
        translate(
          key,
          error.keyword === 'type' ? { ...params, type: typeWord(params.type, translate) } : params,
        ),
      );
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

/** Formats with wording of their own (请输入正确的邮箱地址); the others read 请输入正确的 + title. */
const WORDED_FORMATS: Readonly<Record<string, string>> = {
  email: 'email',
  'idn-email': 'email',
  uri: 'url',
  url: 'url',
  'uri-reference': 'url',
  ipv4: 'ip',
  ipv6: 'ip',
};

/** What a message says about the field it stands under. */
export interface MessageField {
  /** The field's title in the reader's language. */
  title: string;
  /** Typed in (请输入…) or chosen (请选择…). */
  entry: 'input' | 'choice';
}

/**
 * The message of one ajv problem as a person filling the form reads it, in the words Chinese
 * admin users know (请输入用户名, 请选择角色, 请输入正确的邮箱地址): the key under
 * validation.field and its parameters, the field's title among them.
 */
export function fieldMessage(
  keyword: string,
  params: Readonly<Record<string, unknown>>,
  field: MessageField,
): { key: string; params: Record<string, unknown> } {
  const withTitle = { ...params, title: field.title };
  const choose = field.entry === 'choice';
  switch (keyword) {
    case 'required':
      return { key: choose ? 'validation.field.choose' : 'validation.field.enter', params: withTitle };
    case 'format': {
      const worded = WORDED_FORMATS[String(params.format)];
      if (worded) return { key: `validation.field.format.${worded}`, params: withTitle };
      return { key: choose ? 'validation.field.choose' : 'validation.field.correct', params: withTitle };
    }
    case 'pattern':
      return { key: 'validation.field.correct', params: withTitle };
    case 'type':
    case 'enum':
      return { key: choose ? 'validation.field.choose' : 'validation.field.correct', params: withTitle };
    case 'minLength':
    case 'maxLength':
    case 'minimum':
    case 'maximum':
    case 'minItems':
    case 'maxItems':
    case 'uniqueItems':
      return { key: `validation.field.${keyword}`, params: withTitle };
    default:
      return { key: 'validation.field.invalid', params: withTitle };
  }
}
