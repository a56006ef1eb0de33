import type { FastifyInstance } from 'fastify';
import { treeEndpointName } from '../../../../engine/index.js';
import { contentDisposition } from '../../../lib/download.js';
import { ok, queryOf } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { typed } from '../../../lib/route-schema.js';
import { exportRecords } from '../export/records.js';
import { addRecord, deleteRecords, parseDeleteKeys, queryRecords, updateRecord } from '../services/crud.js';
import { queryTree } from '../services/tree.js';
import { itemImportRoutes } from './import.js';
import { entityRouteSchemasOf } from './entity-schemas.js';
import { crudRequestOf } from '../request.js';

/**
 * The generated API of every entity, under /api/<x-entity.api>: query, add, update, delete,
 * export, and for trees the querySys<Name>Tree route. Handlers only translate HTTP to a service call.
 * The fields of an entity come from its schema file at run time: its filters and bodies reach
 * the services untyped, checked by the schemas the engine derives from that file.
 */
export async function crudRoutes(app: FastifyInstance): Promise<void> {
  const crudRequest = crudRequestOf(app.ctx);
  const api = typed(app);

  // The generated API takes JSON bodies only: text or form bodies would reach the services as
  // strings and come back as confusing field errors instead of a 415 (parsers stay for sign-in).
  app.removeContentTypeParser(['text/plain', 'application/x-www-form-urlencoded']);

  for (const entity of app.ctx.registry.all) {
    // A published form's entity is served by the request-time routes below, never frozen here.
    if (app.ctx.registry.isRuntime(entity.name)) continue;
    const base = `/api/${entity.api}`;
    // What the modules' afterChange hooks add to the add's answer (a new tenant's administrator).
    const schemas = entityRouteSchemasOf(entity, app.ctx.modules.answerPropertiesOf(entity.name));
    api.get(`${base}/query`, { schema: schemas.query }, async (request) =>
      ok(await queryRecords(await crudRequest(request, entity), queryOf(request))),
    );
    api.post(`${base}/add`, { schema: schemas.add }, async (request) =>
      ok(await addRecord(await crudRequest(request, entity, 'write'), request.body)),
    );
    api.put(`${base}/update`, { schema: schemas.update }, async (request) =>
      ok(await updateRecord(await crudRequest(request, entity, 'write'), request.body)),
    );
    api.post(`${base}/delete`, { schema: schemas.delete }, async (request) => {
      const keys = parseDeleteKeys({ entity, query: queryOf(request), l10n: localizerFor(request) });
      return ok(await deleteRecords(await crudRequest(request, entity, 'write'), keys));
    });
    api.post(`${base}/export`, { schema: schemas.export }, async (request, reply) => {
      const file = await exportRecords(await crudRequest(request, entity), request.body);
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('content-disposition', contentDisposition(file.fileName, false, file.asciiFileName))
        .send(file.stream);
    });
    if (schemas.tree) {
      api.get(`${base}/${treeEndpointName(entity.name)}`, { schema: schemas.tree }, async (request) =>
        ok(await queryTree(await crudRequest(request, entity), queryOf(request))),
      );
    }
  }

  // Import and its template (features/crud/routes/import.ts), with the same service call per request.
  await app.register(itemImportRoutes, { crudRequest });
}
