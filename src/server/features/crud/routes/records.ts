import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db, Row } from '../../../lib/db/database.js';
import { treeEndpointName } from '../../../../engine/index.js';
import { ok, queryOf } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { exportRecords } from '../export/records.js';
import { addRecord, deleteRecords, parseDeleteKeys, queryRecords, updateRecord } from '../services/crud.js';
import { queryTree } from '../services/tree.js';
import { itemImportRoutes } from './import.js';
import { crudRequestOf } from '../request.js';

export interface CrudRoutesOptions {
  /** Per entity name: work done in the transaction of an add, whose answer becomes the add's answer. */
  afterAdd?: Record<string, (trx: Db, row: Row, request: FastifyRequest) => Promise<Row>>;
}

/**
 * The generated API of every entity, under /api/<x-entity.api>: query, add, update, delete,
 * export, and for trees the querySys<Name>Tree route. Handlers only translate HTTP to a service call.
 */
export async function crudRoutes(app: FastifyInstance, options: CrudRoutesOptions = {}): Promise<void> {
  const crudRequest = crudRequestOf(app.ctx);

  // The generated API takes JSON bodies only: text or form bodies would reach the services as
  // strings and come back as confusing field errors instead of a 415 (parsers stay for sign-in).
  app.removeContentTypeParser(['text/plain', 'application/x-www-form-urlencoded']);

  for (const entity of app.ctx.registry.all) {
    // A published form's entity is served by the request-time routes below, never frozen here.
    if (app.ctx.registry.isRuntime(entity.name)) continue;
    const base = `/api/${entity.api}`;
    app.get(`${base}/query`, async (request) =>
      ok(await queryRecords(await crudRequest(request, entity), queryOf(request))),
    );
    const afterAdd = options.afterAdd?.[entity.name];
    app.post(`${base}/add`, async (request) => {
      const crud = await crudRequest(request, entity, 'write');
      if (afterAdd) crud.afterAdd = (trx, row) => afterAdd(trx, row, request);
      return ok(await addRecord(crud, request.body));
    });
    app.put(`${base}/update`, async (request) =>
      ok(await updateRecord(await crudRequest(request, entity, 'write'), request.body)),
    );
    app.post(`${base}/delete`, async (request) => {
      const keys = parseDeleteKeys(entity, queryOf(request), localizerFor(request));
      return ok(await deleteRecords(await crudRequest(request, entity, 'write'), keys));
    });
    app.post(`${base}/export`, async (request, reply) => {
      const file = await exportRecords(await crudRequest(request, entity), request.body);
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header(
          'content-disposition',
          `attachment; filename="${file.fileName}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
        )
        .send(file.stream);
    });
    if (entity.tree) {
      app.get(`${base}/${treeEndpointName(entity.name)}`, async (request) =>
        ok(await queryTree(await crudRequest(request, entity), queryOf(request))),
      );
    }
  }

  // Import and its template (features/crud/routes/import.ts), with the same service call per request.
  await app.register(itemImportRoutes, {
    crudRequest,
    ...(options.afterAdd ? { afterAdd: options.afterAdd } : {}),
  });
}
