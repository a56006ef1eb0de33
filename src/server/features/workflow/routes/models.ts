import type { FastifyInstance } from 'fastify';
import { localizerFor } from '../../../lib/i18n.js';
import { ok } from '../../../lib/http.js';
import {
  answer,
  arrayOf,
  bool,
  id,
  ids,
  integer,
  object,
  optionalInteger,
  text,
  typed,
} from '../../../lib/route-schema.js';
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
} from '../services/models.js';
import { deploymentResources, queryDeployments } from '../services/queries.js';
import {
  DELETED,
  DEPLOY_ANSWER,
  DEPLOYMENT,
  DEPLOYMENT_RESOURCES,
  IMPORTED_MODEL,
  MODEL,
  MODEL_WITH_XML,
  MODEL_XML,
  pageOf,
  SAVED_MODEL,
} from './answers.js';
import { actorOf, BASE, byId, PAGING, TAGS as tags } from './shared.js';

const MAX_XML = 900_000;

const XML = text(MAX_XML, { minLength: 1 });

const CODE_AS_EXTERNAL =
  'Deploy Java code (class, delegateExpression, expression) and script tasks as external tasks of a topic named after the code (the class, the expression, script:<language>), each named in a warning, instead of refusing the file; default false';

const MODEL_FIELDS = {
  name: text(100, { minLength: 1 }),
  key: text(100, {
    pattern: '^[A-Za-z_][A-Za-z0-9_.-]{0,99}$',
    description: 'Process key (the BPMN process id)',
  }),
  category: text(100),
  description: text(512),
  orgId: optionalInteger(),
  referGroup: text(200),
  referUsers: arrayOf(text(64), { maxItems: 200 }),
  usedForm: text(100, {
    description:
      "The process's form: an entity or a published designed form of the tenant (400 otherwise, empty for none); deploying the model makes it the start form unless the start event names its own",
  }),
};

/** Models and deployments (docs/product.md §2.3 workflow: /model, /deployment). */
export async function workflowModelRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  api.get(
    `${BASE}/model/query`,
    {
      schema: {
        tags,
        summary: 'Process models of the tenant, paged',
        querystring: object({ ...PAGING, name: text(100), key: text(100), category: text(100) }),
        response: answer(pageOf(MODEL)),
      },
    },
    async (request) => ok(await queryModels({ ctx, actor: actorOf(request), params: request.query })),
  );
  api.post(
    `${BASE}/model/add`,
    {
      schema: {
        tags,
        summary: 'Adds a process model',
        body: object(MODEL_FIELDS, ['name', 'key']),
        response: answer(MODEL),
      },
    },
    async (request) =>
      ok(await addModel({ ctx, actor: actorOf(request), l10n: localizerFor(request), input: request.body })),
  );
  api.put(
    `${BASE}/model/update`,
    {
      schema: {
        tags,
        summary: 'Changes a process model (revision: the one read, 409 when it changed meanwhile)',
        body: object({ id: id(), revision: integer(0), ...MODEL_FIELDS }, ['id', 'name', 'key']),
        response: answer(MODEL),
      },
    },
    async (request) =>
      ok(
        await updateModel({ ctx, actor: actorOf(request), l10n: localizerFor(request), input: request.body }),
      ),
  );
  api.post(
    `${BASE}/model/delete`,
    {
      schema: {
        tags,
        summary: 'Deletes process models (deployments stay)',
        querystring: object({ id: ids(1000, 'The models') }, ['id']),
        response: answer(DELETED),
      },
    },
    async (request) => ok(await deleteModels({ ctx, actor: actorOf(request), ids: request.query.id })),
  );
  api.get(
    `${BASE}/model/get`,
    {
      schema: {
        tags,
        summary: 'One model with its saved diagram (xml: null before the first save)',
        querystring: byId('The model'),
        response: answer(MODEL_WITH_XML),
      },
    },
    async (request) => ok(await getModel({ ctx, actor: actorOf(request), id: request.query.id })),
  );
  api.post(
    `${BASE}/model/import`,
    {
      schema: {
        tags,
        summary:
          'Creates a model with its diagram in one transaction (import, copy); 409 when the key exists unless replace, then that model gets the diagram',
        body: object(
          {
            ...MODEL_FIELDS,
            xml: XML,
            replace: bool({ description: 'Replace the diagram of the model with this key' }),
          },
          ['name', 'key', 'xml'],
        ),
        response: answer(IMPORTED_MODEL),
      },
    },
    async (request) =>
      ok(
        await importModel({ ctx, actor: actorOf(request), l10n: localizerFor(request), input: request.body }),
      ),
  );
  api.get(
    `${BASE}/model/xml`,
    {
      schema: {
        tags,
        summary: 'The saved BPMN diagram of a model',
        querystring: byId('The model'),
        response: answer(MODEL_XML),
      },
    },
    async (request) => ok(await modelXml({ ctx, actor: actorOf(request), id: request.query.id })),
  );
  api.put(
    `${BASE}/model/saveXml`,
    {
      schema: {
        tags,
        summary:
          "Stores a model's BPMN diagram; 400 lists the problems per element {field: element id, message}",
        body: object({ id: id(), xml: XML }, ['id', 'xml']),
        response: answer(SAVED_MODEL),
      },
    },
    async (request) =>
      ok(
        await saveModelXml({
          ctx,
          actor: actorOf(request),
          l10n: localizerFor(request),
          input: request.body,
        }),
      ),
  );
  api.post(
    `${BASE}/model/deploy`,
    {
      schema: {
        tags,
        summary: 'Deploys a model as the next version of its process',
        querystring: byId('The model'),
        response: answer(DEPLOY_ANSWER),
      },
    },
    async (request) =>
      ok(
        await deployModel({
          ctx,
          actor: actorOf(request),
          l10n: localizerFor(request),
          id: request.query.id,
        }),
      ),
  );
  api.post(
    `${BASE}/deployment/deployXml`,
    {
      schema: {
        tags,
        summary: 'Deploys a BPMN 2.0 file (Activiti, Flowable or Camunda Modeler) directly',
        body: object(
          {
            xml: XML,
            name: text(100),
            category: text(100),
            codeAsExternalTasks: bool({ description: CODE_AS_EXTERNAL }),
          },
          ['xml'],
        ),
        response: answer(DEPLOY_ANSWER),
      },
    },
    async (request) =>
      ok(await deployXml({ ctx, actor: actorOf(request), l10n: localizerFor(request), input: request.body })),
  );
  api.get(
    `${BASE}/deployment/query`,
    {
      schema: {
        tags,
        summary: 'Deployments of the tenant, paged',
        querystring: object({ ...PAGING, name: text(100), category: text(100) }),
        response: answer(pageOf(DEPLOYMENT)),
      },
    },
    async (request) =>
      ok(await queryDeployments({ db: ctx.db, actor: actorOf(request), params: request.query })),
  );
  api.get(
    `${BASE}/deployment/resources`,
    {
      schema: {
        tags,
        summary: "A deployment's files (its BPMN file as deployed, with the definitions it made)",
        querystring: byId('The deployment'),
        response: answer(DEPLOYMENT_RESOURCES),
      },
    },
    async (request) =>
      ok(await deploymentResources({ db: ctx.db, actor: actorOf(request), id: request.query.id })),
  );
  api.post(
    `${BASE}/deployment/delete`,
    {
      schema: {
        tags,
        summary: 'Deletes a deployment with its definitions and finished instances (409 while one runs)',
        querystring: byId('The deployment'),
        response: answer(DELETED),
      },
    },
    async (request) => ok(await deleteDeployment({ ctx, actor: actorOf(request), id: request.query.id })),
  );
}
