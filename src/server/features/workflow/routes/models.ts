import type { FastifyInstance } from 'fastify';
import { localizerFor } from '../../../lib/i18n.js';
import { ok } from '../../../lib/http.js';
import { id, ids, integer, object, text } from '../../../lib/route-schema.js';
import { deployXml, deleteDeployment } from '../services/deploy.js';
import {
  addModel,
  deleteModels,
  deployModel,
  getModel,
  importModel,
  modelXml,
  queryModels,
  saveModelXml,
  updateModel,
  type ModelInput,
} from '../services/models.js';
import { queryDeployments } from '../services/queries.js';
import { actorOf, BASE, BY_ID, PAGE, PAGING, schema } from './shared.js';

const MAX_XML = 900_000;

const MODEL_FIELDS = {
  name: text(100, { minLength: 1 }),
  key: text(100, {
    pattern: '^[A-Za-z_][A-Za-z0-9_.-]{0,99}$',
    description: 'Process key (the BPMN process id)',
  }),
  category: text(100),
  description: text(512),
  orgId: { type: ['integer', 'null'], minimum: 1 },
  referGroup: text(200),
  referUsers: { type: 'array', items: text(64), maxItems: 200 },
  usedForm: text(100),
};

const DEPLOY_ANSWER = object(
  {
    deploymentId: { type: 'integer' },
    processDefinitionId: { type: 'integer' },
    key: { type: 'string' },
    version: { type: 'integer' },
    warnings: {
      type: 'array',
      items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
    },
  },
  ['deploymentId', 'processDefinitionId', 'key', 'version', 'warnings'],
);

/** Models and deployments (docs/product.md §2.3 workflow: /model, /deployment). */
export async function workflowModelRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  app.get(
    `${BASE}/model/query`,
    schema(
      'Process models of the tenant, paged',
      {
        querystring: object({ ...PAGING, name: text(100), key: text(100), category: text(100) }),
      },
      PAGE,
    ),
    async (request) =>
      ok(await queryModels(ctx, actorOf(request), request.query as Parameters<typeof queryModels>[2])),
  );
  app.post(
    `${BASE}/model/add`,
    schema('Adds a process model', { body: object(MODEL_FIELDS, ['name', 'key']) }),
    async (request) => ok(await addModel(ctx, actorOf(request), request.body as ModelInput)),
  );
  app.put(
    `${BASE}/model/update`,
    schema('Changes a process model (revision: the one read, 409 when it changed meanwhile)', {
      body: object({ id: id(), revision: integer(0), ...MODEL_FIELDS }, ['id', 'name', 'key']),
    }),
    async (request) =>
      ok(await updateModel(ctx, actorOf(request), request.body as ModelInput & { id: number })),
  );
  app.post(
    `${BASE}/model/delete`,
    schema('Deletes process models (deployments stay)', {
      querystring: object({ id: ids(1000, 'The models') }, ['id']),
    }),
    async (request) => ok(await deleteModels(ctx, actorOf(request), (request.query as { id: number[] }).id)),
  );
  app.get(
    `${BASE}/model/get`,
    schema('One model with its saved diagram (xml: null before the first save)', {
      querystring: BY_ID('The model'),
    }),
    async (request) => ok(await getModel(ctx, actorOf(request), (request.query as { id: number }).id)),
  );
  app.post(
    `${BASE}/model/import`,
    schema(
      'Creates a model with its diagram in one transaction (import, copy); 409 when the key exists unless replace, then that model gets the diagram',
      {
        body: object(
          {
            ...MODEL_FIELDS,
            xml: { type: 'string', minLength: 1, maxLength: MAX_XML },
            replace: { type: 'boolean', description: 'Replace the diagram of the model with this key' },
          },
          ['name', 'key', 'xml'],
        ),
      },
    ),
    async (request) =>
      ok(
        await importModel(
          ctx,
          actorOf(request),
          localizerFor(request),
          request.body as ModelInput & { xml: string; replace?: boolean },
        ),
      ),
  );
  app.get(
    `${BASE}/model/xml`,
    schema('The saved BPMN diagram of a model', { querystring: BY_ID('The model') }),
    async (request) => ok(await modelXml(ctx, actorOf(request), (request.query as { id: number }).id)),
  );
  app.put(
    `${BASE}/model/saveXml`,
    schema("Stores a model's BPMN diagram; 400 lists the problems per element {field: element id, message}", {
      body: object({ id: id(), xml: { type: 'string', minLength: 1, maxLength: MAX_XML } }, ['id', 'xml']),
    }),
    async (request) => {
      const body = request.body as { id: number; xml: string };
      return ok(await saveModelXml(ctx, actorOf(request), localizerFor(request), body));
    },
  );
  app.post(
    `${BASE}/model/deploy`,
    schema(
      'Deploys a model as the next version of its process',
      { querystring: BY_ID('The model') },
      DEPLOY_ANSWER,
    ),
    async (request) =>
      ok(
        await deployModel(ctx, actorOf(request), localizerFor(request), (request.query as { id: number }).id),
      ),
  );
  app.post(
    `${BASE}/deployment/deployXml`,
    schema(
      'Deploys a BPMN 2.0 file (Activiti, Flowable or Camunda Modeler) directly',
      {
        body: object(
          { xml: { type: 'string', minLength: 1, maxLength: MAX_XML }, name: text(100), category: text(100) },
          ['xml'],
        ),
      },
      DEPLOY_ANSWER,
    ),
    async (request) =>
      ok(
        await deployXml(
          ctx,
          actorOf(request),
          localizerFor(request),
          request.body as { xml: string; name?: string; category?: string },
        ),
      ),
  );
  app.get(
    `${BASE}/deployment/query`,
    schema(
      'Deployments of the tenant, paged',
      {
        querystring: object({ ...PAGING, name: text(100), category: text(100) }),
      },
      PAGE,
    ),
    async (request) =>
      ok(
        await queryDeployments(
          ctx.db,
          actorOf(request),
          request.query as Parameters<typeof queryDeployments>[2],
        ),
      ),
  );
  app.post(
    `${BASE}/deployment/delete`,
    schema('Deletes a deployment with its definitions and finished instances (409 while one runs)', {
      querystring: BY_ID('The deployment'),
    }),
    async (request) =>
      ok(await deleteDeployment(ctx, actorOf(request), (request.query as { id: number }).id)),
  );
}
