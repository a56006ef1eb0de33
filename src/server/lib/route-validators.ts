import type { ErrorObject, ValidateFunction } from 'ajv';
import { createAjv } from '../../engine/index.js';
import { SEPARATOR_KEYWORD } from './route-schema.js';

/**
 * The validators Fastify runs for route schemas (plugins/route-schemas.ts). Query strings and
 * path parameters are text, coerced where the schema declares a number; a JSON body has its
 * types, except for whole numbers a schema lets come as text (integerOrText in route-schema.ts).
 */
type Json = Record<string, unknown>;

export type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** A whole number as text: decimal digits, maybe a minus, and spaces around. */
const DECIMAL_INTEGER = /^\s*-?[0-9]+\s*$/;

type PropertySchema = { type?: unknown; items?: { type?: unknown }; minimum?: unknown; maximum?: unknown };

const propertiesOf = (schema: Json): [string, PropertySchema][] =>
  Object.entries((schema.properties ?? {}) as Record<string, PropertySchema>);

const typesOf = (type: unknown): unknown[] => [type].flat();

function notAnInteger(name: string): ErrorObject {
  return {
    instancePath: `/${name}`,
    schemaPath: '#/type',
    keyword: 'type',
    params: { type: 'integer' },
    message: 'must be integer',
  };
}

export interface RouteValidators {
  /** The validator of a query string or path parameters. */
  text(schema: Json): Validator;
  /** The validator of a JSON (or form) body. */
  body(schema: Json): Validator;
}

/** The validators of one app (each with its own ajv instances and their compiled schemas). */
export function createRouteValidators(): RouteValidators {
  const bodyAjv = createAjv();
  const textAjv = createAjv({ coerceTypes: 'array' });
  // An annotation for the splitting below, not a rule ajv checks.
  textAjv.addKeyword({ keyword: SEPARATOR_KEYWORD, schemaType: 'string' });
  // Reads the digits of a body field as its number; an array is never taken for its only item.
  const digitsAjv = createAjv({ coerceTypes: true });
  return {
    text: (schema) =>
      separatedLists(schema, decimalIntegersOnly(schema, finiteNumbersOnly(textAjv.compile(schema)))),
    body: (schema) =>
      integersFromText(schema, bodyAjv.compile(schema), (digits) => digitsAjv.compile(digits)),
  };
}

/**
 * Parameters declared with a separator (route-schema.ts separatedIds) are lists written as text:
 * each text is split there and its empty parts dropped, in place, before the values are checked,
 * so `id=1,2&id=3` reaches the handler as [1, 2, 3] and `id=` as [].
 */
function separatedLists(schema: Json, validate: Validator): Validator {
  const lists = propertiesOf(schema).flatMap(([name, property]) => {
    const separator = (property as Json)[SEPARATOR_KEYWORD];
    return typeof separator === 'string' ? [[name, separator] as const] : [];
  });
  if (lists.length === 0) return validate;
  const check: Validator = (data) => {
    if (typeof data === 'object' && data !== null) {
      const params = data as Json;
      for (const [name, separator] of lists) {
        const value = params[name];
        if (value === undefined) continue;
        params[name] = [value]
          .flat()
          .flatMap((item) => (typeof item === 'string' ? item.split(separator) : [item]))
          .map((item) => (typeof item === 'string' ? item.trim() : item))
          .filter((item) => item !== '');
      }
    }
    const isValid = validate(data);
    check.errors = validate.errors;
    return isValid;
  };
  check.errors = null;
  return check;
}

/**
 * ajv's coercion reads text as JavaScript does ("1e3" is 1000, "0x10" 16, "+1" 1, "1.0" 1); a
 * whole number in a query string is written in decimal digits only, and anything else is
 * refused naming the parameter. Empty text is left to the schema (a null-able parameter takes
 * it as absent).
 */
function decimalIntegersOnly(schema: Json, validate: Validator): Validator {
  const names = propertiesOf(schema)
    .filter(([, property]) => [property.type, property.items?.type].flatMap(typesOf).includes('integer'))
    .map(([name]) => name);
  if (names.length === 0) return validate;
  const check: Validator = (data) => {
    const params = typeof data === 'object' && data !== null ? (data as Json) : {};
    const notDecimal = names.find((name) =>
      [params[name]]
        .flat()
        .some((value) => typeof value === 'string' && value !== '' && !DECIMAL_INTEGER.test(value)),
    );
    if (notDecimal !== undefined) {
      check.errors = [notAnInteger(notDecimal)];
      return false;
    }
    const isValid = validate(data);
    check.errors = validate.errors;
    return isValid;
  };
  check.errors = null;
  return check;
}

/**
 * Text coerced to a number can be infinite ("1e400"), which ajv's integer and range checks let
 * through; such a value is refused here, named, before it reaches a handler or SQL.
 */
function finiteNumbersOnly(validate: ValidateFunction): Validator {
  const check: Validator = (data) => {
    if (!validate(data)) {
      check.errors = validate.errors;
      return false;
    }
    const entries = typeof data === 'object' && data !== null ? Object.entries(data) : [];
    const infinite = entries.find(([, value]) =>
      [value].flat().some((item) => typeof item === 'number' && !Number.isFinite(item)),
    );
    check.errors = infinite ? [notAnInteger(infinite[0])] : null;
    return infinite === undefined;
  };
  check.errors = null;
  return check;
}

/**
 * Body fields declared as a whole number or its digits (type ["integer", "string"]) reach the
 * handler as numbers: text in them is read by the schema's own bounds, in decimal only, before
 * the body is validated as a whole. Other values (true, null, a list) are left for the body's
 * schema to refuse.
 */
function integersFromText(
  schema: Json,
  validate: Validator,
  compileDigits: (schema: Json) => ValidateFunction,
): Validator {
  const fields = propertiesOf(schema).filter(([, property]) => {
    const types = typesOf(property.type);
    return types.includes('integer') && types.includes('string');
  });
  if (fields.length === 0) return validate;
  const readDigits = compileDigits({
    type: 'object',
    properties: Object.fromEntries(
      fields.map(([name, property]) => [
        name,
        {
          type: 'integer',
          ...(typeof property.minimum === 'number' ? { minimum: property.minimum } : {}),
          ...(typeof property.maximum === 'number' ? { maximum: property.maximum } : {}),
        },
      ]),
    ),
  });
  const check: Validator = (data) => {
    const body = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Json) : {};
    const texts: Json = {};
    for (const [name] of fields) if (typeof body[name] === 'string') texts[name] = body[name];
    const notDecimal = Object.keys(texts).find((name) => !DECIMAL_INTEGER.test(String(texts[name])));
    if (notDecimal !== undefined) {
      check.errors = [notAnInteger(notDecimal)];
      return false;
    }
    if (!readDigits(texts)) {
      check.errors = readDigits.errors;
      return false;
    }
    Object.assign(body, texts);
    const isValid = validate(data);
    check.errors = validate.errors;
    return isValid;
  };
  check.errors = null;
  return check;
}
