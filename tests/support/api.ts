import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { EntityDef } from '../../src/engine/index.js';
import type { EntityRegistry } from '../../src/server/lib/registry.js';
import type { TestApp } from './app.js';

/** What the generated API answers: the envelope of DESIGN.md's HTTP contract. */
export type Row = Record<string, unknown>;
export interface FieldErrorBody {
  field: string;
  message: string;
}
export interface ErrorBody {
  code: number;
  message: string;
  errors?: FieldErrorBody[];
}
export interface Page {
  records: Row[];
  total: number;
  currentPage: number;
  pageSize: number;
}

export function body<T = unknown>(response: LightMyRequestResponse): T {
  return response.json<T>();
}

export function data<T = Row>(response: LightMyRequestResponse): T {
  return response.json<{ data: T }>().data;
}

/** The JSON pointers an error answer names. */
export function errorFields(response: LightMyRequestResponse): string[] {
  return (response.json<ErrorBody>().errors ?? []).map((error) => error.field);
}

/** A readable description of an unexpected answer, for assertion messages. */
export function describeResponse(options: InjectOptions, response: LightMyRequestResponse): string {
  const url = typeof options.url === 'string' ? options.url : JSON.stringify(options.url);
  return `${options.method ?? 'GET'} ${url.slice(0, 200)} → ${response.statusCode} ${response.body.slice(0, 400)}`;
}

/** The names of every secret field of every entity (password, clientSecret, …). */
export function secretFieldNames(registry: EntityRegistry): Set<string> {
  return new Set(
    registry.all.flatMap((entity) =>
      entity.fields.filter((field) => field.isSecret).map((field) => field.name),
    ),
  );
}

/** Walks a JSON value and returns the paths of keys that name a secret field. */
export function secretKeysIn(value: unknown, secrets: Set<string>, path = ''): string[] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => secretKeysIn(item, secrets, `${path}/${index}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => [
    ...(secrets.has(key) ? [`${path}/${key}`] : []),
    ...secretKeysIn(item, secrets, `${path}/${key}`),
  ]);
}

/**
 * The API as a client sees it: every call carries the admin's bearer token, and every JSON
 * answer is checked for secret fields, whatever the test is about.
 */
export class Api {
  readonly secrets: Set<string>;
  constructor(
    readonly t: TestApp,
    readonly headers: Record<string, string> = {},
  ) {
    this.secrets = secretFieldNames(t.app.ctx.registry);
  }

  async call(options: InjectOptions): Promise<LightMyRequestResponse> {
    const response = await this.t.request({
      ...options,
      headers: { ...this.t.auth, ...this.headers, ...(options.headers ?? {}) },
    });
    expect(response.statusCode, describeResponse(options, response)).toBeLessThan(500);
    if (String(response.headers['content-type'] ?? '').startsWith('application/json')) {
      expect(
        secretKeysIn(response.json(), this.secrets),
        `secret fields in ${describeResponse(options, response)}`,
      ).toEqual([]);
    }
    return response;
  }

  get(url: string, query?: Record<string, string | string[]>): Promise<LightMyRequestResponse> {
    return this.call({ method: 'GET', url: withQuery(url, query) });
  }

  post(
    url: string,
    payload?: unknown,
    query?: Record<string, string | string[]>,
  ): Promise<LightMyRequestResponse> {
    return this.call(
      payload === undefined
        ? { method: 'POST', url: withQuery(url, query) }
        : { method: 'POST', url: withQuery(url, query), payload: payload as InjectOptions['payload'] },
    );
  }

  put(url: string, payload: unknown): Promise<LightMyRequestResponse> {
    return this.call({ method: 'PUT', url, payload: payload as InjectOptions['payload'] });
  }

  // The generated CRUD of one entity.
  query(entity: EntityDef, query: Record<string, string | string[]> = {}): Promise<LightMyRequestResponse> {
    return this.get(`/api/${entity.api}/query`, query);
  }
  add(entity: EntityDef, record: unknown): Promise<LightMyRequestResponse> {
    return this.post(`/api/${entity.api}/add`, record);
  }
  update(entity: EntityDef, record: unknown): Promise<LightMyRequestResponse> {
    return this.put(`/api/${entity.api}/update`, record);
  }
  /** POST …/delete?<key>=a&<key>=b (regions: ?regionCode=…). */
  remove(entity: EntityDef, keys: unknown[]): Promise<LightMyRequestResponse> {
    return this.post(`/api/${entity.api}/delete`, undefined, { [entity.key.name]: keys.map(String) });
  }
  export(
    entity: EntityDef,
    filters: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    return this.call({
      method: 'POST',
      url: `/api/${entity.api}/export`,
      payload: filters as InjectOptions['payload'],
      headers,
    });
  }

  /** All records of a query (one page of up to 10 000). */
  async records(entity: EntityDef, query: Record<string, string | string[]> = {}): Promise<Row[]> {
    const response = await this.query(entity, { pageSize: '10000', ...query });
    expect(response.statusCode, response.body).toBe(200);
    return data<Page>(response).records;
  }
}

export function withQuery(url: string, query?: Record<string, string | string[]>): string {
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, item);
  }
  const text = params.toString();
  return text ? `${url}?${text}` : url;
}

/** Row counts of every entity table and of the audit log: what a refused request must leave alone. */
export async function tableCounts(t: TestApp): Promise<Record<string, number>> {
  const tables = [...t.app.ctx.registry.all.map((entity) => entity.table), 'sys_audit_log', 'sys_role_user'];
  const parts = tables.map((table) => `select '${table}' as name, count(*)::int as n from "${table}"`);
  const rows = await t.sql<{ name: string; n: number }>(parts.join(' union all '));
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.n)]));
}
