import type { FastifyInstance } from 'fastify';
import { hasRecycleBin, type EntityDef } from '../../../../engine/index.js';
import { AppError } from '../../../lib/errors.js';
import { ok } from '../../../lib/http.js';
import { answer, integer, object, typed } from '../../../lib/route-schema.js';
import {
  purgeRecords,
  queryRecycleBin,
  restoreRecords,
  restoreVersion,
  type CrudRequestOf,
} from '../../crud/index.js';
import { FORM_PARAMS, onlineEntityOf, onlineKeysOf, ONLINE_LIST_QUERY, ONLINE_RECORD } from './published.js';

const tags = ['online'];
const params = FORM_PARAMS;

/**
 * The recycle bin and the version restore of the published forms, under /api/online/<form code>,
 * as the schema files' entities have them (features/crud/routes/recycle.ts): <base>/recycle,
 * <base>/recycle/restore and <base>/recycle/purge (?id=1&id=2) for a form whose x-entity.softDelete
 * is on (the designer's 回收站 switch), else 404; <base>/restoreVersion for every form. Under the one
 * permission policy: URL grants by path, the caller's field rights and row scope.
 */
export function onlineRecycleRoutes(app: FastifyInstance, crudRequest: CrudRequestOf): void {
  const base = '/api/online/:form';
  const api = typed(app);
  /** The form's entity when it has a recycle bin; 404 as for a route that is not there. */
  const binnedEntityOf = (request: Parameters<typeof onlineEntityOf>[1]): EntityDef => {
    const entity = onlineEntityOf(app, request);
    if (!hasRecycleBin(entity))
      throw new AppError('routeNotFound', { path: request.url.split('?')[0] ?? '' });
    return entity;
  };
  const BINNED: Record<string, unknown> = {
    ...ONLINE_RECORD,
    description: 'A deleted record: its fields, and deletedAt, deletedBy, expiresAt',
  };

  api.post(
    `${base}/restoreVersion`,
    {
      schema: {
        tags,
        summary: "Set a published form's record back to a version of its change history",
        params,
        body: object(
          {
            auditId: integer(1, Number.MAX_SAFE_INTEGER, {
              description: 'the audit log entry (修改历史) whose values to restore',
            }),
          },
          ['auditId'],
        ),
        response: answer(ONLINE_RECORD),
      },
    },
    async (request) => {
      const entity = onlineEntityOf(app, request);
      return ok(await restoreVersion(await crudRequest(request, entity, 'write'), request.body.auditId));
    },
  );
  api.get(
    `${base}/recycle`,
    {
      schema: {
        tags,
        summary: 'Recycle bin of a published form: deleted records, newest first',
        params,
        querystring: object({ currentPage: integer(1, 1_000_000), pageSize: integer(1, 500) }),
        response: answer({
          type: 'object',
          required: ['records', 'total', 'currentPage', 'pageSize', 'recycleDays'],
          properties: {
            records: { type: 'array', items: BINNED },
            total: { type: 'integer' },
            currentPage: { type: 'integer' },
            pageSize: { type: 'integer' },
            recycleDays: { type: 'integer', description: "the tenant's recycleBinDays param" },
          },
        }),
      },
    },
    async (request) => {
      const entity = binnedEntityOf(request);
      return ok(
        await queryRecycleBin(await crudRequest(request, entity), {
          currentPage: request.query.currentPage ?? 1,
          pageSize: request.query.pageSize ?? 20,
        }),
      );
    },
  );
  api.post(
    `${base}/recycle/restore`,
    {
      schema: {
        tags,
        summary: "Restore records of a published form's recycle bin (?id=1&id=2)",
        params,
        querystring: ONLINE_LIST_QUERY,
        response: answer(object({ restored: integer(0) }, ['restored'])),
      },
    },
    async (request) => {
      const entity = binnedEntityOf(request);
      const keys = onlineKeysOf(request, entity, request.query);
      return ok(await restoreRecords(await crudRequest(request, entity, 'write'), keys));
    },
  );
  api.post(
    `${base}/recycle/purge`,
    {
      schema: {
        tags,
        summary: "Delete records of a published form's recycle bin for good (?id=1&id=2)",
        params,
        querystring: ONLINE_LIST_QUERY,
        response: answer(object({ purged: integer(0) }, ['purged'])),
      },
    },
    async (request) => {
      const entity = binnedEntityOf(request);
      const keys = onlineKeysOf(request, entity, request.query);
      return ok(await purgeRecords(await crudRequest(request, entity, 'write'), keys));
    },
  );
}
