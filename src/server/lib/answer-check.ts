import { createAjv } from '../../engine/index.js';

/**
 * The check of answers against their route's declared 200 schema, for the integration suite
 * (tests/support/app.ts turns it on through buildApp's `onAnswerMismatch`): every JSON answer a
 * test causes is compared, as JSON.stringify would write it, with what the API document says.
 *
 * Stricter than the serializer on purpose: an object that names its properties and says nothing
 * of others accepts no others here, since fast-json-stringify would drop them silently (the
 * client would miss a field the handler meant to send).
 */
type Json = Record<string, unknown>;

export interface AnswerMismatch {
  method: string;
  url: string;
  /** Where the answer differs from its schema, as ajv words it ("/data/records/0/name must be string"). */
  problems: string[];
}

const isJson = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'];

/** The schema with `additionalProperties: false` wherever an object names properties and says nothing of others. */
export function closedSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closedSchemaOf);
  if (!isJson(schema)) return schema;
  const closed: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA_MAPS.includes(key) && isJson(value))
      closed[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, closedSchemaOf(sub)]),
      );
    else if (SUBSCHEMA_LISTS.includes(key) && Array.isArray(value)) closed[key] = value.map(closedSchemaOf);
    else if (['items', 'additionalProperties', 'not', 'if', 'then', 'else'].includes(key))
      closed[key] = closedSchemaOf(value);
    else closed[key] = value;
  }
  const namesProperties = isJson(schema.properties) && Object.keys(schema.properties).length > 0;
  if (namesProperties && schema.additionalProperties === undefined && schema.patternProperties === undefined)
    closed.additionalProperties = false;
  return closed;
}

export type AnswerCheck = (answer: unknown) => string[];

/** The checks of one app: one ajv, schemas compiled once per route. */
export function createAnswerChecks(): (schema: Json) => AnswerCheck {
  // The answer schemas carry documentation keywords (example, x-… annotations): not rules.
  const ajv = createAjv({ strict: false, useDefaults: false });
  return (schema) => {
    const validate = ajv.compile(closedSchemaOf(schema) as Json);
    return (answer) => {
      const written: unknown = JSON.parse(JSON.stringify(answer) ?? 'null');
      if (validate(written)) return [];
      return (validate.errors ?? []).map((error) => {
        const extra =
          error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
        return `${error.instancePath || '/'} ${error.message ?? error.keyword}${extra}`;
      });
    };
  };
}
