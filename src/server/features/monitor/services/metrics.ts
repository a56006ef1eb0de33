import { hostname } from 'node:os';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../../../lib/db/database.js';
import type { MetricSample, RouteStat, SlowStatement } from '../../../../engine/api-types.js';

/**
 * The process's metrics: prom-client counters and histograms for a Prometheus scraper
 * (GET /api/metrics), and a small summary of every interval (a sample) for the built-in
 * dashboard, so that it works with no Prometheus server. The request path only bumps counters
 * and writes one number into preallocated arrays; everything else happens when a sample is
 * taken or a scraper asks.
 */

/** Durations kept per route for its percentiles (the most recent ones). */
const ROUTE_WINDOW = 512;
/** Durations kept per interval for the interval's percentiles. */
const INTERVAL_CAP = 20_000;
/** Distinct slow statements kept (the fastest of them goes when a new one comes). */
const SLOW_CAP = 100;

export type { RouteStat, SlowStatement };

interface RouteAccumulator {
  route: string;
  method: string;
  count: number;
  errors: number;
  totalMs: number;
  maxMs: number;
  recent: Float64Array;
}

export interface RequestDone {
  route: string;
  method: string;
  status: number;
  ms: number;
}

export interface ProcessMetrics {
  readonly registry: Registry;
  readonly instance: string;
  requestDone(done: RequestDone): void;
  errorRaised(code: string): void;
  queryDone(event: { sql: string; parameterCount: number; ms: number }): void;
  rateLimited(rule: string): void;
  uploaded(): void;
  workflowAction(action: string): void;
  /** Statements slower than this are remembered (a param; features/monitor/services/settings.ts). */
  setSlowThreshold(ms: number): void;
  /** Counts the live sessions now (a query), for the samples that follow. */
  refreshActiveSessions(): Promise<void>;
  /** Ends the current interval and sums it up. */
  takeSample(): MetricSample;
  /** The current interval so far, without ending it. */
  peekSample(): MetricSample;
  routes(): RouteStat[];
  slowStatements(): SlowStatement[];
  rejections(): Record<string, number>;
  poolStats(): PoolStats | undefined;
  stop(): void;
}

function percentile(values: Float64Array, length: number, fraction: number): number {
  if (length === 0) return 0;
  const sorted = values.slice(0, length).sort();
  const index = Math.min(length - 1, Math.max(0, Math.ceil(fraction * length) - 1));
  return round(sorted[index] ?? 0);
}

const round = (value: number): number => Math.round(value * 100) / 100;

export interface MetricsSources {
  poolStats: () => PoolStats | undefined;
  activeSessions: () => Promise<number>;
}

export function createProcessMetrics(sources: MetricsSources): ProcessMetrics {
  const instance = `${hostname()}:${process.pid}`;
  const registry = new Registry();
  registry.setDefaultLabels({ instance });
  collectDefaultMetrics({ register: registry });
  const labels = ['route', 'method', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: labels,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP answer time, by route pattern, method and status',
    labelNames: labels,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'app_errors_total',
    help: 'Errors answered, by error code of the catalogue',
    labelNames: ['code'],
    registers: [registry],
  });
  const dbTime = new Histogram({
    name: 'db_query_duration_seconds',
    help: 'Time of the statements the app ran',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [registry],
  });
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state (PostgreSQL)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pool = sources.poolStats();
      if (!pool) return;
      this.set({ state: 'total' }, pool.total);
      this.set({ state: 'idle' }, pool.idle);
      this.set({ state: 'waiting' }, pool.waiting);
      this.set({ state: 'max' }, pool.max);
    },
  });
  const rejected = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused by a rate-limit rule',
    labelNames: ['rule'],
    registers: [registry],
  });
  new Gauge({
    name: 'active_sessions',
    help: 'Live sessions (not expired, not revoked) of every tenant',
    registers: [registry],
    async collect() {
      this.set(await sources.activeSessions());
    },
  });
  const uploads = new Counter({ name: 'file_uploads_total', help: 'Files uploaded', registers: [registry] });
  const workflow = new Counter({
    name: 'workflow_actions_total',
    help: 'Workflow calls that changed state, by action',
    labelNames: ['action'],
    registers: [registry],
  });

  const loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  const routeStats = new Map<string, RouteAccumulator>();
  /** Bounded like the series themselves: route patterns, methods and statuses. */
  const seriesLabels = new Map<string, Record<(typeof labels)[number], string>>();
  const durations = new Float64Array(INTERVAL_CAP);
  const slow = new Map<
    string,
    { parameterCount: number; count: number; maxMs: number; totalMs: number; lastAt: number }
  >();
  const rejectionTotals: Record<string, number> = {};
  let slowThreshold = 200;
  let activeSessions = 0;
  let started = Date.now();
  let count = 0;
  let failed = 0;
  let dbQueries = 0;
  let dbMs = 0;
  let rejections = 0;
  let byRule: Record<string, number> = {};

  function summary(): MetricSample {
    const seconds = Math.max(0.001, (Date.now() - started) / 1000);
    const kept = Math.min(count, INTERVAL_CAP);
    const memory = process.memoryUsage();
    const pool = sources.poolStats();
    return {
      at: new Date().toISOString(),
      instance,
      seconds: round(seconds),
      requests: count,
      rps: round(count / seconds),
      errors: failed,
      errorRate: count === 0 ? 0 : round(failed / count),
      p50: percentile(durations, kept, 0.5),
      p95: percentile(durations, kept, 0.95),
      p99: percentile(durations, kept, 0.99),
      heapMb: round(memory.heapUsed / 1048576),
      rssMb: round(memory.rss / 1048576),
      loopLagMs: Number.isNaN(loop.mean) ? 0 : round(loop.percentile(99) / 1e6),
      dbQueries,
      dbMs: round(dbMs),
      dbAvgMs: dbQueries === 0 ? 0 : round(dbMs / dbQueries),
      rejections,
      rejectionsByRule: { ...byRule },
      activeSessions,
      // The embedded database is one connection, held only while a statement runs.
      poolInUse: pool ? pool.total - pool.idle : 0,
      poolWaiting: pool?.waiting ?? 0,
      poolMax: pool?.max ?? 1,
    };
  }

  return {
    registry,
    instance,
    requestDone({ route, method, status, ms }) {
      // One label object per series, made once: labels(…) would build it and two closures per call.
      const seriesKey = `${status} ${method} ${route}`;
      let series = seriesLabels.get(seriesKey);
      if (!series) {
        series = { route, method, status: String(status) };
        seriesLabels.set(seriesKey, series);
      }
      requests.inc(series);
      latency.observe(series, ms / 1000);
      if (count < INTERVAL_CAP) durations[count] = ms;
      count += 1;
      const isError = status >= 500;
      if (isError) failed += 1;
      const key = `${method} ${route}`;
      let stat = routeStats.get(key);
      if (!stat) {
        stat = {
          route,
          method,
          count: 0,
          errors: 0,
          totalMs: 0,
          maxMs: 0,
          recent: new Float64Array(ROUTE_WINDOW),
        };
        routeStats.set(key, stat);
      }
      stat.recent[stat.count % ROUTE_WINDOW] = ms;
      stat.count += 1;
      stat.totalMs += ms;
      if (ms > stat.maxMs) stat.maxMs = ms;
      if (status >= 400) stat.errors += 1;
    },
    errorRaised(code) {
      errors.labels(code).inc();
    },
    queryDone({ sql, parameterCount, ms }) {
      dbQueries += 1;
      dbMs += ms;
      dbTime.observe(ms / 1000);
      if (ms < slowThreshold) return;
      const known = slow.get(sql);
      if (known) {
        known.count += 1;
        known.totalMs += ms;
        known.lastAt = Date.now();
        if (ms > known.maxMs) known.maxMs = ms;
        return;
      }
      if (slow.size >= SLOW_CAP) {
        let fastest: string | undefined;
        let fastestMs = Infinity;
        for (const [text, entry] of slow) {
          if (entry.maxMs < fastestMs) {
            fastest = text;
            fastestMs = entry.maxMs;
          }
        }
        if (fastest === undefined || fastestMs >= ms) return;
        slow.delete(fastest);
      }
      slow.set(sql, { parameterCount, count: 1, maxMs: ms, totalMs: ms, lastAt: Date.now() });
    },
    rateLimited(rule) {
      rejected.labels(rule).inc();
      rejections += 1;
      byRule[rule] = (byRule[rule] ?? 0) + 1;
      rejectionTotals[rule] = (rejectionTotals[rule] ?? 0) + 1;
    },
    uploaded() {
      uploads.inc();
    },
    workflowAction(action) {
      workflow.labels(action).inc();
    },
    setSlowThreshold(ms) {
      slowThreshold = ms;
    },
    async refreshActiveSessions() {
      activeSessions = await sources.activeSessions();
    },
    takeSample() {
      const sample = summary();
      started = Date.now();
      count = 0;
      failed = 0;
      dbQueries = 0;
      dbMs = 0;
      rejections = 0;
      byRule = {};
      loop.reset();
      return sample;
    },
    peekSample: summary,
    routes() {
      return [...routeStats.values()].map((stat) => {
        const kept = Math.min(stat.count, ROUTE_WINDOW);
        return {
          route: stat.route,
          method: stat.method,
          count: stat.count,
          errors: stat.errors,
          avgMs: round(stat.totalMs / Math.max(1, stat.count)),
          p50: percentile(stat.recent, kept, 0.5),
          p95: percentile(stat.recent, kept, 0.95),
          p99: percentile(stat.recent, kept, 0.99),
          maxMs: round(stat.maxMs),
        };
      });
    },
    slowStatements() {
      return [...slow.entries()]
        .map(([sql, entry]) => ({
          sql,
          parameters: Array.from({ length: entry.parameterCount }, (_, i) => `$${i + 1}=?`).join(', '),
          count: entry.count,
          maxMs: round(entry.maxMs),
          avgMs: round(entry.totalMs / entry.count),
          lastAt: new Date(entry.lastAt).toISOString(),
        }))
        .sort((a, b) => b.maxMs - a.maxMs);
    },
    rejections: () => ({ ...rejectionTotals }),
    poolStats: sources.poolStats,
    stop() {
      loop.disable();
      registry.clear();
    },
  };
}
