import { envelopeSchema, type RouteSchema } from '../../engine/index.js';

/**
 * The vocabulary route schemas are written in. Values that reach SQL are strings without NUL
 * (PostgreSQL text cannot hold one: the schema refuses it naming the parameter), bounded in
 * length, and integers within JavaScript's exact range.
 */
type Json = Record<string, unknown>;

export type { RouteSchema };

/** No NUL anywhere in the string. */
export const NO_NUL = '^[^\\u0000]*$';

/** A text parameter or field. */
export const text = (maxLength = 200, extra: Json = {}): Json => ({
  type: 'string',
  maxLength,
  pattern: NO_NUL,
  ...extra,
});

/**
 * A text field of a body that may come as JSON or as a form (account calls): a number is
 * taken as its digits, as the handlers always did.
 */
export const textOrNumber = (maxLength = 200, extra: Json = {}): Json => ({
  type: ['string', 'number'],
  maxLength,
  pattern: NO_NUL,
  ...extra,
});

/** A whole number (query strings are coerced: "12" is 12). */
export const integer = (minimum = 1, maximum = Number.MAX_SAFE_INTEGER, extra: Json = {}): Json => ({
  type: 'integer',
  minimum,
  maximum,
  ...extra,
});

/**
 * A whole number a body may send as its digits ("5", as a form or a loose client sends it): it
 * reaches the handler as the number (lib/route-validators.ts reads the text by these bounds).
 */
export const integerOrText = (minimum = 1, maximum = Number.MAX_SAFE_INTEGER, extra: Json = {}): Json => ({
  type: ['integer', 'string'],
  minimum,
  maximum,
  pattern: '^\\s*-?[0-9]+\\s*$',
  maxLength: 40,
  ...extra,
});

/** A record key. */
export const id = (description?: string): Json =>
  integer(1, Number.MAX_SAFE_INTEGER, description ? { description } : {});

/** Keys sent as a repeated query parameter (id=1&id=2). */
export const ids = (maxItems = 1000, description?: string): Json => ({
  type: 'array',
  items: id(),
  maxItems,
  ...(description ? { description } : {}),
});

/**
 * The keyword of a query parameter whose values are lists written as one text with a separator
 * (`id=1,2&id=3`): the route's validator splits the text there before the items are checked
 * (lib/route-validators.ts), so the handler gets the list of values.
 */
export const SEPARATOR_KEYWORD = 'x-separator';

/** Whole-number keys, repeated or comma-separated (id=1,2&id=3); empty parts are skipped. */
export const separatedIds = (maxItems = 1000, description?: string): Json => ({
  type: 'array',
  items: integer(0, MAX_KEY),
  maxItems,
  [SEPARATOR_KEYWORD]: ',',
  ...(description ? { description } : {}),
});

/** An integer in text, for parameters the engine's list parser reads as text (paging). */
export const integerText = (digits = 15, extra: Json = {}): Json => ({
  type: 'string',
  pattern: `^\\s*[+-]?[0-9]{0,${digits}}\\s*$`,
  maxLength: digits + 10,
  ...extra,
});

/**
 * A whole number that may be sent empty (?parentId=): the handler gets null then, meaning
 * "not given", as an HTML form or a client leaving a field blank sends it.
 */
export const optionalInteger = (minimum = 1, maximum = Number.MAX_SAFE_INTEGER, extra: Json = {}): Json => ({
  ...integer(minimum, maximum, extra),
  type: ['integer', 'null'],
});

/** The largest record key a query parameter carries: 15 digits, as keys were always read. */
export const MAX_KEY = 999_999_999_999_999;

export const flag = (description?: string): Json => ({
  type: 'string',
  enum: ['true', 'false', ''],
  ...(description ? { description } : {}),
});

export const object = (
  properties: Record<string, Json>,
  required: string[] = [],
  extra: Json = {},
): Json => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  ...extra,
});

/** The 200 answer: the envelope around `data` (any JSON when not described). */
export const answer = (data: Json = {}): Record<string, Json> => ({ 200: envelopeSchema(data) });

/** A route reachable without a token. */
export const PUBLIC_SECURITY: Json[] = [];
