import type { FastifyInstance } from 'fastify';
import { ok, queryOf, requireAuth, requiredNumberParam } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { openFileStorage } from '../../../lib/storage/index.js';
import { fileLinks, publicPicture } from '../services/links.js';

const BASE = '/api/file/file';

/** A year: a picture's public address names its content, so it never changes. */
const PICTURE_MAX_AGE = 31_536_000;

/**
 * Links to files for forms, lists and rich text (features/files/services/links.ts): the names and
 * addresses of files by id, and the public address of pictures.
 */
export async function fileLinkRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const storage = await openFileStorage(ctx.config);

  app.get(`${BASE}/info`, async (request) => {
    const raw = queryOf(request).id;
    const ids = [raw].flat().filter((value): value is number => typeof value === 'number');
    return ok({ records: await fileLinks(ctx, requireAuth(request), [...new Set(ids)]) });
  });

  app.get(`${BASE}/picture`, { config: { isPublic: true } }, async (request, reply) => {
    const hash = queryOf(request).h;
    const picture = await publicPicture(
      ctx,
      storage,
      requiredNumberParam(request, 'id'),
      typeof hash === 'string' ? hash : '',
      localizerFor(request),
    );
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
  });
}
