/** Answers of the monitor/* endpoints (src/server/features/monitor/routes.ts), as the pages read them. */

import type { MetricSample } from '../../../engine/api-types.js';

export type { MetricSample };

export const MONITOR_API = '/api/monitor';

export interface RouteStat {
  route: string;
  method: string;
  count: number;
  errors: number;
  avgMs: number;
  p50: number;
  p95: number;
  p99: number;
  maxMs: number;
}

export interface SamplesAnswer {
  instance: string;
  instances: { instance: string; samples: MetricSample[] }[];
  current: MetricSample;
  /** This process's routes. */
  routes: RouteStat[];
  /** Every live process's routes (each process publishes its own with its samples). */
  instanceRoutes: { instance: string; at: string; routes: RouteStat[] }[];
}

export interface RuleRow {
  name: string;
  param: string;
  unit: string;
  routes: string[];
  limit: number;
  source: 'param' | 'environment';
  rejections: number;
  rejectionsPerMinute: number;
}

/** A live counter of a rule (GET flowcontrol/counters). */
export interface CounterRow {
  rule: string;
  scope: string;
  key: string;
  hits: number;
  ttlMs: number;
  lockedMs: number;
}

export interface LogRow {
  id: number;
  at: string;
  level: 'info' | 'warn' | 'error';
  instance: string;
  requestId: string;
  tenantCode: string | null;
  username: string | null;
  method: string;
  route: string | null;
  path: string;
  status: number;
  durationMs: number;
  /** The error's text when the request failed. */
  message: string | null;
}

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface AuditRow {
  id: number;
  entity: string;
  recordKey: string;
  action: string;
  username: string | null;
  at: string;
  changes: FieldChange[];
}

export interface AuditPage {
  records: AuditRow[];
  total: number;
  currentPage: number;
  pageSize: number;
}

/** A value of a diff as a person reads it. */
export function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export function bytes(value: number): string {
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KB`;
  return `${(value / 1024 / 1024).toFixed(1)} MB`;
}
