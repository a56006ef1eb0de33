import type { FastifyInstance } from 'fastify';
import { TEMPLATE_ITEMS, TEMPLATE_TYPES } from '../../../../generators/forward.js';
import { DETAIL_LAYOUTS } from '../../../../generators/model.js';
import { actorOf, ok, requireAuth } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';
import {
  answer,
  anyJson,
  arrayOf,
  dictionary,
  bool,
  id,
  integer,
  nullable,
  object,
  oneOf,
  text,
  typed,
  type Schema,
} from '../../lib/route-schema.js';
import { FORM_RECORD } from '../forms/index.js';
import { previewModule } from './services/module-preview.js';
import { adoptTable } from './services/adopt.js';
import { listTables, tableSchema } from './services/database-tables.js';
import {
  addTemplate,
  checkTemplateText,
  deleteTemplate,
  queryTemplates,
  templateVersions,
  updateTemplate,
} from './services/templates.js';
import { zipStream } from '../../lib/zip-write.js';

type Json = Record<string, unknown>;

const BASE = '/api/generator';
const TAGS = ['generator'];
/**
 * Reverse generation reads and alters the database's own tables (any tenant's, any schema's):
 * the platform administrator's only (features/rbac/permissions/policy.ts).
 */
const PLATFORM_ONLY = { isPlatformOnly: true };

const name = (description: string) =>
  text(40, { minLength: 1, pattern: '^[a-z][a-z0-9-]{0,39}$', description });

const FORWARD_BODY = object(
  {
    entities: arrayOf(text(64, { minLength: 1 }), {
      minItems: 1,
      maxItems: 20,
      uniqueItems: true,
      description: 'Entity names (schemas/ or published forms)',
    }),
    serviceName: name('Service name: the API path /api/<serviceName>/<entity>'),
    packageName: name('Module folder of the generated files'),
    templateType: oneOf(TEMPLATE_TYPES, { description: 'Only this part (all when absent)' }),
    detailLayout: oneOf(DETAIL_LAYOUTS, {
      description:
        'Master-detail layout of an entity with detail rows: rows edited in the form (form, the default), ' +
        'expanded in the list (inner) or in tabs below the list (tab)',
    }),
  },
  ['entities', 'serviceName', 'packageName'],
);

const FILE = object(
  { path: { type: 'string', description: 'relative to the module folder' }, content: { type: 'string' } },
  ['path', 'content'],
);

const TEMPLATE_FIELDS = {
  templateType: oneOf(TEMPLATE_TYPES, { description: 'Dictionary template_type' }),
  templateItem: oneOf(
    TEMPLATE_ITEMS.map((item) => item.item),
    { description: 'Dictionary template_item' },
  ),
  templateName: nullable(text(100)),
  content: text(200_000, { minLength: 1 }),
};

const TEMPLATE = object(
  {
    id: { type: ['integer', 'null'], description: 'null: the built-in template, not changed by the tenant' },
    templateType: { type: 'string' },
    templateItem: { type: 'string' },
    templateName: { type: ['string', 'null'] },
    content: { type: 'string' },
    version: { type: 'integer', description: '0 for a built-in template' },
    isBuiltIn: { type: 'boolean' },
    updatedAt: { type: ['string', 'null'], format: 'date-time' },
    updatedBy: { type: ['string', 'null'] },
  },
  [
    'id',
    'templateType',
    'templateItem',
    'templateName',
    'content',
    'version',
    'isBuiltIn',
    'updatedAt',
    'updatedBy',
  ],
);

const PROBLEM = object(
  {
    message: { type: 'string' },
    line: { type: 'integer', description: '1-based, when the template compiler knows it' },
    column: { type: 'integer', description: '1-based, when the template compiler knows it' },
  },
  ['message'],
);

const BOOKKEEPING = ['createdAt', 'createdBy', 'updatedAt', 'updatedBy', 'version'] as const;
/** A value of an adopted table's soft-delete or tenant column. */
const CONVENTION_VALUE = anyJson({ type: ['string', 'number', 'boolean'], maxLength: 100 }) as Schema<
  string | number | boolean
>;

const TABLE_NAME = text(63, { minLength: 1, pattern: '^[a-z_][a-z0-9_]{0,62}$' });

const ENTITY_SCHEMA: Json = {
  type: 'object',
  additionalProperties: true,
  description: 'An entity schema (schemas/_meta): free-form, as a schema file is',
};

const TABLE = object(
  {
    tableName: { type: 'string' },
    tableComment: { type: ['string', 'null'] },
    columns: {
      type: 'array',
      items: object(
        {
          columnName: { type: 'string' },
          dataType: { type: 'string', description: 'the type as the database names it (format_type)' },
          isNullable: { type: 'boolean' },
          columnComment: { type: ['string', 'null'] },
        },
        ['columnName', 'dataType', 'isNullable', 'columnComment'],
      ),
    },
    adoptedBy: object({ formId: { type: 'integer' }, formCode: { type: 'string' } }, ['formId', 'formCode'], {
      description: 'The draft designed form that already adopted the table (open it in the form designer)',
    }),
  },
  ['tableName', 'tableComment', 'columns'],
);

/**
 * The code generator: forward generation (preview, zip), reverse generation (tables →
 * entity schema, platform-only) and the tenant's templates. Granted by URL like every admin call;
 * built-in templates are files of the server, a tenant changes only its own saved copies.
 */
export async function generatorRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);

  api.post(
    `${BASE}/forward/preview`,
    {
      schema: {
        tags: TAGS,
        summary: 'The files a module would have',
        body: FORWARD_BODY,
        response: answer(object({ files: { type: 'array', items: FILE } }, ['files'])),
      },
    },
    async (request) =>
      ok({ files: await previewModule({ ctx, actor: actorOf(request), body: request.body }) }),
  );

  api.post(
    `${BASE}/forward/download`,
    {
      schema: {
        tags: TAGS,
        summary: 'The generated module as a zip archive (streamed)',
        body: FORWARD_BODY,
        produces: 'application/zip',
        response: {},
      },
    },
    async (request, reply) => {
      const body = request.body;
      const files = await previewModule({ ctx, actor: actorOf(request), body });
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${body.packageName}.zip"`)
        .send(zipStream(files));
    },
  );

  api.get(
    `${BASE}/reverse/tables`,
    {
      config: PLATFORM_ONLY,
      schema: {
        tags: TAGS,
        summary: 'Tables of the database that are not entities yet, with their comments and columns',
        response: answer({ type: 'array', items: TABLE }),
      },
    },
    async () => ok(await listTables(ctx)),
  );

  api.post(
    `${BASE}/reverse/schema`,
    {
      config: PLATFORM_ONLY,
      schema: {
        tags: TAGS,
        summary: 'The entity schema of one table (to review in the form designer)',
        querystring: object({ tableName: TABLE_NAME }, ['tableName']),
        response: answer(ENTITY_SCHEMA),
      },
    },
    async (request) => ok(await tableSchema(ctx, request.query.tableName)),
  );

  api.post(
    `${BASE}/reverse/adopt`,
    {
      config: PLATFORM_ONLY,
      schema: {
        tags: TAGS,
        summary:
          'Adopts a table as a designed form without changing what its application relies on: without confirm, the preview (its conventions, secrets, sub-table candidates, and the columns and indexes it could add with their size and write cost, none unless opted in); confirmed, makes the draft form and runs only the opted-in DDL. A table a draft already adopted answers 409 tableAdopted naming that form',
        body: object(
          {
            tableName: TABLE_NAME,
            formCode: text(40, {
              pattern: '^[a-z][a-z0-9]{1,39}$',
              description: "The designed form's code (default: the table name's letters and digits)",
            }),
            confirm: bool({ description: 'false: only the preview; true: adopt' }),
            details: arrayOf(TABLE_NAME, {
              maxItems: 50,
              uniqueItems: true,
              description: 'Tables referring to it adopted as its details (sub-tables); none when absent',
            }),
            secrets: arrayOf(TABLE_NAME, {
              maxItems: 200,
              uniqueItems: true,
              description:
                'Columns adopted as secrets (written only, never read out); the proposed ones when absent',
            }),
            bookkeeping: object(
              {
                createdAt: TABLE_NAME,
                createdBy: TABLE_NAME,
                updatedAt: TABLE_NAME,
                updatedBy: TABLE_NAME,
                version: TABLE_NAME,
              },
              [],
              {
                additionalProperties: false,
                description: "The table's own bookkeeping columns; the proposed ones when absent",
              },
            ),
            softDelete: nullable(
              object({ column: TABLE_NAME, deleted: CONVENTION_VALUE, active: CONVENTION_VALUE }, [
                'column',
                'deleted',
                'active',
              ]),
            ),
            tenantColumn: nullable(
              object(
                {
                  column: TABLE_NAME,
                  value: CONVENTION_VALUE,
                  byTenant: dictionary(CONVENTION_VALUE, { maxProperties: 1000 }),
                },
                ['column'],
              ),
            ),
            addColumns: arrayOf(oneOf(BOOKKEEPING), {
              uniqueItems: true,
              description: "The engine's bookkeeping columns to add (opt-in)",
            }),
            indexes: arrayOf(text(63, { minLength: 1 }), {
              maxItems: 200,
              uniqueItems: true,
              description: "The engine's list and lookup indexes to build, by name (opt-in)",
            }),
            timeZone: text(64, {
              pattern: '^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$',
              description:
                "The IANA time zone (Asia/Shanghai) whose wall-clock time the table's timestamp without time zone columns hold (x-entity.timeZone; default the server's DB_LOCAL_TIME_ZONE)",
            }),
          },
          ['tableName', 'confirm'],
        ),
        response: answer(
          object(
            {
              formCode: { type: 'string' },
              schema: ENTITY_SCHEMA,
              statements: { type: 'array', items: { type: 'string' } },
              details: {
                type: 'array',
                items: { type: 'string' },
                description:
                  'The tables referring to it (a foreign key to its primary key) adopted as its details: x-detail fields with parentColumn, never altered',
              },
              preview: {
                type: 'object',
                additionalProperties: true,
                description:
                  'What adopting proposes (api-types AdoptPreview): detail candidates, secrets, conventions, and the columns and indexes it could add with their estimated size and write cost, each with isChosen',
              },
              form: { ...FORM_RECORD, description: 'The draft designed form made (confirmed only)' },
            },
            ['formCode', 'schema', 'statements', 'details', 'preview'],
          ),
        ),
      },
    },
    async (request) =>
      ok(
        await adoptTable({
          ctx,
          actor: actorOf(request),
          auth: requireAuth(request),
          l10n: localizerFor(request),
          input: request.body,
        }),
      ),
  );

  api.get(
    `${BASE}/template/query`,
    {
      schema: {
        tags: TAGS,
        summary: "The tenant's templates: each item's saved template, or the built-in one",
        querystring: object({ templateType: oneOf(TEMPLATE_TYPES), templateItem: text(40) }),
        response: answer({ type: 'array', items: TEMPLATE }),
      },
    },
    async (request) => ok(await queryTemplates({ ctx, actor: actorOf(request), filter: request.query })),
  );

  api.get(
    `${BASE}/template/versions`,
    {
      schema: {
        tags: TAGS,
        summary: 'Every saved version of a template, newest first',
        querystring: object({ id: id('The template') }, ['id']),
        response: answer({
          type: 'array',
          items: object(
            {
              version: { type: 'integer' },
              content: { type: 'string' },
              createdAt: { type: 'string', format: 'date-time' },
              createdBy: { type: ['string', 'null'] },
            },
            ['version', 'content', 'createdAt', 'createdBy'],
          ),
        }),
      },
    },
    async (request) => ok(await templateVersions({ ctx, actor: actorOf(request), id: request.query.id })),
  );

  api.post(
    `${BASE}/template/add`,
    {
      schema: {
        tags: TAGS,
        summary:
          "Saves the tenant's own template of an item (checked: 400 names line and column of a compile error)",
        body: object(TEMPLATE_FIELDS, ['templateType', 'templateItem', 'content']),
        response: answer(TEMPLATE),
      },
    },
    async (request) =>
      ok(
        await addTemplate({ ctx, actor: actorOf(request), input: request.body, l10n: localizerFor(request) }),
      ),
  );

  api.put(
    `${BASE}/template/update`,
    {
      schema: {
        tags: TAGS,
        summary: 'Saves a new version of a template (version: the one read, 409 when it changed meanwhile)',
        body: object({ id: id(), version: integer(1), ...TEMPLATE_FIELDS }, [
          'id',
          'version',
          'templateType',
          'templateItem',
          'content',
        ]),
        response: answer(TEMPLATE),
      },
    },
    async (request) =>
      ok(
        await updateTemplate({
          ctx,
          actor: actorOf(request),
          input: request.body,
          l10n: localizerFor(request),
        }),
      ),
  );

  api.post(
    `${BASE}/template/delete`,
    {
      schema: {
        tags: TAGS,
        summary: "Deletes the tenant's template: the built-in one applies again",
        querystring: object({ id: id('The template') }, ['id']),
        response: answer(object({ deleted: { type: 'integer' } }, ['deleted'])),
      },
    },
    async (request) => ok(await deleteTemplate({ ctx, actor: actorOf(request), id: request.query.id })),
  );

  api.post(
    `${BASE}/template/check`,
    {
      schema: {
        tags: TAGS,
        summary: 'Checks a template (compile errors with line and column) and renders it for a sample entity',
        body: object({ content: TEMPLATE_FIELDS.content, sampleEntity: text(64, { minLength: 1 }) }, [
          'content',
        ]),
        response: answer(
          object(
            {
              isValid: { type: 'boolean' },
              problems: { type: 'array', items: PROBLEM },
              output: { type: 'string', description: 'the template rendered for the sample entity' },
            },
            ['isValid', 'problems'],
          ),
        ),
      },
    },
    async (request) =>
      ok(
        await checkTemplateText({
          ctx,
          actor: actorOf(request),
          input: request.body,
          l10n: localizerFor(request),
        }),
      ),
  );
}
