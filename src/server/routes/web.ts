import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.js';
import { publicParams } from '../services/portal/params.js';

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  );

/**
 * An SPA's index.html with what the first paint needs from the server, so the page does not wait
 * for an API call: the product title as the document title, the product slug and the public
 * params (hotline, mailbox, product title, …) as meta tags that the front-ends read at start.
 */
export function injectHead(html: string, params: Record<string, string>): string {
  const title = params.productTitle?.trim();
  const metas =
    `<meta name="ecobid-product" content="${escapeHtml(params.product ?? '')}" />` +
    `<meta name="ecobid-params" content="${escapeHtml(JSON.stringify(params))}" />`;
  const withTitle = title
    ? html.replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(title)}</title>`)
    : html;
  return withTitle.replace('</head>', `${metas}</head>`);
}

/**
 * Serves the built front-ends from dist/web: the back-office SPA under /admin/ and the portal
 * at /. Unknown paths fall back to the SPA's index.html (client-side routes); unknown /api paths
 * stay JSON 404s.
 */
export async function webRoutes(app: FastifyInstance): Promise<void> {
  const root = app.ctx.config.webDir;
  if (!existsSync(join(root, 'index.html'))) {
    app.log.warn(`No built front-end in ${root}: run "npm run build" (npm start does it for you).`);
    return;
  }
  await app.register(fastifyStatic, { root, wildcard: false, index: false, maxAge: '1h', immutable: false });
  // The pages are small and change only with a build: read once, filled in per request.
  const pages = new Map<string, string>();
  const page = (file: string): string => {
    let html = pages.get(file);
    if (html === undefined) {
      html = readFileSync(join(root, file), 'utf8');
      pages.set(file, html);
    }
    return html;
  };
  const sendIndex = (file: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.url.startsWith('/api/'))
      throw new AppError('routeNotFound', { path: request.url.split('?')[0] ?? '' });
    // Params change in the back-office at any time: the page is checked on every visit.
    reply.header('cache-control', 'no-cache');
    reply.type('text/html; charset=utf-8');
    const params = await publicParams(app.ctx).catch((error: unknown) => {
      // The page still works without them: the portal then asks the params endpoint.
      request.log.error(error, 'public params for the page');
      return undefined;
    });
    return params ? injectHead(page(file), params) : page(file);
  };
  app.get('/admin', async (_request, reply) => reply.redirect('/admin/'));
  // The SPA fallbacks also catch unknown /api paths, which must answer 404 to anyone.
  const isPublic = { config: { isPublic: true } };
  app.get('/admin/', isPublic, sendIndex('admin/index.html'));
  app.get('/admin/*', isPublic, sendIndex('admin/index.html'));
  // SPEC §2.1: the root path sends everyone to the product's home.
  app.get('/', async (_request, reply) => reply.redirect(`/${app.ctx.config.product}`));
  app.get('/*', isPublic, sendIndex('index.html'));
}
