import type { AppContext } from './context.js';
import type { I18n } from './i18n/index.js';
import type { AuthContext } from './auth/session.js';

declare module 'fastify' {
  interface FastifyInstance {
    i18n: I18n;
    ctx: AppContext;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    /** Reachable without a bearer token. */
    isPublic?: boolean;
  }
}
