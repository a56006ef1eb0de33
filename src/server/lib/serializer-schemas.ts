/**
 * The response schemas Fastify compiles its serializers from, derived from the documented ones.
 *
 * A record "written as it is" (engine/openapi.ts, serializedRecordOf: an object whose
 * properties only name and describe its fields, any other field kept) costs fast-json-stringify
 * a JSON.stringify call per value and, for every key, a search of the named ones: for a page of
 * records several times the CPU of one JSON.stringify of each record, for the same text (named
 * fields first in the schema's order, which is the order the records' columns are selected in).
 * The serializer gets such a schema as "any value" (title and description kept); the API document
 * keeps the named fields.
 */

type Json = Record<string, unknown>;

const isJson = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object schema that names its properties without typing any of them, and keeps any other. */
function isWrittenAsItIs(schema: Json): boolean {
  if (schema.type !== 'object' || schema.additionalProperties !== true) return false;
  const properties = schema.properties;
  if (!isJson(properties)) return false;
  return Object.values(properties).every(
    (property) =>
      isJson(property) && Object.keys(property).every((key) => key === 'title' || key === 'description'),
  );
}

/** The schema with every record written as it is turned into "any value", the rest unchanged. */
export function serializerSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializerSchemaOf);
  if (!isJson(schema)) return schema;
  if (isWrittenAsItIs(schema)) {
    const { title, description } = schema;
    return {
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
    };
  }
  const derived: Json = {};
  for (const [key, value] of Object.entries(schema)) derived[key] = serializerSchemaOf(value);
  return derived;
}
