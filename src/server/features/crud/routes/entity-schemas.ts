import {
  entityRouteSchemas,
  treeEndpointName,
  type EntityDef,
  type RouteSchema,
} from '../../../../engine/index.js';
import { integer, MAX_KEY } from '../../../lib/route-schema.js';

type Json = Record<string, unknown>;

/** The generated routes of an entity, by the last part of their path (the tree route as `tree`). */
export interface EntityRouteSchemas {
  query: RouteSchema;
  add: RouteSchema;
  update: RouteSchema;
  delete: RouteSchema;
  export: RouteSchema;
  tree?: RouteSchema;
}

const MAX_DELETE_KEYS = 1000;

/**
 * Whole-number keys of a delete (?id=1&id=2) are read and bounded by the route schema, so the
 * delete service gets numbers; presence and unknown names stay with the service, which names
 * every field at fault at once.
 */
function withWholeNumberDeleteKeys(entity: EntityDef, schema: RouteSchema): RouteSchema {
  if (entity.key.type !== 'integer') return schema;
  const querystring = schema.querystring;
  const properties = querystring?.properties as Record<string, Json> | undefined;
  const keys = properties?.[entity.key.name];
  if (!querystring || !properties || !keys) return schema;
  return {
    ...schema,
    querystring: {
      ...querystring,
      properties: {
        ...properties,
        [entity.key.name]: { ...keys, items: integer(0, MAX_KEY), maxItems: MAX_DELETE_KEYS },
      },
    },
  };
}

/**
 * The add's answer: the record, and what the entity's after-add work puts beside its fields
 * (a new tenant's administrator).
 */
function withAddedAnswer(schema: RouteSchema, added: Record<string, Json>): RouteSchema {
  const envelope = schema.response?.[200];
  const envelopeProperties = envelope?.properties as Record<string, Json> | undefined;
  const record = envelopeProperties?.data;
  if (!envelope || !envelopeProperties || !record || Object.keys(added).length === 0) return schema;
  const data = { ...record, properties: { ...(record.properties as Json), ...added } };
  return {
    ...schema,
    response: { ...schema.response, 200: { ...envelope, properties: { ...envelopeProperties, data } } },
  };
}

/**
 * The schemas of an entity's generated API, as the engine derives them from its schema file
 * (its fields are known at run time only, so the handlers read them untyped), with the server's
 * own rules on top: whole-number delete keys, and the fields an after-add work answers.
 */
export function entityRouteSchemasOf(
  entity: EntityDef,
  addedToAddAnswer: Record<string, Json> = {},
): EntityRouteSchemas {
  const base = `/api/${entity.api}`;
  const byName = new Map(
    entityRouteSchemas(entity).map((route) => [route.url.slice(base.length + 1), route.schema]),
  );
  const schemaOf = (name: string): RouteSchema => {
    const schema = byName.get(name);
    if (!schema) throw new Error(`the engine declares no ${base}/${name} route`);
    return schema;
  };
  return {
    query: schemaOf('query'),
    add: withAddedAnswer(schemaOf('add'), addedToAddAnswer),
    update: schemaOf('update'),
    delete: withWholeNumberDeleteKeys(entity, schemaOf('delete')),
    export: schemaOf('export'),
    ...(entity.tree ? { tree: schemaOf(treeEndpointName(entity.name)) } : {}),
  };
}
