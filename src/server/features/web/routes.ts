import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PortalParams } from '../../../engine/api-types.js';
import { matchLanguage, type Language } from '../../../engine/language.js';
import { AppError } from '../../lib/errors.js';
import { publicParams } from '../portal/index.js';
import {
  adminBootstrap,
  bootstrapJson,
  tokenCookie,
  actingRoleCookie,
  cookieValue,
  type AdminBootstrap,
} from './services/admin-bootstrap.js';

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
export function injectHead(html: string, params: PortalParams): string {
  const title = params.productTitle?.trim();
  const metas =
    `<meta name="ecobid-product" content="${escapeHtml(params.product ?? '')}" />` +
    `<meta name="ecobid-params" content="${escapeHtml(JSON.stringify(params))}" />`;
  const withTitle = title
    ? html.replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(title)}</title>`)
    : html;
  return withTitle.replace('</head>', `${metas}</head>`);
}

/** The id of the back-office's bootstrap block (src/admin/providers/bootstrap.ts reads it). */
export const BOOTSTRAP_ID = 'ecobid-bootstrap';

interface ManifestChunk {
  file: string;
  name?: string;
  src?: string;
  imports?: string[];
  css?: string[];
}

/**
 * The files a lazily loaded module of the build needs (Vite's manifest, dist/web/.vite): its
 * chunk, the chunks it imports that the page does not load already, and its stylesheets.
 */
export function lazyChunkFiles({
  manifest,
  page,
  module,
}: {
  manifest: Record<string, ManifestChunk>;
  /** The page's entry (admin/index.html): what it loads is not listed again. */
  page: string;
  /** The lazily loaded module's source (admin/entity/EntityList.tsx). */
  module: string;
}): { scripts: string[]; styles: string[] } {
  const closure = (key: string, seen: Set<string>): Set<string> => {
    if (seen.has(key) || !manifest[key]) return seen;
    seen.add(key);
    for (const imported of manifest[key].imports ?? []) closure(imported, seen);
    return seen;
  };
  const loaded = closure(page, new Set());
  const wanted = [...closure(module, new Set())].filter((key) => !loaded.has(key));
  if (!manifest[module]) return { scripts: [], styles: [] };
  return {
    scripts: wanted.map((key) => `/${manifest[key]?.file ?? ''}`),
    styles: wanted.flatMap((key) => (manifest[key]?.css ?? []).map((file) => `/${file}`)),
  };
}

/** The list screen's chunks as preloads for the page's head: fetched beside the entry, not after it ran. */
export function preloadLinks(chunks: { scripts: string[]; styles: string[] }): string {
  return (
    chunks.scripts
      .map((file) => `<link rel="modulepreload" crossorigin href="${escapeHtml(file)}">`)
      .join('') +
    chunks.styles
      .map((file) => `<link rel="preload" as="style" crossorigin href="${escapeHtml(file)}">`)
      .join('')
  );
}

/**
 * The language the back-office will show (src/web/i18n.ts's detectLanguage): the language
 * cookie, else the browser's (its first Accept-Language), else English.
 */
export function adminLanguage(cookie: string | undefined, acceptLanguage: string | undefined): Language {
  return (
    matchLanguage(cookieValue(cookie, 'language')) ??
    matchLanguage(acceptLanguage?.split(',')[0]?.split(';')[0]) ??
    'en'
  );
}

/** The built chunk of each language's texts (locales/*.json, loaded before the first render). */
export function localeChunkFiles(manifest: Record<string, ManifestChunk>): Partial<Record<Language, string>> {
  const files: Partial<Record<Language, string>> = {};
  for (const chunk of Object.values(manifest))
    for (const language of ['zh', 'tw', 'en'] as const)
      if (chunk.name === language && chunk.file.startsWith(`assets/${language}-`))
        files[language] = `/${chunk.file}`;
  return files;
}

/** The bootstrap block of a signed-in user's page. */
export function bootstrapBlock(bootstrap: AdminBootstrap): string {
  return `<script type="application/json" id="${BOOTSTRAP_ID}">${bootstrapJson(bootstrap)}</script>`;
}

/**
 * The back-office page for a signed-in user, in two parts: the head (with the list screen's
 * preloads when a list is opened) goes out at once, so the browser fetches the scripts while the
 * server reads the caller's data; the bootstrap block follows at the end of the body. The module
 * scripts run only once the whole page is parsed, so they always find it.
 */
export async function* streamedPage({
  html,
  listChunks,
  bootstrap,
}: {
  html: string;
  /** The list screen's chunks, preloaded from the head when a list is opened. */
  listChunks: { scripts: string[]; styles: string[] } | undefined;
  bootstrap: Promise<AdminBootstrap | undefined>;
}): AsyncGenerator<string> {
  const withPreloads = listChunks ? html.replace('</head>', `${preloadLinks(listChunks)}</head>`) : html;
  const at = withPreloads.lastIndexOf('</body>');
  const cut = at === -1 ? withPreloads.length : at;
  yield withPreloads.slice(0, cut);
  const data = await bootstrap;
  yield `${data ? bootstrapBlock(data) : ''}${withPreloads.slice(cut)}`;
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
  await app.register(fastifyStatic, {
    root,
    wildcard: false,
    index: false,
    maxAge: '1h',
    immutable: false,
    // Built files are named by their content's hash: a browser keeps them for good.
    setHeaders: (reply, path) => {
      if (path.startsWith(join(root, 'assets')))
        reply.header('cache-control', 'public, max-age=31536000, immutable');
    },
  });
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
  let manifest: Record<string, ManifestChunk> | undefined;
  const manifestOf = (): Record<string, ManifestChunk> => {
    const manifestFile = join(root, '.vite/manifest.json');
    manifest ??= existsSync(manifestFile)
      ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, ManifestChunk>)
      : {};
    return manifest;
  };
  let listChunks: { scripts: string[]; styles: string[] } | undefined;
  const listScreenChunks = (): { scripts: string[]; styles: string[] } => {
    listChunks ??= lazyChunkFiles({
      manifest: manifestOf(),
      page: 'admin/index.html',
      module: 'admin/entity/EntityList.tsx',
    });
    return listChunks;
  };
  // The back-office's texts load before its first render: fetched beside the entry, not after it.
  let locales: Partial<Record<Language, string>> | undefined;
  const localePreload = (request: FastifyRequest): string => {
    locales ??= localeChunkFiles(manifestOf());
    const file = locales[adminLanguage(request.headers.cookie, request.headers['accept-language'])];
    return file ? preloadLinks({ scripts: [file], styles: [] }) : '';
  };
  /** The signed-in caller's bootstrap (no session: none; a failure: none, the page asks itself). */
  const bootstrapOf = async (request: FastifyRequest, token: string): Promise<AdminBootstrap | undefined> =>
    adminBootstrap({ ctx: app.ctx, token, role: actingRoleCookie(request.headers.cookie) }).catch(
      (error: unknown) => {
        request.log.error(error, 'back-office bootstrap for the page');
        return undefined;
      },
    );
  // The generated lists' paths (x-entity.menu, as the seed makes their menus): a preload hint only.
  const listPaths = new Set(
    app.ctx.registry.all.flatMap((entity) => (entity.menu ? [entity.menu.path ?? `/${entity.name}`] : [])),
  );
  const isListPath = (url: string): boolean => {
    const path = (url.split('?')[0] ?? '').replace(/^\/admin/, '').replace(/\/+$/, '');
    try {
      return listPaths.has(decodeURIComponent(path));
    } catch {
      // a malformed address opens no list
      return false;
    }
  };
  const sendIndex = (file: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.url.startsWith('/api/'))
      throw new AppError('routeNotFound', { path: request.url.split('?')[0] ?? '' });
    const isAdmin = file.startsWith('admin/');
    // Params change in the back-office at any time: the page is checked on every visit. The
    // back-office page carries the caller's own data: no cache keeps it, shared or not.
    reply.header('cache-control', isAdmin ? 'private, no-store' : 'no-cache');
    if (isAdmin) reply.header('vary', 'cookie');
    reply.type('text/html; charset=utf-8');
    const token = isAdmin ? tokenCookie(request.headers.cookie) : undefined;
    // asked for at once: the page's head does not wait for it
    const bootstrap = token ? bootstrapOf(request, token) : undefined;
    const params = await publicParams(app.ctx).catch((error: unknown) => {
      // The page still works without them: the portal then asks the params endpoint.
      request.log.error(error, 'public params for the page');
      return undefined;
    });
    const filled = params ? injectHead(page(file), params) : page(file);
    const html = isAdmin ? filled.replace('</head>', `${localePreload(request)}</head>`) : filled;
    if (!bootstrap) return html;
    const chunks = isListPath(request.url) ? listScreenChunks() : undefined;
    return reply.send(Readable.from(streamedPage({ html, listChunks: chunks, bootstrap })));
  };
  app.get('/admin', async (_request, reply) => reply.redirect('/admin/'));
  // The SPA fallbacks also catch unknown /api paths, which must answer 404 to anyone.
  const isPublic = { config: { isPublic: true } };
  app.get('/admin/', isPublic, sendIndex('admin/index.html'));
  app.get('/admin/*', isPublic, sendIndex('admin/index.html'));
  // docs/product.md §2.1: the root path sends everyone to the product's home.
  app.get('/', async (_request, reply) => reply.redirect(`/${app.ctx.config.product}`));
  app.get('/*', isPublic, sendIndex('index.html'));
}
