import type { FastifyInstance } from 'fastify';
import { ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, arrayOf, id, ids, object, PUBLIC_SECURITY, text, typed } from '../../../lib/route-schema.js';
import { openFileStorage } from '../../../lib/storage/index.js';
import { fileLinks, publicPicture } from '../services/links.js';
import { FILE_LINK } from './schemas.js';

const BASE = '/api/file/file';
const tags = ['file'];

/** A year: a picture's public address names its content, so it never changes. */
const PICTURE_MAX_AGE = 31_536_000;

/**
 * Links to files for forms, lists and rich text (features/files/services/links.ts): the names and
 * addresses of files by id, and the public address of pictures.
 */
export async function fileLinkRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const storage = await openFileStorage(ctx.config);
  const api = typed(app);

  api.get(
    `${BASE}/info`,
    {
      schema: {
        tags,
        summary: 'Names and addresses of files by id (the ones the caller may reach; others are left out)',
        querystring: object({ id: { ...ids(200, 'The files'), minItems: 1 } }, ['id']),
        response: answer(object({ records: arrayOf(FILE_LINK) }, ['records'])),
      },
    },
    async (request) =>
      ok({
        records: await fileLinks({ ctx, caller: requireAuth(request), ids: [...new Set(request.query.id)] }),
      }),
  );

  api.get(
    `${BASE}/picture`,
    {
      config: { isPublic: true },
      schema: {
        tags,
        summary: 'A picture by its public address (the id and the first 16 hex digits of its sha256)',
        security: PUBLIC_SECURITY,
        querystring: object({ id: id('The picture'), h: text(16, { pattern: '^[0-9a-f]{16}$' }) }, [
          'id',
          'h',
        ]),
        produces: 'image/*',
        response: {},
      },
    },
    async (request, reply) => {
      const picture = await publicPicture({
        ctx,
        storage,
        id: request.query.id,
        hash: request.query.h,
        l10n: localizerFor(request),
      });
      const etag = `"${picture.sha256}"`;
      void reply
        .header('etag', etag)
        .header('cache-control', `public, max-age=${PICTURE_MAX_AGE}, immutable`)
        .header('x-content-type-options', 'nosniff')
        .header('content-type', picture.contentType)
        .header('content-disposition', 'inline');
      if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))
        return reply.code(304).send();
      return reply.header('content-length', picture.size).send(await picture.open());
    },
  );
}
