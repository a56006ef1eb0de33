import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { entityTableSpecs, rebuildableIndexes, type TableSpec } from '../engine/index.js';
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
import { formPreviewRoutes } from './routes/form-preview.js';
import { generatorRoutes } from './routes/generator.js';
import { coreTableSpecsOf } from './lib/db/core-tables.js';
import { formTableSpecs } from './lib/db/form-tables.js';
import { formRoutes } from './routes/forms.js';
import { syncFormMenus } from './lib/db/seed/forms.js';
import { openDatabase } from './lib/db/database.js';
import {
  migrate,
  startIndexBuild,
  startIndexRepair,
  type IndexBuild,
  type IndexRepair,
} from './lib/db/migrate.js';
import { syncGeneratorDicts } from './lib/db/seed/generator.js';
import { seedDatabase, syncEntityMenus, type SeedResult } from './lib/db/seed/index.js';
import { syncWorkflowMenus } from './lib/db/seed/workflow.js';
import { seedDemo } from './lib/db/seed/demo.js';
import { installReportMenuSync } from './services/demo/report-menu-sync.js';
import { loadRegistry } from './lib/registry.js';
import { errorsHandler } from './lib/errors.js';
import { loadI18n } from './lib/i18n.js';
import { tenantAdded } from './services/tenants/provision.js';
import { openSharedState, type SharedState } from './services/sessions/shared-state.js';
import { securityHeaders } from './plugins/security-headers.js';
import { clientErrorHandler, inputLimits } from './plugins/input-limits.js';
import { routeSchemas } from './plugins/route-schemas.js';
import { webRoutes } from './routes/web.js';
import { monitoring } from './plugins/monitoring.js';
import { monitorRoutes } from './routes/monitor/index.js';
import { demoMockRoutes } from './routes/demo-mocks.js';
import { demoDashboardRoutes } from './routes/demo-dashboard.js';
import { demoReportRoutes } from './routes/demo-report.js';

export interface BuildOptions {
  config: Config;
  logger?: FastifyServerOptions['logger'];
}

export interface BuiltApp {
  app: FastifyInstance;
  seed: SeedResult;
}

const ONE_MEBIBYTE = 1024 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{8,64}$/;

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
  let pendingIndexes: string[] = [];
  const table = (name: string): string => registry.require(name).table;
  /** Every table the schemas want, as they are now (entities may be added while the server runs). */
  const tableSpecs = (): TableSpec[] => [
    ...registry.all.flatMap(entityTableSpecs),
    ...coreTableSpecsOf(registry),
    ...formTableSpecs(),
  ];
  try {
    const migration = await migrate(database.db, tableSpecs(), {
      isConcurrent: database.kind === 'postgres',
      isIndexBuildDeferred: database.kind === 'postgres',
    });
    pendingIndexes = migration.pendingIndexes;
    shared = await openSharedState(config, database, { user: table('sysuser'), param: table('sysparam') });
    const { store, sessionCache, paramCache } = shared;
    ctx = { config, db: database.db, dbKind: database.kind, registry, store, sessionCache, paramCache };
    seed = await seedDatabase(ctx, i18n);
    await syncEntityMenus(ctx, i18n);
    await syncFormMenus(ctx, i18n);
    await syncWorkflowMenus(ctx);
    await syncGeneratorDicts(ctx, i18n);
    await seedDemo(ctx, i18n);
    await installReportMenuSync(ctx.db, registry);
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
    // A caller's X-Request-Id (a balancer's, a client's) is kept when it looks like an id, so one
    // id follows the request through every log; otherwise the server makes one.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // One JSON line per request comes from plugins/monitoring.ts, with user, tenant and route.
    logController: new LogController({ disableRequestLogging: true }),
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
  // List indexes of a big table are built while the server answers (lists are slower until then).
  let indexBuild: IndexBuild | undefined;
  // An index a build left invalid (killed half-way, here or in another process) is built again
  // while the server runs, not only at its next start.
  let indexRepair: IndexRepair | undefined;
  app.addHook('onReady', async () => {
    if (database.kind === 'postgres') {
      indexRepair = startIndexRepair(database.db, {
        everyMs: config.indexCheckSeconds * 1000,
        statements: () => new Map(tableSpecs().flatMap((spec) => [...rebuildableIndexes(spec)])),
        onRepair: (names, error) => {
          if (error === undefined) app.log.warn({ indexes: names }, 'invalid list indexes built again');
          else
            app.log.warn({ err: error }, 'invalid list indexes not built again: the next check tries again');
        },
      });
    }
    if (pendingIndexes.length === 0) return;
    const started = Date.now();
    app.log.info({ indexes: pendingIndexes.length }, 'building list indexes in the background');
    indexBuild = startIndexBuild(database.db, pendingIndexes);
    indexBuild.done.then(
      () => app.log.info({ indexes: pendingIndexes.length, ms: Date.now() - started }, 'list indexes built'),
      (error: unknown) =>
        app.log.warn({ err: error }, 'list indexes not built: the next start builds what is missing'),
    );
  });
  app.addHook('onClose', async () => {
    await indexRepair?.stop();
    await indexBuild?.cancel();
    await shared?.close();
    await database.close();
  });
  await app.register(errorsHandler);
  await app.register(monitoring, { database });
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
  await app.register(formRoutes);
  await app.register(fileLinkRoutes);
  await app.register(formPreviewRoutes);
  await app.register(generatorRoutes);
  await app.register(monitorRoutes);
  await app.register(demoMockRoutes);
  await app.register(demoDashboardRoutes);
  await app.register(demoReportRoutes);
  await app.register(webRoutes);
  return { app, seed };
}
