import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import {
  answer,
  arrayOf,
  id,
  integer,
  nullable,
  object,
  oneOf,
  optionalInteger,
  text,
  typed,
  type RouteSchema,
} from '../../../lib/route-schema.js';
import type { FileStorage } from '../../../lib/storage/index.js';
import {
  createFolder,
  folderTree,
  ITEM_TYPES,
  listFolder,
  moveItems,
  purgeItems,
  quotaOf,
  recycleBin,
  renameItem,
  restoreItems,
  searchNetdisc,
  shareItem,
  sharedWithMe,
  sharesOf,
  TARGET_TYPES,
  trashItems,
  type NetdiscContext,
} from '../services/netdisc.js';

type Json = Record<string, unknown>;

const BASE = '/api/file/netdisc';
const tags = ['netdisc'];

const ITEM_TYPE = oneOf(ITEM_TYPES);
const ITEM = object({ type: ITEM_TYPE, id: id() }, ['type', 'id'], { additionalProperties: false });
const ITEMS = arrayOf(ITEM, { minItems: 1, maxItems: 500 });
const NAME = text(100, {
  minLength: 1,
  description: 'Cleaned like a file name (no separators, "..", control characters)',
});
/** A folder of the caller's, or null for the root. */
const FOLDER_OR_ROOT = nullable(integer(1));

const FOLDER: Json = object(
  {
    id: { type: 'integer' },
    name: { type: 'string' },
    parentId: { type: ['integer', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
  },
  ['id', 'name', 'parentId', 'createdAt'],
);
const FILE: Json = object(
  {
    id: { type: 'integer' },
    name: { type: 'string' },
    size: { type: 'number', description: 'KB' },
    sizeBytes: { type: 'integer' },
    contentType: { type: 'string' },
    fileType: { type: 'string' },
    folderId: { type: ['integer', 'null'] },
    ownerName: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    url: { type: 'string' },
  },
  ['id', 'name', 'size', 'sizeBytes', 'contentType', 'fileType', 'folderId', 'ownerName', 'createdAt', 'url'],
);
const withProperties = (schema: Json, properties: Json, required: string[] = []): Json => ({
  ...schema,
  properties: { ...(schema.properties as Json), ...properties },
  required: [...((schema.required as string[] | undefined) ?? []), ...required],
});
const FOLDER_NODE: Json = withProperties(
  FOLDER,
  {
    children: {
      type: 'array',
      items: { type: 'object', additionalProperties: true },
      description: 'the folders inside, each of this shape (children included)',
    },
  },
  ['children'],
);
const TARGET = object(
  { type: { type: 'string', enum: [...TARGET_TYPES] }, id: { type: 'integer' }, name: { type: 'string' } },
  ['type', 'id', 'name'],
);
const count = <const N extends string>(name: N) => answer(object({ [name]: { type: 'integer' } }, [name]));

const ITEMS_BODY = object({ items: ITEMS }, ['items'], { additionalProperties: false });

const SCHEMAS = {
  tree: {
    tags,
    summary: "The caller's netdisc folder tree",
    response: answer({ type: 'array', items: FOLDER_NODE }),
  },
  list: {
    tags,
    summary: "A folder's content: the caller's root, a folder of theirs, or one shared with them (read-only)",
    querystring: object({
      folderId: optionalInteger(1, Number.MAX_SAFE_INTEGER, { description: 'Empty: the root' }),
    }),
    response: answer(
      object(
        {
          folder: { anyOf: [FOLDER, { type: 'null' }] },
          path: {
            type: 'array',
            items: object({ id: { type: 'integer' }, name: { type: 'string' } }, ['id', 'name']),
          },
          folders: { type: 'array', items: FOLDER },
          files: { type: 'array', items: FILE },
          readOnly: { type: 'boolean' },
        },
        ['folder', 'path', 'folders', 'files', 'readOnly'],
      ),
    ),
  },
  createFolder: {
    tags,
    summary: 'Creates a folder at the root or in a folder of the caller',
    body: object({ name: NAME, parentId: FOLDER_OR_ROOT }, ['name'], { additionalProperties: false }),
    response: answer(FOLDER),
  },
  rename: {
    tags,
    summary: 'Renames a file or folder of the caller',
    body: object({ type: ITEM_TYPE, id: id(), name: NAME }, ['type', 'id', 'name'], {
      additionalProperties: false,
    }),
    response: answer(object({ renamed: { type: 'boolean' } }, ['renamed'])),
  },
  move: {
    tags,
    summary: 'Moves files and folders into a folder (null: the root); a folder never into itself',
    body: object({ items: ITEMS, targetFolderId: FOLDER_OR_ROOT }, ['items', 'targetFolderId'], {
      additionalProperties: false,
    }),
    response: count('moved'),
  },
  delete: {
    tags,
    summary: 'Moves files and folders to the recycle bin (kept netdiscRecycleDays days)',
    body: ITEMS_BODY,
    response: count('deleted'),
  },
  recycleBin: {
    tags,
    summary: "The caller's recycle bin, with when each item is purged",
    response: answer({
      type: 'array',
      items: object(
        {
          type: ITEM_TYPE,
          id: { type: 'integer' },
          name: { type: 'string' },
          sizeBytes: { type: 'integer' },
          deletedAt: { type: 'string', format: 'date-time' },
          expiresAt: { type: 'string', format: 'date-time' },
        },
        ['type', 'id', 'name', 'sizeBytes', 'deletedAt', 'expiresAt'],
      ),
    }),
  },
  restore: {
    tags,
    summary: 'Restores recycle-bin items (to the root when their folder is gone)',
    body: ITEMS_BODY,
    response: count('restored'),
  },
  purge: {
    tags,
    summary: 'Deletes recycle-bin items for good, with their stored bytes',
    body: ITEMS_BODY,
    response: count('purged'),
  },
  shares: {
    tags,
    summary: 'Who a file or folder of the caller is shared with',
    querystring: object({ type: oneOf(ITEM_TYPES, { maxLength: 10 }), id: id() }, ['type', 'id']),
    response: answer({ type: 'array', items: TARGET }),
  },
  share: {
    tags,
    summary: 'Shares a file or folder read-only with exactly these users, roles and organisations',
    body: object(
      {
        type: ITEM_TYPE,
        id: id(),
        targets: arrayOf(
          object({ type: oneOf(TARGET_TYPES), id: id() }, ['type', 'id'], { additionalProperties: false }),
          { maxItems: 500 },
        ),
      },
      ['type', 'id', 'targets'],
      { additionalProperties: false },
    ),
    response: answer({ type: 'array', items: TARGET }),
  },
  sharedWithMe: {
    tags,
    summary: 'Folders and files others shared with the caller',
    response: answer(
      object(
        {
          folders: {
            type: 'array',
            items: withProperties(FOLDER, { ownerName: { type: 'string' } }, ['ownerName']),
          },
          files: { type: 'array', items: FILE },
        },
        ['folders', 'files'],
      ),
    ),
  },
  quota: {
    tags,
    summary: "The caller's netdisc usage and quota (param netdiscQuotaMb)",
    response: answer(
      object(
        {
          usedBytes: { type: 'integer' },
          quotaBytes: { type: 'integer' },
          usedMb: { type: 'number' },
          quotaMb: { type: 'number' },
        },
        ['usedBytes', 'quotaBytes', 'usedMb', 'quotaMb'],
      ),
    ),
  },
  search: {
    tags,
    summary: "Folders and files by name: the caller's and those shared with them",
    querystring: object({ name: text(100, { minLength: 1 }) }, ['name']),
    response: answer(
      object(
        {
          folders: {
            type: 'array',
            items: withProperties(FOLDER, { readOnly: { type: 'boolean' } }, ['readOnly']),
          },
          files: {
            type: 'array',
            items: withProperties(FILE, { readOnly: { type: 'boolean' } }, ['readOnly']),
          },
        },
        ['folders', 'files'],
      ),
    ),
  },
} satisfies Record<string, RouteSchema>;

/**
 * The netdisc: thin routes over features/files/services/netdisc.ts. Granted like other admin
 * calls (a sysurl pattern such as /api/file/** given to roles); every call acts on the caller's
 * own netdisc, or reads what was shared with them.
 */
export async function netdiscRoutes(app: FastifyInstance, options: { storage: FileStorage }): Promise<void> {
  const { ctx } = app;
  const { storage } = options;
  const context = (request: FastifyRequest): NetdiscContext => ({
    ctx,
    storage,
    auth: requireAuth(request),
    l10n: localizerFor(request),
  });
  const api = typed(app);

  api.get(`${BASE}/tree`, { schema: SCHEMAS.tree }, async (request) =>
    ok(await folderTree(context(request))),
  );
  api.get(`${BASE}/list`, { schema: SCHEMAS.list }, async (request) =>
    ok(await listFolder({ ...context(request), folderId: request.query.folderId ?? null })),
  );
  api.post(`${BASE}/folder/create`, { schema: SCHEMAS.createFolder }, async (request) => {
    const { name, parentId } = request.body;
    return ok(await createFolder({ ...context(request), name, parentId: parentId ?? null }));
  });
  api.post(`${BASE}/rename`, { schema: SCHEMAS.rename }, async (request) => {
    const { type, id, name } = request.body;
    await renameItem({ ...context(request), item: { type, id }, name });
    return ok({ renamed: true });
  });
  api.post(`${BASE}/move`, { schema: SCHEMAS.move }, async (request) =>
    ok(
      await moveItems({
        ...context(request),
        items: request.body.items,
        targetFolderId: request.body.targetFolderId,
      }),
    ),
  );
  api.post(`${BASE}/delete`, { schema: SCHEMAS.delete }, async (request) =>
    ok(await trashItems({ ...context(request), items: request.body.items })),
  );
  api.get(`${BASE}/recycleBin`, { schema: SCHEMAS.recycleBin }, async (request) =>
    ok(await recycleBin(context(request))),
  );
  api.post(`${BASE}/restore`, { schema: SCHEMAS.restore }, async (request) =>
    ok(await restoreItems({ ...context(request), items: request.body.items })),
  );
  api.post(`${BASE}/purge`, { schema: SCHEMAS.purge }, async (request) =>
    ok(await purgeItems({ ...context(request), items: request.body.items })),
  );
  api.get(`${BASE}/shares`, { schema: SCHEMAS.shares }, async (request) => {
    const { type, id } = request.query;
    return ok(await sharesOf({ ...context(request), item: { type, id } }));
  });
  api.post(`${BASE}/share`, { schema: SCHEMAS.share }, async (request) => {
    const { type, id, targets } = request.body;
    return ok(await shareItem({ ...context(request), item: { type, id }, targets }));
  });
  api.get(`${BASE}/sharedWithMe`, { schema: SCHEMAS.sharedWithMe }, async (request) =>
    ok(await sharedWithMe(context(request))),
  );
  api.get(`${BASE}/quota`, { schema: SCHEMAS.quota }, async (request) => ok(await quotaOf(context(request))));
  api.get(`${BASE}/search`, { schema: SCHEMAS.search }, async (request) =>
    ok(await searchNetdisc({ ...context(request), name: request.query.name })),
  );
}
