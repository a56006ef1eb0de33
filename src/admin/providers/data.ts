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
import { ApiError, api as callApi, apiGet, apiPost, apiPut, http, type FieldError } from '../../web/http.js';
import { resourceApi } from './resources.js';

/** A page of the generated query endpoint. */
export interface QueryPage<T> {
  records: T[];
  total: number;
  currentPage: number;
  pageSize: number;
}

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

export function sortParam(sorters: CrudSort[] = []): string | undefined {
  const parts = sorters.map((sorter) => (sorter.order === 'desc' ? `-${sorter.field}` : sorter.field));
  return parts.length > 0 ? parts.join(',') : undefined;
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
  const page = await apiGet<QueryPage<BaseRecord>>(`/api/${api.base}/query`, {
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
 * The data provider over the generated CRUD contract of DESIGN.md: the resource name is the
 * entity name, its base path comes from the OpenAPI document.
 */
export const dataProvider: DataProvider = {
  getApiUrl: () => '/api',

  getList: ({ resource, pagination, sorters, filters, meta }) =>
    guarded(async () => {
      const api = await resourceApi(resource);
      const isPaged = pagination?.mode !== 'off';
      const params: Params = {
        ...filterParams(filters),
        currentPage: isPaged ? (pagination?.currentPage ?? 1) : 1,
        pageSize: isPaged ? (pagination?.pageSize ?? 10) : 10000,
        ...((meta?.params as Params | undefined) ?? {}),
      };
      const sort = sortParam(sorters);
      if (sort) params.sort = sort;
      // meta.silent: the caller shows the failure itself (or not at all), no toast.
      const page = await apiGet<QueryPage<never>>(`/api/${api.base}/query`, params, {
        silent: meta?.silent === true,
      });
      return { data: page.records, total: page.total };
    }),

  getOne: ({ resource, id }) => guarded(async () => ({ data: (await findOne(resource, id)) as never })),

  getMany: ({ resource, ids }) =>
    guarded(async () => {
      const api = await resourceApi(resource);
      const page = await apiGet<QueryPage<never>>(`/api/${api.base}/query`, {
        [api.deleteKey]: ids.map(String),
        currentPage: 1,
        pageSize: Math.max(ids.length, 1),
      });
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
      await apiPost<{ deleted: number }>(`/api/${api.base}/delete`, undefined, {
        params: { [api.deleteKey]: [id] },
      });
      return { data: { id } as never };
    }),

  deleteMany: ({ resource, ids }) =>
    guarded(async () => {
      const api = await resourceApi(resource);
      await apiPost<{ deleted: number }>(`/api/${api.base}/delete`, undefined, {
        params: { [api.deleteKey]: ids },
      });
      return { data: ids.map((id) => ({ id })) as never[] };
    }),

  custom: ({ url, method, payload, query, headers, meta }) =>
    guarded(async () => ({
      data:
        meta?.download === true
          ? ((await download(url, method, payload, meta)) as never)
          : await callApi<never>({
              url,
              method,
              data: payload,
              params: query,
              headers: headers as Record<string, string>,
              // meta.silent: the caller shows the failure itself (or not at all), no toast.
              silent: meta?.silent === true,
            }),
    })),
};
