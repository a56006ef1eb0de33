/** Answers of the monitor/* endpoints (src/server/features/monitor/routes.ts), as the pages read them. */

import type {
  AuditEntry,
  FieldChange,
  FlowCounter,
  MetricSample,
  MetricSamples,
  Page,
  RateLimitRule,
  RequestLogEntry,
  RouteStat,
} from '../../../engine/api-types.js';

export type {
  AuditEntry,
  FieldChange,
  FlowCounter,
  MetricSample,
  MetricSamples,
  RateLimitRule,
  RequestLogEntry,
  RouteStat,
};

export const MONITOR_API = '/api/monitor';

/** GET audit/query. */
export type AuditPage = Page<AuditEntry>;

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
