import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { oneOf, object, PUBLIC_SECURITY, typed } from '../../../lib/route-schema.js';
import { paramValue } from '../services/params.js';

/** The params that hold the address a QR code encodes. */
const QR_CODE_PARAMS = ['buyerAccountUrl', 'supplierAccountUrl'] as const;

/**
 * The QR codes of the footer and the side panel (docs/product.md §1: two official-account codes), by the
 * param that holds the address each encodes. Without an address configured, a code opens the
 * matching sign-up information page of the portal itself, so that it is useful from day one.
 */
export const QR_CODES: Record<(typeof QR_CODE_PARAMS)[number], { fallbackPath: string }> = {
  buyerAccountUrl: { fallbackPath: '/buysettlein' },
  supplierAccountUrl: { fallbackPath: '/sellsettlein' },
};

/** Browsers and proxies keep a code for this long, then revalidate it with its ETag. */
const MAX_AGE_SECONDS = 600;

/** GET /api/notification/home/qrcode?param=…: the code as an SVG image, public and cacheable. */
export async function qrCodeRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  /** Where a code leads, and whether that address is the same for every visitor. */
  const target = async (request: FastifyRequest, key: string, fallbackPath: string) => {
    const configured = await paramValue({ ctx, key });
    if (configured) return { text: configured, isShared: true };
    if (ctx.config.publicUrl) return { text: `${ctx.config.publicUrl}${fallbackPath}`, isShared: true };
    // Without PUBLIC_URL the site's address is the one this visitor used; not for shared caches.
    return { text: `${request.protocol}://${request.host}${fallbackPath}`, isShared: false };
  };

  const schema = {
    tags: ['portal'],
    summary: 'A footer QR code as SVG',
    security: PUBLIC_SECURITY,
    // Only the params of a QR code: no other param can be read through this call.
    querystring: object({ param: oneOf(QR_CODE_PARAMS, { maxLength: 64 }) }, ['param']),
    produces: 'image/svg+xml',
    response: {},
  };
  typed(app).get(
    '/api/notification/home/qrcode',
    { config: { isPublic: true }, schema },
    async (request, reply) => {
      const key = request.query.param;
      const { text, isShared } = await target(request, key, QR_CODES[key].fallbackPath);
      const svg = await QRCode.toString(text, {
        type: 'svg',
        errorCorrectionLevel: 'M',
        margin: 1,
        color: { dark: '#1f2d3dff', light: '#ffffffff' },
      });
      const etag = `"${createHash('sha1').update(svg).digest('base64url')}"`;
      reply.header('cache-control', `${isShared ? 'public' : 'private'}, max-age=${MAX_AGE_SECONDS}`);
      reply.header('etag', etag);
      if (!isShared) reply.header('vary', 'Host');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type('image/svg+xml; charset=utf-8').send(svg);
    },
  );
}
