import { http } from '../../web/http.js';

/** Where an entity's generated API lives and what its delete key is called. */
export interface ResourceApi {
  name: string;
  /** e.g. admin/sysuser (no leading /api). */
  base: string;
  /** The query parameter of the delete endpoint: id, or regionCode for regions. */
  deleteKey: string;
  /** Whether the entity answers querySys<Name>Tree. */
  treeEndpoint: string | undefined;
  /** List columns from the entity's schema (x-list), for the interim list screen. */
  fields: ResourceField[];
}

export interface ResourceField {
  name: string;
  title: string;
  dict: string | undefined;
  width: number | undefined;
  format: string | undefined;
}

interface SchemaProperty {
  title?: string;
  format?: string;
  writeOnly?: boolean;
  'x-secret'?: boolean;
  'x-dict'?: string;
  'x-list'?: { visible?: boolean; width?: number };
}

interface OpenApiOperation {
  tags?: string[];
  parameters?: { name: string; in: string }[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, { properties?: Record<string, SchemaProperty> }> };
}

/** The component schema named by the query answer's records (…/records/items/$ref). */
function recordSchemaName(operation: OpenApiOperation | undefined): string | undefined {
  const text = JSON.stringify(operation?.responses?.['200'] ?? {});
  return /"records":\{[^}]*"\$ref":"#\/components\/schemas\/([^"]+)"/.exec(text)?.[1];
}

function fieldsOf(document: OpenApiDocument, operation: OpenApiOperation | undefined): ResourceField[] {
  const name = recordSchemaName(operation);
  const properties = (name && document.components?.schemas?.[name]?.properties) || {};
  return Object.entries(properties)
    .filter(
      ([, property]) => property['x-list']?.visible !== false && !property.writeOnly && !property['x-secret'],
    )
    .map(([field, property]) => ({
      name: field,
      title: property.title ?? field,
      dict: property['x-dict'],
      width: property['x-list']?.width,
      format: property.format,
    }));
}

/**
 * Reads the resource table from the OpenAPI document of the running schemas, so a dropped-in
 * entity gets a working screen without front-end changes: the tag of /api/<base>/query names
 * the entity, the parameter of /api/<base>/delete its key.
 */
export function resourcesFromOpenApi(document: OpenApiDocument): Map<string, ResourceApi> {
  const table = new Map<string, ResourceApi>();
  const paths = document.paths ?? {};
  for (const [path, operations] of Object.entries(paths)) {
    const match = /^\/api\/(.+)\/query$/.exec(path);
    const name = operations.get?.tags?.[0];
    if (!match?.[1] || !name) continue;
    const base = match[1];
    const deleteKey =
      paths[`/api/${base}/delete`]?.post?.parameters?.find((item) => item.in === 'query')?.name ?? 'id';
    const tree = Object.keys(paths).find(
      (other) => other.startsWith(`/api/${base}/querySys`) && other.endsWith('Tree'),
    );
    table.set(name, {
      name,
      base,
      deleteKey,
      treeEndpoint: tree?.slice(`/api/${base}/`.length),
      fields: fieldsOf(document, operations.get),
    });
  }
  return table;
}

/** The fallback of DESIGN.md when the document is unavailable: admin/<name>, uaa/appclient. */
export function derivedResource(name: string): ResourceApi {
  return {
    name,
    base: name === 'appclient' ? 'uaa/appclient' : `admin/${name}`,
    deleteKey: name === 'sysregion' ? 'regionCode' : 'id',
    treeEndpoint: undefined,
    fields: [],
  };
}

let loading: Promise<Map<string, ResourceApi>> | undefined;

/** The resource table, fetched once per page load. */
export function loadResources(): Promise<Map<string, ResourceApi>> {
  loading ??= http
    .get<OpenApiDocument>('/api/openapi.json', { silent: true })
    .then((response) => resourcesFromOpenApi(response.data))
    .catch(() => {
      loading = undefined;
      return new Map<string, ResourceApi>();
    });
  return loading;
}

export async function resourceApi(name: string): Promise<ResourceApi> {
  return (await loadResources()).get(name) ?? derivedResource(name);
}
