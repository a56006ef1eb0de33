import type { FastifyInstance } from 'fastify';
import { ok } from '../../../lib/http.js';
import { object, typed } from '../../../lib/route-schema.js';
import {
  handleImport,
  IMPORT_ANSWER,
  IMPORT_QUERY,
  IMPORT_QUERY_TEXT,
  importTemplate,
} from '../../crud/index.js';
import { contentDisposition } from '../../../lib/download.js';
import { acceptMultipart, type CrudRequestOf } from '../../crud/index.js';
import { FORM_PARAMS, onlineEntityOf } from './published.js';

const tags = ['online'];

/**
 * Import and import template of every published form, under /api/online/:form like its other
 * routes: the entity is looked up per request, so a form published a moment ago imports at once.
 * The same services as the schema files' entities (features/crud/routes/import.ts); multipart bodies
 * are accepted in this plugin only, and read by the upload routes' own reader.
 */
export async function onlineImportRoutes(
  app: FastifyInstance,
  options: { crudRequest: CrudRequestOf },
): Promise<void> {
  acceptMultipart(app);
  const api = typed(app);
  api.post(
    '/api/online/:form/import',
    {
      schema: {
        tags,
        summary: 'Import records of a published form from an .xlsx or .csv file',
        description:
          'multipart/form-data with the part "file", as every entity\'s import: dryRun=true checks every row and writes nothing; otherwise all rows are added in one transaction, or none. Sub-table rows come from the sheets after the first, laid out as the export writes them (sheet "<form> - <sub-table>", the master\'s label column, #, the columns); problems name {sheet, row, field}.' +
          IMPORT_QUERY_TEXT,
        params: FORM_PARAMS,
        querystring: IMPORT_QUERY,
        bodyDocument: object({ file: { type: 'string', format: 'binary', description: '.xlsx or .csv' } }, [
          'file',
        ]),
        consumes: ['multipart/form-data'],
        response: IMPORT_ANSWER,
      },
    },
    async (request) => {
      const entity = onlineEntityOf(app, request);
      // Write access is checked before the upload is read.
      return ok(await handleImport(request, await options.crudRequest(request, entity, 'write')));
    },
  );
  api.get(
    '/api/online/:form/importTemplate',
    {
      schema: {
        tags,
        summary: 'The import template of a published form (.xlsx; one sheet per sub-table)',
        params: FORM_PARAMS,
        produces: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        response: {},
      },
    },
    async (request, reply) => {
      const entity = onlineEntityOf(app, request);
      const file = await importTemplate(await options.crudRequest(request, entity, 'write'));
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('content-disposition', contentDisposition(file.fileName, false))
        .send(file.bytes);
    },
  );
}
