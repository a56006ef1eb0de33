import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Ajv } from 'ajv';
import {
  compileEntities,
  compileValidators,
  createAjv,
  describeSchemaBudgetProblem,
  SchemaFileError,
  type EntityDef,
  type EntityValidators,
  type FieldDef,
  type SchemaSource,
} from '../../engine/index.js';
import { schemaBudgetOf } from './schema-budget.js';

export interface Reference {
  /** The entity holding the foreign key. */
  from: EntityDef;
  field: FieldDef;
}

export interface EntityRegistry {
  /** The entities live now: the schema files' and the published forms' (changes with publish). */
  readonly all: readonly EntityDef[];
  get(name: string): EntityDef | undefined;
  require(name: string): EntityDef;
  validators(entity: EntityDef): EntityValidators;
  /** Fields of any entity that refer to this one (tree parents included). */
  referencesTo(entity: EntityDef): readonly Reference[];
  ajv: Ajv;
  /** Grows by one on every runtime change: caches derived from `all` are keyed by it. */
  readonly generation: number;
  /** A live entity by its API base (e.g. online/leave), for the routes resolved at request time. */
  byApi(api: string): EntityDef | undefined;
  /** The entity came from a published form, not from a schema file. */
  isRuntime(name: string): boolean;
  /**
   * Adds or replaces a runtime entity (a published form). An entity of a schema file cannot be
   * replaced; its name, API base or table clash with another entity is refused.
   */
  put(entity: EntityDef): void;
  /** Takes a runtime entity out of the live set (unpublish); its table stays. */
  hide(name: string): void;
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

/**
 * The entity schemas modules bring (`<module folder>/schemas/*.schema.json`: a generated module of
 * an entity schemas/ does not have). A name schemas/ or another module already has is refused.
 */
function moduleSources(dirs: readonly string[]): SchemaSource[] {
  return dirs.filter((dir) => existsSync(dir)).flatMap((dir) => readSchemaSources(dir));
}

export function createRegistry(entities: EntityDef[]): EntityRegistry {
  const ajv = createAjv();
  const byName = new Map(entities.map((entity) => [entity.name, entity]));
  const fromFiles = new Set(byName.keys());
  let live: readonly EntityDef[] = entities;
  let generation = 0;
  // Compiled on first use: start-up stays quick however many entities there are.
  const validators = new Map<string, EntityValidators>();
  let references = new Map<string, Reference[]>();
  let apis = new Map<string, EntityDef>();
  const index = (): void => {
    live = [...byName.values()];
    references = new Map();
    apis = new Map(live.map((entity) => [entity.api, entity]));
    for (const from of live) {
      for (const field of from.fields) {
        if (!field.ref) continue;
        const list = references.get(field.ref) ?? [];
        list.push({ from, field });
        references.set(field.ref, list);
      }
    }
  };
  index();
  return {
    get all() {
      return live;
    },
    get generation() {
      return generation;
    },
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
    byApi: (api) => apis.get(api),
    isRuntime: (name) => byName.has(name) && !fromFiles.has(name),
    put: (entity) => {
      // A form's content was checked against BUDGETS.schemas (compileForm); nothing else gets here.
      const overBudget = schemaBudgetOf(entity.schema)[0];
      if (overBudget) throw new Error(`${entity.name}: ${describeSchemaBudgetProblem(overBudget)}`);
      if (fromFiles.has(entity.name))
        throw new Error(`${entity.name} is an entity of a schema file and cannot be replaced`);
      for (const other of byName.values()) {
        if (other.name === entity.name) continue;
        if (other.api === entity.api) throw new Error(`api ${entity.api} is already used by ${other.name}`);
        if (other.table === entity.table)
          throw new Error(`table ${entity.table} is already used by ${other.name}`);
      }
      byName.set(entity.name, entity);
      validators.delete(entity.name);
      generation += 1;
      index();
    },
    hide: (name) => {
      if (fromFiles.has(name) || !byName.has(name)) return;
      byName.delete(name);
      validators.delete(name);
      generation += 1;
      index();
    },
  };
}

/**
 * The entities of the schema files (drop-ins included). A file past BUDGETS.schemas stops the
 * start like any schema problem, checked before anything compiles it.
 */
/** Fields and rules a module adds to one entity's schema (lib/modules SchemaPatch). */
export interface EntitySchemaPatch {
  module: string;
  entity: string;
  properties?: Record<string, unknown>;
  rules?: readonly unknown[];
}

/**
 * The schema sources with the modules' additions: properties added (one the schema has already
 * is refused, as is an entity no schema defines) and rules appended to x-rules.
 */
function patchedSources(sources: SchemaSource[], patches: readonly EntitySchemaPatch[]): SchemaSource[] {
  const problems: { file: string; pointer: string; message: string }[] = [];
  const byName = new Map(
    sources.map((source) => [source.name, { ...source, json: structuredClone(source.json) }]),
  );
  for (const patch of patches) {
    const source = byName.get(patch.entity);
    const file = `module ${patch.module}`;
    if (!source) {
      problems.push({ file, pointer: `/entities/${patch.entity}`, message: 'no schema of that name' });
      continue;
    }
    const json = source.json as { properties?: Record<string, unknown>; 'x-rules'?: unknown[] };
    const properties = (json.properties ??= {});
    for (const [name, property] of Object.entries(patch.properties ?? {})) {
      if (name in properties)
        problems.push({
          file,
          pointer: `/entities/${patch.entity}/schema/properties/${name}`,
          message: `${patch.entity} already has ${name}`,
        });
      else properties[name] = property;
    }
    if (patch.rules?.length) json['x-rules'] = [...(json['x-rules'] ?? []), ...patch.rules];
  }
  if (problems.length > 0) throw new SchemaFileError(problems);
  return sources.map((source) => byName.get(source.name) ?? source);
}

export function loadRegistry(
  schemasDir: string,
  patches: readonly EntitySchemaPatch[] = [],
  moduleSchemaDirs: readonly string[] = [],
): EntityRegistry {
  const own = [...readSchemaSources(schemasDir), ...moduleSources(moduleSchemaDirs)];
  const seen = new Map<string, string>();
  const twice = own.flatMap((source) => {
    const first = seen.get(source.name);
    seen.set(source.name, source.file);
    return first === undefined
      ? []
      : [
          {
            file: source.file,
            pointer: '',
            message: `entity "${source.name}" is already defined by ${first}`,
          },
        ];
  });
  if (twice.length > 0) throw new SchemaFileError(twice);
  const sources = patches.length > 0 ? patchedSources(own, patches) : own;
  const overBudget = sources.flatMap((source) =>
    schemaBudgetOf(source.json).map((problem) => ({
      file: source.file,
      pointer: problem.pointer,
      message: describeSchemaBudgetProblem(problem),
    })),
  );
  if (overBudget.length > 0) throw new SchemaFileError(overBudget);
  return createRegistry(compileEntities(sources));
}
