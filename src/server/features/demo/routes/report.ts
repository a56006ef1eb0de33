import type { FastifyInstance, FastifyRequest } from 'fastify';
import { serializedRecordOf, type ReportChartType } from '../../../../engine/index.js';
import type { Row } from '../../../lib/db/database.js';
import { actorOf, ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import {
  answer,
  arrayOf,
  bool,
  dictionary,
  id,
  integer,
  object,
  oneOf,
  text,
  typed,
  type Schema,
} from '../../../lib/route-schema.js';
import { getRecord } from '../../crud/index.js';
import { recordPolicy } from '../../rbac/index.js';
import { reportEntities } from '../services/report-fields.js';
import { reportWorkbook, runReport, type ReportDefinition } from '../services/report.js';
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
const CHART_TYPES: readonly ReportChartType[] = ['bar', 'line', 'pie', 'table'];

const NAME = text(64, { pattern: '^[a-zA-Z][a-zA-Z0-9_]*$' });
/** A filter's value: one text, or several (any of them). */
const FILTER_VALUE: Schema<string | string[]> = {
  oneOf: [text(200), arrayOf(text(200), { maxItems: 50 })],
};
const DEFINITION = {
  entity: text(64, { pattern: '^[a-z][a-z0-9]*$' }),
  dimensions: arrayOf(NAME, { maxItems: 2, uniqueItems: true }),
  measures: arrayOf(text(70, { pattern: '^(count:\\*|(sum|avg):[a-zA-Z][a-zA-Z0-9_]*)$' }), {
    minItems: 1,
    maxItems: 4,
    uniqueItems: true,
  }),
  filters: dictionary(FILTER_VALUE, { maxProperties: 20 }),
  chartType: oneOf(CHART_TYPES),
  utcOffset: integer(-12 * 60, 14 * 60),
};
const DEFINITION_REQUIRED = ['entity', 'measures'] as const;

interface DefinitionBody {
  entity: string;
  dimensions?: string[];
  measures: string[];
  filters?: Record<string, string | string[]>;
  chartType?: ReportChartType;
}

const definitionOf = (body: DefinitionBody): ReportDefinition => ({
  entity: body.entity,
  dimensions: body.dimensions ?? [],
  measures: body.measures,
  filters: body.filters ?? {},
  chartType: body.chartType ?? 'bar',
});

const isText = (value: unknown): value is string => typeof value === 'string';

/** The definition a saved report holds (its record's fields, as the save checked them). */
function savedDefinition(report: Row): ReportDefinition {
  const filters: Record<string, string | string[]> = {};
  if (typeof report.filters === 'object' && report.filters !== null)
    for (const [name, value] of Object.entries(report.filters)) {
      if (isText(value)) filters[name] = value;
      else if (Array.isArray(value)) filters[name] = value.filter(isText);
    }
  const chartType = CHART_TYPES.find((type) => type === report.chartType);
  return definitionOf({
    entity: String(report.entity ?? ''),
    dimensions: Array.isArray(report.dimensions) ? report.dimensions.filter(isText) : [],
    measures: Array.isArray(report.measures) ? report.measures.filter(isText) : [],
    filters,
    ...(chartType ? { chartType } : {}),
  });
}

const RESULT = object(
  {
    columns: arrayOf(
      object(
        {
          key: { type: 'string', description: 'd0, d1 for the dimensions, m0… for the measures' },
          title: { type: 'string' },
          kind: oneOf(['dimension', 'measure']),
        },
        ['key', 'title', 'kind'],
      ),
    ),
    rows: arrayOf(
      dictionary(
        { type: ['string', 'number', 'null'] },
        { description: "a group: each column's key with its label or figure" },
      ),
    ),
    isTruncated: bool({ description: 'more groups than the limit existed; the first ones are shown' }),
  },
  ['columns', 'rows', 'isTruncated'],
);

const REPORT_FIELD = object(
  {
    name: { type: 'string' },
    title: { type: 'string' },
    kind: oneOf(['text', 'number', 'date', 'boolean', 'dict', 'ref']),
    dict: { type: 'string', description: 'the dictionary of its values' },
    ref: { type: 'string', description: 'the entity it refers to' },
    isDimension: bool({ description: 'may be grouped by' }),
    isMeasure: bool({ description: 'may be summed and averaged' }),
    filter: { type: 'string', description: "the filter the entity's list offers on it" },
  },
  ['name', 'title', 'kind', 'isDimension', 'isMeasure'],
);

export async function demoReportRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const access = (request: FastifyRequest): StoreAccess => ({
    ctx,
    auth: requireAuth(request),
    l10n: localizerFor(request),
    actor: actorOf(request),
  });
  const api = typed(app);
  // A saved report as the store answers it: a record of the report entity.
  const reportRecord = serializedRecordOf(ctx.registry.require(REPORT_ENTITY));

  api.get(
    `${BASE}/entities`,
    {
      schema: {
        tags: TAGS,
        summary: 'Entities the caller may report on, with the fields usable as dimensions and measures',
        response: answer(
          arrayOf(
            object({ name: { type: 'string' }, title: { type: 'string' }, fields: arrayOf(REPORT_FIELD) }, [
              'name',
              'title',
              'fields',
            ]),
          ),
        ),
      },
    },
    async (request) => ok(await reportEntities(access(request))),
  );

  api.post(
    `${BASE}/run`,
    {
      schema: {
        tags: TAGS,
        summary: 'Runs a report definition: groups (at most 500) with their measures',
        body: object(DEFINITION, DEFINITION_REQUIRED),
        response: answer(RESULT),
      },
    },
    async (request) =>
      ok(
        await runReport({
          access: access(request),
          definition: definitionOf(request.body),
          offset: request.body.utcOffset ?? 0,
        }),
      ),
  );

  api.post(
    `${BASE}/xlsx`,
    {
      schema: {
        tags: TAGS,
        summary: 'A report definition run and downloaded as .xlsx',
        body: object({ ...DEFINITION, title: text(64) }, [...DEFINITION_REQUIRED, 'title']),
        produces: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        response: {},
      },
    },
    async (request, reply) => {
      const { body } = request;
      const result = await runReport({
        access: access(request),
        definition: definitionOf(body),
        offset: body.utcOffset ?? 0,
      });
      const bytes = await reportWorkbook(body.title, result);
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('content-disposition', contentDisposition(`${body.title}.xlsx`, false))
        .send(bytes);
    },
  );

  api.get(
    `${BASE}/view`,
    {
      schema: {
        tags: TAGS,
        summary: 'A saved report of the caller’s tenant and its current result',
        querystring: object({ id: id(), utcOffset: integer(-12 * 60, 14 * 60) }, ['id']),
        response: answer(object({ report: reportRecord, result: RESULT }, ['report', 'result'])),
      },
    },
    async (request) => {
      const { query } = request;
      const store = access(request);
      const entity = ctx.registry.require(REPORT_ENTITY);
      const policy = await recordPolicy({ ctx, auth: store.auth, entity, mode: 'read', l10n: store.l10n });
      const report = await getRecord(
        {
          db: ctx.db,
          registry: ctx.registry,
          entity,
          actor: store.actor,
          l10n: store.l10n,
          policy,
          modules: ctx.modules,
        },
        query.id,
      );
      const result = await runReport({
        access: store,
        definition: savedDefinition(report),
        offset: query.utcOffset ?? 0,
      });
      return ok({ report, result });
    },
  );

  api.post(
    `${BASE}/save`,
    {
      schema: {
        tags: TAGS,
        summary: 'Saves a report (no id: a new one with its menu page; id and version: changes it)',
        body: object(
          { ...DEFINITION, id: id(), version: integer(0), reportName: text(64, { minLength: 1 }) },
          [...DEFINITION_REQUIRED, 'reportName'],
        ),
        response: answer(reportRecord),
      },
    },
    async (request) => {
      const { body } = request;
      return ok(
        await saveReport(access(request), {
          ...definitionOf(body),
          reportName: body.reportName,
          ...(body.id === undefined ? {} : { id: body.id, version: body.version ?? 0 }),
        }),
      );
    },
  );

  api.post(
    `${BASE}/remove`,
    {
      schema: {
        tags: TAGS,
        summary: 'Deletes a saved report and its menu page',
        querystring: object({ id: id() }, ['id']),
        response: answer({ type: 'null' }),
      },
    },
    async (request) => {
      await deleteReport(access(request), request.query.id);
      return ok(null);
    },
  );
}
