import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import formbody from '@fastify/formbody';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { entityTableSpecs, rebuildableIndexes, type TableSpec } from '../engine/index.js';
import type { Config } from './lib/config.js';
import { setLocalTimeZone } from './lib/sql/toolkit.js';
import type { AppContext, RouteEntry } from './lib/context.js';
import { openDatabase } from './lib/db/database.js';
import { auditTableSpecs } from './lib/db/audit-table.js';
import { eventTableSpecs } from './lib/events/index.js';
import {
  migrate,
  startIndexBuild,
  startIndexRepair,
  type IndexBuild,
  type IndexRepair,
} from './lib/db/migrate.js';
import { errorsHandler } from './lib/errors.js';
import type { Feature } from './lib/feature.js';
import { LANGUAGES } from '../engine/language.js';
import { acceptWidgets } from '../engine/meta.js';
import { loadI18n } from './lib/i18n.js';
import { loadRegistry } from './lib/registry.js';
import { discoverModules, ModuleSet } from './lib/modules/index.js';
import { sharedStoreTableSpecs } from './lib/store/tables.js';
import { clientErrorHandler, inputLimits } from './plugins/input-limits.js';
import { routeSchemas, type RouteSchemasOptions } from './plugins/route-schemas.js';
import { securityHeaders } from './plugins/security-headers.js';
import { accountsFeature } from './features/accounts/plugin.js';
import { apiDocsFeature } from './features/api-docs/plugin.js';
import { apiKeysFeature } from './features/apikeys/plugin.js';
import { twoFactorFeature } from './features/twofactor/plugin.js';
import { eventsFeature } from './features/events/plugin.js';
import { oidcFeature } from './features/oidc/plugin.js';
import { crudFeature } from './features/crud/plugin.js';
import { recycleBinModule } from './features/crud/index.js';
import { eventRetentionModule } from './features/events/index.js';
import { demoFeature } from './features/demo/plugin.js';
import { filesFeature } from './features/files/plugin.js';
import { formsFeature } from './features/forms/plugin.js';
import { generatorFeature } from './features/generator/plugin.js';
import { monitorFeature } from './features/monitor/plugin.js';
import { notificationsFeature } from './features/notifications/plugin.js';
import { portalFeature } from './features/portal/plugin.js';
import { rbacModule } from './features/rbac/index.js';
import { dictionariesModule } from './features/dictionaries/index.js';
import { rbacFeature } from './features/rbac/plugin.js';
import { modulesFeature } from './features/modules/plugin.js';
import { openSharedState, sessionsModule, type SharedState } from './features/sessions/index.js';
import { sessionsFeature } from './features/sessions/plugin.js';
import { seedDatabase, tenantsModule, type SeedResult } from './features/tenants/index.js';
import { tenantsFeature } from './features/tenants/plugin.js';
import { webFeature } from './features/web/plugin.js';
import { workflowFeature } from './features/workflow/plugin.js';

export interface BuildOptions {
  config: Config;
  logger?: FastifyServerOptions['logger'];
  /** Checks every 200 JSON answer against its declared schema (the integration suite). */
  onAnswerMismatch?: RouteSchemasOptions['onAnswerMismatch'];
}

export interface BuiltApp {
  app: FastifyInstance;
  seed: SeedResult;
}

const ONE_MEBIBYTE = 1024 * 1024;

/**
 * The features in the order their start-up steps run and their hooks and routes are mounted:
 * monitoring measures every request, authentication (API keys, then sessions) comes before the permission check, the
 * default tenant's menus before the menus of forms, workflow and demos; the pages last.
 */
const FEATURES: readonly Feature[] = [
  monitorFeature,
  // Before the sessions: a bearer API key (ek_…) is checked here, a session token there.
  apiKeysFeature,
  sessionsFeature,
  rbacFeature,
  tenantsFeature,
  accountsFeature,
  // The second step of a sign-in (the sessions' SignInStep), enrolment and its reset.
  twoFactorFeature,
  oidcFeature,
  notificationsFeature,
  crudFeature,
  formsFeature,
  workflowFeature,
  filesFeature,
  eventsFeature,
  generatorFeature,
  portalFeature,
  // Endpoints of modules beside the generated API, before the document of the API is made.
  modulesFeature,
  apiDocsFeature,
  demoFeature,
  webFeature,
];
const REQUEST_ID = /^[A-Za-z0-9._:-]{8,64}$/;

/**
 * Builds the whole server without listening (tests use inject): loads and checks the schemas,
 * opens the database, brings its tables in line with the schemas, seeds a first start and
 * registers every feature plugin.
 */
export async function buildApp({
  config,
  logger = false,
  onAnswerMismatch,
}: BuildOptions): Promise<BuiltApp> {
  // Modules of src/modules and MODULE_DIRS (docs/extending.md), before the schemas that use their widgets.
  const discovered = await discoverModules(config.moduleDirs);
  acceptWidgets(discovered.flatMap((item) => item.definition.widgets ?? []));
  const registry = loadRegistry(
    config.schemasDir,
    discovered.flatMap(({ definition }) =>
      Object.entries(definition.entities ?? {}).flatMap(([entity, part]) =>
        part.schema
          ? [
              {
                module: definition.name,
                entity,
                ...(part.schema.properties ? { properties: part.schema.properties } : {}),
                ...(part.schema['x-rules'] ? { rules: part.schema['x-rules'] } : {}),
              },
            ]
          : [],
      ),
    ),
    // Entities a module brings in its schemas/ folder (a generated module of a new entity).
    discovered.map((item) => join(dirname(item.file), 'schemas')),
  );
  const i18n = loadI18n(config.localesDir);
  // The framework's own special cases run on the module API, before the modules discovered.
  const modules = new ModuleSet([
    sessionsModule(registry),
    rbacModule(registry),
    tenantsModule({ registry, i18n }),
    dictionariesModule(registry),
    recycleBinModule(registry),
    eventRetentionModule(registry),
    ...discovered.map((item) => item.definition),
  ]);
  for (const module of modules.definitions)
    for (const language of LANGUAGES) {
      const texts = module.messages?.[language];
      if (texts) i18n.add(language, `modules.${module.name}`, texts);
    }
  // Adopted tables' timestamp without time zone columns: read and written in this zone.
  setLocalTimeZone(config.dbLocalTimeZone);
  const database = await openDatabase(config);
  let ctx: AppContext;
  let seed: SeedResult;
  let shared: SharedState | undefined;
  let pendingIndexes: string[] = [];
  const table = (name: string): string => registry.require(name).table;
  /** Every table the schemas want, as they are now (entities may be added while the server runs). */
  const tableSpecs = (): TableSpec[] => [
    ...registry.all.flatMap(entityTableSpecs),
    ...sharedStoreTableSpecs(),
    ...auditTableSpecs(),
    ...eventTableSpecs(),
    ...FEATURES.flatMap((feature) => feature.tables?.(registry) ?? []),
  ];
  try {
    const migration = await migrate(database.db, tableSpecs(), {
      isConcurrent: database.kind === 'postgres',
      isIndexBuildDeferred: database.kind === 'postgres',
    });
    pendingIndexes = migration.pendingIndexes;
    shared = await openSharedState({
      config,
      database,
      tables: { user: table('sysuser'), param: table('sysparam') },
    });
    const { store, sessionCache, paramCache } = shared;
    ctx = {
      config,
      db: database.db,
      dbKind: database.kind,
      registry,
      store,
      sessionCache,
      paramCache,
      tableSpecs,
      modules,
    };
    seed = await seedDatabase(ctx, i18n);
    for (const feature of FEATURES) await feature.start?.(ctx, i18n);
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
    // One JSON line per request comes from the monitor feature's hooks, with user, tenant and route.
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.decorate('ctx', ctx);
  app.decorate('i18n', i18n);
  app.decorate('database', database);
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
  await app.register(inputLimits);
  await app.register(routeSchemas, { onAnswerMismatch });
  await app.register(securityHeaders);
  await app.register(formbody, { bodyLimit: ONE_MEBIBYTE });
  for (const feature of FEATURES) if (feature.hooks) await app.register(feature.hooks, { database });
  for (const feature of FEATURES) if (feature.routes) await app.register(feature.routes, { database });
  return { app, seed };
}
