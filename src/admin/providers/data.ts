import type {
  BaseKey,
  BaseRecord,
  CrudFilter,
  CrudSort,
  DataProvider,
  HttpError,
  ValidationErrors,
} from '@refinedev/core';
import type { AxiosProgressEvent } from 'axios';
import type { Deleted, Page } from '../../engine/api-types.js';
import type { FieldError } from '../../engine/types.js';
import { ApiError, api as callApi, apiGet, apiPost, apiPut, http } from '../../web/http.js';
import { resourceApi } from './resources.js';

type Params = Record<string, string | number | (string | number)[]>;

/** /username → username, /address/city → address.city */
export function fieldName(pointer: string): string {
  return pointer.replace(/^\//, '').split('/').join('.');
}

export function validationErrors(errors: FieldError[]): ValidationErrors {
  const result: Record<string, string[]> = {};
  for (const item of errors) {
    const name = fieldName(item.field) || '_';
    (result[name] ??= []).push(item.message);
  }
  return result;
}

function isParams(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every failure reaches Refine as HttpError {message, statusCode, errors keyed by field}. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof ApiError) {
    return {
      message: error.message,
      statusCode: error.status ?? 0,
      ...(error.errors.length > 0 ? { errors: validationErrors(error.errors) } : {}),
    };
  }
  return { message: error instanceof Error ? error.message : String(error), statusCode: 0 };
}

/** The message of a failure (an HttpError, or anything thrown). */
export function errorMessage(error: unknown): string {
  return String((error as Partial<HttpError> | undefined)?.message ?? error);
}

/** The field errors of a failure as texts by field name (username, address.city). */
export function fieldMessages(error: unknown): Record<string, string[]> {
  const errors = (error as Partial<HttpError> | undefined)?.errors ?? {};
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(errors)) {
    const texts = [value].flat().filter((item): item is string => typeof item === 'string');
    if (texts.length > 0) result[name] = texts;
  }
  return result;
}

/** What a failure says to a person: its field messages when it has some, else its message. */
export function errorText(error: unknown): string {
  const texts = Object.values(fieldMessages(error)).flat();
  return texts.length > 0 ? texts.join('; ') : errorMessage(error);
}

function scalar(value: unknown): string | number {
  if (typeof value === 'number') return value;
  if (value instanceof Date) return value.toISOString();
  if (
    typeof value === 'object' &&
    value !== null &&
    'toISOString' in value &&
    typeof value.toISOString === 'function'
  ) {
    return String(value.toISOString());
  }
  return String(value);
}

/** Refine filters → the query endpoint's parameters (text contains, others equal, dates from,to). */
export function filterParams(filters: CrudFilter[] = []): Params {
  const params: Params = {};
  for (const filter of filters) {
    if (!('field' in filter)) continue;
    const { field, operator, value } = filter;
    if (value === undefined || value === null || value === '') continue;
    if (operator === 'between' && Array.isArray(value)) {
      params[field] = `${value[0] === undefined || value[0] === null ? '' : scalar(value[0])},${
        value[1] === undefined || value[1] === null ? '' : scalar(value[1])
      }`;
    } else if (Array.isArray(value)) {
      if (value.length > 0) params[field] = value.map(scalar);
    } else {
      params[field] = scalar(value);
    }
  }
  return params;
}

/** Refine sorters → the sort parameter (field or -field, comma-separated): the list, its export. */
export function sortParam(sorters: CrudSort[] = []): string | undefined {
  const parts = sorters.map((sorter) => (sorter.order === 'desc' ? `-${sorter.field}` : sorter.field));
  return parts.length > 0 ? parts.join(',') : undefined;
}

/**
 * Where each page of a list ended (the server's `cursor`), so the next page is asked for as
 * "after this row" (a keyset read, as fast on page 50,000 as on page 2) without the list
 * screen knowing: keyed by the list's filters, sort and page size, a few lists kept.
 */
const cursors = new Map<string, Map<number, string>>();
const REMEMBERED_LISTS = 20;

function listKey(base: string, params: Params): string {
  const { currentPage: _page, totalExact: _exact, ...rest } = params;
  return `${base}?${JSON.stringify(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
}

function rememberCursor(list: string, page: number, cursor: string | undefined): void {
  if (!cursor) return;
  const pages = cursors.get(list) ?? new Map<number, string>();
  cursors.delete(list);
  cursors.set(list, pages.set(page, cursor));
  for (const oldest of cursors.keys()) {
    if (cursors.size <= REMEMBERED_LISTS) break;
    cursors.delete(oldest);
  }
}

/**
 * Answers asked for ahead of their screen (a cold page load's first list page and its lookups,
 * ./warm.ts): the first identical ask within WARM_MS takes the answer under way instead of asking
 * again, once. A failed early ask is asked again for real (with its toast). A list's first page
 * is good for the list's first ask only: any other ask of that list (another page, a filter, the
 * screen opened with other parameters) drops it, so a later 重置 or 刷新 asks the server.
 */
const warmed = new Map<string, { answer: Promise<unknown>; at: number; list: string | undefined }>();
const WARM_MS = 10_000;

function getOrWarm<T>(
  url: string,
  params: Params,
  silent: boolean,
  warm: boolean,
  list?: string,
): Promise<T> {
  const key = `${url}?${JSON.stringify(params)}`;
  if (warm) {
    const answer = apiGet<T>(url, params, { silent: true });
    warmed.set(key, { answer, at: Date.now(), list });
    answer.catch(() => warmed.delete(key));
    return answer;
  }
  const early = warmed.get(key);
  warmed.delete(key);
  if (list !== undefined) for (const [other, entry] of warmed) if (entry.list === list) warmed.delete(other);
  if (early && Date.now() - early.at < WARM_MS)
    return (early.answer as Promise<T>).catch(() => apiGet<T>(url, params, { silent }));
  return apiGet<T>(url, params, { silent });
}

async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toHttpError(error);
  }
}

async function findOne(resource: string, id: BaseKey): Promise<BaseRecord> {
  const api = await resourceApi(resource);
  const page = await apiGet<Page<BaseRecord>>(`/api/${api.base}/query`, {
    [api.deleteKey]: id,
    currentPage: 1,
    pageSize: 20,
  });
  const record = page.records.find((item) => String(item[api.deleteKey]) === String(id));
  if (!record) {
    const notFound: HttpError = { message: `${resource} ${String(id)}`, statusCode: 404 };
    throw notFound;
  }
  return record;
}

/** A file answer (an export): the bytes and the name the server gave them. */
export interface DownloadedFile {
  blob: Blob;
  fileName: string;
}

/** filename*=UTF-8''… (RFC 5987) first, then filename="…". */
export function fileNameOf(disposition: string | undefined, fallback: string): string {
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition ?? '')?.[1];
  if (encoded) {
    try {
      return decodeURIComponent(encoded);
    } catch {
      // fall through to the plain name
    }
  }
  return /filename="([^"]+)"/i.exec(disposition ?? '')?.[1] ?? fallback;
}

/** A file the server answers with; the failure of a file request comes back as JSON in a Blob. */
async function download(
  url: string,
  method: string,
  payload: unknown,
  meta: Record<string, unknown>,
): Promise<DownloadedFile> {
  const onProgress = meta.onProgress as ((event: AxiosProgressEvent) => void) | undefined;
  const response = await http.request<Blob>({
    url,
    method,
    data: payload,
    responseType: 'blob',
    timeout: 0,
    ...(onProgress ? { onDownloadProgress: onProgress } : {}),
  });
  const disposition = response.headers['content-disposition'] as string | undefined;
  return { blob: response.data, fileName: fileNameOf(disposition, 'export.xlsx') };
}

/**
 * The data provider over the generated CRUD contract of docs/http-contract.md: the resource name is the
 * entity name, its base path comes from the OpenAPI document.
 * - getList with meta.tree reads a tree entity's whole tree (GET …/querySys<Name>Tree, filters
 *   applied): data is the top-level records with their children, total their count.
 * - custom is every other call of docs/product.md §7 (the back-office's pages, layout and screens make no
 *   HTTP call of their own); meta.silent leaves the failure to the caller (no toast), meta.download
 *   answers a file as DownloadedFile; a FormData payload is an
 *   upload, with meta.onUploadProgress and meta.signal (cancel).
 * Every failure arrives as HttpError {message, statusCode, errors keyed by field}.
 */
export const dataProvider: DataProvider = {
  getApiUrl: () => '/api',

  getList: ({ resource, pagination, sorters, filters, meta }) =>
    guarded(async () => {
      const api = await resourceApi(resource);
      if (meta?.tree === true) {
        if (!api.treeEndpoint) throw new Error(`${resource} is not a tree`);
        const tree = await apiGet<never[]>(`/api/${api.base}/${api.treeEndpoint}`, filterParams(filters), {
          silent: meta.silent === true,
        });
        return { data: tree, total: tree.length };
      }
      const isPaged = pagination?.mode !== 'off';
      const params: Params = {
        ...filterParams(filters),
        currentPage: isPaged ? (pagination?.currentPage ?? 1) : 1,
        pageSize: isPaged ? (pagination?.pageSize ?? 10) : 10000,
        ...((meta?.params as Params | undefined) ?? {}),
      };
      const sort = sortParam(sorters);
      if (sort) params.sort = sort;
      const list = listKey(api.base, params);
      const after = cursors.get(list)?.get(Number(params.currentPage) - 1);
      // meta.silent: the caller shows the failure itself (or not at all), no toast.
      // meta.warm: asked ahead of the screen (./warm.ts), handed to the screen's own ask.
      const page = await getOrWarm<Page<never> & { cursor?: string; countTimedOut?: boolean }>(
        `/api/${api.base}/query`,
        after ? { ...params, after } : params,
        meta?.silent === true,
        meta?.warm === true,
        api.base,
      );
      rememberCursor(list, Number(params.currentPage), page.cursor);
      return {
        data: page.records,
        total: page.total,
        totalExact: page.totalExact !== false,
        countTimedOut: page.countTimedOut === true,
      };
    }),

  getOne: ({ resource, id }) => guarded(async () => ({ data: (await findOne(resource, id)) as never })),

  getMany: ({ resource, ids, meta }) =>
    guarded(async () => {
      const api = await resourceApi(resource);
      const page = await getOrWarm<Page<never>>(
        `/api/${api.base}/query`,
        { [api.deleteKey]: ids.map(String), currentPage: 1, pageSize: Math.max(ids.length, 1) },
        false,
        meta?.warm === true,
      );
      return { data: page.records };
    }),

  create: ({ resource, variables }) =>
    guarded(async () => {
      const api = await resourceApi(resource);
      return { data: await apiPost<never>(`/api/${api.base}/add`, variables) };
    }),

  update: ({ resource, id, variables }) =>
    guarded(async () => {
      const api = await resourceApi(resource);
      // The body carries the key and the version the form read (optimistic locking).
      const body = { ...(variables as Record<string, unknown>), [api.deleteKey]: id };
      return { data: await apiPut<never>(`/api/${api.base}/update`, body) };
    }),

  deleteOne: ({ resource, id }) =>
    guarded(async () => {
      const api = await resourceApi(resource);
      await apiPost<Deleted>(`/api/${api.base}/delete`, undefined, {
        params: { [api.deleteKey]: [id] },
      });
      return { data: { id } as never };
    }),

  deleteMany: ({ resource, ids }) =>
    guarded(async () => {
      const api = await resourceApi(resource);
      await apiPost<Deleted>(`/api/${api.base}/delete`, undefined, {
        params: { [api.deleteKey]: ids },
      });
      return { data: ids.map((id) => ({ id })) as never[] };
    }),

  custom: ({ url, method, payload, query, headers, meta }) =>
    guarded(async () => ({
      data:
        method === 'get' && !headers && isParams(query) && (meta === undefined || meta.warm === true)
          ? await getOrWarm<never>(url, query, false, meta?.warm === true)
          : meta?.download === true
            ? ((await download(url, method, payload, meta)) as never)
            : await callApi<never>({
                url,
                method,
                data: payload,
                params: query,
                headers: headers as Record<string, string>,
                // meta.silent: the caller shows the failure itself (or not at all), no toast.
                silent: meta?.silent === true,
                // uploads (a FormData payload): progress, cancel, and no time limit
                ...(payload instanceof FormData ? { timeout: 0 } : {}),
                // meta.timeoutMs: work the server bounds by a longer budget of its own (templates)
                ...(typeof meta?.timeoutMs === 'number' ? { timeout: meta.timeoutMs } : {}),
                ...(meta?.onUploadProgress
                  ? { onUploadProgress: meta.onUploadProgress as (event: AxiosProgressEvent) => void }
                  : {}),
                ...(meta?.signal instanceof AbortSignal ? { signal: meta.signal } : {}),
              }),
    })),
};
