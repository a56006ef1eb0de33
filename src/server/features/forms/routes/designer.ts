import type { FastifyInstance } from 'fastify';
import { actorOf, ok, requiredNumberParam } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, id, integer, object, text } from '../../../lib/route-schema.js';
import { FORM_CODE_PATTERN } from '../services/compile.js';
import {
  addForm,
  checkForm,
  deleteForm,
  formVersions,
  publishForm,
  queryForms,
  unpublishForm,
  updateForm,
  type FormInput,
  type FormQuery,
  type FormUpdate,
  type PublishInput,
} from '../services/forms.js';
import { watchForms } from '../services/watch.js';

type Json = Record<string, unknown>;

const tags = ['generator/form'];
const CONTENT: Json = {
  type: 'object',
  description: 'The entity schema (the vocabulary of schemas/*.schema.json)',
  maxProperties: 50,
};
const STATUS: Json = { type: 'string', enum: ['draft', 'published'] };
const FORM_RECORD = object(
  {
    id: { type: 'integer' },
    formCode: { type: 'string' },
    formName: { type: 'string' },
    formDescription: { type: ['string', 'null'] },
    formContent: {},
    status: STATUS,
    version: { type: 'integer' },
    publishedVersion: { type: ['integer', 'null'] },
    api: { type: ['string', 'null'] },
    menuId: { type: ['integer', 'null'] },
    createdAt: { type: 'string' },
    createdBy: { type: ['string', 'null'] },
    updatedAt: { type: ['string', 'null'] },
    updatedBy: { type: ['string', 'null'] },
  },
  ['id', 'formCode', 'formName', 'formContent', 'status', 'version'],
);
const IMPACT = object({
  isSafe: { type: 'boolean' },
  items: {
    type: 'array',
    items: object({
      field: { type: 'string' },
      rule: { type: 'string' },
      rows: { type: 'integer' },
      keys: { type: 'array', items: {} },
      isSafe: { type: 'boolean' },
    }),
  },
});
const FIELD_ERRORS = {
  type: 'array',
  items: object({ field: { type: 'string' }, message: { type: 'string' } }),
};
const idQuery = object({ id: id('the form') }, ['id'], { additionalProperties: false });

/**
 * Designed forms: generator/form query, add, update, delete, versions, check,
 * publish and unpublish. Granted by URL like every admin call (ROLE_ADMIN has them all).
 */
export async function formRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const base = '/api/generator/form';
  app.get(
    `${base}/query`,
    {
      schema: {
        tags,
        summary: 'Designed forms, a page at a time',
        querystring: object(
          {
            currentPage: integer(1, 1_000_000),
            pageSize: integer(1, 100),
            id: id(),
            formCode: text(40),
            formName: text(100),
            status: STATUS,
          },
          [],
          { additionalProperties: false },
        ),
        response: answer(
          object({
            records: { type: 'array', items: FORM_RECORD },
            total: { type: 'integer' },
            currentPage: { type: 'integer' },
            pageSize: { type: 'integer' },
          }),
        ),
      },
    },
    async (request) => ok(await queryForms(ctx, request.query as FormQuery)),
  );
  app.get(
    `${base}/versions`,
    {
      schema: {
        tags,
        summary: 'The version history of a form: each save, publish and unpublish with who and when',
        querystring: idQuery,
        response: answer({
          type: 'array',
          items: object({
            version: { type: 'integer' },
            action: { type: 'string', enum: ['save', 'publish', 'unpublish'] },
            formContent: {},
            createdAt: { type: 'string' },
            createdBy: { type: ['string', 'null'] },
          }),
        }),
      },
    },
    async (request) => ok(await formVersions(ctx, requiredNumberParam(request, 'id'))),
  );
  app.post(
    `${base}/add`,
    {
      schema: {
        tags,
        summary: 'Add a form (a draft)',
        body: object(
          {
            formCode: text(40, { pattern: FORM_CODE_PATTERN }),
            formName: text(100, { minLength: 1 }),
            formDescription: text(500),
            formContent: CONTENT,
          },
          ['formCode', 'formName', 'formContent'],
          { additionalProperties: false },
        ),
        response: answer(FORM_RECORD),
      },
    },
    async (request) =>
      ok(await addForm(ctx, actorOf(request), localizerFor(request), request.body as FormInput)),
  );
  app.put(
    `${base}/update`,
    {
      schema: {
        tags,
        summary: 'Save a new version of a form (a published form stays live as published)',
        body: object(
          {
            id: id(),
            version: integer(1, 1_000_000_000),
            formName: text(100, { minLength: 1 }),
            formDescription: { ...text(500), type: ['string', 'null'] },
            formContent: CONTENT,
          },
          ['id', 'version'],
          { additionalProperties: false },
        ),
        response: answer(FORM_RECORD),
      },
    },
    async (request) =>
      ok(await updateForm(ctx, actorOf(request), localizerFor(request), request.body as FormUpdate)),
  );
  app.post(
    `${base}/delete`,
    {
      schema: {
        tags,
        summary: 'Delete a form that is not published (its table, if any, stays)',
        querystring: idQuery,
        response: answer(object({ deleted: { type: 'integer' } })),
      },
    },
    async (request) =>
      ok(await deleteForm(ctx, actorOf(request), localizerFor(request), requiredNumberParam(request, 'id'))),
  );
  app.post(
    `${base}/check`,
    {
      schema: {
        tags,
        summary:
          'Check a form content: meta-schema and name problems as field errors, and for a published form the impact on its table',
        body: object(
          {
            formContent: CONTENT,
            id: id('a stored form: its code, and the impact on its table'),
            formCode: text(40),
          },
          ['formContent'],
          { additionalProperties: false },
        ),
        response: answer(
          object({ isValid: { type: 'boolean' }, errors: FIELD_ERRORS, impact: IMPACT }, [
            'isValid',
            'errors',
          ]),
        ),
      },
    },
    async (request) =>
      ok(
        await checkForm(
          ctx,
          localizerFor(request),
          request.body as { formContent: unknown; id?: number; formCode?: string },
        ),
      ),
  );
  app.post(
    `${base}/publish`,
    {
      schema: {
        tags,
        summary: 'Publish a form: table, API, menu and grants, live on every process at once',
        body: object(
          {
            id: id(),
            menuParent: {
              anyOf: [id(), text(64, { minLength: 1 })],
              description: 'the parent menu: id or code',
            },
            icon: text(64),
            roles: { type: 'array', items: text(64), maxItems: 50, uniqueItems: true },
          },
          ['id', 'menuParent', 'roles'],
          { additionalProperties: false },
        ),
        response: answer(
          object(
            {
              entity: { type: 'string' },
              api: { type: 'string' },
              menuPath: { type: 'string' },
              impact: IMPACT,
            },
            ['entity', 'api', 'menuPath'],
          ),
        ),
      },
    },
    async (request) =>
      ok(await publishForm(ctx, actorOf(request), localizerFor(request), request.body as PublishInput)),
  );
  app.post(
    `${base}/unpublish`,
    {
      schema: {
        tags,
        summary: 'Unpublish a form: its menu and API are hidden, its table and rows stay',
        querystring: idQuery,
        response: answer(FORM_RECORD),
      },
    },
    async (request) =>
      ok(
        await unpublishForm(ctx, actorOf(request), localizerFor(request), requiredNumberParam(request, 'id')),
      ),
  );
  const watch = await watchForms(ctx, (message) => app.log.warn(message));
  app.addHook('onClose', () => watch.close());
}
