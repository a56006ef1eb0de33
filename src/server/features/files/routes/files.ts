import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { localizerFor, type Localizer } from '../../../lib/i18n.js';
import { boundaryOf, MultipartError, MultipartLimitError, MultipartReader } from '../../../lib/multipart.js';
import {
  answer,
  arrayOf,
  id,
  ids,
  integer,
  object,
  oneOf,
  text,
  typed,
  type RouteSchema,
} from '../../../lib/route-schema.js';
import { openFileStorage, type FileStorage } from '../../../lib/storage/index.js';
import { requestChunks } from '../../../lib/storage/chunks.js';
import { purgeExpired } from '../services/netdisc.js';
import { sweepOrphans } from '../services/sweep.js';
import {
  deleteFiles,
  FILE_SORT_FIELDS,
  fileForDownload,
  queryFiles,
  uploadFile,
  type FileFilters,
} from '../services/files.js';
import { FILE_USES, type FileUse } from '../services/rules.js';
import { sendFile } from '../send.js';
import { netdiscRoutes } from './netdisc.js';
import { FILE_RECORD, FILE_USE, FOLDER_ID } from './schemas.js';

const BASE = '/api/file/file';
const tags = ['file'];

/** What an upload's multipart body may hold: the file and a few short fields (use, folderId). */
const MULTIPART_LIMITS = { maxParts: 10, maxFieldBytes: 1024, maxHeaderBytes: 16 * 1024 };

/** How often stored objects without a row and expired recycle-bin items are looked for. */
const HOUSEKEEPING_MS = 60 * 60 * 1000;

/** The list's text filters. */
const TEXT_FILTERS = ['originalFilename', 'fileType', 'contentType', 'ownerName'] as const;

/** A sort term of the list: a field it can be sorted on, or -field. */
const SORT_TERM = `-?(${FILE_SORT_FIELDS.join('|')})`;

function uploadSchema(summary: string, routeTags: string[], isNetdisc: boolean) {
  const folderText = isNetdisc ? 'empty or absent: the netdisc root' : 'absent: not in the netdisc';
  return {
    tags: routeTags,
    summary,
    description: `multipart/form-data with the part "file" (one file, at most FILE_MAX_MB); "use" and "folderId" (${folderText}) may come in the query or as parts before the file. 400 empty or missing file, 404 a folder that is not the caller's, 413 too large or past the netdisc quota, 415 a type the use does not accept (sniffed from the bytes).`,
    querystring: object({ use: FILE_USE, folderId: FOLDER_ID }),
    bodyDocument: object(
      {
        use: FILE_USE,
        folderId: FOLDER_ID,
        file: { type: 'string', format: 'binary', description: 'The file' },
      },
      ['file'],
    ),
    consumes: ['multipart/form-data'],
    response: answer(FILE_RECORD),
  } satisfies RouteSchema;
}

/** A folderId sent as text: absent or empty is undefined, digits a folder; anything else is a 400. */
function folderIdOf(value: unknown, request: FastifyRequest): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'string' && /^[0-9]{1,15}$/.test(value) && Number(value) > 0) return Number(value);
  throw new AppError('validation', {}, [
    {
      field: '/folderId',
      message: localizerFor(request).t('validation.type', {
        type: localizerFor(request).t('validation.typeName.integer'),
      }),
    },
  ]);
}

/** Stored objects no row refers to (a crash between the two), expired recycle-bin items. */
async function housekeeping(app: FastifyInstance, storage: FileStorage): Promise<void> {
  const { ctx } = app;
  try {
    const orphans = await sweepOrphans({ ctx, storage });
    const purged = await purgeExpired({ ctx, storage, now: new Date() });
    if (orphans.length > 0 || purged > 0)
      app.log.info({ orphans: orphans.length, purged }, 'files housekeeping');
  } catch (error) {
    app.log.warn({ err: error }, 'files housekeeping failed');
  }
}

/** A body that is not the multipart it claims is a 400, one past the reader's limits a 413. */
function multipartError(error: unknown, l10n: Localizer): unknown {
  if (error instanceof MultipartLimitError) return new AppError('tooLarge');
  if (error instanceof MultipartError)
    return new AppError('validation', {}, [{ field: '/', message: l10n.t('validation.invalid') }]);
  return error;
}

const isFileUse = (value: unknown): value is FileUse =>
  typeof value === 'string' && (FILE_USES as readonly string[]).includes(value);

function useOf(value: unknown, request: FastifyRequest): FileUse {
  if (value === undefined || value === '') return 'attachment';
  if (isFileUse(value)) return value;
  throw new AppError('validation', {}, [
    { field: '/use', message: localizerFor(request).t('validation.enum', { allowed: FILE_USES.join(', ') }) },
  ]);
}

/**
 * Files (docs/product.md §7 file/file): upload (streamed to the file storage), download, list and
 * delete. Multipart parsing is registered in this plugin only, so every other route still
 * refuses multipart bodies with 415.
 */
export async function fileRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const storage = await openFileStorage(ctx.config);
  let running: Promise<void> = housekeeping(app, storage);
  const timer = setInterval(() => {
    running = running.then(() => housekeeping(app, storage));
  }, HOUSEKEEPING_MS);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
    storage.close();
  });
  // Multipart bodies are left unread here: the upload handlers stream them (lib/multipart.ts).
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => {
    done(null);
  });

  const api = typed(app);

  /**
   * An upload route; into the netdisc when isNetdisc (the root unless a folder is given) or a
   * folderId is given.
   */
  const uploadRoute = (url: string, schema: ReturnType<typeof uploadSchema>, isNetdisc: boolean): void => {
    api.post(url, { schema }, async (request) => {
      const auth = requireAuth(request);
      const l10n = localizerFor(request);
      const boundary = boundaryOf(request.headers['content-type']);
      if (!boundary) throw new AppError('notMultipart');
      let use = useOf(request.query.use, request);
      let folderId = folderIdOf(request.query.folderId, request);
      const chunks = requestChunks(request.raw);
      try {
        const reader = new MultipartReader(chunks, boundary, MULTIPART_LIMITS);
        // Parts after the file are not read: "use" and "folderId" come before it.
        for (let part = await reader.nextPart(); part; part = await reader.nextPart()) {
          if (part.type === 'field') {
            if (part.name === 'use') use = useOf(part.value, request);
            if (part.name === 'folderId') folderId = folderIdOf(part.value, request);
            continue;
          }
          if (part.name !== 'file') continue;
          const netdisc = isNetdisc || folderId !== undefined ? { folderId: folderId ?? null } : undefined;
          return ok(
            await uploadFile({
              ctx,
              storage,
              auth,
              l10n,
              use,
              filename: part.filename,
              source: part.body,
              ...(netdisc ? { netdisc } : {}),
            }),
          );
        }
      } catch (error) {
        throw multipartError(error, l10n);
      } finally {
        // What is left of the body (the closing delimiter, or the rest of a refused file) is read and dropped.
        await chunks.return?.();
      }
      throw new AppError('fileMissing', {}, [{ field: '/file', message: l10n.t('errors.fileMissing') }]);
    });
  };
  uploadRoute(
    `${BASE}/upload`,
    uploadSchema('Uploads a file (streamed to the file storage)', ['file'], false),
    false,
  );
  uploadRoute(
    `${BASE}/uploadTransFile`,
    uploadSchema('Uploads a file (docs/product.md §7; the same as upload)', ['file'], false),
    false,
  );
  uploadRoute(
    '/api/file/netdisc/upload',
    uploadSchema("Uploads a file into the caller's netdisc (quota param netdiscQuotaMb)", ['netdisc'], true),
    true,
  );
  await app.register(netdiscRoutes, { storage });

  // GET, and HEAD: the same headers, no bytes read (Fastify's own HEAD route would read them).
  api.route({
    method: ['GET', 'HEAD'],
    url: `${BASE}/download`,
    schema: {
      tags,
      summary: 'Downloads a file under its original name (ETag, range requests, inline for images and PDF)',
      querystring: object({ id: id('The file') }, ['id']),
      produces: 'application/octet-stream',
      response: {},
    },
    handler: async (request, reply) =>
      sendFile({
        request,
        reply,
        file: await fileForDownload({
          ctx,
          storage,
          auth: requireAuth(request),
          id: request.query.id,
          l10n: localizerFor(request),
        }),
      }),
  });

  api.get(
    `${BASE}/query`,
    {
      schema: {
        tags,
        summary: 'Files the caller may reach, paged',
        querystring: object({
          currentPage: integer(1, 1_000_000),
          pageSize: integer(1, 1000),
          sort: text(200, {
            pattern: `^\\s*(${SORT_TERM}(\\s*,\\s*${SORT_TERM})*)?\\s*$`,
            description: 'field or -field, comma-separated',
          }),
          originalFilename: text(200),
          fileType: text(16),
          contentType: text(100),
          ownerName: text(100),
          use: oneOf(['image', 'attachment', ''], { maxLength: 16 }),
        }),
        response: answer(
          object(
            {
              records: arrayOf(FILE_RECORD),
              total: { type: 'integer' },
              totalExact: { type: 'boolean' },
              currentPage: { type: 'integer' },
              pageSize: { type: 'integer' },
            },
            ['records', 'total', 'currentPage', 'pageSize'],
          ),
        ),
      },
    },
    async (request) => {
      const { query } = request;
      // Text filters are trimmed; empty ones are not filters.
      const filters: FileFilters = query.use ? { use: query.use } : {};
      for (const name of TEXT_FILTERS) {
        const value = query[name]?.trim();
        if (value) filters[name] = value;
      }
      const sort = query.sort?.trim();
      return ok(
        await queryFiles({
          ctx,
          storage,
          auth: requireAuth(request),
          currentPage: query.currentPage ?? 1,
          pageSize: query.pageSize ?? 10,
          sort: sort ? sort.split(',').map((term) => term.trim()) : [],
          filters,
        }),
      );
    },
  );

  api.post(
    `${BASE}/delete`,
    {
      schema: {
        tags,
        summary: 'Deletes files (the record and the stored bytes); repeat id for several',
        querystring: object({ id: { ...ids(1000, 'The files'), minItems: 1 } }, ['id']),
        response: answer(object({ deleted: { type: 'integer' } }, ['deleted'])),
      },
    },
    async (request) =>
      ok(
        await deleteFiles({
          ctx,
          storage,
          auth: requireAuth(request),
          ids: request.query.id,
          l10n: localizerFor(request),
        }),
      ),
  );
}
