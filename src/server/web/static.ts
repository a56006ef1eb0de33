import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

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
  const sendIndex = (file: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.url.startsWith('/api/'))
      throw new AppError('routeNotFound', { path: request.url.split('?')[0] ?? '' });
    reply.header('cache-control', 'no-cache');
    return reply.sendFile(file);
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
