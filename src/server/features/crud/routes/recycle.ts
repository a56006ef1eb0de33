import type { FastifyInstance } from 'fastify';
import { hasRecycleBin, serializedRecordOf, type EntityDef } from '../../../../engine/index.js';
import { ok, queryOf } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, integer, object, typed } from '../../../lib/route-schema.js';
import { parseDeleteKeys } from '../services/crud.js';
import { purgeRecords, queryRecycleBin, restoreRecords, restoreVersion } from '../services/recycle.js';
import { crudRequestOf } from '../request.js';
import { entityRouteSchemasOf } from './entity-schemas.js';

type Json = Record<string, unknown>;

const TIME = { type: 'string', format: 'date-time' };

/** A record of the bin: the record's fields, who deleted it, when, and when it goes for good. */
function binnedRecordOf(entity: EntityDef): Json {
  const record = serializedRecordOf(entity);
  return {
    ...record,
    required: ['deletedAt', 'deletedBy', 'expiresAt'],
    properties: {
      ...(record.properties as Json),
      deletedAt: { ...TIME, description: 'when it was deleted' },
      deletedBy: { type: ['string', 'null'], description: 'who deleted it' },
      expiresAt: { ...TIME, description: 'when it is purged (deletedAt + the recycleBinDays param)' },
    },
  };
}

/**
 * The recycle bin of each entity with x-entity.softDelete, under its API base: <api>/recycle (a
 * page of the bin), <api>/recycle/restore and <api>/recycle/purge (?id=1&id=2, as a delete);
 * and for every entity <api>/restoreVersion (a record back to a version of its audit log). Under
 * the one permission policy: URL grants by path, the caller's field rights and row scope.
 */
export async function recycleRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const crudRequest = crudRequestOf(ctx);
  const api = typed(app);

  for (const entity of ctx.registry.all) {
    // A published form's entity is served by the request-time routes (forms/routes/published.ts).
    if (ctx.registry.isRuntime(entity.name)) continue;
    const base = `/api/${entity.api}`;
    const tags = [entity.name];
    const keysQuery = entityRouteSchemasOf(entity).delete.querystring;
    const keysOf = (query: Record<string, unknown>, lang: ReturnType<typeof localizerFor>) =>
      parseDeleteKeys({ entity, query, l10n: lang });

    api.post(
      `${base}/restoreVersion`,
      {
        schema: {
          tags,
          summary: `Set a ${entity.title} record back to a version of its change history (a new audited update; re-added when gone for good)`,
          body: object(
            {
              auditId: integer(1, Number.MAX_SAFE_INTEGER, {
                description: 'the audit log entry (修改历史) whose values to restore',
              }),
            },
            ['auditId'],
          ),
          response: answer(serializedRecordOf(entity)),
        },
      },
      async (request) =>
        ok(await restoreVersion(await crudRequest(request, entity, 'write'), request.body.auditId)),
    );

    if (!hasRecycleBin(entity)) continue;
    api.get(
      `${base}/recycle`,
      {
        schema: {
          tags,
          summary: `Recycle bin of ${entity.title}: deleted records, newest first`,
          querystring: object({ currentPage: integer(1, 1_000_000), pageSize: integer(1, 500) }),
          response: answer({
            type: 'object',
            required: ['records', 'total', 'currentPage', 'pageSize', 'recycleDays'],
            properties: {
              records: { type: 'array', items: binnedRecordOf(entity) },
              total: { type: 'integer' },
              currentPage: { type: 'integer' },
              pageSize: { type: 'integer' },
              recycleDays: { type: 'integer', description: "the tenant's recycleBinDays param" },
            },
          }),
        },
      },
      async (request) =>
        ok(
          await queryRecycleBin(await crudRequest(request, entity), {
            currentPage: request.query.currentPage ?? 1,
            pageSize: request.query.pageSize ?? 20,
          }),
        ),
    );
    api.post(
      `${base}/recycle/restore`,
      {
        schema: {
          tags,
          summary: `Restore ${entity.title} records from the recycle bin (409 naming a unique field taken meanwhile)`,
          ...(keysQuery ? { querystring: keysQuery } : {}),
          response: answer(object({ restored: integer(0) }, ['restored'])),
        },
      },
      async (request) => {
        const keys = keysOf(queryOf(request), localizerFor(request));
        return ok(await restoreRecords(await crudRequest(request, entity, 'write'), keys));
      },
    );
    api.post(
      `${base}/recycle/purge`,
      {
        schema: {
          tags,
          summary: `Delete ${entity.title} records of the recycle bin for good`,
          ...(keysQuery ? { querystring: keysQuery } : {}),
          response: answer(object({ purged: integer(0) }, ['purged'])),
        },
      },
      async (request) => {
        const keys = keysOf(queryOf(request), localizerFor(request));
        return ok(await purgeRecords(await crudRequest(request, entity, 'write'), keys));
      },
    );
  }
}
