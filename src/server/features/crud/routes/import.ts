import type { FastifyInstance } from 'fastify';
import { detailFields, type EntityDef } from '../../../../engine/index.js';
import { ok } from '../../../lib/http.js';
import { object, typed } from '../../../lib/route-schema.js';
import type { CrudRequestOf } from '../request.js';
import { handleImport, IMPORT_ANSWER, IMPORT_QUERY, IMPORT_QUERY_TEXT } from '../import/handle.js';
import { importTemplate } from '../import/template.js';
import { acceptMultipart } from '../import/upload.js';
import { contentDisposition } from '../../../lib/download.js';

export interface ImportRoutesOptions {
  /** The service call of a request on an entity (features/crud/routes/records.ts: policy, actor, localizer). */
  crudRequest: CrudRequestOf;
}

const importSchema = (entity: EntityDef) => ({
  tags: [entity.name],
  summary: `Imports ${entity.title} records from an .xlsx or .csv file`,
  description:
    'multipart/form-data with the part "file". The header row names fields by name or translated title; dictionary cells may hold labels, reference cells the target\'s label. Sub-table (x-detail) rows come from the sheets after the first, laid out as the export writes them (the master\'s label column ties a row to its master row, then #, then the columns). dryRun=true checks every row (problems {row, field, message}) and writes nothing; otherwise all rows are added in one transaction, or none: 400 listing the problems as /<row>/<field>.' +
    IMPORT_QUERY_TEXT,
  querystring: IMPORT_QUERY,
  bodyDocument: object({ file: { type: 'string', format: 'binary', description: '.xlsx or .csv' } }, [
    'file',
  ]),
  consumes: ['multipart/form-data'],
  response: IMPORT_ANSWER,
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
    api.post(`${base}/import`, { schema: importSchema(entity) }, async (request) =>
      // Write access is checked before the upload is read: a caller who may not add reads nothing.
      ok(await handleImport(request, await options.crudRequest(request, entity, 'write'))),
    );
    api.get(`${base}/importTemplate`, { schema: templateSchema(entity) }, async (request, reply) => {
      const file = await importTemplate(await options.crudRequest(request, entity, 'write'));
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('content-disposition', contentDisposition(file.fileName, false))
        .send(file.bytes);
    });
  }
}
