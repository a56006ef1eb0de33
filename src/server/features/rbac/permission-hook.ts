import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { assertPlatformRoute, assertUrlGranted, isGrantedEveryUrl } from './permissions/policy.js';

/**
 * Role-based access on every non-public /api route, decided on the server by the permission
 * policy's URL grants (features/rbac/permissions/policy.ts): 403 when the caller's roles lack the URL,
 * and 403 platformOnly on a route declared platform-only for anyone but the platform administrator.
 */
async function rbacPlugin(app: FastifyInstance): Promise<void> {
  // The grants live in these entities: a schema set without them fails at start-up, not on a request.
  app.ctx.registry.require('sysurl');
  app.ctx.registry.require('sysrole');
  app.addHook('onRequest', (request, _reply, done) => {
    const auth = request.auth;
    if (!auth || request.is404 || request.routeOptions.config.isPublic === true) {
      done();
      return;
    }
    const { config } = request.routeOptions;
    try {
      assertPlatformRoute({ ctx: app.ctx, auth, isPlatformOnly: config.isPlatformOnly === true });
    } catch (error) {
      done(error as Error);
      return;
    }
    const isSelfService = config.isSelfService === true;
    // Administrators and self-service routes: decided here, no promise to wait for.
    if (isGrantedEveryUrl(auth, isSelfService)) {
      done();
      return;
    }
    assertUrlGranted({ ctx: app.ctx, auth, path: request.url, method: request.method, isSelfService }).then(
      () => done(),
      done,
    );
  });
}

export const rbacHook = fp(rbacPlugin, { name: 'rbac', dependencies: ['auth'] });
