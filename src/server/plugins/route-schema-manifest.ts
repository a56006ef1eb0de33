import { entityRouteSchemas, MAX_PAGE_SIZE, type EntityDef } from '../../engine/index.js';
import type { AppContext } from '../lib/context.js';
import {
  answer,
  id,
  ids,
  integer,
  integerOrText,
  MAX_KEY,
  object,
  optionalInteger,
  PUBLIC_SECURITY,
  text,
  textOrNumber,
  type RouteSchema,
} from '../lib/route-schema.js';

type Json = Record<string, unknown>;
type Manifest = Map<string, RouteSchema>;

/**
 * The schema of every route of the API, by "METHOD /url": the generated entity routes from the
 * engine, the others written here, module by module (the tag is the module). A route file may
 * declare its schema itself; the manifest is the fallback, and a route in neither place fails
 * the document test (tests/integration/openapi.test.ts).
 */
export function routeSchemaManifest(ctx: AppContext): Manifest {
  const manifest: Manifest = new Map();
  for (const entity of ctx.registry.all) {
    if (ctx.registry.isRuntime(entity.name)) continue;
    for (const route of entityRouteSchemas(entity))
      manifest.set(`${route.method} ${route.url}`, route.schema);
    withWholeNumberDeleteKeys(manifest, entity);
  }
  const put = (method: string, url: string, schema: RouteSchema): void => {
    manifest.set(`${method} ${url}`, schema);
  };
  dictionarySchemas(ctx, put);
  portalSchemas(ctx, put);
  fileSchemas(put);
  fileLinkSchemas(put);
  docsSchemas(put);
  return manifest;
}

type Put = (method: string, url: string, schema: RouteSchema) => void;

const MAX_DELETE_KEYS = 1000;

/**
 * Whole-number keys of a delete (?id=1&id=2) are read and bounded by the route schema, so the
 * delete service gets numbers; presence and unknown names stay with the service, which names
 * every field at fault at once.
 */
function withWholeNumberDeleteKeys(manifest: Manifest, entity: EntityDef): void {
  if (entity.key.type !== 'integer') return;
  const route = `POST /api/${entity.api}/delete`;
  const schema = manifest.get(route);
  const querystring = schema?.querystring as Json | undefined;
  const properties = querystring?.properties as Record<string, Json> | undefined;
  const keys = properties?.[entity.key.name];
  if (!schema || !querystring || !properties || !keys) return;
  manifest.set(route, {
    ...schema,
    querystring: {
      ...querystring,
      properties: {
        ...properties,
        [entity.key.name]: { ...keys, items: integer(0, MAX_KEY), maxItems: MAX_DELETE_KEYS },
      },
    },
  });
}

const api = (entity: EntityDef | undefined, name: string): string =>
  entity ? `/api/${entity.api}/${name}` : '';

// Dictionaries (features/crud/routes/dictionaries.ts) -------------------------------------------

function dictionarySchemas(ctx: AppContext, put: Put): void {
  const { registry } = ctx;
  const dict = registry.get('sysdict');
  if (dict) {
    const tags = [dict.name];
    put('GET', api(dict, 'queryDictByDictType'), {
      tags,
      summary: 'The items of one dictionary',
      querystring: object({ dictType: text(64, { minLength: 1 }) }, ['dictType']),
      response: answer(),
    });
  }
  for (const [entityName, name] of [
    ['sysorg', 'queryOrgType'],
    ['sysregion', 'queryRegionType'],
    ['notification', 'queryNotificationType'],
    ['notification', 'queryNotificationPriority'],
    ['sysmenu', 'queryMenuButtonCheckbox'],
  ] as const) {
    const entity = registry.get(entityName);
    if (entity)
      put('GET', api(entity, name), {
        tags: [entity.name],
        summary: 'Items of a dictionary',
        response: answer(),
      });
  }
}

// Portal ----------------------------------------------------------------------------------------

/** Portal paging and ids: whole numbers, which a JSON body may send as text ("5"). */
const portalNumber = (max: number): Json => integerOrText(1, max);

/** Portal parameters in a query string: all text there, read as a number where one is declared. */
function asQuery(properties: Record<string, Json>, required: string[] = []): Json {
  const query = Object.entries(properties).map(([name, schema]): [string, Json] =>
    [schema.type].flat().includes('integer')
      ? [name, integer(Number(schema.minimum ?? 1), Number(schema.maximum ?? Number.MAX_SAFE_INTEGER))]
      : [name, schema],
  );
  return object(Object.fromEntries(query), required);
}

function portalSchemas(ctx: AppContext, put: Put): void {
  const tags = ['portal'];
  const open = (summary: string, extra: RouteSchema = {}): RouteSchema => ({
    tags,
    summary,
    security: PUBLIC_SECURITY,
    response: answer(),
    ...extra,
  });
  const paging = { currentPage: portalNumber(100_000), pageSize: portalNumber(50) };
  const both = (properties: Record<string, Json>): RouteSchema => ({
    querystring: asQuery(properties),
    body: object(properties),
  });
  const home = '/api/notification/home';
  put(
    'GET',
    `${home}/params`,
    open('Public params (hotline, mailbox, program addresses) and the product slug'),
  );
  put('GET', `${home}/qrcode`, {
    ...open('A footer QR code as SVG', {
      querystring: object({ param: text(64, { enum: ['buyerAccountUrl', 'supplierAccountUrl'] }) }, [
        'param',
      ]),
    }),
    produces: 'image/svg+xml',
    response: {},
  });
  const purchase = ctx.registry.get('purchase');
  if (purchase) {
    put('GET', api(purchase, 'queryMyPurchase'), {
      tags,
      summary: "Purchase notices of the caller's organisation",
      // Empty text is "not given": page 1 of 20 rows.
      querystring: object({
        currentPage: optionalInteger(1, 1_000_000_000),
        pageSize: optionalInteger(1, MAX_PAGE_SIZE),
      }),
      response: answer(),
    });
  }
  const notice = ctx.registry.get('notice');
  if (notice) {
    put('GET', api(notice, 'queryFirst4'), open('The first 4 published notices'));
    put(
      'GET',
      api(notice, 'queryNotices'),
      open('Published notices, paged', { querystring: asQuery({ ...paging, title: text(100) }) }),
    );
    put(
      'GET',
      api(notice, 'queryNotice'),
      open('One published notice', { querystring: asQuery({ id: portalNumber(2_000_000_000) }, ['id']) }),
    );
    put(
      'POST',
      api(notice, 'queryNoticeDetail'),
      open(
        'A notice with its attachments (name, size, download address) and the latest others',
        both({ id: portalNumber(2_000_000_000) }),
      ),
    );
    put(
      'GET',
      api(notice, 'attachment'),
      open('An attachment of a published notice, for anyone while the notice is published', {
        querystring: asQuery({ id: portalNumber(2_000_000_000), fileId: portalNumber(2_000_000_000) }, [
          'id',
          'fileId',
        ]),
        produces: 'application/octet-stream',
        response: {},
      }),
    );
    put(
      'POST',
      api(notice, 'queryOrderRotation'),
      open('Purchase announcements of the home page', both({ limit: portalNumber(30) })),
    );
  }
  put('POST', `${home}/pictures`, open('Home pictures', both({ limit: portalNumber(20) })));
  const filters = (...names: string[]): Record<string, Json> =>
    Object.fromEntries(names.map((name) => [name, textOrNumber(100)]));
  put(
    'POST',
    `${home}/order/notices`,
    open('Purchase announcements, paged', both({ ...paging, ...filters('title', 'category', 'region') })),
  );
  put(
    'POST',
    `${home}/order/detail`,
    open('One purchase announcement', both({ id: portalNumber(2_000_000_000) })),
  );
  put(
    'POST',
    `${home}/show/attr`,
    open('Idle equipment, paged', both({ ...paging, ...filters('name', 'category') })),
  );
  put(
    'POST',
    `${home}/show/attr/rank`,
    open('Recommended idle equipment', both({ limit: portalNumber(20) })),
  );
  put('POST', `${home}/show/detail`, open('One idle equipment', both({ id: portalNumber(2_000_000_000) })));
}

// Files -----------------------------------------------------------------------------------------

const FILE_SORT = '(id|originalFilename|size|fileType|contentType|ownerName|createdAt)';

/** A file as upload, query and download describe it (features/files/services/files.ts FileRecord). */
export const FILE_RECORD = object(
  {
    id: { type: 'integer' },
    originalFilename: { type: 'string' },
    size: { type: 'number', description: 'Size in KB' },
    sizeBytes: { type: 'integer' },
    contentType: { type: 'string', description: 'Sniffed from the bytes' },
    fileType: { type: 'string', description: 'jpg, png, pdf, docx, …' },
    use: { type: 'string', enum: ['image', 'attachment'] },
    ownerName: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    url: { type: 'string', description: 'Where the file is downloaded' },
  },
  [
    'id',
    'originalFilename',
    'size',
    'sizeBytes',
    'contentType',
    'fileType',
    'use',
    'ownerName',
    'createdAt',
    'url',
  ],
);

export const FILE_USE = text(16, {
  enum: ['image', 'attachment'],
  description: 'image: jpg, jpeg, gif, png, bmp only; attachment (default): FILE_ATTACHMENT_TYPES',
});

function fileSchemas(put: Put): void {
  const tags = ['file'];
  const base = '/api/file/file';
  // upload and uploadTransFile declare their schemas in features/files/routes/files.ts (with folderId).
  put('GET', `${base}/download`, {
    tags,
    summary: 'Downloads a file under its original name (ETag, range requests, inline for images and PDF)',
    querystring: object({ id: id('The file') }, ['id']),
    produces: 'application/octet-stream',
    response: {},
  });
  put('GET', `${base}/query`, {
    tags,
    summary: 'Files the caller may reach, paged',
    querystring: object({
      currentPage: integer(1, 1_000_000),
      pageSize: integer(1, 1000),
      sort: text(200, {
        pattern: `^\\s*(-?${FILE_SORT}(\\s*,\\s*-?${FILE_SORT})*)?\\s*$`,
        description: 'field or -field, comma-separated',
      }),
      originalFilename: text(200),
      fileType: text(16),
      contentType: text(100),
      ownerName: text(100),
      use: text(16, { enum: ['image', 'attachment', ''] }),
    }),
    response: answer(
      object(
        {
          records: { type: 'array', items: FILE_RECORD },
          total: { type: 'integer' },
          totalExact: { type: 'boolean' },
          currentPage: { type: 'integer' },
          pageSize: { type: 'integer' },
        },
        ['records', 'total', 'currentPage', 'pageSize'],
      ),
    ),
  });
  put('POST', `${base}/delete`, {
    tags,
    summary: 'Deletes files (the record and the stored bytes); repeat id for several',
    querystring: object({ id: { ...ids(1000, 'The files'), minItems: 1 } }, ['id']),
    response: answer(object({ deleted: { type: 'integer' } }, ['deleted'])),
  });
}

// File links (forms, lists, rich text) ------------------------------------------------------------

function fileLinkSchemas(put: Put): void {
  const tags = ['file'];
  const base = '/api/file/file';
  const link = object(
    {
      id: { type: 'integer' },
      originalFilename: { type: 'string' },
      size: { type: 'number', description: 'Size in KB' },
      fileType: { type: 'string' },
      contentType: { type: 'string' },
      use: { type: 'string', enum: ['image', 'attachment'] },
      url: { type: 'string', description: "The download address (with the caller's token)" },
      pictureUrl: { type: 'string', description: 'The public address of a picture (use image only)' },
    },
    ['id', 'originalFilename', 'size', 'fileType', 'contentType', 'use', 'url'],
  );
  put('GET', `${base}/info`, {
    tags,
    summary: 'Names and addresses of files by id (the ones the caller may reach; others are left out)',
    querystring: object({ id: { ...ids(200, 'The files'), minItems: 1 } }, ['id']),
    response: answer(object({ records: { type: 'array', items: link } }, ['records'])),
  });
  put('GET', `${base}/picture`, {
    tags,
    summary: 'A picture by its public address (the id and the first 16 hex digits of its sha256)',
    security: PUBLIC_SECURITY,
    querystring: object({ id: id('The picture'), h: text(16, { pattern: '^[0-9a-f]{16}$' }) }, ['id', 'h']),
    produces: 'image/*',
    response: {},
  });
}

// Docs ------------------------------------------------------------------------------------------

function docsSchemas(put: Put): void {
  const tags = ['docs'];
  put('GET', '/api/openapi.json', {
    tags,
    summary: 'This document',
    security: PUBLIC_SECURITY,
    response: {},
  });
  put('GET', '/api/schemas', {
    tags,
    summary: 'The entity schemas',
    security: PUBLIC_SECURITY,
    response: answer(),
  });
  put('GET', '/api/schemas/validators.js', {
    tags,
    summary: "The forms' validators, compiled on the server",
    security: PUBLIC_SECURITY,
    produces: 'text/javascript',
    response: {},
  });
}
