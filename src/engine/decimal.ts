import type { DecimalSpec, FieldSchema } from './types.js';

/** A decimal without a precision of its own (an unconstrained numeric column): 38 digits, 10 after the point. */
export const WIDE_DECIMAL: DecimalSpec = { precision: 38, scale: 10 };

/** The largest precision PostgreSQL's numeric takes with a typmod. */
export const MAX_DECIMAL_PRECISION = 1000;

/** Decimal text as the wire carries it: optional minus, digits, optional point and digits. */
export const DECIMAL_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
/** A 64-bit integer as text. */
export const INT64_TEXT = /^-?(?:0|[1-9]\d{0,18})$/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export function decimalOf(
  schema: Pick<FieldSchema, 'type' | 'format' | 'x-decimal'>,
): DecimalSpec | undefined {
  if (schema.type !== 'string' || schema.format !== 'decimal') return undefined;
  return schema['x-decimal'] ?? WIDE_DECIMAL;
}

export function isInt64(schema: Pick<FieldSchema, 'type' | 'format'>): boolean {
  return schema.type === 'string' && schema.format === 'int64';
}

/** The SQL type of a decimal field. */
export function numericType(spec: DecimalSpec): `numeric(${number},${number})` {
  return `numeric(${spec.precision},${spec.scale})`;
}

interface Parsed {
  negative: boolean;
  whole: string;
  fraction: string;
}

function parse(text: string): Parsed | undefined {
  if (!DECIMAL_TEXT.test(text)) return undefined;
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  return { negative, whole, fraction };
}

/** The value scaled to an integer of `scale` fraction digits (the text must have at most that many). */
function scaled(value: Parsed, scale: number): bigint {
  const digits = BigInt(value.whole + value.fraction.padEnd(scale, '0'));
  return value.negative ? -digits : digits;
}

/** Compares two decimal texts exactly: negative, zero or positive. */
export function compareDecimal(a: string, b: string): number {
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) throw new Error(`not decimal text: ${a}, ${b}`);
  const scale = Math.max(left.fraction.length, right.fraction.length);
  const difference = scaled(left, scale) - scaled(right, scale);
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

/**
 * Decimal text at the scale (padded with zeros: "0.3" at scale 2 is "0.30"); digits beyond the
 * scale are kept, never rounded away (a column that holds more than its schema says). Anything
 * that is not decimal text comes back as it is.
 */
export function normaliseDecimal(text: string, scale: number): string {
  const value = parse(text.trim());
  if (!value) return text;
  const fraction = value.fraction.padEnd(scale, '0');
  const isZero = /^0*$/.test(value.whole + fraction);
  return `${value.negative && !isZero ? '-' : ''}${value.whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * A JavaScript number as exact decimal text, when it is one: its shortest round-trip digits
 * (0.1 is "0.1", 1e21 is "1000000000000000000000"). A spreadsheet's number cell arrives so.
 */
export function numberToDecimalText(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const text = String(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  const digits = whole + fraction;
  const point = whole.length + exponent;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** What is wrong with a decimal value, as a message key and its parameters (undefined: nothing). */
export interface DecimalProblem {
  key: string;
  params: Record<string, unknown>;
}

export function checkDecimal(value: unknown, spec: DecimalSpec): DecimalProblem | undefined {
  if (typeof value !== 'string') return { key: 'validation.type', params: { type: 'string' } };
  const parsed = parse(value);
  if (!parsed) return { key: 'validation.decimal', params: {} };
  if (parsed.fraction.length > spec.scale)
    return { key: 'validation.decimalScale', params: { scale: spec.scale } };
  const wholeDigits = parsed.whole === '0' ? 0 : parsed.whole.length;
  if (wholeDigits > spec.precision - spec.scale)
    return {
      key: 'validation.decimalPrecision',
      params: { precision: spec.precision, digits: spec.precision - spec.scale },
    };
  if (spec.minimum !== undefined && compareDecimal(value, spec.minimum) < 0)
    return { key: 'validation.minimum', params: { limit: spec.minimum } };
  if (spec.maximum !== undefined && compareDecimal(value, spec.maximum) > 0)
    return { key: 'validation.maximum', params: { limit: spec.maximum } };
  return undefined;
}

export function checkInt64(value: unknown): DecimalProblem | undefined {
  if (typeof value !== 'string') return { key: 'validation.type', params: { type: 'string' } };
  if (!INT64_TEXT.test(value)) return { key: 'validation.int64', params: {} };
  const number = BigInt(value);
  if (number < INT64_MIN) return { key: 'validation.minimum', params: { limit: String(INT64_MIN) } };
  if (number > INT64_MAX) return { key: 'validation.maximum', params: { limit: String(INT64_MAX) } };
  return undefined;
}

/**
 * The same rule as a JSON Schema pattern (digits before and after the point), so that the
 * browser's precompiled validators refuse what the server refuses; bounds are the server's.
 */
export function decimalPattern(spec: DecimalSpec): string {
  const whole = spec.precision - spec.scale;
  const wholePart = whole <= 0 ? '0' : `(0|[1-9]\\d{0,${whole - 1}})`;
  const fractionPart = spec.scale > 0 ? `(\\.\\d{1,${spec.scale}})?` : '';
  return `^-?${wholePart}${fractionPart}$`;
}

export const INT64_PATTERN = '^-?(0|[1-9]\\d{0,18})$';

/** A spreadsheet number format showing the scale: #,##0.00 for scale 2, #,##0 for scale 0. */
export function decimalNumberFormat(scale: number): string {
  return scale > 0 ? `#,##0.${'0'.repeat(scale)}` : '#,##0';
}

/** Decimal text with thousands separators, exactly ("1234567.50" → "1,234,567.50"); other text as it is. */
export function groupDecimal(text: string, separator = ','): string {
  const value = parse(text);
  if (!value) return text;
  const whole = value.whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
  return `${value.negative ? '-' : ''}${whole}${value.fraction ? `.${value.fraction}` : ''}`;
}
