import type { AppContext } from './lib/context.js';
import type { I18n } from './lib/i18n.js';
import type { RequestAuth } from './lib/auth.js';
import type { RouteEntry } from './lib/context.js';
import type { DocumentedRoute } from '../engine/index.js';
import type { ProcessMetrics } from './features/monitor/services/metrics.js';
import type { RequestLogWriter } from './features/monitor/services/request-log.js';
import type { DatabaseHandle } from './lib/db/database.js';

declare module 'fastify' {
  interface FastifyInstance {
    i18n: I18n;
    ctx: AppContext;
    /** The database this app opened: its kind, and LISTEN on a channel of it (either database). */
    database: DatabaseHandle;
    routeTable: readonly RouteEntry[];
    /** Every /api route with its schema, for the API document (plugins/route-schemas.ts). */
    routeSchemas: readonly DocumentedRoute[];
    /** This process's metrics; undefined with MONITORING=off (features/monitor/monitoring-hook.ts). */
    monitor: ProcessMetrics | undefined;
    /** The batched request-log writer; undefined with MONITORING=off. */
    requestLog: RequestLogWriter | undefined;
  }
  interface FastifyRequest {
    auth: RequestAuth | null;
  }
  interface FastifyContextConfig {
    /** Reachable without a bearer token. */
    isPublic?: boolean;
    /** Every signed-in user may call it for themselves (own profile, menus, notifications): no URL permission needed. */
    isSelfService?: boolean;
    /**
     * Only the platform administrator (ROLE_ADMIN of the default tenant) may call it: it changes
     * or shows the platform itself (database tables, site-wide settings, tenants). A tenant's
     * administrator gets 403 platformOnly whatever URL grants their roles have.
     */
    isPlatformOnly?: boolean;
  }
}
