import type { FastifyInstance, FastifyTypeProvider } from 'fastify';
import { envelopeSchema, type RouteSchema } from '../../engine/index.js';
import type { Envelope } from '../../engine/api-types.js';

/**
 * The vocabulary route schemas are written in. Values that reach SQL are strings without NUL
 * (PostgreSQL text cannot hold one: the schema refuses it naming the parameter), bounded in
 * length, and integers within JavaScript's exact range.
 *
 * Each helper returns the JSON Schema and carries, as a type only, what a value that passed it
 * is in the handler (after the route validators' coercion, lib/route-validators.ts). Routes
 * declared through `typed(app)` get `request.query`, `request.params` and `request.body` of
 * those types: no handler casts what a schema has already checked.
 */
type Json = Record<string, unknown>;

export type { RouteSchema };

declare const valueType: unique symbol;

/** A JSON Schema whose accepted values are T (a type only: nothing is added to the schema). */
export type Schema<T> = Json & { readonly [valueType]?: (value: T) => T };

/** What a value that passed schema S is (unknown for a schema written without this vocabulary). */
export type Infer<S> = S extends { readonly [valueType]?: (value: infer T) => unknown } ? T : unknown;

const typedAs = <T>(schema: Json): Schema<T> => schema as Schema<T>;

/** Fastify's view of the vocabulary: a route's parts get the types of their schemas. */
export interface SchemaTypeProvider extends FastifyTypeProvider {
  validator: Infer<this['schema']>;
  serializer: unknown;
}

/** The app as routes are declared on it: parts of the request typed by their schemas. */
export const typed = (app: FastifyInstance) => app.withTypeProvider<SchemaTypeProvider>();

/** No NUL anywhere in the string. */
export const NO_NUL = '^[^\\u0000]*$';

/** A text parameter or field. */
export const text = (maxLength = 200, extra: Json = {}): Schema<string> =>
  typedAs<string>({ type: 'string', maxLength, pattern: NO_NUL, ...extra });

/**
 * A text field of a body that may come as JSON or as a form (account calls): a number is
 * taken as its digits, as the handlers always did.
 */
export const textOrNumber = (maxLength = 200, extra: Json = {}): Schema<string | number> =>
  typedAs<string | number>({ type: ['string', 'number'], maxLength, pattern: NO_NUL, ...extra });

/** A whole number (query strings are coerced: "12" is 12). */
export const integer = (minimum = 1, maximum = Number.MAX_SAFE_INTEGER, extra: Json = {}): Schema<number> =>
  typedAs<number>({ type: 'integer', minimum, maximum, ...extra });

/**
 * A whole number a body may send as its digits ("5", as a form or a loose client sends it): it
 * reaches the handler as the number (lib/route-validators.ts reads the text by these bounds).
 */
export const integerOrText = (
  minimum = 1,
  maximum = Number.MAX_SAFE_INTEGER,
  extra: Json = {},
): Schema<number> =>
  typedAs<number>({
    type: ['integer', 'string'],
    minimum,
    maximum,
    pattern: '^\\s*-?[0-9]+\\s*$',
    maxLength: 40,
    ...extra,
  });

/** A record key. */
export const id = (description?: string): Schema<number> =>
  integer(1, Number.MAX_SAFE_INTEGER, description ? { description } : {});

/** Keys sent as a repeated query parameter (id=1&id=2). */
export const ids = (maxItems = 1000, description?: string): Schema<number[]> =>
  typedAs<number[]>({ type: 'array', items: id(), maxItems, ...(description ? { description } : {}) });

/**
 * The keyword of a query parameter whose values are lists written as one text with a separator
 * (`id=1,2&id=3`): the route's validator splits the text there before the items are checked
 * (lib/route-validators.ts), so the handler gets the list of values.
 */
export const SEPARATOR_KEYWORD = 'x-separator';

/** Whole-number keys, repeated or comma-separated (id=1,2&id=3); empty parts are skipped. */
export const separatedIds = (maxItems = 1000, description?: string, minItems = 0): Schema<number[]> =>
  typedAs<number[]>({
    type: 'array',
    items: integer(0, MAX_KEY),
    ...(minItems > 0 ? { minItems } : {}),
    maxItems,
    [SEPARATOR_KEYWORD]: ',',
    ...(description ? { description } : {}),
  });

/** An integer in text, for parameters the engine's list parser reads as text (paging). */
export const integerText = (digits = 15, extra: Json = {}): Schema<string> =>
  typedAs<string>({
    type: 'string',
    pattern: `^\\s*[+-]?[0-9]{0,${digits}}\\s*$`,
    maxLength: digits + 10,
    ...extra,
  });

/**
 * A whole number that may be sent empty (?parentId=): the handler gets null then, meaning
 * "not given", as an HTML form or a client leaving a field blank sends it.
 */
export const optionalInteger = (
  minimum = 1,
  maximum = Number.MAX_SAFE_INTEGER,
  extra: Json = {},
): Schema<number | null> =>
  typedAs<number | null>({ ...integer(minimum, maximum, extra), type: ['integer', 'null'] });

/** The largest record key a query parameter carries: 15 digits, as keys were always read. */
export const MAX_KEY = 999_999_999_999_999;

export const flag = (description?: string): Schema<'true' | 'false' | ''> =>
  typedAs<'true' | 'false' | ''>({
    type: 'string',
    enum: ['true', 'false', ''],
    ...(description ? { description } : {}),
  });

type Properties = Record<string, Json>;
type Flatten<T> = { [K in keyof T]: T[K] } & {};
/** The object a schema of `properties` with `required` accepts (the others may be absent). */
export type ObjectOf<P extends Properties, R extends string> = Flatten<
  { [K in R & keyof P]: Infer<P[K]> } & { [K in Exclude<keyof P, R>]?: Infer<P[K]> }
>;

/** The names `required` may list: the properties' (any name where they are not known one by one). */
type RequiredName<P extends Properties> = string extends keyof P ? string : keyof P & string;

export const object = <const P extends Properties, const R extends RequiredName<P> = never>(
  properties: P,
  required: readonly R[] = [],
  extra: Json = {},
): Schema<ObjectOf<P, R>> =>
  typedAs<ObjectOf<P, R>>({
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...extra,
  });

/** An array of items of one schema. */
export const arrayOf = <T>(items: Schema<T>, extra: Json = {}): Schema<T[]> =>
  typedAs<T[]>({ type: 'array', items, ...extra });

/** One of the given texts. */
export const oneOf = <const V extends string>(values: readonly V[], extra: Json = {}): Schema<V> =>
  typedAs<V>({ type: 'string', enum: values, ...extra });

/** A true or false. */
export const bool = (extra: Json = {}): Schema<boolean> => typedAs<boolean>({ type: 'boolean', ...extra });

/** A number (not only whole). */
export const decimal = (extra: Json = {}): Schema<number> => typedAs<number>({ type: 'number', ...extra });

/** Null, or what `schema` accepts. */
export const nullable = <T>(schema: Schema<T>): Schema<T | null> => {
  const type = schema.type;
  return typedAs<T | null>({
    ...schema,
    type: Array.isArray(type) ? [...type, 'null'] : type === undefined ? undefined : [type, 'null'],
  });
};

/** Any JSON value at all (a record written as it is, a process variable). */
export const anyJson = (extra: Json = {}): Schema<unknown> => typedAs<unknown>({ ...extra });

/** An object with any properties, each what `values` accepts (default: any value). */
export const dictionary = <T = unknown>(values?: Schema<T>, extra: Json = {}): Schema<Record<string, T>> =>
  typedAs<Record<string, T>>({ type: 'object', additionalProperties: values ?? true, ...extra });

/** The 200 answer: the envelope around `data` (any JSON when not described). */
export const answer = <T>(data: Schema<T> | Json = {}): Record<200, Schema<Envelope<T>>> => ({
  200: typedAs<Envelope<T>>(envelopeSchema(data)),
});

/** A route reachable without a token. */
export const PUBLIC_SECURITY: Json[] = [];
