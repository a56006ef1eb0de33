import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { AppError } from '../../lib/errors.js';
import { actorOf, bearerToken, ok, requireAuth } from '../../lib/http.js';
import { answer, integer, object, text, type RouteSchema } from '../../lib/route-schema.js';
import { queryAudit } from './services/audit.js';
import { databaseReport } from './services/database.js';
import { effectiveConfig } from './services/effective-config.js';
import { flowCounters } from './services/flow-counters.js';
import { liveInstances } from './services/instances.js';
import type { MetricSample } from '../../../engine/api-types.js';
import { pruneMonitorRows, searchLogs } from './services/request-log.js';
import {
  MONITOR_PARAMS,
  paramNameKey,
  knownParamNames,
  RATE_LIMIT_RULES,
  readParams,
  ruleLimit,
  setParam,
} from './services/settings.js';
import { assertUrlGranted, isPlatformAdmin } from '../rbac/index.js';
import { findSession } from '../sessions/index.js';

type Json = Record<string, unknown>;

const TAGS = ['monitor'];
const BASE = '/api/monitor';
const ANY: Json = { type: 'object', additionalProperties: true };
const LIST: Json = { type: 'array', items: ANY };
const ISO_TIME = text(40, { format: 'date-time' });

const schema = (
  summary: string,
  parts: Partial<RouteSchema> = {},
  data: Json = ANY,
): { schema: RouteSchema } => ({
  schema: { tags: TAGS, summary, response: answer(data), ...parts } as RouteSchema,
});

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The tenant whose rows the caller may read: every tenant for the platform administrator. */
function tenantScope(request: FastifyRequest): string | undefined {
  const auth = requireAuth(request);
  return isPlatformAdmin(request.server.ctx, auth) ? undefined : auth.tenantCode;
}

/** Metrics, logs, audit, database, flow control and configuration (docs/product.md §1 monitoring pages). */
export async function monitorRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const userTable = ctx.registry.require('sysuser').table;
  /** A param made by an edit here is named in Chinese, as the seed names params (shown through i18n). */
  const paramName = (key: string): string => app.i18n.t('zh', paramNameKey(key));

  /**
   * Prometheus text for a scraper: the METRICS_TOKEN as bearer token, or a signed-in caller whose
   * roles hold this URL. Public to the auth hook so that the scraper's token is not taken for a session.
   */
  app.get(
    '/api/metrics',
    {
      config: { isPublic: true },
      schema: {
        tags: TAGS,
        summary: 'Prometheus metrics of this process (text exposition format)',
        description: 'Bearer METRICS_TOKEN, or a signed-in user granted this URL.',
        response: { 200: { type: 'string' } },
      } as RouteSchema,
    },
    async (request, reply) => {
      const token = bearerToken(request);
      const expected = ctx.config.monitoring.metricsToken;
      const isScraper = token !== undefined && expected !== undefined && sameSecret(token, expected);
      if (!isScraper) {
        const session = token
          ? await findSession({ db: ctx.db, userTable, accessToken: token, cache: ctx.sessionCache })
          : undefined;
        if (!session) throw new AppError('invalidToken');
        const auth = { ...session, heldRoles: session.roles };
        await assertUrlGranted({ ctx, auth, path: '/api/metrics', isSelfService: false });
      }
      if (!app.monitor) throw new AppError('notFound');
      reply.header('content-type', app.monitor.registry.contentType);
      return app.monitor.registry.metrics();
    },
  );

  app.get(
    `${BASE}/metrics/samples`,
    schema(
      'Recent metric samples of every server process, the routes of every live process, and the current interval of this one',
      { querystring: object({ minutes: integer(1, 1440) }) },
      object({
        instances: LIST,
        current: ANY,
        routes: LIST,
        instanceRoutes: LIST,
        instance: { type: 'string' },
      }),
    ),
    async (request) => {
      const { minutes = 15 } = request.query as { minutes?: number };
      const since = new Date(Date.now() - minutes * 60_000);
      const found = await sql<{
        instance: string;
        data: MetricSample;
      }>`select instance, data from sys_metric_sample
        where at >= ${since} order by id`.execute(ctx.db);
      const byInstance = new Map<string, MetricSample[]>();
      for (const row of found.rows)
        byInstance.set(row.instance, [...(byInstance.get(row.instance) ?? []), row.data]);
      const monitor = app.monitor;
      return ok({
        instance: monitor?.instance ?? '',
        instances: [...byInstance.entries()].map(([instance, samples]) => ({ instance, samples })),
        current: monitor?.peekSample() ?? {},
        routes: monitor?.routes() ?? [],
        instanceRoutes: (await liveInstances(ctx.db, monitor)).map(({ instance, at, routes }) => ({
          instance,
          at,
          routes,
        })),
      });
    },
  );

  app.get(
    `${BASE}/database`,
    schema('Database activity, sizes, index use, locks and slow statements'),
    async () => {
      const { param, fallback } = MONITOR_PARAMS.slowQueryMs;
      const thresholdMs = Number((await readParams(ctx, [param])).get(param)) || fallback;
      return ok(
        await databaseReport(ctx, {
          statements: (await liveInstances(ctx.db, app.monitor)).flatMap(({ instance, slowStatements }) =>
            slowStatements.map((statement) => ({ ...statement, instance })),
          ),
          thresholdMs,
          pool: app.monitor?.poolStats(),
        }),
      );
    },
  );

  app.get(
    `${BASE}/flowcontrol/rules`,
    schema('Rate-limit rules with limits, rejections and rejections per minute', {}, LIST),
    async () => {
      const since = new Date(Date.now() - 60_000);
      const recent = await sql<{
        data: MetricSample;
      }>`select data from sys_metric_sample where at >= ${since}`.execute(ctx.db);
      const params = await readParams(
        ctx,
        RATE_LIMIT_RULES.map((rule) => rule.param),
      );
      const totals = app.monitor?.rejections() ?? {};
      const current = app.monitor?.peekSample();
      return ok(
        await Promise.all(
          RATE_LIMIT_RULES.map(async (rule) => {
            const lastMinute =
              recent.rows.reduce((sum, row) => sum + (row.data.rejectionsByRule?.[rule.name] ?? 0), 0) +
              (current?.rejectionsByRule[rule.name] ?? 0);
            return {
              name: rule.name,
              param: rule.param,
              unit: rule.unit,
              routes: rule.routes,
              limit: await ruleLimit(ctx, rule.name),
              source: params.get(rule.param) ? 'param' : 'environment',
              rejections: totals[rule.name] ?? 0,
              rejectionsPerMinute: lastMinute,
            };
          }),
        ),
      );
    },
  );

  app.get(
    `${BASE}/flowcontrol/counters`,
    schema(
      'Live rate-limit counters of every process: per client address, and failed sign-ins per user',
      {},
      LIST,
    ),
    async (request) => ok(await flowCounters(ctx, tenantScope(request))),
  );

  app.put(
    `${BASE}/flowcontrol/rule`,
    schema(
      "Sets a rate-limit rule's limit (a param: every process applies it on its next request)",
      {
        body: object(
          {
            name: { type: 'string', enum: RATE_LIMIT_RULES.map((rule) => rule.name) },
            limit: integer(1, 1_000_000),
          },
          ['name', 'limit'],
          { additionalProperties: false },
        ),
      },
      object({ name: { type: 'string' }, limit: { type: 'integer' } }),
    ),
    async (request) => {
      const { name, limit } = request.body as { name: string; limit: number };
      const rule = RATE_LIMIT_RULES.find((candidate) => candidate.name === name);
      if (!rule) throw new AppError('validation', {}, [{ field: '/name', message: 'unknown rule' }]);
      await setParam({
        ctx,
        actor: actorOf(request),
        key: rule.param,
        value: String(limit),
        name: paramName(rule.param),
      });
      return ok({ name, limit });
    },
  );

  app.get(
    `${BASE}/config`,
    schema(
      'Effective configuration (secrets masked), monitoring settings, and the name each known param is stored under',
    ),
    async (request) => {
      const keys = Object.values(MONITOR_PARAMS).map((setting) => setting.param);
      const params = await readParams(ctx, keys);
      return ok({
        paramNames: await knownParamNames(ctx, requireAuth(request).tenantCode, (key) =>
          app.i18n.text('zh', paramNameKey(key)),
        ),
        entries: effectiveConfig(ctx.config),
        settings: Object.entries(MONITOR_PARAMS).map(([name, setting]) => ({
          name,
          param: setting.param,
          value: Number(params.get(setting.param)) || setting.fallback,
          source: params.get(setting.param) ? 'param' : 'default',
          max: setting.max,
        })),
        instance: app.monitor?.instance ?? '',
        isMonitoringEnabled: ctx.config.monitoring.isEnabled,
      });
    },
  );

  app.put(
    `${BASE}/settings`,
    schema(
      'Sets a monitoring setting (log retention in days, slow-statement threshold in ms)',
      {
        body: object(
          { name: { type: 'string', enum: Object.keys(MONITOR_PARAMS) }, value: integer(1, 600_000) },
          ['name', 'value'],
          { additionalProperties: false },
        ),
      },
      object({ name: { type: 'string' }, value: { type: 'integer' } }),
    ),
    async (request) => {
      const { name, value } = request.body as { name: keyof typeof MONITOR_PARAMS; value: number };
      const setting = MONITOR_PARAMS[name];
      if (value > setting.max)
        throw new AppError('validation', {}, [{ field: '/value', message: `at most ${setting.max}` }]);
      await setParam({
        ctx,
        actor: actorOf(request),
        key: setting.param,
        value: String(value),
        name: paramName(setting.param),
      });
      if (name === 'slowQueryMs') app.monitor?.setSlowThreshold(value);
      return ok({ name, value });
    },
  );

  app.get(
    `${BASE}/logs/query`,
    schema(
      'Request logs, newest first: time range, level, text, request id, user, status; afterId for a live tail',
      {
        querystring: object({
          from: ISO_TIME,
          to: ISO_TIME,
          level: { type: 'string', enum: ['info', 'warn', 'error'] },
          text: text(200),
          requestId: text(64),
          username: text(64),
          status: integer(100, 599),
          afterId: integer(0),
          limit: integer(1, 1000),
        }),
      },
      LIST,
    ),
    async (request) => {
      const query = request.query as Record<string, string | number | undefined>;
      await app.requestLog?.flush();
      const tenantCode = tenantScope(request);
      return ok(
        await searchLogs(ctx, {
          ...(query as Record<string, never>),
          ...(tenantCode ? { tenantCode } : {}),
          limit: typeof query.limit === 'number' ? query.limit : 200,
        }),
      );
    },
  );

  app.post(
    `${BASE}/logs/prune`,
    schema(
      'Deletes request logs older than the retention param now (also done every 10 minutes)',
      {},
      object({ logs: { type: 'integer' }, samples: { type: 'integer' } }),
    ),
    async (request) => {
      if (!isPlatformAdmin(ctx, requireAuth(request))) throw new AppError('forbidden');
      await app.requestLog?.flush();
      return ok(await pruneMonitorRows({ ctx }));
    },
  );

  app.get(
    `${BASE}/audit/query`,
    schema(
      "Audit trail of the caller's tenant with each change's fields before and after",
      {
        querystring: object({
          entity: text(64),
          recordKey: text(64),
          username: text(64),
          action: text(32),
          from: ISO_TIME,
          to: ISO_TIME,
          currentPage: integer(1, 1_000_000),
          pageSize: integer(1, 500),
        }),
      },
      object({
        records: LIST,
        total: { type: 'integer' },
        currentPage: { type: 'integer' },
        pageSize: { type: 'integer' },
      }),
    ),
    async (request) => {
      const query = request.query as Record<string, string | number | undefined>;
      const auth = requireAuth(request);
      const pick = (name: string): Record<string, string> =>
        typeof query[name] === 'string' && query[name] !== '' ? { [name]: query[name] } : {};
      return ok(
        await queryAudit(ctx, {
          tenantCode: auth.tenantCode,
          ...pick('entity'),
          ...pick('recordKey'),
          ...pick('username'),
          ...pick('action'),
          ...pick('from'),
          ...pick('to'),
          currentPage: typeof query.currentPage === 'number' ? query.currentPage : 1,
          pageSize: typeof query.pageSize === 'number' ? query.pageSize : 20,
        }),
      );
    },
  );
}
