import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  entityRouteSchemas,
  toFieldErrors,
  treeEndpointName,
  type EntityDef,
} from '../../../../engine/index.js';
import { AppError } from '../../../lib/errors.js';
import { ok, queryOf } from '../../../lib/http.js';
import { localizerFor, translatorFor } from '../../../lib/i18n.js';
import { createRouteValidators, type Validator } from '../../../lib/route-validators.js';
import { answer, text } from '../../../lib/route-schema.js';
import { exportRecords, queryTree } from '../../crud/index.js';
import {
  addRecord,
  deleteRecords,
  parseDeleteKeys,
  queryRecords,
  updateRecord,
  type CrudRequestOf,
} from '../../crud/index.js';
import { ONLINE_API_PREFIX } from '../services/compile.js';

type Json = Record<string, unknown>;

const FORM = { form: text(40, { pattern: '^[a-z][a-z0-9]{1,39}$', description: 'the form code' }) };
/** The path parameters of every route under /api/online/:form. */
export const FORM_PARAMS = { type: 'object', properties: FORM, required: ['form'] };
const params = FORM_PARAMS;
const listQuery: Json = {
  type: 'object',
  description: 'currentPage, pageSize, sort and any filterable field (as on every generated list)',
  additionalProperties: {
    type: ['string', 'array'],
    items: { type: 'string', maxLength: 1000 },
    maxItems: 1000,
  },
};
const anyBody: Json = {
  type: 'object',
  description: "The record, as the form's schema (GET /api/schemas) describes it",
};
const tags = ['online'];

/** The published form a request under /api/online/:form names, looked up now; 404 when there is none. */
export function onlineEntityOf(app: FastifyInstance, request: FastifyRequest): EntityDef {
  const { form } = request.params as { form: string };
  const entity = app.ctx.registry.byApi(`${ONLINE_API_PREFIX}${form}`);
  if (!entity || !app.ctx.registry.isRuntime(entity.name))
    throw new AppError('routeNotFound', { path: request.url.split('?')[0] ?? '' });
  return entity;
}

/** Schemas compiled per published entity, from the same engine function as the static routes'. */
interface OnlineValidators {
  query: Validator;
  add: Validator;
  update: Validator;
  exportBody: Validator;
}

/**
 * The generated API of every published form, under /api/online/<form code>: query, add,
 * update, delete, export and the tree route. The entity is looked up in the registry on each
 * request, so a publish, republish or unpublish on any process applies at once; each input is
 * checked by the schemas entityRouteSchemas derives for that entity, as a static route's is.
 */
export function onlineEntityRoutes(app: FastifyInstance, crudRequest: CrudRequestOf): void {
  const routeValidators = createRouteValidators();
  const compiled = new WeakMap<EntityDef, OnlineValidators>();
  const validatorsOf = (entity: EntityDef): OnlineValidators => {
    let found = compiled.get(entity);
    if (!found) {
      const routes = new Map(
        entityRouteSchemas(entity).map((route) => [route.url.split('/').pop(), route.schema]),
      );
      const schemaOf = (name: string, part: 'querystring' | 'body'): Json =>
        ((routes.get(name) as Json | undefined)?.[part] as Json | undefined) ?? { type: 'object' };
      found = {
        query: routeValidators.text(schemaOf('query', 'querystring')),
        add: routeValidators.body(schemaOf('add', 'body')),
        update: routeValidators.body(schemaOf('update', 'body')),
        exportBody: routeValidators.body(schemaOf('export', 'body')),
      };
      compiled.set(entity, found);
    }
    return found;
  };
  const entityOf = (request: FastifyRequest): EntityDef => onlineEntityOf(app, request);
  const checked = <T>(request: FastifyRequest, validate: Validator, value: T, isBody: boolean): T => {
    if (validate(value)) return value;
    const errors = toFieldErrors(validate.errors ?? [], translatorFor(request));
    throw new AppError(
      'validation',
      {},
      isBody ? errors : errors.map((error) => ({ ...error, field: `/${error.field.split('/')[1] ?? ''}` })),
    );
  };
  const listInput = (request: FastifyRequest, entity: EntityDef): Json =>
    checked(request, validatorsOf(entity).query, { ...queryOf(request) }, false);

  const base = '/api/online/:form';
  app.get(
    `${base}/query`,
    {
      schema: {
        tags,
        summary: 'List of a published form',
        params,
        querystring: listQuery,
        response: answer(),
      },
    },
    async (request) => {
      const entity = entityOf(request);
      return ok(await queryRecords(await crudRequest(request, entity), listInput(request, entity)));
    },
  );
  app.post(
    `${base}/add`,
    {
      schema: {
        tags,
        summary: 'Add a record of a published form',
        params,
        body: anyBody,
        response: answer(),
      },
    },
    async (request) => {
      const entity = entityOf(request);
      checked(request, validatorsOf(entity).add, request.body, true);
      return ok(await addRecord(await crudRequest(request, entity, 'write'), request.body));
    },
  );
  app.put(
    `${base}/update`,
    {
      schema: {
        tags,
        summary: 'Update a record of a published form',
        params,
        body: anyBody,
        response: answer(),
      },
    },
    async (request) => {
      const entity = entityOf(request);
      checked(request, validatorsOf(entity).update, request.body, true);
      return ok(await updateRecord(await crudRequest(request, entity, 'write'), request.body));
    },
  );
  app.post(
    `${base}/delete`,
    {
      schema: {
        tags,
        summary: 'Delete records of a published form (?id=1&id=2)',
        params,
        querystring: listQuery,
        response: answer(),
      },
    },
    async (request) => {
      const entity = entityOf(request);
      const query = { ...queryOf(request) };
      const raw = query[entity.key.name];
      // Whole-number keys as the static routes' schema reads them.
      if (entity.key.type === 'integer' && raw !== undefined)
        query[entity.key.name] = [raw]
          .flat()
          .map((item) => (typeof item === 'string' && /^\s*\d{1,15}\s*$/.test(item) ? Number(item) : item));
      const keys = parseDeleteKeys(entity, query, localizerFor(request));
      return ok(await deleteRecords(await crudRequest(request, entity, 'write'), keys));
    },
  );
  app.post(
    `${base}/export`,
    { schema: { tags, summary: 'Export the records of a published form (.xlsx)', params, body: anyBody } },
    async (request, reply) => {
      const entity = entityOf(request);
      const body = checked(request, validatorsOf(entity).exportBody, request.body ?? {}, true);
      const file = await exportRecords(await crudRequest(request, entity), body);
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header(
          'content-disposition',
          `attachment; filename="${file.fileName}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
        )
        .send(file.stream);
    },
  );
  app.get(
    `${base}/:endpoint`,
    {
      schema: {
        tags,
        summary: 'The tree of a published tree form (querySys<Name>Tree)',
        params: {
          type: 'object',
          properties: { ...FORM, endpoint: text(80) },
          required: ['form', 'endpoint'],
        },
        querystring: listQuery,
        response: answer(),
      },
    },
    async (request) => {
      const entity = entityOf(request);
      const { endpoint } = request.params as { endpoint: string };
      if (!entity.tree || endpoint !== treeEndpointName(entity.name))
        throw new AppError('routeNotFound', { path: request.url.split('?')[0] ?? '' });
      return ok(await queryTree(await crudRequest(request, entity), listInput(request, entity)));
    },
  );
}
