import axios, { AxiosError, type InternalAxiosRequestConfig } from 'axios';
import { describe, expect, it } from 'vitest';
import { createHttp, type HttpUi } from '../../src/web/http.js';

/** The HTTP client's error rules as a page sees them: which failures put a toast on the screen. */
function client(adapter: (config: InternalAxiosRequestConfig) => Promise<never>) {
  const toasts: string[] = [];
  const ui: HttpUi = {
    toast: (message) => toasts.push(message),
    confirmRelogin: async () => false,
    navigate: () => undefined,
    reload: () => undefined,
    t: (key) => key,
    homePath: () => '/',
  };
  return { http: createHttp(() => ui, { adapter }), toasts };
}

describe('the HTTP client on calls that get no answer', () => {
  it('says nothing about a call its caller cancelled (a list reloaded again before the first answer)', async () => {
    const { http, toasts } = client(
      (config) =>
        new Promise<never>((_, reject) =>
          config.signal?.addEventListener?.('abort', () =>
            reject(new axios.CanceledError(undefined, undefined, config)),
          ),
        ),
    );
    const controller = new AbortController();
    const call = http.get('/api/file/file/query', { signal: controller.signal });
    controller.abort();
    const error: unknown = await call.catch((reason: unknown) => reason);
    expect(axios.isCancel(error)).toBe(true);
    expect(toasts).toEqual([]);
  });

  it('still says the network failed when no answer came', async () => {
    const { http, toasts } = client((config) =>
      Promise.reject(new AxiosError('Network Error', AxiosError.ERR_NETWORK, config)),
    );
    await expect(http.get('/api/file/file/query')).rejects.toThrow('errors.network');
    expect(toasts).toEqual(['errors.network']);
  });
});
