import { readableFields } from './columns.js';
import { treeEndpointName } from './naming.js';
import type { EntityDef } from './types.js';
import { createSchemaOf, updateSchemaOf } from './validators.js';
import { MAX_PAGE_SIZE } from './list-query.js';

type Json = Record<string, unknown>;

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

const ALWAYS_SET = new Set(['tenantCode', 'createdAt', 'updatedAt', 'version']);

/**
 * The record an endpoint returns: every readable field is present (secrets never are); a field
 * without a value is null, except the key and the bookkeeping columns that are always set.
 */
export function recordSchemaOf(entity: EntityDef): Json {
  const properties: Record<string, Json> = {};
  const fields = readableFields(entity);
  for (const field of fields) {
    const isAlwaysSet = field.isKey || (field.isSystem && ALWAYS_SET.has(field.name));
    properties[field.name] = isAlwaysSet
      ? { ...field.schema }
      : { ...field.schema, type: [field.schema.type, 'null'] };
  }
  return {
    type: 'object',
    title: entity.title,
    properties,
    required: fields.map((field) => field.name),
    additionalProperties: false,
  };
}

const envelope = (data: Json): Json => ({
  type: 'object',
  required: ['code', 'message', 'data'],
  properties: { code: { const: 200 }, message: { const: 'success' }, data },
});

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

function errorResponses(...statuses: number[]): Json {
  const text: Record<number, string> = {
    400: 'Invalid input; errors[] names each field by JSON pointer',
    401: 'Missing, expired or revoked token (error: invalid_token)',
    403: 'Not allowed',
    404: 'No such record',
    409: 'Unique clash, stale version, or the record is in use',
  };
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { description: text[status], content: { 'application/json': { schema: ref('Error') } } },
    ]),
  );
}

function queryParameters(entity: EntityDef): Json[] {
  const paging: Json[] = [
    { name: 'currentPage', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
    {
      name: 'pageSize',
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 },
    },
    {
      name: 'sort',
      in: 'query',
      description: 'field or -field, comma-separated',
      schema: { type: 'string' },
    },
  ];
  const filters = entity.fields
    .filter((field) => field.filter)
    .map((field) => ({
      name: field.name,
      in: 'query',
      description:
        field.filter === 'text'
          ? 'contains, case-insensitive'
          : field.filter === 'dateRange'
            ? 'from,to (either may be empty)'
            : 'equals; repeat for any of several values',
      schema: { type: 'string' },
    }));
  return [...paging, ...filters];
}

/** The OpenAPI 3.1 document of the generated API, derived from the entity definitions alone. */
export function openApiDocument(
  entities: readonly EntityDef[],
  info: { title: string; version: string },
): Json {
  const schemas: Json = {
    Error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'integer' },
        message: { type: 'string' },
        error: { type: 'string' },
        errors: {
          type: 'array',
          items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
        },
      },
    },
  };
  const paths: Json = {};
  for (const entity of entities) {
    const name = pascal(entity.name);
    schemas[name] = recordSchemaOf(entity);
    schemas[`${name}Create`] = createSchemaOf(entity);
    schemas[`${name}Update`] = updateSchemaOf(entity);
    const base = `/api/${entity.api}`;
    const tags = [entity.name];
    const json = (schema: Json): Json => ({ content: { 'application/json': { schema } } });
    paths[`${base}/query`] = {
      get: {
        tags,
        summary: `List ${entity.title}`,
        parameters: queryParameters(entity),
        responses: {
          200: {
            description: 'A page of records',
            ...json(
              envelope({
                type: 'object',
                properties: {
                  records: { type: 'array', items: ref(name) },
                  total: { type: 'integer' },
                  currentPage: { type: 'integer' },
                  pageSize: { type: 'integer' },
                },
              }),
            ),
          },
          ...errorResponses(400, 401, 403),
        },
      },
    };
    paths[`${base}/add`] = {
      post: {
        tags,
        summary: `Create ${entity.title}`,
        requestBody: { required: true, ...json(ref(`${name}Create`)) },
        responses: {
          200: { description: 'The created record', ...json(envelope(ref(name))) },
          ...errorResponses(400, 401, 403, 409),
        },
      },
    };
    paths[`${base}/update`] = {
      put: {
        tags,
        summary: `Update ${entity.title}`,
        requestBody: { required: true, ...json(ref(`${name}Update`)) },
        responses: {
          200: { description: 'The updated record', ...json(envelope(ref(name))) },
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    };
    paths[`${base}/delete`] = {
      post: {
        tags,
        summary: `Delete ${entity.title}`,
        parameters: [
          {
            name: entity.key.name,
            in: 'query',
            required: true,
            style: 'form',
            explode: true,
            schema: { type: 'array', items: { type: entity.key.type } },
          },
        ],
        responses: {
          200: {
            description: 'How many were deleted',
            ...json(envelope({ type: 'object', properties: { deleted: { type: 'integer' } } })),
          },
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    };
    paths[`${base}/export`] = {
      post: {
        tags,
        summary: `Export ${entity.title} as .xlsx`,
        requestBody: {
          ...json({ type: 'object', description: 'The filters and sort of the query endpoint' }),
        },
        responses: {
          200: {
            description: 'Spreadsheet',
            content: {
              'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
                schema: { type: 'string', format: 'binary' },
              },
            },
          },
          ...errorResponses(400, 401, 403),
        },
      },
    };
    if (entity.tree) {
      paths[`${base}/${treeEndpointName(entity.name)}`] = {
        get: {
          tags,
          summary: `${entity.title} tree`,
          responses: {
            200: {
              description: 'Nested records with children',
              ...json(envelope({ type: 'array', items: ref(name) })),
            },
            ...errorResponses(401, 403),
          },
        },
      };
    }
  }
  return {
    openapi: '3.1.0',
    info,
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
