import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { MetricSample, MetricSamples, RateLimitRule } from '../../../engine/api-types.js';
import { AppError } from '../../lib/errors.js';
import { actorOf, bearerToken, ok, requireAuth } from '../../lib/http.js';
import {
  anyJson,
  answer,
  arrayOf,
  bool,
  decimal,
  dictionary,
  integer,
  nullable,
  object,
  oneOf,
  text,
  typed,
} from '../../lib/route-schema.js';
import { queryAudit } from './services/audit.js';
import { databaseReport } from './services/database.js';
import { effectiveConfig } from './services/effective-config.js';
import { flowCounters } from './services/flow-counters.js';
import { liveInstances } from './services/instances.js';
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
import { assertPlatformRoute, isPlatformAdmin } from '../rbac/index.js';
import { findSession } from '../sessions/index.js';

const tags = ['monitor'];
/**
 * The platform's own figures and settings (every tenant's processes, database, configuration,
 * rate limits): the platform administrator's only (features/rbac/permissions/policy.ts).
 */
const PLATFORM_ONLY = { isPlatformOnly: true };
const BASE = '/api/monitor';
const ISO_TIME = text(40, { format: 'date-time' });
const LOG_LEVELS = ['info', 'warn', 'error'] as const;
const MONITOR_SETTING_NAMES = Object.keys(MONITOR_PARAMS) as (keyof typeof MONITOR_PARAMS)[];

// The answers' parts (engine/api-types.ts declares them for the admin pages too).
const count = (description?: string) =>
  integer(0, Number.MAX_SAFE_INTEGER, description ? { description } : {});
const ms = (description?: string) => decimal(description ? { description } : {});
const TIME = { type: 'string', format: 'date-time' };
const STRING = { type: 'string' };
const NULLABLE_STRING = { type: ['string', 'null'] };

/** The figures of a sample; required in a stored sample, absent in the empty one of monitoring off. */
const SAMPLE_FIGURES = {
  at: TIME,
  instance: STRING,
  seconds: ms('length of the interval'),
  requests: count(),
  rps: decimal(),
  errors: count('answers with a 5xx status'),
  errorRate: decimal(),
  p50: ms(),
  p95: ms(),
  p99: ms(),
  heapMb: decimal(),
  rssMb: decimal(),
  loopLagMs: ms(),
  dbQueries: count(),
  dbMs: ms(),
  dbAvgMs: ms(),
  rejections: count(),
  rejectionsByRule: dictionary(count()),
  activeSessions: count('live sessions of every tenant (absent in samples of older versions)'),
  poolInUse: count(),
  poolWaiting: count(),
  poolMax: count(),
};
const METRIC_SAMPLE = object(SAMPLE_FIGURES, [
  'at',
  'instance',
  'seconds',
  'requests',
  'rps',
  'errors',
  'errorRate',
  'p50',
  'p95',
  'p99',
  'heapMb',
  'rssMb',
  'loopLagMs',
  'dbQueries',
  'dbMs',
  'dbAvgMs',
  'rejections',
  'rejectionsByRule',
]);
const ROUTE_STAT = object(
  {
    route: STRING,
    method: STRING,
    count: count(),
    errors: count('answers with a 4xx or 5xx status'),
    avgMs: ms(),
    p50: ms(),
    p95: ms(),
    p99: ms(),
    maxMs: ms(),
  },
  ['route', 'method', 'count', 'errors', 'avgMs', 'p50', 'p95', 'p99', 'maxMs'],
);
const SLOW_STATEMENT = object(
  {
    sql: STRING,
    parameters: { type: 'string', description: '$1=?, $2=?: values are never kept' },
    count: count(),
    maxMs: ms(),
    avgMs: ms(),
    lastAt: TIME,
    instance: { type: 'string', description: 'the process that timed it' },
  },
  ['sql', 'parameters', 'count', 'maxMs', 'avgMs', 'lastAt'],
);
/** Rows of a catalogue view: their columns are the view's, listed in the description. */
const catalogueRows = (columns: string) =>
  arrayOf(dictionary(anyJson(), { description: `columns ${columns}` }));

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
  const api = typed(app);

  /**
   * Prometheus text for a scraper: the METRICS_TOKEN as bearer token, or the signed-in platform
   * administrator (the whole platform's figures). Public to the auth hook so that the scraper's token is not taken for a session.
   */
  api.get(
    '/api/metrics',
    {
      config: { isPublic: true },
      schema: {
        tags,
        summary: 'Prometheus metrics of this process (text exposition format)',
        description: 'Bearer METRICS_TOKEN, or the signed-in platform administrator.',
        produces: 'text/plain',
        response: { 200: { type: 'string' } },
      },
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
        // The whole platform's figures: a signed-in caller must be the platform administrator.
        assertPlatformRoute({ ctx, auth, isPlatformOnly: true });
      }
      if (!app.monitor) throw new AppError('notFound');
      reply.header('content-type', app.monitor.registry.contentType);
      return app.monitor.registry.metrics();
    },
  );

  api.get(
    `${BASE}/metrics/samples`,
    {
      config: PLATFORM_ONLY,
      schema: {
        tags,
        summary:
          'Recent metric samples of every server process, the routes of every live process, and the current interval of this one',
        querystring: object({ minutes: integer(1, 1440, { description: 'default 15' }) }),
        response: answer(
          object(
            {
              instance: { type: 'string', description: 'the answering process' },
              instances: arrayOf(
                object({ instance: STRING, samples: arrayOf(METRIC_SAMPLE) }, ['instance', 'samples']),
              ),
              current: object(SAMPLE_FIGURES, [], {
                description: "this process's current interval so far; {} when monitoring is off",
              }),
              routes: { ...arrayOf(ROUTE_STAT), description: "this process's routes" },
              instanceRoutes: arrayOf(
                object({ instance: STRING, at: TIME, routes: arrayOf(ROUTE_STAT) }, [
                  'instance',
                  'at',
                  'routes',
                ]),
              ),
            },
            ['instance', 'instances', 'current', 'routes', 'instanceRoutes'],
          ),
        ),
      },
    },
    async (request) => {
      const minutes = request.query.minutes ?? 15;
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
      const samples: MetricSamples = {
        instance: monitor?.instance ?? '',
        instances: [...byInstance.entries()].map(([instance, list]) => ({ instance, samples: list })),
        current: monitor?.peekSample() ?? {},
        routes: monitor?.routes() ?? [],
        instanceRoutes: (await liveInstances(ctx.db, monitor)).map(({ instance, at, routes }) => ({
          instance,
          at,
          routes,
        })),
      };
      return ok(samples);
    },
  );

  api.get(
    `${BASE}/database`,
    {
      config: PLATFORM_ONLY,
      schema: {
        tags,
        summary: 'Database activity, sizes, index use, locks and slow statements',
        response: answer(
          object(
            {
              // Named in words: the API document names no database engine (it answers anyone).
              kind: {
                type: 'string',
                description:
                  'the embedded database, or a database server (activity, index use and locks are its only)',
              },
              tables: catalogueRows('table, estimatedRows, liveRows, bytes'),
              activity: catalogueRows(
                'pid, user, application, client, state, waitEventType, waitEvent, runningMs, query (a database server only)',
              ),
              indexUse: catalogueRows('table, seqScans, indexScans, liveRows (a database server only)'),
              locks: catalogueRows('pid, lockType, mode, granted, relation (a database server only)'),
              statements: {
                ...nullable(catalogueRows('query, calls, totalMs, meanMs, rows')),
                description: "pg_stat_statements' slowest; null without the extension",
              },
              slowStatements: arrayOf(SLOW_STATEMENT),
              slowThresholdMs: ms('a param: whole milliseconds unless edited by hand'),
              pool: nullable(
                object(
                  { total: count(), idle: count(), waiting: count(), max: count() },
                  ['total', 'idle', 'waiting', 'max'],
                  { description: 'the connection pool of a database server; null on the embedded database' },
                ),
              ),
            },
            [
              'kind',
              'tables',
              'activity',
              'indexUse',
              'locks',
              'statements',
              'slowStatements',
              'slowThresholdMs',
              'pool',
            ],
          ),
        ),
      },
    },
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

  api.get(
    `${BASE}/flowcontrol/rules`,
    {
      config: PLATFORM_ONLY,
      schema: {
        tags,
        summary: 'Rate-limit rules with limits, rejections and rejections per minute',
        response: answer(
          arrayOf(
            object(
              {
                name: STRING,
                param: STRING,
                unit: { type: 'string', description: 'perMinute, failures, perDay or seconds' },
                routes: arrayOf(STRING, { description: 'the calls the rule guards' }),
                limit: count(),
                source: oneOf(['param', 'environment']),
                rejections: count('refusals by this process since it started'),
                rejectionsPerMinute: count('refusals of every process in the last minute'),
              },
              ['name', 'param', 'unit', 'routes', 'limit', 'source', 'rejections', 'rejectionsPerMinute'],
            ),
          ),
        ),
      },
    },
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
      const rules = await Promise.all(
        RATE_LIMIT_RULES.map(async (rule): Promise<RateLimitRule> => {
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
      );
      return ok(rules);
    },
  );

  api.get(
    `${BASE}/flowcontrol/counters`,
    {
      schema: {
        tags,
        summary:
          'Live rate-limit counters of every process: per client address, and failed sign-ins per user',
        response: answer(
          arrayOf(
            object(
              {
                rule: STRING,
                scope: {
                  type: 'string',
                  description: 'the route (or route group) for addresses, the tenant for users and mobiles',
                },
                key: {
                  type: 'string',
                  description: "the client's address, the user name, or the masked mobile",
                },
                hits: count(),
                ttlMs: count(),
                lockedMs: count(),
              },
              ['rule', 'scope', 'key', 'hits', 'ttlMs', 'lockedMs'],
            ),
          ),
        ),
      },
    },
    async (request) => ok(await flowCounters(ctx, tenantScope(request))),
  );

  api.put(
    `${BASE}/flowcontrol/rule`,
    {
      config: PLATFORM_ONLY,
      schema: {
        tags,
        summary:
          "Sets a rate-limit rule's limit (a param: every process applies it on its next request); null goes back to the default",
        body: object(
          {
            name: oneOf(RATE_LIMIT_RULES.map((rule) => rule.name)),
            limit: nullable(integer(1, 1_000_000)),
          },
          ['name', 'limit'],
          { additionalProperties: false },
        ),
        response: answer(object({ name: STRING, limit: count() }, ['name', 'limit'])),
      },
    },
    async (request) => {
      const { name, limit } = request.body;
      const rule = RATE_LIMIT_RULES.find((candidate) => candidate.name === name);
      if (!rule) throw new AppError('validation', {}, [{ field: '/name', message: 'unknown rule' }]);
      // An empty param is no param: the limit is the environment's (or its default) again.
      await setParam({
        ctx,
        actor: actorOf(request),
        key: rule.param,
        value: limit === null ? '' : String(limit),
        name: paramName(rule.param),
      });
      return ok({ name, limit: await ruleLimit(ctx, rule.name) });
    },
  );

  api.get(
    `${BASE}/config`,
    {
      config: PLATFORM_ONLY,
      schema: {
        tags,
        summary:
          'Effective configuration (secrets masked), monitoring settings, and the name each known param is stored under',
        response: answer(
          object(
            {
              paramNames: dictionary(STRING, {
                description: 'param key: the name it is stored under while nobody renamed it',
              }),
              entries: arrayOf(
                object(
                  {
                    name: STRING,
                    value: { type: 'string', description: 'secrets masked' },
                    source: oneOf(['environment', 'default']),
                    isSecret: bool(),
                  },
                  ['name', 'value', 'source', 'isSecret'],
                ),
              ),
              settings: arrayOf(
                object(
                  {
                    name: STRING,
                    param: STRING,
                    value: decimal({ description: 'the param, or its default when unset' }),
                    source: oneOf(['param', 'default']),
                    max: count(),
                  },
                  ['name', 'param', 'value', 'source', 'max'],
                ),
              ),
              instance: STRING,
              isMonitoringEnabled: bool(),
            },
            ['paramNames', 'entries', 'settings', 'instance', 'isMonitoringEnabled'],
          ),
        ),
      },
    },
    async (request) => {
      const keys = Object.values(MONITOR_PARAMS).map((setting) => setting.param);
      const params = await readParams(ctx, keys);
      return ok({
        paramNames: await knownParamNames({
          ctx,
          tenantCode: requireAuth(request).tenantCode,
          zhName: (key) => app.i18n.text('zh', paramNameKey(key)),
        }),
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

  api.put(
    `${BASE}/settings`,
    {
      config: PLATFORM_ONLY,
      schema: {
        tags,
        summary: 'Sets a monitoring setting (log retention in days, slow-statement threshold in ms)',
        body: object({ name: oneOf(MONITOR_SETTING_NAMES), value: integer(1, 600_000) }, ['name', 'value'], {
          additionalProperties: false,
        }),
        response: answer(object({ name: STRING, value: count() }, ['name', 'value'])),
      },
    },
    async (request) => {
      const { name, value } = request.body;
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

  api.get(
    `${BASE}/logs/query`,
    {
      schema: {
        tags,
        summary:
          'Request logs, newest first: time range, level, text, request id, user, status; afterId for a live tail',
        querystring: object({
          from: ISO_TIME,
          to: ISO_TIME,
          level: oneOf(LOG_LEVELS),
          text: text(200),
          requestId: text(64),
          username: text(64),
          status: integer(100, 599),
          afterId: integer(0),
          limit: integer(1, 1000, { description: 'default 200' }),
        }),
        response: answer(
          arrayOf(
            object(
              {
                id: count(),
                at: TIME,
                level: oneOf(LOG_LEVELS),
                instance: STRING,
                requestId: STRING,
                tenantCode: NULLABLE_STRING,
                userId: { type: ['integer', 'null'] },
                username: NULLABLE_STRING,
                method: STRING,
                route: { ...NULLABLE_STRING, description: 'the route pattern; null when no route matched' },
                path: STRING,
                status: count(),
                durationMs: count(),
                message: { ...NULLABLE_STRING, description: "the error's text when the request failed" },
              },
              [
                'id',
                'at',
                'level',
                'instance',
                'requestId',
                'tenantCode',
                'userId',
                'username',
                'method',
                'route',
                'path',
                'status',
                'durationMs',
                'message',
              ],
            ),
          ),
        ),
      },
    },
    async (request) => {
      const { limit = 200, ...filters } = request.query;
      await app.requestLog?.flush();
      const tenantCode = tenantScope(request);
      return ok(await searchLogs(ctx, { ...filters, ...(tenantCode ? { tenantCode } : {}), limit }));
    },
  );

  api.post(
    `${BASE}/logs/prune`,
    {
      config: PLATFORM_ONLY,
      schema: {
        tags,
        summary: 'Deletes request logs older than the retention param now (also done every 10 minutes)',
        response: answer(
          object({ logs: count('log rows deleted'), samples: count('metric samples deleted') }, [
            'logs',
            'samples',
          ]),
        ),
      },
    },
    async () => {
      await app.requestLog?.flush();
      return ok(await pruneMonitorRows({ ctx }));
    },
  );

  api.get(
    `${BASE}/audit/query`,
    {
      schema: {
        tags,
        summary: "Audit trail of the caller's tenant with each change's fields before and after",
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
        response: answer(
          object(
            {
              records: arrayOf(
                object(
                  {
                    id: count(),
                    entity: STRING,
                    recordKey: STRING,
                    action: STRING,
                    userId: { type: ['integer', 'null'] },
                    username: NULLABLE_STRING,
                    at: TIME,
                    changes: arrayOf(
                      object(
                        {
                          field: STRING,
                          before: anyJson({
                            description: 'the value before (any JSON value, null when none)',
                          }),
                          after: anyJson({ description: 'the value after (any JSON value, null when none)' }),
                        },
                        ['field', 'before', 'after'],
                      ),
                    ),
                  },
                  ['id', 'entity', 'recordKey', 'action', 'userId', 'username', 'at', 'changes'],
                ),
              ),
              total: count(),
              currentPage: integer(),
              pageSize: integer(),
            },
            ['records', 'total', 'currentPage', 'pageSize'],
          ),
        ),
      },
    },
    async (request) => {
      const { query } = request;
      const auth = requireAuth(request);
      // Empty texts are no filters.
      const pick = <N extends 'entity' | 'recordKey' | 'username' | 'action' | 'from' | 'to'>(name: N) =>
        query[name] ? { [name]: query[name] } : {};
      return ok(
        await queryAudit(ctx, {
          tenantCode: auth.tenantCode,
          ...pick('entity'),
          ...pick('recordKey'),
          ...pick('username'),
          ...pick('action'),
          ...pick('from'),
          ...pick('to'),
          currentPage: query.currentPage ?? 1,
          pageSize: query.pageSize ?? 20,
        }),
      );
    },
  );
}
