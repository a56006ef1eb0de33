import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  entityRouteSchemas,
  pageSchemaOf,
  toFieldErrors,
  treeEndpointName,
  type EntityDef,
  type RawParams,
} from '../../../../engine/index.js';
import { contentDisposition } from '../../../lib/download.js';
import { AppError } from '../../../lib/errors.js';
import { ok } from '../../../lib/http.js';
import { localizerFor, translatorFor } from '../../../lib/i18n.js';
import { createRouteValidators, type Validator } from '../../../lib/route-validators.js';
import {
  answer,
  arrayOf,
  dictionary,
  integer,
  object,
  text,
  typed,
  type Schema,
} from '../../../lib/route-schema.js';
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
import { isOtherTenantsForm } from '../services/forms.js';

type Json = Record<string, unknown>;

const FORM = { form: text(40, { pattern: '^[a-z][a-z0-9]{1,39}$', description: 'the form code' }) };
/** The path parameters of every route under /api/online/:form. */
export const FORM_PARAMS = object(FORM, ['form']);
const params = FORM_PARAMS;
/** A filter's value: once, or repeated for any of several values. */
const FILTER_VALUE: Schema<string | string[]> = {
  type: ['string', 'array'],
  items: { type: 'string', maxLength: 1000 },
  maxItems: 1000,
};
// The form's fields are known at run time only: its filters are checked per request (listInput).
export const ONLINE_LIST_QUERY = dictionary(FILTER_VALUE, {
  description: 'currentPage, pageSize, sort and any filterable field (as on every generated list)',
});
const anyBody = dictionary(undefined, {
  description: "The record, as the form's schema (GET /api/schemas) describes it",
});
/** A record of a published form: its fields are the form's, known at run time only. */
export const ONLINE_RECORD: Json = {
  type: 'object',
  additionalProperties: true,
  description: "A record of the form, its fields as the form's schema (GET /api/schemas) describes them",
};
const tags = ['online'];

/**
 * The published form a request under /api/online/:form names, looked up now; 404 when there is
 * none, or when it is another tenant's form (as if it were not there).
 */
export function onlineEntityOf(
  app: FastifyInstance,
  request: Pick<FastifyRequest, 'url' | 'auth'> & { params: { form: string } },
): EntityDef {
  const entity = app.ctx.registry.byApi(`${ONLINE_API_PREFIX}${request.params.form}`);
  const tenantCode = request.auth?.tenantCode ?? '';
  if (!entity || !app.ctx.registry.isRuntime(entity.name) || isOtherTenantsForm(app.ctx, entity, tenantCode))
    throw new AppError('routeNotFound', { path: request.url.split('?')[0] ?? '' });
  return entity;
}

/** The keys of a delete, restore or purge (?id=1&id=2): whole-number keys as the static routes' schema reads them. */
export function onlineKeysOf(request: FastifyRequest, entity: EntityDef, raw: RawParams): unknown[] {
  const query: RawParams = { ...raw };
  const keys = query[entity.key.name];
  if (entity.key.type === 'integer' && keys !== undefined)
    query[entity.key.name] = [keys]
      .flat()
      .map((item) => (typeof item === 'string' && /^\s*\d{1,15}\s*$/.test(item) ? Number(item) : item));
  return parseDeleteKeys({ entity, query, l10n: localizerFor(request) });
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
  const entityOf = (request: Parameters<typeof onlineEntityOf>[1]): EntityDef => onlineEntityOf(app, request);
  const checked = <T>(request: FastifyRequest, validate: Validator, value: T, isBody: boolean): T => {
    if (validate(value)) return value;
    const errors = toFieldErrors(validate.errors ?? [], translatorFor(request));
    throw new AppError(
      'validation',
      {},
      isBody ? errors : errors.map((error) => ({ ...error, field: `/${error.field.split('/')[1] ?? ''}` })),
    );
  };
  const listInput = (request: FastifyRequest, entity: EntityDef, query: RawParams): Json =>
    checked(request, validatorsOf(entity).query, { ...query }, false);

  const base = '/api/online/:form';
  const api = typed(app);
  api.get(
    `${base}/query`,
    {
      schema: {
        tags,
        summary: 'List of a published form',
        params,
        querystring: ONLINE_LIST_QUERY,
        response: answer(pageSchemaOf(ONLINE_RECORD)),
      },
    },
    async (request) => {
      const entity = entityOf(request);
      return ok(
        await queryRecords(await crudRequest(request, entity), listInput(request, entity, request.query)),
      );
    },
  );
  api.post(
    `${base}/add`,
    {
      schema: {
        tags,
        summary: 'Add a record of a published form',
        params,
        body: anyBody,
        response: answer(ONLINE_RECORD),
      },
    },
    async (request) => {
      const entity = entityOf(request);
      checked(request, validatorsOf(entity).add, request.body, true);
      return ok(await addRecord(await crudRequest(request, entity, 'write'), request.body));
    },
  );
  api.put(
    `${base}/update`,
    {
      schema: {
        tags,
        summary: 'Update a record of a published form',
        params,
        body: anyBody,
        response: answer(ONLINE_RECORD),
      },
    },
    async (request) => {
      const entity = entityOf(request);
      checked(request, validatorsOf(entity).update, request.body, true);
      return ok(await updateRecord(await crudRequest(request, entity, 'write'), request.body));
    },
  );
  api.post(
    `${base}/delete`,
    {
      schema: {
        tags,
        summary: 'Delete records of a published form (?id=1&id=2)',
        params,
        querystring: ONLINE_LIST_QUERY,
        response: answer(object({ deleted: integer(0) }, ['deleted'])),
      },
    },
    async (request) => {
      const entity = entityOf(request);
      const keys = onlineKeysOf(request, entity, request.query);
      return ok(await deleteRecords(await crudRequest(request, entity, 'write'), keys));
    },
  );
  api.post(
    `${base}/export`,
    {
      schema: {
        tags,
        summary: 'Export the records of a published form (.xlsx)',
        params,
        body: anyBody,
        produces: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
    },
    async (request, reply) => {
      const entity = entityOf(request);
      const body = checked(request, validatorsOf(entity).exportBody, request.body ?? {}, true);
      const file = await exportRecords(await crudRequest(request, entity), body);
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('content-disposition', contentDisposition(file.fileName, false, file.asciiFileName))
        .send(file.stream);
    },
  );
  api.get(
    `${base}/:endpoint`,
    {
      schema: {
        tags,
        summary: 'The tree of a published tree form (querySys<Name>Tree)',
        params: object({ ...FORM, endpoint: text(80) }, ['form', 'endpoint']),
        querystring: ONLINE_LIST_QUERY,
        response: answer(
          arrayOf(ONLINE_RECORD, {
            description: 'the whole tree (each node with children) or one level (each with hasChildren)',
          }),
        ),
      },
    },
    async (request) => {
      const entity = entityOf(request);
      if (!entity.tree || request.params.endpoint !== treeEndpointName(entity.name))
        throw new AppError('routeNotFound', { path: request.url.split('?')[0] ?? '' });
      return ok(
        await queryTree(await crudRequest(request, entity), listInput(request, entity, request.query)),
      );
    },
  );
}
