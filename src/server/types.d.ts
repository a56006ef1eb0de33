import type { AppContext } from './context.js';
import type { I18n } from './i18n/index.js';
import type { RequestAuth } from './auth/plugin.js';
import type { RouteEntry } from './context.js';

declare module 'fastify' {
  interface FastifyInstance {
    i18n: I18n;
    ctx: AppContext;
    routeTable: readonly RouteEntry[];
  }
  interface FastifyRequest {
    auth: RequestAuth | null;
  }
  interface FastifyContextConfig {
    /** Reachable without a bearer token. */
    isPublic?: boolean;
    /** Every signed-in user may call it for themselves (own profile, menus, notifications): no URL permission needed. */
    isSelfService?: boolean;
  }
}
