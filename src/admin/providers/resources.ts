import {
  buildEntity,
  listColumns,
  treeEndpointName,
  type EntityDef,
  type EntitySchema,
} from '../../engine/index.js';
import { http } from '../../web/http.js';
import { takeBootstrap } from './bootstrap.js';
import { addSchemaTexts } from '../i18n.js';
import { LANGUAGES, type Language } from '../../web/i18n.js';
import { schemaTexts } from '../entity/schema-texts.js';

/** Where an entity's generated API lives, and the entity itself for the generated screens. */
export interface ResourceApi {
  name: string;
  /** e.g. admin/sysuser (no leading /api). */
  base: string;
  /** The entity's key: the record id of Refine and the query parameter of delete (regionCode for regions). */
  deleteKey: string;
  /** querySys<Name>Tree for tree entities. */
  treeEndpoint: string | undefined;
  /** The entity built from its schema by the engine, as the server builds it; undefined in the fallback. */
  entity: EntityDef | undefined;
  /** The fields a list shows by default (x-list), secrets never. */
  fields: ResourceField[];
}

export interface ResourceField {
  name: string;
  title: string;
  dict: string | undefined;
  width: number | undefined;
  format: string | undefined;
}

interface SchemasAnswer {
  data?: {
    entities?: { name: string; schema: EntitySchema }[];
    /** The server modules' texts by language (modules.<name>.<key>): their rules' messages. */
    messages?: Partial<Record<Language, Record<string, unknown>>>;
  };
}

export function resourceOf(entity: EntityDef): ResourceApi {
  return {
    name: entity.name,
    base: entity.api,
    deleteKey: entity.key.name,
    treeEndpoint: entity.tree ? treeEndpointName(entity.name) : undefined,
    entity,
    fields: listColumns(entity)
      .filter((column) => column.isVisible)
      .map((column) => ({
        name: column.field,
        title: column.fallbackTitle,
        dict: column.dict,
        width: column.width,
        format: column.format,
      })),
  };
}

/**
 * The resource table from the running server's schemas (GET /api/schemas), so a dropped-in
 * entity gets a working screen without front-end changes. The server has already checked every
 * schema; one the browser cannot build is left out rather than breaking every screen.
 */
export function resourcesFromSchemas(answer: SchemasAnswer): Map<string, ResourceApi> {
  const table = new Map<string, ResourceApi>();
  // A published form's titles (zh / tw / en) and help, as the locale keys its screens read.
  // and the server modules' texts (their rules' messages): modules.<name>.<key>, beside entities.*
  const texts = schemaTexts(answer.data?.entities ?? []);
  for (const language of LANGUAGES)
    texts[language] = { ...texts[language], ...answer.data?.messages?.[language] };
  addSchemaTexts(texts);
  for (const { name, schema } of answer.data?.entities ?? []) {
    try {
      table.set(name, resourceOf(buildEntity(name, schema)));
    } catch {
      // reported by the server at start-up
    }
  }
  return table;
}

/** The base paths of docs/http-contract.md when the schemas are unavailable: admin/<name>, uaa/appclient. */
export function derivedResource(name: string): ResourceApi {
  return {
    name,
    base: name === 'appclient' ? 'uaa/appclient' : `admin/${name}`,
    deleteKey: name === 'sysregion' ? 'regionCode' : 'id',
    treeEndpoint: undefined,
    entity: undefined,
    fields: [],
  };
}

let loading: Promise<Map<string, ResourceApi>> | undefined;
/** The table loading resolved to, while it is the current one (peekResources). */
let loaded: { from: Promise<Map<string, ResourceApi>>; resources: Map<string, ResourceApi> } | undefined;

/** The entity set changed (a form published or unpublished): the next ask reads /api/schemas again. */
export function forgetResources(): void {
  // the page's bootstrap is handed out once: the next ask goes to the API
  loading = undefined;
  loaded = undefined;
}

/**
 * The resource table if it has been loaded already (at boot, providers/warm.ts): a screen's first
 * render has it, instead of a spinner and a render again after its query's asynchronous answer.
 */
export function peekResources(): Map<string, ResourceApi> | undefined {
  return loaded && loaded.from === loading ? loaded.resources : undefined;
}

/** The resource table, fetched once per page load. */
export function loadResources(): Promise<Map<string, ResourceApi>> {
  // the schemas the server put in the page (bootstrap.ts), else GET /api/schemas
  if (loading) return loading;
  const seeded = takeBootstrap('schemas');
  const current = seeded
    ? Promise.resolve(resourcesFromSchemas({ data: seeded }))
    : http
        .get<SchemasAnswer>('/api/schemas', { silent: true })
        .then((response) => resourcesFromSchemas(response.data))
        .catch(() => {
          loading = undefined;
          return new Map<string, ResourceApi>();
        });
  loading = current;
  void current.then((resources) => {
    if (loading === current) loaded = { from: current, resources };
  });
  return current;
}

export async function resourceApi(name: string): Promise<ResourceApi> {
  return (await loadResources()).get(name) ?? derivedResource(name);
}

/** The entity behind a resource; fails when the server's schemas cannot be read. */
export async function entityOf(name: string): Promise<EntityDef> {
  const entity = (await loadResources()).get(name)?.entity;
  if (!entity) throw new Error(`Unknown entity: ${name}`);
  return entity;
}
