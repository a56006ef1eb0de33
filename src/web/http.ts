import axios, { AxiosError, type AxiosInstance, type AxiosRequestConfig, type AxiosResponse } from 'axios';
import type { Envelope, ErrorEnvelope } from '../engine/api-types.js';
import type { FieldError } from '../engine/types.js';
import { getToken, requestRoles, resetToken } from './session.js';

/**
 * The HTTP client both front-ends use (docs/product.md §7, §8): base path /, 5000 ms timeout, the bearer
 * and RoleCode headers whenever a token exists, and the error catalogue of docs/product.md §8 as
 * interceptors. What the user sees (a toast, a confirm box, a navigation) is injected with
 * configureHttp, so the back-office can use antd and the portal its own widgets.
 */

declare module 'axios' {
  interface AxiosRequestConfig {
    /** No toast for this call's failure (the caller shows it); navigation rules still apply. */
    silent?: boolean;
  }
}

/** An answer body as it arrives: any part of the envelope (docs/http-contract.md) may be missing. */
type AnswerBody = Partial<ErrorEnvelope> & { data?: unknown };

/** What a failed call rejects with. */
export class ApiError extends Error {
  /** HTTP status, undefined when no answer arrived. */
  readonly status: number | undefined;
  /** The envelope code, when the answer had one. */
  readonly code: number | undefined;
  readonly errors: FieldError[];
  /** The error field of the envelope (invalid_token). */
  readonly reason: string | undefined;

  constructor(
    message: string,
    options: { status?: number; code?: number; errors?: FieldError[]; reason?: string } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = options.status;
    this.code = options.code;
    this.errors = options.errors ?? [];
    this.reason = options.reason;
  }
}

/** The reactions the catalogue asks for; each app supplies its own. */
export interface HttpUi {
  /** A red toast shown for TOAST_MS. */
  toast(message: string): void;
  /** The "Confirm logout" box; resolves true for Re-Login, false for Cancel. */
  confirmRelogin(): Promise<boolean>;
  /** Client-side navigation to an app path (/502, the home page). */
  navigate(path: string): void;
  /** Full page reload (Re-Login). */
  reload(): void;
  /** Texts: errors.invalidToken, errors.network, errors.generic. */
  t(key: string): string;
  /** Where invalid_token sends the user (docs/product.md §8: /{product}). */
  homePath(): string;
}

export const TIMEOUT_MS = 5000;
export const TOAST_MS = 5000;
/** Envelope codes that mean the session is gone and ask whether to log in again. */
export const RELOGIN_CODES: readonly number[] = [50008, 50012, 50014];

const silentUi: HttpUi = {
  toast: () => undefined,
  confirmRelogin: async () => false,
  navigate: () => undefined,
  reload: () => undefined,
  t: (key) => key,
  homePath: () => '/',
};

function isEnvelope(value: unknown): value is AnswerBody {
  return (
    typeof value === 'object' && value !== null && !(typeof Blob !== 'undefined' && value instanceof Blob)
  );
}

function fieldErrors(body: AnswerBody | undefined): FieldError[] {
  const list = body?.errors;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (item): item is FieldError =>
      typeof item === 'object' &&
      item !== null &&
      typeof item.field === 'string' &&
      typeof item.message === 'string',
  );
}

/** The browser's IANA time zone (Asia/Shanghai), sent with every call as X-Time-Zone. */
const browserTimeZone: string | undefined = (() => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
})();

/** Adds the catalogue's interceptors to an axios instance; returns it. */
export function installInterceptors(instance: AxiosInstance, getUi: () => HttpUi): AxiosInstance {
  // One confirm box and one session-expiry at a time, however many calls fail together.
  let isConfirming = false;
  let isExpiring = false;

  const askRelogin = (ui: HttpUi): void => {
    if (isConfirming) return;
    isConfirming = true;
    void ui
      .confirmRelogin()
      .then((relogin) => {
        if (!relogin) return;
        resetToken();
        ui.reload();
      })
      .finally(() => {
        isConfirming = false;
      });
  };

  instance.interceptors.request.use((config) => {
    // exports write times and imports read them in the reader's zone, as the screens show them
    if (browserTimeZone && !config.headers.get('X-Time-Zone'))
      config.headers.set('X-Time-Zone', browserTimeZone);
    const token = getToken();
    if (token) {
      // Sign-in sends its own Basic client header; every other call carries the session.
      if (!config.headers.get('Authorization')) config.headers.set('Authorization', `Bearer ${token}`);
      const roles = requestRoles();
      if (roles.length > 0) config.headers.set('RoleCode', roles.join(','));
    }
    return config;
  });

  instance.interceptors.response.use(
    (response: AxiosResponse) => {
      const body: unknown = response.data;
      if (!isEnvelope(body) || body.code === undefined || body.code === 200) return response;
      const ui = getUi();
      const message = body.message || ui.t('errors.generic');
      if (!response.config.silent) ui.toast(message);
      if (RELOGIN_CODES.includes(body.code)) askRelogin(ui);
      return Promise.reject(
        new ApiError(message, { status: response.status, code: body.code, errors: fieldErrors(body) }),
      );
    },
    (error: unknown) => {
      const ui = getUi();
      // A call cancelled by its caller (a newer reload of the same list replaced it, a page left)
      // is nobody's failure: no toast, and the caller sees the cancellation as it is.
      if (axios.isCancel(error)) return Promise.reject(error);
      if (!(error instanceof AxiosError) || !error.response) {
        const message = ui.t('errors.network');
        const silent = error instanceof AxiosError && error.config?.silent === true;
        if (!silent) ui.toast(message);
        return Promise.reject(new ApiError(message));
      }
      const { status, data, config } = error.response;
      const body = isEnvelope(data) ? data : undefined;
      const options = { status, code: body?.code, errors: fieldErrors(body), reason: body?.error };
      if (status === 502) {
        ui.navigate('/502');
        return Promise.reject(new ApiError(body?.message || error.message, options));
      }
      if (body?.error === 'invalid_token') {
        const message = ui.t('errors.invalidToken');
        if (!isExpiring) {
          isExpiring = true;
          ui.toast(message);
          resetToken();
          ui.navigate(ui.homePath());
          setTimeout(() => {
            isExpiring = false;
          }, 1000);
        }
        return Promise.reject(new ApiError(message, options));
      }
      if (body?.message) {
        if (!config.silent) ui.toast(body.message);
        if (body.code !== undefined && RELOGIN_CODES.includes(body.code)) askRelogin(ui);
        return Promise.reject(new ApiError(body.message, options));
      }
      const message = ui.t('errors.network');
      if (!config.silent) ui.toast(message);
      return Promise.reject(new ApiError(message, options));
    },
  );
  return instance;
}

/** A client with the catalogue's rules; tests pass their own UI and adapter. */
export function createHttp(getUi: () => HttpUi, config: AxiosRequestConfig = {}): AxiosInstance {
  const instance = axios.create({
    baseURL: '/',
    timeout: TIMEOUT_MS,
    // Repeated keys (id=1&id=2), as the delete and filter endpoints expect.
    paramsSerializer: { indexes: null },
    ...config,
  });
  return installInterceptors(instance, getUi);
}

let currentUi: HttpUi = silentUi;

/** Each app calls this once at start with its toast, confirm box and navigation. */
export function configureHttp(ui: HttpUi): void {
  currentUi = ui;
}

/** The shared client. */
export const http: AxiosInstance = createHttp(() => currentUi);

/** Calls the API and returns the envelope's data. */
export async function api<T>(config: AxiosRequestConfig): Promise<T> {
  const response = await http.request<Envelope<T>>(config);
  return response.data.data as T;
}

export const apiGet = <T>(
  url: string,
  params?: Record<string, unknown>,
  config: AxiosRequestConfig = {},
): Promise<T> => api<T>({ ...config, method: 'GET', url, params });

export const apiPost = <T>(url: string, data?: unknown, config: AxiosRequestConfig = {}): Promise<T> =>
  api<T>({ ...config, method: 'POST', url, data });

export const apiPut = <T>(url: string, data?: unknown, config: AxiosRequestConfig = {}): Promise<T> =>
  api<T>({ ...config, method: 'PUT', url, data });
