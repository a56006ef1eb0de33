import { toFieldErrors, type FieldError } from '../../engine/index.js';
import type { AppContext } from './context.js';
import { AppError } from './errors.js';
import type { Translate } from './i18n.js';

/**
 * A text field, trimmed (docs/product.md §5 trims everything a person types except passwords);
 * a number (a JSON body's digits) is taken as its digits.
 */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

/** A password as typed: never trimmed. */
export function secretOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** 400 naming every empty field. */
export function requireFields(t: Translate, values: Record<string, string>): void {
  const missing: FieldError[] = Object.entries(values)
    .filter(([, value]) => value === '')
    .map(([name]) => ({ field: `/${name}`, message: t('validation.required') }));
  if (missing.length > 0) throw new AppError('validation', {}, missing);
}

/**
 * The rule an entity schema gives one field, as a check of a single value (a new password, an
 * address, a mobile number outside an entity form): empty is "required", anything else must pass
 * the schema's own rule. Failures come back as field errors at `pointer`.
 */
export function fieldRule({
  ctx,
  entityName,
  fieldName,
}: {
  ctx: AppContext;
  entityName: string;
  fieldName: string;
}): (value: string, pointer: string, t: Translate) => FieldError[] {
  const schema = ctx.registry.require(entityName).fieldsByName.get(fieldName)?.schema;
  if (!schema) throw new Error(`${entityName} has no field ${fieldName}`);
  const validate = ctx.registry.ajv.compile({
    type: 'object',
    properties: { value: schema },
    required: ['value'],
  });
  return (value, pointer, t) => {
    if (value === '') return [{ field: pointer, message: t('validation.required') }];
    if (validate({ value })) return [];
    return toFieldErrors(validate.errors ?? [], t).map((error) => ({ ...error, field: pointer }));
  };
}

/** fieldRule's check, throwing the 400. */
export function assertField(errors: FieldError[]): void {
  if (errors.length > 0) throw new AppError('validation', {}, errors);
}
