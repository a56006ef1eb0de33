import type { FastifyRequest } from 'fastify';
import type { FieldError } from '../../engine/index.js';
import { AppError } from '../errors.js';
import { queryOf } from '../http.js';
import type { Translate } from '../i18n/index.js';

/**
 * The fields of a public account call: the query string and a JSON or form body together (the
 * front-ends send either), the body winning. Repeated query parameters count once.
 */
export function inputOf(request: FastifyRequest): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(queryOf(request))) {
    merged[name] = Array.isArray(value) ? value[0] : value;
  }
  const body = request.body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) Object.assign(merged, body);
  return merged;
}

/** A text field, trimmed (SPEC §5 trims everything a person types except passwords). */
export function textOf(input: Record<string, unknown>, name: string): string {
  const value = input[name];
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

/** A password as typed: never trimmed. */
export function secretOf(input: Record<string, unknown>, name: string): string {
  const value = input[name];
  return typeof value === 'string' ? value : '';
}

/** 400 naming every empty field. */
export function requireFields(t: Translate, values: Record<string, string>): void {
  const missing: FieldError[] = Object.entries(values)
    .filter(([, value]) => value === '')
    .map(([name]) => ({ field: `/${name}`, message: t('validation.required') }));
  if (missing.length > 0) throw new AppError('validation', {}, missing);
}

export const MOBILE_PATTERN = /^[0-9]{5,15}$/;
