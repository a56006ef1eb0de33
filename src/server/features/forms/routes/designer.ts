import type { FastifyInstance } from 'fastify';
import type { FastifyRequest } from 'fastify';
import { actorOf, ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import {
  answer,
  arrayOf,
  bool,
  dictionary,
  id,
  integer,
  nullable,
  object,
  text,
  typed,
  type Schema,
} from '../../../lib/route-schema.js';
import { FORM_CODE_PATTERN } from '../services/compile.js';
import { FORM_CONTENT_ANSWER, FORM_RECORD, FORM_STATUS } from '../schemas.js';
import {
  addForm,
  checkForm,
  deleteForm,
  formDictionaries,
  formVersions,
  publishForm,
  queryForms,
  restoreFormVersion,
  unpublishForm,
  updateForm,
} from '../services/forms.js';
import { watchForms } from '../services/watch.js';

const tags = ['generator/form'];
/** Who calls: the actor (tenant, user), the roles for platform-only options, and the language. */
const callerOf = (request: FastifyRequest) => ({
  actor: actorOf(request),
  auth: requireAuth(request),
  l10n: localizerFor(request),
});
const CONTENT = dictionary(undefined, {
  description: 'The entity schema (the vocabulary of schemas/*.schema.json)',
  maxProperties: 50,
});
const IMPACT = object(
  {
    isSafe: { type: 'boolean', description: 'every row of the table still fits the new schema' },
    items: {
      type: 'array',
      items: object(
        {
          field: { type: 'string', description: 'field, or detail.column' },
          rule: { type: 'string', description: 'the rule broken: a JSON Schema keyword, drop, type, …' },
          rows: { type: 'integer', description: 'rows that break it' },
          keys: { type: 'array', items: {}, description: 'the first keys of those rows' },
          isSafe: { type: 'boolean' },
          canBackfill: {
            type: 'boolean',
            description: 'required: the field has a default, so a publish with backfill fills those rows',
          },
        },
        ['field', 'rule', 'rows', 'keys', 'isSafe'],
      ),
    },
  },
  ['isSafe', 'items'],
  { description: "Against the table of the form's last publication (absent for a form never published)" },
);
const FIELD_ERRORS = {
  type: 'array',
  items: object({ field: { type: 'string' }, message: { type: 'string' } }, ['field', 'message']),
};
const idQuery = object({ id: id('the form') }, ['id'], { additionalProperties: false });
/** The parent menu of a published form: its id or its code. */
const MENU_PARENT: Schema<number | string> = {
  anyOf: [id(), text(64, { minLength: 1 })],
  description: 'the parent menu: id or code',
};

/**
 * Designed forms: generator/form query, add, update, delete, versions, check,
 * publish and unpublish. Granted by URL like every admin call (ROLE_ADMIN has them all).
 */
export async function formRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const base = '/api/generator/form';
  const api = typed(app);
  api.get(
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
            status: FORM_STATUS,
          },
          [],
          { additionalProperties: false },
        ),
        response: answer(
          object(
            {
              records: { type: 'array', items: FORM_RECORD },
              total: { type: 'integer' },
              currentPage: { type: 'integer' },
              pageSize: { type: 'integer' },
            },
            ['records', 'total', 'currentPage', 'pageSize'],
          ),
        ),
      },
    },
    async (request) => ok(await queryForms(ctx, actorOf(request).tenantCode, request.query)),
  );
  api.get(
    `${base}/versions`,
    {
      schema: {
        tags,
        summary: 'The version history of a form: each save, publish and unpublish with who and when',
        querystring: idQuery,
        response: answer({
          type: 'array',
          items: object(
            {
              id: { type: 'integer', description: 'the version row (restore names it)' },
              version: { type: 'integer' },
              action: { type: 'string', enum: ['save', 'publish', 'unpublish', 'restore'] },
              formContent: FORM_CONTENT_ANSWER,
              createdAt: { type: 'string', format: 'date-time' },
              createdBy: { type: ['string', 'null'] },
            },
            ['id', 'version', 'action', 'formContent', 'createdAt', 'createdBy'],
          ),
          description: 'newest first',
        }),
      },
    },
    async (request) => ok(await formVersions(ctx, actorOf(request).tenantCode, request.query.id)),
  );
  api.get(
    `${base}/dictionaries`,
    {
      schema: {
        tags,
        summary: "The tenant's dictionaries with items: what a field's 字典 may name (the designer's picker)",
        response: answer({
          type: 'array',
          items: object(
            {
              dictType: { type: 'string' },
              dictName: { type: ['string', 'null'], description: 'the stored name of its group row' },
              items: { type: 'integer' },
            },
            ['dictType', 'dictName', 'items'],
          ),
          description: 'by code',
        }),
      },
    },
    async (request) => ok(await formDictionaries(ctx, actorOf(request))),
  );
  api.post(
    `${base}/restore`,
    {
      schema: {
        tags,
        summary:
          "Restore an older version as the form's new draft (a published form stays live as published)",
        body: object(
          {
            id: id('the form'),
            version: integer(1, 1_000_000_000),
            versionId: id('the version row to restore (GET versions: id)'),
          },
          ['id', 'version', 'versionId'],
          { additionalProperties: false },
        ),
        response: answer(FORM_RECORD),
      },
    },
    async (request) => ok(await restoreFormVersion({ ctx, ...callerOf(request), input: request.body })),
  );
  api.post(
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
    async (request) => ok(await addForm({ ctx, ...callerOf(request), input: request.body })),
  );
  api.put(
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
            formDescription: nullable(text(500)),
            formContent: CONTENT,
          },
          ['id', 'version'],
          { additionalProperties: false },
        ),
        response: answer(FORM_RECORD),
      },
    },
    async (request) => ok(await updateForm({ ctx, ...callerOf(request), input: request.body })),
  );
  api.post(
    `${base}/delete`,
    {
      schema: {
        tags,
        summary: 'Delete a form that is not published (its table, if any, stays)',
        querystring: idQuery,
        response: answer(object({ deleted: { type: 'integer' } }, ['deleted'])),
      },
    },
    async (request) => ok(await deleteForm({ ctx, ...callerOf(request), id: request.query.id })),
  );
  api.post(
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
            backfill: bool({
              description:
                '以默认值回填现有记录: a new required rule whose field has a default is no refusal',
            }),
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
    async (request) => ok(await checkForm({ ctx, ...callerOf(request), input: request.body })),
  );
  api.post(
    `${base}/publish`,
    {
      schema: {
        tags,
        summary: 'Publish a form: table, API, menu and grants, live on every process at once',
        body: object(
          {
            id: id(),
            menuParent: MENU_PARENT,
            icon: text(64),
            roles: arrayOf(text(64), {
              maxItems: 50,
              uniqueItems: true,
              description:
                'role codes of the tenant that hold the menu, its buttons and its API from now on: exactly these, ' +
                'a role left out loses them ([]: none); omitted: the grants stay as they are (none on a first publish)',
            }),
            backfill: bool({
              description:
                '以默认值回填现有记录: rows without a value in a field made required get its default (a field without one is still refused)',
            }),
          },
          ['id', 'menuParent'],
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
    async (request) => ok(await publishForm({ ctx, ...callerOf(request), input: request.body })),
  );
  api.post(
    `${base}/unpublish`,
    {
      schema: {
        tags,
        summary: 'Unpublish a form: its menu and API are hidden, its table and rows stay',
        querystring: idQuery,
        response: answer(FORM_RECORD),
      },
    },
    async (request) => ok(await unpublishForm({ ctx, ...callerOf(request), id: request.query.id })),
  );
  const watch = await watchForms(ctx, (message) => app.log.warn(message));
  app.addHook('onClose', () => watch.close());
}
