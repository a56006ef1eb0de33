import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Ajv } from 'ajv';
import {
  compileEntities,
  compileValidators,
  createAjv,
  SchemaFileError,
  type EntityDef,
  type EntityValidators,
  type FieldDef,
  type SchemaSource,
} from '../../engine/index.js';

export interface Reference {
  /** The entity holding the foreign key. */
  from: EntityDef;
  field: FieldDef;
}

export interface EntityRegistry {
  all: readonly EntityDef[];
  get(name: string): EntityDef | undefined;
  require(name: string): EntityDef;
  validators(entity: EntityDef): EntityValidators;
  /** Fields of any entity that refer to this one (tree parents included). */
  referencesTo(entity: EntityDef): readonly Reference[];
  ajv: Ajv;
}

const SUFFIX = '.schema.json';

/** Reads every <name>.schema.json of a directory; unreadable JSON is reported like any schema problem. */
export function readSchemaSources(dir: string): SchemaSource[] {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith(SUFFIX))
    .sort();
  const sources: SchemaSource[] = [];
  for (const file of files) {
    const path = join(dir, file);
    const shown = relative(process.cwd(), path) || path;
    try {
      sources.push({
        file: shown,
        name: file.slice(0, -SUFFIX.length),
        json: JSON.parse(readFileSync(path, 'utf8')),
      });
    } catch (error) {
      throw new SchemaFileError([
        { file: shown, pointer: '', message: `not valid JSON: ${(error as Error).message}` },
      ]);
    }
  }
  return sources;
}

export function createRegistry(entities: EntityDef[]): EntityRegistry {
  const ajv = createAjv();
  const byName = new Map(entities.map((entity) => [entity.name, entity]));
  // Compiled on first use: start-up stays quick however many entities there are.
  const validators = new Map<string, EntityValidators>();
  const references = new Map<string, Reference[]>();
  for (const from of entities) {
    for (const field of from.fields) {
      if (!field.ref) continue;
      const list = references.get(field.ref) ?? [];
      list.push({ from, field });
      references.set(field.ref, list);
    }
  }
  return {
    all: entities,
    ajv,
    get: (name) => byName.get(name),
    require: (name) => {
      const entity = byName.get(name);
      if (!entity) throw new Error(`The entity "${name}" is required by the framework but has no schema`);
      return entity;
    },
    validators: (entity) => {
      let found = validators.get(entity.name);
      if (!found) {
        if (byName.get(entity.name) !== entity)
          throw new Error(`${entity.name} is not an entity of this registry`);
        found = compileValidators(ajv, entity);
        validators.set(entity.name, found);
      }
      return found;
    },
    referencesTo: (entity) => references.get(entity.name) ?? [],
  };
}

export function loadRegistry(schemasDir: string): EntityRegistry {
  return createRegistry(compileEntities(readSchemaSources(schemasDir)));
}
