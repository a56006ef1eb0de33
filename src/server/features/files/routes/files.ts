import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { ok, queryOf, requireAuth, requiredNumberParam } from '../../../lib/http.js';
import { localizerFor, type Localizer } from '../../../lib/i18n.js';
import { boundaryOf, MultipartError, MultipartLimitError, MultipartReader } from '../../../lib/multipart.js';
import { answer, object, text, type RouteSchema } from '../../../lib/route-schema.js';
import { openFileStorage, type FileStorage } from '../../../lib/storage/index.js';
import { requestChunks } from '../../../lib/storage/chunks.js';
import { purgeExpired } from '../services/netdisc.js';
import { sweepOrphans } from '../services/sweep.js';
import { deleteFiles, fileForDownload, queryFiles, uploadFile, type FileRecord } from '../services/files.js';
import { FILE_USES, type FileUse } from '../services/rules.js';
import { sendFile } from '../send.js';

import { netdiscRoutes } from './netdisc.js';
import { FILE_RECORD, FILE_USE } from '../../../plugins/route-schema-manifest.js';

const BASE = '/api/file/file';

/** What an upload's multipart body may hold: the file and a few short fields (use, folderId). */
const MULTIPART_LIMITS = { maxParts: 10, maxFieldBytes: 1024, maxHeaderBytes: 16 * 1024 };

/** How often stored objects without a row and expired recycle-bin items are looked for. */
const HOUSEKEEPING_MS = 60 * 60 * 1000;

const FOLDER_ID = text(20, {
  pattern: '^[0-9]{0,15}$',
  description: "A netdisc folder of the caller's: the file goes into their netdisc (counted in the quota)",
});

function uploadSchema(summary: string, tags: string[], isNetdisc: boolean): RouteSchema {
  const folderText = isNetdisc ? 'empty or absent: the netdisc root' : 'absent: not in the netdisc';
  return {
    tags,
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
  };
}

/** A folderId sent as text: absent or empty is undefined, digits a folder; anything else is a 400. */
function folderIdOf(value: unknown, request: FastifyRequest): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'string' && /^[0-9]{1,15}$/.test(value) && Number(value) > 0) return Number(value);
  throw new AppError('validation', {}, [
    { field: '/folderId', message: localizerFor(request).t('validation.type', { type: 'integer' }) },
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

  /** An upload; into the netdisc when isNetdisc (the root unless a folder is given) or a folderId is given. */
  const upload =
    (isNetdisc: boolean) =>
    async (request: FastifyRequest): Promise<ReturnType<typeof ok<FileRecord>>> => {
      const auth = requireAuth(request);
      const l10n = localizerFor(request);
      const boundary = boundaryOf(request.headers['content-type']);
      if (!boundary) throw new AppError('notMultipart');
      const query = queryOf(request);
      let use = useOf(query.use, request);
      let folderId = folderIdOf(query.folderId, request);
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
    };
  app.post(
    `${BASE}/upload`,
    { schema: uploadSchema('Uploads a file (streamed to the file storage)', ['file'], false) },
    upload(false),
  );
  app.post(
    `${BASE}/uploadTransFile`,
    { schema: uploadSchema('Uploads a file (docs/product.md §7; the same as upload)', ['file'], false) },
    upload(false),
  );
  app.post(
    '/api/file/netdisc/upload',
    {
      schema: uploadSchema(
        "Uploads a file into the caller's netdisc (quota param netdiscQuotaMb)",
        ['netdisc'],
        true,
      ),
    },
    upload(true),
  );
  await app.register(netdiscRoutes, { storage });

  // GET, and HEAD: the same headers, no bytes read (Fastify's own HEAD route would read them).
  app.route({
    method: ['GET', 'HEAD'],
    url: `${BASE}/download`,
    handler: async (request: FastifyRequest, reply: FastifyReply) =>
      sendFile(
        request,
        reply,
        await fileForDownload({
          ctx,
          storage,
          auth: requireAuth(request),
          id: requiredNumberParam(request, 'id'),
          l10n: localizerFor(request),
        }),
      ),
  });

  app.get(`${BASE}/query`, async (request) => {
    const query = queryOf(request);
    const textParam = (name: string): string | undefined => {
      const value = query[name];
      return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
    };
    const use = textParam('use');
    const sort = textParam('sort');
    return ok(
      await queryFiles({
        ctx,
        storage,
        auth: requireAuth(request),
        currentPage: typeof query.currentPage === 'number' ? query.currentPage : 1,
        pageSize: typeof query.pageSize === 'number' ? query.pageSize : 10,
        sort: sort ? sort.split(',').map((term) => term.trim()) : [],
        filters: {
          ...(textParam('originalFilename') ? { originalFilename: textParam('originalFilename') } : {}),
          ...(textParam('fileType') ? { fileType: textParam('fileType') } : {}),
          ...(textParam('contentType') ? { contentType: textParam('contentType') } : {}),
          ...(textParam('ownerName') ? { ownerName: textParam('ownerName') } : {}),
          ...(isFileUse(use) ? { use } : {}),
        },
      }),
    );
  });

  app.post(`${BASE}/delete`, async (request) => {
    const raw = queryOf(request).id;
    const ids = [raw].flat().filter((value): value is number => typeof value === 'number');
    return ok(await deleteFiles({ ctx, storage, auth: requireAuth(request), ids }));
  });
}
