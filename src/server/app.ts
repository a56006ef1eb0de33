import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { entityTableSpec } from '../engine/index.js';
import { accountRoutes } from './account/routes.js';
import { authHook } from './auth/plugin.js';
import { sessionSettleHook } from './auth/session-watch.js';
import { rbacHook } from './rbac/plugin.js';
import { rbacRoutes } from './rbac/routes.js';
import { portalRoutes } from './portal/routes.js';
import { authRoutes } from './auth/routes.js';
import type { Config } from './config.js';
import type { AppContext, RouteEntry } from './context.js';
import { dictRoutes } from './crud/dicts.js';
import { docsRoutes } from './docs/routes.js';
import { crudRoutes } from './crud/routes.js';
import { coreTableSpecs } from './db/core-tables.js';
import { openDatabase } from './db/database.js';
import { migrate } from './db/migrate.js';
import { seedDatabase, syncEntityMenus, type SeedResult } from './db/seed/index.js';
import { loadRegistry } from './entities/registry.js';
import { errorsHandler } from './errors.js';
import { loadI18n } from './i18n/index.js';
import { tenantAdded } from './tenants/provision.js';
import { openSharedState, type SharedState } from './store/index.js';
import { securityHeaders } from './web/security-headers.js';
import { webRoutes } from './web/static.js';

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
    await migrate(database.db, [
      ...registry.all.map(entityTableSpec),
      ...coreTableSpecs({
        role: table('sysrole'),
        user: table('sysuser'),
        menu: table('sysmenu'),
        url: table('sysurl'),
        post: table('syspost'),
        notification: table('notification'),
      }),
    ]);
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
  const app = Fastify({ logger, bodyLimit: ONE_MEBIBYTE, trustProxy });
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
  await app.register(webRoutes);
  return { app, seed };
}
