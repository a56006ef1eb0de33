import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { entityTableSpec } from '../engine/index.js';
import { accountRoutes } from './routes/accounts/index.js';
import { authHook } from './plugins/auth.js';
import { sessionSettleHook } from './services/sessions/watch.js';
import { rbacHook } from './plugins/permissions.js';
import { rbacRoutes } from './routes/rbac/index.js';
import { portalRoutes } from './routes/portal/index.js';
import { authRoutes } from './routes/auth.js';
import type { Config } from './lib/config.js';
import type { AppContext, RouteEntry } from './lib/context.js';
import { dictRoutes } from './routes/dicts.js';
import { docsRoutes } from './routes/docs.js';
import { crudRoutes } from './routes/items.js';
import { fileRoutes } from './routes/files.js';
import { workflowRoutes } from './routes/workflow/index.js';
import { fileLinkRoutes } from './routes/file-links.js';
import { coreTableSpecs } from './lib/db/core-tables.js';
import { openDatabase } from './lib/db/database.js';
import { migrate } from './lib/db/migrate.js';
import { seedDatabase, syncEntityMenus, type SeedResult } from './lib/db/seed/index.js';
import { loadRegistry } from './lib/registry.js';
import { errorsHandler } from './lib/errors.js';
import { loadI18n } from './lib/i18n.js';
import { tenantAdded } from './services/tenants/provision.js';
import { openSharedState, type SharedState } from './services/sessions/shared-state.js';
import { securityHeaders } from './plugins/security-headers.js';
import { clientErrorHandler, inputLimits } from './plugins/input-limits.js';
import { routeSchemas } from './plugins/route-schemas.js';
import { webRoutes } from './routes/web.js';

export interface BuildOptions {
  config: Config;
  logger?: FastifyServerOptions['logger'];
}

export interface BuiltApp {
  app: FastifyInstance;
  seed: SeedResult;
}

const ONE_MEBIBYTE = 1024 * 1024;

/**
 * Builds the whole server without listening (tests use inject): loads and checks the schemas,
 * opens the database, brings its tables in line with the schemas, seeds a first start and
 * registers every feature plugin.
 */
export async function buildApp({ config, logger = false }: BuildOptions): Promise<BuiltApp> {
  const registry = loadRegistry(config.schemasDir);
  const i18n = loadI18n(config.localesDir);
  const database = await openDatabase(config);
  let ctx: AppContext;
  let seed: SeedResult;
  let shared: SharedState | undefined;
  try {
    const table = (name: string): string => registry.require(name).table;
    await migrate(
      database.db,
      [
        ...registry.all.map(entityTableSpec),
        ...coreTableSpecs({
          role: table('sysrole'),
          user: table('sysuser'),
          menu: table('sysmenu'),
          url: table('sysurl'),
          post: table('syspost'),
          notification: table('notification'),
        }),
      ],
      { isConcurrent: database.kind === 'postgres' },
    );
    shared = await openSharedState(config, database, table('sysuser'));
    const { store, sessionCache } = shared;
    ctx = { config, db: database.db, dbKind: database.kind, registry, store, sessionCache };
    seed = await seedDatabase(ctx, i18n);
    await syncEntityMenus(ctx, i18n);
  } catch (error) {
    await shared?.close();
    await database.close();
    throw error;
  }

  const trustProxy: FastifyServerOptions['trustProxy'] = config.trustProxy;
  const app = Fastify({
    logger,
    bodyLimit: ONE_MEBIBYTE,
    trustProxy,
    // Requests Node's parser refuses (URL or headers over 16 KB, …) still get the envelope.
    clientErrorHandler: clientErrorHandler(i18n),
  });
  app.decorate('ctx', ctx);
  app.decorate('i18n', i18n);
  // The route table, for the permission matrix test and the API documentation.
  const routes: RouteEntry[] = [];
  app.decorate('routeTable', routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: route.url, config: route.config ?? {} });
    }
  });
  app.addHook('onClose', async () => {
    await shared?.close();
    await database.close();
  });
  await app.register(errorsHandler);
  await app.register(inputLimits);
  await app.register(routeSchemas);
  await app.register(securityHeaders);
  await app.register(formbody, { bodyLimit: ONE_MEBIBYTE });
  await app.register(authHook);
  await app.register(sessionSettleHook);
  await app.register(rbacHook);
  await app.register(authRoutes);
  await app.register(accountRoutes);
  await app.register(crudRoutes, { afterAdd: { systenant: tenantAdded } });
  await app.register(rbacRoutes);
  await app.register(dictRoutes);
  await app.register(docsRoutes);
  await app.register(portalRoutes);
  await app.register(fileRoutes);
  await app.register(workflowRoutes);
  await app.register(fileLinkRoutes);
  await app.register(webRoutes);
  return { app, seed };
}
