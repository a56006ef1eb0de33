import type { FastifyInstance } from 'fastify';
import { detailFields, type EntityDef } from '../../../../engine/index.js';
import { ok } from '../../../lib/http.js';
import { answer, flag, object, typed } from '../../../lib/route-schema.js';
import type { CrudRequestOf } from '../request.js';
import { IMPORT_CHUNK_ROWS, importRecords } from '../import/import.js';
import { readDetailSheets } from '../import/details.js';
import { openUploadedSheet } from '../import/read.js';
import { importTemplate } from '../import/template.js';
import { acceptMultipart, IMPORT_RESULT, MAX_IMPORT_ROWS, uploadedBytes } from '../import/upload.js';
import { contentDisposition } from '../../../lib/download.js';

export interface ImportRoutesOptions {
  /** The service call of a request on an entity (features/crud/routes/records.ts: policy, actor, localizer). */
  crudRequest: CrudRequestOf;
}

const importSchema = (entity: EntityDef) => ({
  tags: [entity.name],
  summary: `Imports ${entity.title} records from an .xlsx or .csv file`,
  description:
    'multipart/form-data with the part "file". The header row names fields by name or translated title; dictionary cells may hold labels, reference cells the target\'s label. Sub-table (x-detail) rows come from the sheets after the first, laid out as the export writes them (the master\'s label column ties a row to its master row, then #, then the columns). dryRun=true checks every row (problems {row, field, message}) and writes nothing; otherwise all rows are added in one transaction, or none: 400 listing the problems as /<row>/<field>.',
  querystring: object({ dryRun: flag('true: check only, write nothing') }),
  bodyDocument: object({ file: { type: 'string', format: 'binary', description: '.xlsx or .csv' } }, [
    'file',
  ]),
  consumes: ['multipart/form-data'],
  response: answer(IMPORT_RESULT),
});

const templateSchema = (entity: EntityDef) => ({
  tags: [entity.name],
  summary: `The import template of ${entity.title}: translated headers, an example row, dictionary dropdowns${detailFields(entity).length > 0 ? ', one sheet per sub-table' : ''} (.xlsx)`,
  produces: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  response: {},
});

/**
 * Import and import template of every entity, next to its generated CRUD routes.
 * Multipart bodies are accepted in this plugin only (every other route keeps refusing them) and
 * read by the upload routes' own reader (lib/multipart.ts, through uploadedBytes).
 */
export async function itemImportRoutes(app: FastifyInstance, options: ImportRoutesOptions): Promise<void> {
  acceptMultipart(app);
  const api = typed(app);
  for (const entity of app.ctx.registry.all) {
    // Published forms are resolved per request under /api/online/:form (features/forms/routes/published.ts).
    if (app.ctx.registry.isRuntime(entity.name)) continue;
    const base = `/api/${entity.api}`;
    api.post(`${base}/import`, { schema: importSchema(entity) }, async (request) => {
      const dryRun = request.query.dryRun === 'true';
      // Write access is checked before the upload is read: a caller who may not add reads nothing.
      const crud = await options.crudRequest(request, entity, 'write');
      const bytes = await uploadedBytes(request);
      // Sub-table (x-detail) rows: the sheets after the first, keyed by the master row's label
      // (read before the first sheet is opened: each reading takes a thread of its own).
      const details = await readDetailSheets({ crud, bytes, maxRows: MAX_IMPORT_ROWS });
      const sheet = await openUploadedSheet({
        bytes,
        maxRows: MAX_IMPORT_ROWS,
        chunkRows: IMPORT_CHUNK_ROWS,
      });
      return ok(await importRecords({ crud, sheet, dryRun, ...(details ? { details } : {}) }));
    });
    api.get(`${base}/importTemplate`, { schema: templateSchema(entity) }, async (request, reply) => {
      const file = await importTemplate(await options.crudRequest(request, entity, 'write'));
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('content-disposition', contentDisposition(file.fileName, false))
        .send(file.bytes);
    });
  }
}
