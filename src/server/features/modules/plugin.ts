import type { FastifyInstance } from 'fastify';
import { inTransaction } from '../../lib/db/transaction.js';
import type { Feature } from '../../lib/feature.js';
import { actorOf, ok } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';
import {
  readParam,
  refusalsAsInputErrors,
  servicesFor,
  type ModuleEndpoint,
  type SharedServices,
} from '../../lib/modules/index.js';
import { answer } from '../../lib/route-schema.js';
import { crudRequestOf, entityService } from '../crud/index.js';
import { moduleJobTableSpecs, startJobPoller, type JobPoller } from './jobs.js';
import { syncModuleMenus } from './menus.js';

/**
 * The API base of the entity an endpoint sits beside. A name the schemas do not know is taken
 * as a designed form's code (published now or later): its routes are under /api/online/<code>.
 */
function baseOf(app: FastifyInstance, { module, entity, name }: ModuleEndpoint): string {
  const found = app.ctx.registry.get(entity);
  if (found) return found.api;
  if (/^[a-z][a-z0-9]{1,39}$/.test(entity)) return `online/${entity}`;
  throw new Error(`module "${module.name}": endpoint "${name}" is beside "${entity}", which is no entity`);
}

/**
 * The modules' custom endpoints (lib/modules), each at /api/<entity's x-entity.api>/<name> with
 * its route schemas (checked input, the OpenAPI document) and under the one permission policy
 * (URL grants, or every signed-in user for `access: 'signedIn'`; the permission hook sees these
 * routes as any other). A handler runs in one
 * transaction; its `entities` act with the caller's permissions. Then each module's setup.
 */
async function moduleRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  for (const item of ctx.modules.endpoints()) {
    const { module, entity, name, endpoint } = item;
    const schema = endpoint.schema ?? {};
    app.route({
      method: endpoint.method,
      url: `/api/${baseOf(app, item)}/${name}`,
      ...(endpoint.access === 'signedIn' ? { config: { isSelfService: true } } : {}),
      schema: {
        tags: [entity],
        summary: schema.summary ?? `${name} (module ${module.name})`,
        ...(schema.description ? { description: schema.description } : {}),
        ...(schema.body ? { body: schema.body } : {}),
        ...(schema.querystring ? { querystring: schema.querystring } : {}),
        response: answer(schema.response ?? {}),
      },
      handler: async (request) => {
        const l10n = localizerFor(request);
        const actor = actorOf(request);
        const result = await inTransaction(ctx.db, async (trx) => {
          const shared: SharedServices = {
            actor,
            tenant: actor.tenantCode,
            // The caller's policy, read in this transaction too (one connection on PGlite).
            entities: entityService(ctx.registry, (target, mode) =>
              crudRequestOf({ ...ctx, db: trx })(request, target, mode),
            ),
            param: (key) => readParam({ trx, registry: ctx.registry, tenant: actor.tenantCode, key }),
            translate: l10n.t,
            language: l10n.language,
            trx,
          };
          return refusalsAsInputErrors(() =>
            endpoint.handler({
              ...servicesFor(module, shared),
              body: request.body,
              query: (request.query ?? {}) as Record<string, unknown>,
              request,
            }),
          );
        });
        return ok(result);
      },
    });
  }
  if (ctx.modules.jobs().length > 0) {
    // every process that listens polls; an app that only answers injected requests (tests) runs
    // a round when told (runDueJobs)
    let poller: JobPoller | undefined;
    app.addHook('onListen', async () => {
      poller ??= startJobPoller(ctx, app.log);
    });
    app.addHook('onClose', async () => {
      await poller?.stop();
    });
  }
  for (const module of ctx.modules.definitions) await module.setup?.(app);
}

/**
 * Mounts what modules add beside the generated API: their menus (at start), their endpoints, the
 * poller of their jobs (sys_module_job), then their setup.
 */
export const modulesFeature: Feature = {
  name: 'modules',
  tables: moduleJobTableSpecs,
  start: syncModuleMenus,
  routes: moduleRoutes,
};
