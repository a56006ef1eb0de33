import type { FastifyInstance } from 'fastify';
import { TEMPLATE_ITEMS, TEMPLATE_TYPES } from '../../../../generators/forward.js';
import { actorOf, ok } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';
import { answer, id, integer, object, text, type RouteSchema } from '../../lib/route-schema.js';
import { previewModule, type ForwardBody } from './services/module-preview.js';
import { adoptTable, type AdoptInput } from './services/adopt.js';
import { listTables, tableSchema } from './services/database-tables.js';
import {
  addTemplate,
  checkTemplateText,
  deleteTemplate,
  queryTemplates,
  templateVersions,
  updateTemplate,
  type TemplateInput,
} from './services/templates.js';
import { zipStream } from '../../lib/zip-write.js';

type Json = Record<string, unknown>;

const BASE = '/api/generator';
const TAGS = ['generator'];

const schema = (
  summary: string,
  parts: Partial<RouteSchema> = {},
  data: Json = {},
): { schema: RouteSchema } => ({
  schema: { tags: TAGS, summary, response: answer(data), ...parts } as RouteSchema,
});

const NAME = (description: string): Json =>
  text(40, { minLength: 1, pattern: '^[a-z][a-z0-9-]{0,39}$', description });

const FORWARD_BODY = object(
  {
    entities: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      uniqueItems: true,
      items: text(64, { minLength: 1 }),
      description: 'Entity names (schemas/ or published forms)',
    },
    serviceName: NAME('Service name: the API path /api/<serviceName>/<entity>'),
    packageName: NAME('Module folder of the generated files'),
    templateType: {
      type: 'string',
      enum: [...TEMPLATE_TYPES],
      description: 'Only this part (all when absent)',
    },
  },
  ['entities', 'serviceName', 'packageName'],
);

const FILE = object({ path: { type: 'string' }, content: { type: 'string' } }, ['path', 'content']);

const TEMPLATE_FIELDS = {
  templateType: { type: 'string', enum: [...TEMPLATE_TYPES], description: 'Dictionary template_type' },
  templateItem: {
    type: 'string',
    enum: TEMPLATE_ITEMS.map((item) => item.item),
    description: 'Dictionary template_item',
  },
  templateName: { type: ['string', 'null'], maxLength: 100, pattern: '^[^\\u0000]*$' },
  content: { type: 'string', minLength: 1, maxLength: 200_000, pattern: '^[^\\u0000]*$' },
};

const TEMPLATE = object(
  {
    id: { type: ['integer', 'null'] },
    templateType: { type: 'string' },
    templateItem: { type: 'string' },
    templateName: { type: ['string', 'null'] },
    content: { type: 'string' },
    version: { type: 'integer' },
    isBuiltIn: { type: 'boolean' },
    updatedAt: { type: ['string', 'null'] },
    updatedBy: { type: ['string', 'null'] },
  },
  ['id', 'templateType', 'templateItem', 'content', 'version', 'isBuiltIn'],
);

const PROBLEM = object(
  { message: { type: 'string' }, line: { type: 'integer' }, column: { type: 'integer' } },
  ['message'],
);

const TABLE_NAME = text(63, { minLength: 1, pattern: '^[a-z_][a-z0-9_]{0,62}$' });

const ENTITY_SCHEMA: Json = {
  type: 'object',
  additionalProperties: true,
  description: 'An entity schema (schemas/_meta)',
};

/**
 * The code generator: forward generation (preview, zip), reverse generation (tables →
 * entity schema) and the tenant's templates. Granted by URL like every admin call.
 */
export async function generatorRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;

  app.post(
    `${BASE}/forward/preview`,
    schema(
      'The files a module would have',
      { body: FORWARD_BODY },
      object({ files: { type: 'array', items: FILE } }, ['files']),
    ),
    async (request) => ok({ files: await previewModule(ctx, actorOf(request), request.body as ForwardBody) }),
  );

  app.post(
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
      const body = request.body as ForwardBody;
      const files = await previewModule(ctx, actorOf(request), body);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${body.packageName}.zip"`)
        .send(zipStream(files));
    },
  );

  app.get(
    `${BASE}/reverse/tables`,
    schema(
      'Tables of the database that are not entities yet, with their comments and columns',
      {},
      {
        type: 'array',
        items: object(
          {
            tableName: { type: 'string' },
            tableComment: { type: ['string', 'null'] },
            columns: {
              type: 'array',
              items: object({
                columnName: { type: 'string' },
                dataType: { type: 'string' },
                isNullable: { type: 'boolean' },
                columnComment: { type: ['string', 'null'] },
              }),
            },
            adoptedBy: {
              ...object({ formId: { type: 'integer' }, formCode: { type: 'string' } }, [
                'formId',
                'formCode',
              ]),
              description:
                'The draft designed form that already adopted the table (open it in the form designer)',
            },
          },
          ['tableName', 'columns'],
        ),
      },
    ),
    async () => ok(await listTables(ctx)),
  );

  app.post(
    `${BASE}/reverse/schema`,
    schema(
      'The entity schema of one table (to review in the form designer)',
      {
        querystring: object({ tableName: TABLE_NAME }, ['tableName']),
      },
      ENTITY_SCHEMA,
    ),
    async (request) => ok(await tableSchema(ctx, (request.query as { tableName: string }).tableName)),
  );

  app.post(
    `${BASE}/reverse/adopt`,
    schema(
      'Adopts a table as a designed form, with the tables referring to it as its details (x-detail, kept as they are): without confirm, the DDL it would run (added bookkeeping columns only); confirmed, runs it and makes the draft form. A table a draft already adopted answers 409 tableAdopted naming that form',
      {
        body: object(
          {
            tableName: TABLE_NAME,
            formCode: text(40, {
              pattern: '^[a-z][a-z0-9]{1,39}$',
              description: "The designed form's code (default: the table name's letters and digits)",
            }),
            confirm: { type: 'boolean', description: 'false: only the plan; true: adopt' },
          },
          ['tableName', 'confirm'],
        ),
      },
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
          form: { type: 'object', additionalProperties: true },
        },
        ['formCode', 'schema', 'statements', 'details'],
      ),
    ),
    async (request) =>
      ok(await adoptTable(ctx, actorOf(request), localizerFor(request), request.body as AdoptInput)),
  );

  app.get(
    `${BASE}/template/query`,
    schema(
      "The tenant's templates: each item's saved template, or the built-in one",
      {
        querystring: object({
          templateType: { type: 'string', enum: [...TEMPLATE_TYPES] },
          templateItem: text(40),
        }),
      },
      { type: 'array', items: TEMPLATE },
    ),
    async (request) =>
      ok(
        await queryTemplates(
          ctx,
          actorOf(request),
          request.query as { templateType?: string; templateItem?: string },
        ),
      ),
  );

  app.get(
    `${BASE}/template/versions`,
    schema(
      'Every saved version of a template, newest first',
      { querystring: object({ id: id('The template') }, ['id']) },
      {
        type: 'array',
        items: object({
          version: { type: 'integer' },
          content: { type: 'string' },
          createdAt: { type: 'string' },
          createdBy: { type: ['string', 'null'] },
        }),
      },
    ),
    async (request) =>
      ok(await templateVersions(ctx, actorOf(request), (request.query as { id: number }).id)),
  );

  app.post(
    `${BASE}/template/add`,
    schema(
      "Saves the tenant's own template of an item (checked: 400 names line and column of a compile error)",
      { body: object(TEMPLATE_FIELDS, ['templateType', 'templateItem', 'content']) },
      TEMPLATE,
    ),
    async (request) => ok(await addTemplate(ctx, actorOf(request), request.body as TemplateInput)),
  );

  app.put(
    `${BASE}/template/update`,
    schema(
      'Saves a new version of a template (version: the one read, 409 when it changed meanwhile)',
      {
        body: object({ id: id(), version: integer(1), ...TEMPLATE_FIELDS }, [
          'id',
          'version',
          'templateType',
          'templateItem',
          'content',
        ]),
      },
      TEMPLATE,
    ),
    async (request) =>
      ok(
        await updateTemplate(
          ctx,
          actorOf(request),
          request.body as TemplateInput & { id: number; version: number },
        ),
      ),
  );

  app.post(
    `${BASE}/template/delete`,
    schema(
      "Deletes the tenant's template: the built-in one applies again",
      { querystring: object({ id: id('The template') }, ['id']) },
      object({ deleted: { type: 'integer' } }),
    ),
    async (request) => ok(await deleteTemplate(ctx, actorOf(request), (request.query as { id: number }).id)),
  );

  app.post(
    `${BASE}/template/check`,
    schema(
      'Checks a template (compile errors with line and column) and renders it for a sample entity',
      {
        body: object({ content: TEMPLATE_FIELDS.content ?? {}, sampleEntity: text(64, { minLength: 1 }) }, [
          'content',
        ]),
      },
      object(
        {
          isValid: { type: 'boolean' },
          problems: { type: 'array', items: PROBLEM },
          output: { type: 'string' },
        },
        ['isValid', 'problems'],
      ),
    ),
    async (request) =>
      ok(await checkTemplateText(ctx, request.body as { content: string; sampleEntity?: string })),
  );
}
