import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf, ok, queryOf, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, id, integer, object, text } from '../../../lib/route-schema.js';
import { getRecord } from '../../crud/index.js';
import { recordPolicy } from '../../rbac/index.js';
import { reportEntities } from '../services/report-fields.js';
import { reportWorkbook, runReport, type ChartType, type ReportDefinition } from '../services/report.js';
import { deleteReport, REPORT_ENTITY, saveReport, type StoreAccess } from '../services/report-store.js';
import { contentDisposition } from '../../../lib/download.js';

/**
 * The report designer's calls (/report/reportdesigner). Saved reports are records of
 * the `report` entity (its generic API is /api/demo/report/*); these add what the engine cannot:
 * the fields a caller may report on, running a definition, its .xlsx, and saving or deleting a
 * report with its menu page.
 */

const TAGS = ['demo'];
const BASE = '/api/demo/reportdesigner';

const NAME = { type: 'string', maxLength: 64, pattern: '^[a-zA-Z][a-zA-Z0-9_]*$' };
const DEFINITION = {
  entity: { type: 'string', maxLength: 64, pattern: '^[a-z][a-z0-9]*$' },
  dimensions: { type: 'array', items: NAME, maxItems: 2, uniqueItems: true },
  measures: {
    type: 'array',
    items: { type: 'string', maxLength: 70, pattern: '^(count:\\*|(sum|avg):[a-zA-Z][a-zA-Z0-9_]*)$' },
    minItems: 1,
    maxItems: 4,
    uniqueItems: true,
  },
  filters: {
    type: 'object',
    maxProperties: 20,
    additionalProperties: {
      oneOf: [text(200), { type: 'array', items: text(200), maxItems: 50 }],
    },
  },
  chartType: { type: 'string', enum: ['bar', 'line', 'pie', 'table'] },
  utcOffset: integer(-12 * 60, 14 * 60),
};
const DEFINITION_REQUIRED = ['entity', 'measures'] as const;

interface DefinitionBody {
  entity: string;
  dimensions?: string[];
  measures: string[];
  filters?: Record<string, string | string[]>;
  chartType?: ChartType;
  utcOffset?: number;
}

const definitionOf = (body: DefinitionBody): ReportDefinition => ({
  entity: body.entity,
  dimensions: body.dimensions ?? [],
  measures: body.measures,
  filters: body.filters ?? {},
  chartType: body.chartType ?? 'bar',
});

const RESULT = object({
  columns: { type: 'array', items: { type: 'object', additionalProperties: true } },
  rows: { type: 'array', items: { type: 'object', additionalProperties: true } },
  isTruncated: { type: 'boolean' },
});

export async function demoReportRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const access = (request: FastifyRequest): StoreAccess => ({
    ctx,
    auth: requireAuth(request),
    l10n: localizerFor(request),
    actor: actorOf(request),
  });

  app.get(
    `${BASE}/entities`,
    {
      schema: {
        tags: TAGS,
        summary: 'Entities the caller may report on, with the fields usable as dimensions and measures',
        response: answer({ type: 'array', items: { type: 'object', additionalProperties: true } }),
      },
    },
    async (request) => ok(await reportEntities(access(request))),
  );

  app.post(
    `${BASE}/run`,
    {
      schema: {
        tags: TAGS,
        summary: 'Runs a report definition: groups (at most 500) with their measures',
        body: object(DEFINITION, DEFINITION_REQUIRED),
        response: answer(RESULT),
      },
    },
    async (request) => {
      const body = request.body as DefinitionBody;
      return ok(await runReport(access(request), definitionOf(body), body.utcOffset ?? 0));
    },
  );

  app.post(
    `${BASE}/xlsx`,
    {
      schema: {
        tags: TAGS,
        summary: 'A report definition run and downloaded as .xlsx',
        body: object({ ...DEFINITION, title: text(64) }, [...DEFINITION_REQUIRED, 'title']),
      },
    },
    async (request, reply) => {
      const body = request.body as DefinitionBody & { title: string };
      const result = await runReport(access(request), definitionOf(body), body.utcOffset ?? 0);
      const bytes = await reportWorkbook(body.title, result);
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('content-disposition', contentDisposition(`${body.title}.xlsx`, false))
        .send(bytes);
    },
  );

  app.get(
    `${BASE}/view`,
    {
      schema: {
        tags: TAGS,
        summary: 'A saved report of the caller’s tenant and its current result',
        querystring: object({ id: id(), utcOffset: integer(-12 * 60, 14 * 60) }, ['id']),
        response: answer(object({ report: { type: 'object', additionalProperties: true }, result: RESULT })),
      },
    },
    async (request) => {
      const query = queryOf(request) as { id: number; utcOffset?: number };
      const store = access(request);
      const entity = ctx.registry.require(REPORT_ENTITY);
      const policy = await recordPolicy({ ctx, auth: store.auth, entity, mode: 'read', l10n: store.l10n });
      const report = await getRecord(
        { db: ctx.db, registry: ctx.registry, entity, actor: store.actor, l10n: store.l10n, policy },
        query.id,
      );
      const result = await runReport(
        store,
        definitionOf(report as unknown as DefinitionBody),
        query.utcOffset ?? 0,
      );
      return ok({ report, result });
    },
  );

  app.post(
    `${BASE}/save`,
    {
      schema: {
        tags: TAGS,
        summary: 'Saves a report (no id: a new one with its menu page; id and version: changes it)',
        body: object(
          { ...DEFINITION, id: id(), version: integer(0), reportName: text(64, { minLength: 1 }) },
          [...DEFINITION_REQUIRED, 'reportName'],
        ),
        response: answer({ type: 'object', additionalProperties: true }),
      },
    },
    async (request) => {
      const body = request.body as DefinitionBody & { id?: number; version?: number; reportName: string };
      return ok(
        await saveReport(access(request), {
          ...definitionOf(body),
          reportName: body.reportName,
          ...(body.id === undefined ? {} : { id: body.id, version: body.version ?? 0 }),
        }),
      );
    },
  );

  app.post(
    `${BASE}/remove`,
    {
      schema: {
        tags: TAGS,
        summary: 'Deletes a saved report and its menu page',
        querystring: object({ id: id() }, ['id']),
        response: answer(),
      },
    },
    async (request) => {
      await deleteReport(access(request), (queryOf(request) as { id: number }).id);
      return ok(null);
    },
  );
}
