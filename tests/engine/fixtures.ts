import { fileURLToPath } from 'node:url';
import {
  buildEntity,
  compileValidators,
  createAjv,
  type EntityDef,
  type EntitySchema,
  type EntityValidators,
} from '../../src/engine/index.js';
import { readSchemaSources } from '../../src/server/lib/registry.js';

export type Json = Record<string, unknown>;

export const SCHEMAS_DIR = fileURLToPath(new URL('../../schemas', import.meta.url));
export const FILE = 'schemas/widget.schema.json';

/** Drops keys set to undefined, so that an override can remove a base entry. */
function compact(object: Json): Json {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

export interface SchemaOverrides {
  /** Merged over the base x-entity; undefined removes an entry. */
  entity?: Json;
  /** Merged over the base properties; undefined removes a property. */
  properties?: Json;
  required?: string[];
  /** Merged over the root; undefined removes an entry. */
  root?: Json;
}

/**
 * A small valid entity schema (a "widget") as plain JSON, with overrides: the meta tests feed
 * it broken on purpose, so it is deliberately untyped.
 */
export function widgetJson(overrides: SchemaOverrides = {}): Json {
  return compact({
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Widget',
    type: 'object',
    'x-entity': compact({
      api: 'admin/widget',
      table: 'widget',
      key: 'id',
      label: 'name',
      ...overrides.entity,
    }),
    required: overrides.required ?? ['name'],
    additionalProperties: false,
    properties: compact({
      id: { type: 'integer', readOnly: true },
      name: { type: 'string', title: 'Name', minLength: 1, maxLength: 64 },
      ...overrides.properties,
    }),
    ...overrides.root,
  });
}

/** Builds an entity from a schema assumed valid (the meta tests check that separately). */
export function entityOf(name: string, json: Json): EntityDef {
  return buildEntity(name, json as unknown as EntitySchema);
}

export function validatorsOf(entity: EntityDef): EntityValidators {
  return compileValidators(createAjv(), entity);
}

/** The real schemas of the project, as the server reads them. */
export function realSources(): ReturnType<typeof readSchemaSources> {
  return readSchemaSources(SCHEMAS_DIR);
}
