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

/** An integer in text, for handlers that still read their parameters as text. */
export const integerText = (digits = 15, extra: Json = {}): Json => ({
  type: 'string',
  pattern: `^\\s*[+-]?[0-9]{0,${digits}}\\s*$`,
  maxLength: digits + 10,
  ...extra,
});

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
