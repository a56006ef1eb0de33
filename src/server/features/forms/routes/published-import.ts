import type { FastifyInstance } from 'fastify';
import { ok } from '../../../lib/http.js';
import { answer, flag, object, typed } from '../../../lib/route-schema.js';
import {
  IMPORT_CHUNK_ROWS,
  importRecords,
  importTemplate,
  openUploadedSheet,
  readDetailSheets,
} from '../../crud/index.js';
import { contentDisposition } from '../../../lib/download.js';
import {
  acceptMultipart,
  IMPORT_RESULT,
  MAX_IMPORT_ROWS,
  uploadedBytes,
  type CrudRequestOf,
} from '../../crud/index.js';
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
          'multipart/form-data with the part "file", as every entity\'s import: dryRun=true checks every row and writes nothing; otherwise all rows are added in one transaction, or none. Sub-table rows come from the sheets after the first, laid out as the export writes them (sheet "<form> - <sub-table>", the master\'s label column, #, the columns); problems name {sheet, row, field}.',
        params: FORM_PARAMS,
        querystring: object({ dryRun: flag('true: check only, write nothing') }),
        bodyDocument: object({ file: { type: 'string', format: 'binary', description: '.xlsx or .csv' } }, [
          'file',
        ]),
        consumes: ['multipart/form-data'],
        response: answer(IMPORT_RESULT),
      },
    },
    async (request) => {
      const entity = onlineEntityOf(app, request);
      const dryRun = request.query.dryRun === 'true';
      // Write access is checked before the upload is read.
      const crud = await options.crudRequest(request, entity, 'write');
      const bytes = await uploadedBytes(request);
      // Sub-table rows: the sheets after the first, keyed by the master row's label (read
      // before the first sheet is opened: each reading takes a thread of its own).
      const details = await readDetailSheets({ crud, bytes, maxRows: MAX_IMPORT_ROWS });
      const sheet = await openUploadedSheet({
        bytes,
        maxRows: MAX_IMPORT_ROWS,
        chunkRows: IMPORT_CHUNK_ROWS,
      });
      return ok(await importRecords({ crud, sheet, dryRun, ...(details ? { details } : {}) }));
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
