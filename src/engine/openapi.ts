import { detailFields, readableFields } from './columns.js';
import { treeEndpointName } from './naming.js';
import type { EntityDef, FieldDef } from './types.js';
import { createSchemaOf, updateSchemaOf } from './validators.js';
import { MAX_PAGE_SIZE } from './list-query.js';
import { DEFAULT_TREE_LAZY_ABOVE, MAX_TREE_LAZY_ABOVE } from './tree.js';

type Json = Record<string, unknown>;

/**
 * A route's schema in Fastify's shape (querystring, params, body, response are what Fastify
 * validates and serializes with) plus what only the API document reads: tags, summary,
 * `bodyDocument` (the body as documented, when the route validates a looser shape and its
 * service checks the rest), `produces` (a non-JSON answer) and `security` ([] for public routes).
 */
export interface RouteSchema {
  tags?: string[];
  summary?: string;
  description?: string;
  security?: Json[];
  querystring?: Json;
  params?: Json;
  body?: Json;
  bodyDocument?: Json;
  response?: Record<string, Json>;
  produces?: string;
  consumes?: string[];
}

export interface RouteDeclaration {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  schema: RouteSchema;
}

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
  // Detail rows come with a detail read (a query by the key), never with a list.
  for (const field of detailFields(entity)) properties[field.name] = { ...field.schema };
  return {
    type: 'object',
    title: entity.title,
    properties,
    required: fields.map((field) => field.name),
    additionalProperties: false,
  };
}

/** The answer envelope around `data`; Fastify compiles it into the route's serializer. */
export function envelopeSchema(data: Json = {}): Json {
  return {
    type: 'object',
    required: ['code', 'message', 'data'],
    properties: {
      code: { type: 'integer', enum: [200] },
      message: { type: 'string', enum: ['success'] },
      data,
    },
  };
}

/** The error envelope every failure answers with (see the server's errors module). */
export const ERROR_SCHEMA: Json = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'integer' },
    message: { type: 'string' },
    error: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: {
          field: { type: 'string', description: 'JSON pointer of the field at fault' },
          message: { type: 'string' },
        },
      },
    },
  },
  examples: [{ code: 400, message: '参数校验失败', errors: [{ field: '/username', message: '不能为空' }] }],
};

/**
 * A record as the serializer writes it: every field named and described, values written as they
 * are (typed serialization would refuse a database value of another JSON type instead of
 * writing it), unknown extra fields kept.
 */
export function serializedRecordOf(entity: EntityDef): Json {
  const properties: Record<string, Json> = {};
  for (const field of readableFields(entity)) {
    properties[field.name] = {
      title: field.schema.title ?? field.name,
      description: `${field.type}${field.schema.format ? ` (${field.schema.format})` : ''}${field.isKey ? ', key' : ''}`,
    };
  }
  for (const field of detailFields(entity)) {
    properties[field.name] = {
      title: field.schema.title ?? field.name,
      description: 'detail rows in order; answered by a query by the key, not by a list',
    };
  }
  return { type: 'object', title: entity.title, properties, additionalProperties: true };
}

const filterText = (field: FieldDef): string =>
  field.filter === 'text'
    ? 'contains, case-insensitive'
    : field.filter === 'dateRange'
      ? 'from,to (either may be empty)'
      : 'equals; repeat for any of several values';

const INTEGER_TEXT = '^\\s*-?[0-9]{1,16}\\s*$';

/** Paging, sort and the filters of a list: the query string of query and tree, the body of export. */
export function listQuerySchemaOf(entity: EntityDef): Json {
  const properties: Record<string, Json> = {
    // Integers in text: the list parser names the rule a value breaks (at least 1, at most …).
    currentPage: { type: 'string', pattern: INTEGER_TEXT, description: '1-based; default 1' },
    pageSize: { type: 'string', pattern: INTEGER_TEXT, description: `1 to ${MAX_PAGE_SIZE}; default 20` },
    sort: { type: 'string', maxLength: 1000, description: 'field or -field, comma-separated' },
    totalExact: { type: 'string', enum: ['true', 'false', '1', '0'], description: 'count every row' },
    after: { type: 'string', maxLength: 4000, description: 'keyset cursor of the previous page' },
  };
  for (const field of entity.fields) {
    if (!field.filter) continue;
    properties[field.name] = {
      type: ['string', 'array'],
      items: { type: 'string' },
      maxItems: 1000,
      description: filterText(field),
    };
  }
  // Unknown names pass on to the list parser, which names them ("not a filter of this list").
  return { type: 'object', properties };
}

/**
 * An export body: the list's filters and sort as JSON values. Paging does not apply to an
 * export, but a bad page number is still refused as on the query endpoint.
 */
function exportBodySchemaOf(entity: EntityDef): Json {
  const scalar = { type: ['string', 'number', 'boolean', 'null'], maxLength: 1000 };
  const properties: Record<string, Json> = {
    currentPage: {
      type: ['integer', 'string'],
      pattern: '^[0-9]{1,10}$',
      minimum: 1,
      maximum: 1_000_000_000,
    },
    pageSize: { type: ['integer', 'string'], pattern: '^[0-9]{1,6}$', minimum: 1, maximum: MAX_PAGE_SIZE },
    sort: { type: 'string', maxLength: 1000 },
  };
  for (const field of entity.fields) {
    if (field.filter)
      properties[field.name] = { anyOf: [scalar, { type: 'array', items: scalar, maxItems: 1000 }] };
  }
  return { type: 'object', properties, description: 'The filters and sort of the query endpoint' };
}

/** A page of a list (`{records, total, totalExact, currentPage, pageSize, cursor?}`) of the given records. */
export function pageSchemaOf(record: Json): Json {
  return {
    type: 'object',
    properties: {
      records: { type: 'array', items: record },
      total: { description: 'integer; estimated above a size threshold unless totalExact' },
      totalExact: { type: 'boolean' },
      currentPage: { type: 'integer' },
      pageSize: { type: 'integer' },
      cursor: {
        type: 'string',
        description: 'the position after the last row: send it as after for the next page',
      },
      countTimedOut: {
        type: 'boolean',
        description: 'the exact count asked for gave up at the time limit; total is the estimate',
      },
    },
    additionalProperties: true,
  };
}

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * The route schemas of an entity's generated API, derived from its schema alone: what the
 * server validates and serializes with and what the API document shows.
 */
export function entityRouteSchemas(entity: EntityDef): RouteDeclaration[] {
  const base = `/api/${entity.api}`;
  const tags = [entity.name];
  const record = serializedRecordOf(entity);
  const page = pageSchemaOf(record);
  const listQuery = listQuerySchemaOf(entity);
  // A tree is never paged, but a page parameter it is sent must still be a page number.
  const positive = { type: 'string', pattern: '^\\s*[1-9][0-9]{0,15}\\s*$' };
  const parent = entity.tree ? entity.fieldsByName.get(entity.tree.parent) : undefined;
  const treeQuery = {
    ...listQuery,
    properties: {
      ...(listQuery.properties as Json),
      currentPage: { ...positive, description: 'ignored: a tree is not paged' },
      pageSize: { ...positive, description: 'ignored: a tree is not paged' },
      parentId: {
        ...(parent?.type === 'integer'
          ? { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER }
          : { type: 'string', maxLength: 200, pattern: '^[^\\u0000]*$' }),
        description: `one level: the children of this node (${JSON.stringify(entity.tree?.root ?? 0)}: the top level), each with hasChildren`,
      },
      lazyAbove: {
        type: ['integer', 'null'],
        minimum: 0,
        maximum: MAX_TREE_LAZY_ABOVE,
        description: `the whole tree while it has at most this many nodes (default ${DEFAULT_TREE_LAZY_ABOVE}), otherwise its top level`,
      },
    },
  };
  const routes: RouteDeclaration[] = [
    {
      method: 'GET',
      url: `${base}/query`,
      schema: {
        tags,
        summary: `List ${entity.title}`,
        querystring: listQuery,
        response: { 200: envelopeSchema(page) },
      },
    },
    {
      method: 'POST',
      url: `${base}/add`,
      schema: {
        tags,
        summary: `Create ${entity.title}`,
        // Read-only fields a form sends back are dropped and "" means "no value": the service
        // normalises, then validates against the create schema (bodyDocument).
        body: { type: 'object' },
        bodyDocument: { title: `${pascal(entity.name)}Create`, ...createSchemaOf(entity) },
        response: { 200: envelopeSchema(record) },
      },
    },
    {
      method: 'PUT',
      url: `${base}/update`,
      schema: {
        tags,
        summary: `Update ${entity.title}`,
        body: { type: 'object' },
        bodyDocument: { title: `${pascal(entity.name)}Update`, ...updateSchemaOf(entity) },
        response: { 200: envelopeSchema(record) },
      },
    },
    {
      method: 'POST',
      url: `${base}/delete`,
      schema: {
        tags,
        summary: `Delete ${entity.title}`,
        querystring: {
          type: 'object',
          properties: {
            [entity.key.name]: {
              type: 'array',
              // the delete service types the keys itself (its messages name the key field)
              items: { type: 'string', maxLength: 1000 },
              maxItems: 10_000,
              description: 'repeat for a batch',
            },
          },
          // required and unknown names are checked by the delete service, which names every
          // field at fault at once (a region deleted with ?id= hears of /id and of /regionCode)
        },
        response: { 200: envelopeSchema({ type: 'object', properties: { deleted: { type: 'integer' } } }) },
      },
    },
    {
      method: 'POST',
      url: `${base}/export`,
      schema: {
        tags,
        summary: `Export ${entity.title} as .xlsx`,
        body: exportBodySchemaOf(entity),
        produces: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
    },
  ];
  if (entity.tree) {
    routes.push({
      method: 'GET',
      url: `${base}/${treeEndpointName(entity.name)}`,
      schema: {
        tags,
        summary: `${entity.title} tree`,
        querystring: treeQuery,
        response: {
          200: envelopeSchema({
            type: 'array',
            items: {
              ...record,
              properties: {
                ...(record.properties as Json),
                hasChildren: {
                  type: 'boolean',
                  description: 'one level answered: whether the node has children',
                },
              },
              description: 'with children (the whole tree) or hasChildren (one level)',
            },
          }),
        },
      },
    });
  }
  return routes;
}

/** A value that fits a schema, for the document's examples. */
export function exampleOf(schema: unknown, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 6) return undefined;
  const s = schema as Json;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.anyOf)) return exampleOf(s.anyOf[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'object': {
      const out: Json = {};
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      for (const [name, property] of Object.entries(properties)) {
        const value = exampleOf(property, depth + 1);
        if (value !== undefined) out[name] = value;
      }
      return out;
    }
    case 'array': {
      const item = exampleOf(s.items, depth + 1);
      return item === undefined ? [] : [item];
    }
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    case 'string':
      if (s.format === 'date-time') return '2026-01-01T08:00:00.000Z';
      if (s.format === 'date') return '2026-01-01';
      if (s.format === 'email') return 'name@example.com';
      if (s.format === 'decimal') {
        const scale = (s['x-decimal'] as { scale?: number } | undefined)?.scale ?? 2;
        return scale > 0 ? `1234.${'5'.padEnd(scale, '0')}` : '1234';
      }
      if (s.format === 'int64') return '1859123456789012345';
      if (typeof s.title === 'string') return s.title;
      return 'text';
    default:
      return undefined;
  }
}

const ERROR_STATUSES: Record<string, string> = {
  400: 'Invalid input; errors[] names each field by JSON pointer',
  401: 'Missing, expired or revoked token (error: invalid_token)',
  403: 'Not allowed',
  404: 'No such record or route',
  409: 'Unique clash, stale version, or the record is in use',
  413: 'Body over 1 MB',
  415: 'Not a JSON body',
  429: 'Rate limited',
};

const withExample = (schema: Json): Json => {
  const example = exampleOf(schema);
  return example === undefined ? { schema } : { schema, example };
};

/** The OpenAPI operation of one route schema. */
export function openApiOperation(method: string, url: string, schema: RouteSchema, isPublic: boolean): Json {
  const parameters: Json[] = [];
  const pathParams = [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] ?? '');
  for (const [where, part] of [
    ['query', schema.querystring],
    ['path', schema.params],
  ] as const) {
    const properties = (part?.properties ?? {}) as Record<string, Json>;
    const required = new Set((part?.required ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      parameters.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(typeof property.description === 'string' ? { description: property.description } : {}),
        schema: property,
        ...(property.type === 'array' || (Array.isArray(property.type) && property.type.includes('array'))
          ? { style: 'form', explode: true }
          : {}),
      });
    }
  }
  for (const name of pathParams) {
    if (!parameters.some((item) => item.name === name && item.in === 'path'))
      parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  const operation: Json = {
    tags: schema.tags ?? [],
    summary: schema.summary ?? `${method} ${url}`,
    operationId: `${method.toLowerCase()}${url.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    ...(schema.description ? { description: schema.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
  };
  const body = schema.bodyDocument ?? schema.body;
  if (body) {
    const types = schema.consumes ?? ['application/json'];
    operation.requestBody = {
      required: schema.bodyDocument !== undefined,
      content: Object.fromEntries(types.map((type) => [type, withExample(body)])),
    };
  }
  const ok = schema.response?.['200'];
  const responses: Json = {
    200: schema.produces
      ? {
          description: 'OK',
          content: { [schema.produces]: { schema: { type: 'string', format: 'binary' } } },
        }
      : { description: 'OK', content: { 'application/json': withExample(ok ?? envelopeSchema()) } },
  };
  const statuses = ['400', ...(isPublic ? [] : ['401', '403']), '404', '429'];
  if (method !== 'GET' && body) statuses.push('413', '415');
  if (method !== 'GET' && !isPublic) statuses.push('409');
  for (const status of statuses.sort()) {
    responses[status] = {
      description: ERROR_STATUSES[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  operation.responses = responses;
  if (isPublic) operation.security = [];
  return operation;
}

export interface DocumentedRoute extends RouteDeclaration {
  isPublic: boolean;
}

/**
 * Moves every titled object schema (records, create and update bodies) into components and
 * refers to it, so that an entity's record is written once however many routes answer it.
 */
function hoistTitled(value: unknown, components: Record<string, Json>, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => hoistTitled(item, components, names));
  if (typeof value !== 'object' || value === null) return value;
  const object = value as Json;
  const out: Json = {};
  for (const [key, item] of Object.entries(object)) {
    out[key] = key === 'example' ? item : hoistTitled(item, components, names);
  }
  if (typeof object.title !== 'string' || object.type !== 'object' || !object.properties) return out;
  const text = JSON.stringify(out);
  let name = names.get(text);
  if (!name) {
    const base = object.title.replace(/[^A-Za-z0-9]+/g, '') || 'Schema';
    name = base;
    for (let index = 2; components[name]; index += 1) name = `${base}${index}`;
    components[name] = out;
    names.set(text, name);
  }
  return { $ref: `#/components/schemas/${name}` };
}

/** OpenAPI 3.1 of the given routes (the server passes every route it registered). */
export function openApiDocumentOf(routes: readonly DocumentedRoute[], info: Json): Json {
  const paths: Record<string, Json> = {};
  const tags = new Set<string>();
  const schemas: Record<string, Json> = { Error: ERROR_SCHEMA };
  const names = new Map<string, string>();
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = hoistTitled(
      openApiOperation(route.method, route.url, route.schema, route.isPublic),
      schemas,
      names,
    ) as Json;
    for (const tag of route.schema.tags ?? []) tags.add(tag);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info,
    tags: [...tags].sort().map((name) => ({ name })),
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'access_token of POST /api/uaa/oauth/token',
        },
        clientBasic: {
          type: 'http',
          scheme: 'basic',
          description: 'The app client (browser: for the built-in one), on the token endpoint',
        },
      },
    },
    security: [{ bearer: [] }],
    paths,
  };
}

/** The OpenAPI 3.1 document of the generated API, derived from the entity definitions alone. */
export function openApiDocument(
  entities: readonly EntityDef[],
  info: Json & { title: string; version: string },
): Json {
  return openApiDocumentOf(
    entities.flatMap((entity) => entityRouteSchemas(entity).map((route) => ({ ...route, isPublic: false }))),
    info,
  );
}
