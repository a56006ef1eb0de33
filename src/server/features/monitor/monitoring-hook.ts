import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../lib/db/database.js';
import { AppError, catalogueErrorOf, errorBody } from '../../lib/errors.js';
import { createProcessMetrics, type ProcessMetrics } from './services/metrics.js';
import { forgetInstance, publishInstance, pruneInstances } from './services/instances.js';
import { pruneMonitorRows, requestLogWriter } from './services/request-log.js';
import { MONITOR_PARAMS, numberParam } from './services/settings.js';

const SAMPLE_MS = 5_000;
const FLUSH_MS = 1_000;
const PRUNE_MS = 10 * 60_000;

/** Route label of requests no route matched: one label, whatever the path (bounded cardinality). */
const UNMATCHED = '(unmatched)';

export interface MonitoringOptions {
  database: Pick<DatabaseHandle, 'observeQueries' | 'poolStats'>;
}

/** Route label of the front-ends' files: one label, not one per built asset. */
const STATIC = '(static)';

/** Route pattern of an answered request, for labels and logs. */
function routeOf(request: FastifyRequest): string {
  if (request.is404) return UNMATCHED;
  const route = request.routeOptions.url ?? UNMATCHED;
  return route.startsWith('/api/') ? route : STATIC;
}

function levelOf(status: number): 'info' | 'warn' | 'error' {
  if (status >= 500) return 'error';
  return status >= 400 ? 'warn' : 'info';
}

/** Longest message kept in a log row. */
const MAX_MESSAGE = 2000;

/**
 * The text of an error for the log's message column: what the caller was told (in the request's
 * language) with the fields named; for an error the catalogue does not know, the error's own
 * text as well, which only the log search shows (the caller got "internal error").
 */
function errorText(error: Error, request: FastifyRequest): string {
  const known = catalogueErrorOf(error, request);
  if (!known) return `${error.name}: ${error.message}`.slice(0, MAX_MESSAGE);
  const body = errorBody(known, request);
  const fields = (body.errors ?? []).map((item) => `${item.field} ${item.message}`);
  return [body.message, ...fields].join('; ').slice(0, MAX_MESSAGE);
}

/** Counts the calls that exist only as routes: uploads and workflow changes. */
function countFeature(metrics: ProcessMetrics, method: string, route: string, status: number): void {
  if (method !== 'POST' && method !== 'PUT') return;
  if (status >= 400) return;
  if (route.startsWith('/api/file/file/upload') || route.startsWith('/api/file/netdisc/upload'))
    metrics.uploaded();
  else if (route.startsWith('/api/activiti/')) metrics.workflowAction(route.slice('/api/activiti/'.length));
}

/**
 * Metrics, request logs and query timing for every request (MONITORING=off leaves only the
 * X-Request-Id header). The per-request work is a few counter bumps and one object pushed to the
 * log batch; the database sees one insert per batch, not per request.
 */
async function monitoringPlugin(app: FastifyInstance, { database }: MonitoringOptions): Promise<void> {
  const { ctx } = app;
  // Hooks of every request are synchronous: an async one costs a promise and a turn of the
  // microtask queue per request, for work that never waits.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  if (!ctx.config.monitoring.isEnabled) {
    app.decorate('monitor', undefined);
    app.decorate('requestLog', undefined);
    return;
  }
  const metrics = createProcessMetrics({
    poolStats: database.poolStats,
    activeSessions: async () => {
      const found = await sql<{ n: number }>`select count(*)::int as n from sys_session
        where revoked_at is null and expires_at > now()`.execute(ctx.db);
      return found.rows[0]?.n ?? 0;
    },
  });
  const log = requestLogWriter(ctx.db);
  app.decorate('monitor', metrics);
  app.decorate('requestLog', log);
  database.observeQueries(metrics.queryDone);

  const messages = new WeakMap<FastifyRequest, string>();
  /** Metrics, the log line and the log row of an answered request. */
  const recordRequest = (request: FastifyRequest, reply: FastifyReply): void => {
    const ms = reply.elapsedTime;
    const status = reply.statusCode;
    const route = routeOf(request);
    metrics.requestDone({ route, method: request.method, status, ms });
    countFeature(metrics, request.method, route, status);
    if (!request.url.startsWith('/api/')) return;
    const auth = request.auth;
    const level = levelOf(status);
    const queryAt = request.url.indexOf('?');
    const path = queryAt < 0 ? request.url : request.url.slice(0, queryAt);
    const durationMs = Math.round(ms);
    const message = messages.get(request) ?? null;
    request.log[level](
      {
        user: auth?.username,
        tenant: auth?.tenantCode,
        route,
        method: request.method,
        path,
        status,
        durationMs,
        ...(message === null ? {} : { error: message }),
      },
      'request',
    );
    log.push({
      at: new Date(),
      level,
      instance: metrics.instance,
      requestId: request.id,
      tenantCode: auth?.tenantCode ?? null,
      userId: auth?.userId ?? null,
      username: auth?.username ?? null,
      method: request.method,
      route: route === UNMATCHED ? null : route,
      path: path.slice(0, 2000),
      status,
      durationMs,
      message,
    });
  };

  app.addHook('onError', (request, _reply, error, done) => {
    metrics.errorRaised(error instanceof AppError ? error.code : String(error.statusCode ?? 500));
    messages.set(request, errorText(error, request));
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    recordRequest(request, reply);
    done();
  });

  const storeSample = async (): Promise<void> => {
    await metrics.refreshActiveSessions();
    const sample = metrics.takeSample();
    const { param, fallback } = MONITOR_PARAMS.slowQueryMs;
    metrics.setSlowThreshold(await numberParam({ ctx, key: param, fallback }));
    await sql`insert into sys_metric_sample (instance, data) values (${metrics.instance}, ${JSON.stringify(sample)}::jsonb)`.execute(
      ctx.db,
    );
    // The other processes' pages show this one's routes and slow statements from this row.
    await publishInstance(ctx.db, metrics);
  };
  const quietly = (work: () => Promise<unknown>) => () => {
    work().catch((error: unknown) => app.log.warn({ err: error }, 'monitoring task failed'));
  };
  const timers = [
    setInterval(quietly(storeSample), SAMPLE_MS),
    setInterval(quietly(log.flush), FLUSH_MS),
    setInterval(
      quietly(async () => {
        await pruneMonitorRows({ ctx });
        await pruneInstances(ctx.db);
      }),
      PRUNE_MS,
    ),
  ];
  for (const timer of timers) timer.unref();
  // The dashboard's live point has a session count before the first sample is stored.
  quietly(() => metrics.refreshActiveSessions())();
  // Listed on the other processes' pages from the start, not only after the first sample.
  quietly(() => publishInstance(ctx.db, metrics))();
  // Before the database closes (buildApp's onClose), so the last batch is written.
  app.addHook('preClose', async () => {
    for (const timer of timers) clearInterval(timer);
    database.observeQueries(undefined);
    await log.flush();
    await forgetInstance(ctx.db, metrics.instance).catch((error: unknown) =>
      app.log.warn({ err: error }, 'monitoring row of this process not removed'),
    );
    metrics.stop();
  });
}

export const monitoring = fp(monitoringPlugin, { name: 'monitoring', dependencies: ['errors'] });
