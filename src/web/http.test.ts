import { AxiosError, type AxiosAdapter, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, createHttp, TIMEOUT_MS, type HttpUi } from './http.js';
import {
  getActingRole,
  getToken,
  resetToken,
  setActingRole,
  setCookieJar,
  setRoles,
  setToken,
} from './session.js';

/** A cookie jar that keeps name=value pairs like a browser does (attributes ignored). */
function fakeJar(): { cookie: string } {
  const values = new Map<string, string>();
  return {
    get cookie() {
      return [...values].map(([name, value]) => `${name}=${value}`).join('; ');
    },
    set cookie(text: string) {
      const [pair = '', ...attributes] = text.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (attributes.some((part) => part.trim().startsWith('expires=Thu, 01 Jan 1970'))) values.delete(name);
      else values.set(name, value);
    },
  };
}

interface Recorder extends HttpUi {
  toasts: string[];
  paths: string[];
  reloads: number;
  confirms: number;
}

function recorder(relogin = false): Recorder {
  const ui: Recorder = {
    toasts: [],
    paths: [],
    reloads: 0,
    confirms: 0,
    toast: (message) => ui.toasts.push(message),
    confirmRelogin: async () => {
      ui.confirms += 1;
      return relogin;
    },
    navigate: (path) => ui.paths.push(path),
    reload: () => {
      ui.reloads += 1;
    },
    t: (key) => `t:${key}`,
    homePath: () => '/ecobid',
  };
  return ui;
}

type Answer = { status: number; data?: unknown } | 'network' | 'timeout';

/** An adapter answering every call with the given answer and recording the request. */
function adapter(answer: Answer, seen: InternalAxiosRequestConfig[] = []): AxiosAdapter {
  return async (config) => {
    seen.push(config);
    if (answer === 'network') throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config);
    if (answer === 'timeout') throw new AxiosError('timeout', AxiosError.ECONNABORTED, config);
    const response: AxiosResponse = {
      data: answer.data,
      status: answer.status,
      statusText: String(answer.status),
      headers: {},
      config,
    };
    if (answer.status >= 200 && answer.status < 300) return response;
    throw new AxiosError(`status ${answer.status}`, AxiosError.ERR_BAD_RESPONSE, config, undefined, response);
  };
}

function client(answer: Answer, ui: HttpUi, seen?: InternalAxiosRequestConfig[]) {
  return createHttp(() => ui, { adapter: adapter(answer, seen) });
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the call did not fail');
}

describe('http client (docs/product.md §7, §8)', () => {
  beforeEach(() => {
    setCookieJar(fakeJar());
    setRoles([]);
  });

  it('uses base / and a 5000 ms timeout', () => {
    const http = client({ status: 200, data: { code: 200 } }, recorder());
    expect(http.defaults.baseURL).toBe('/');
    expect(http.defaults.timeout).toBe(TIMEOUT_MS);
    expect(TIMEOUT_MS).toBe(5000);
  });

  it('sends no Authorization header without a token', async () => {
    const seen: InternalAxiosRequestConfig[] = [];
    await client({ status: 200, data: { code: 200 } }, recorder(), seen).get('/api/x');
    expect(seen[0]?.headers.get('Authorization')).toBeUndefined();
    expect(seen[0]?.headers.get('RoleCode')).toBeUndefined();
  });

  it('sends Bearer and RoleCode headers when a token exists', async () => {
    setToken('abc');
    setRoles(['ROLE_ADMIN', 'ROLE_SYS_BUYER']);
    const seen: InternalAxiosRequestConfig[] = [];
    await client({ status: 200, data: { code: 200 } }, recorder(), seen).get('/api/x');
    expect(seen[0]?.headers.get('Authorization')).toBe('Bearer abc');
    expect(seen[0]?.headers.get('RoleCode')).toBe('ROLE_ADMIN,ROLE_SYS_BUYER');
  });

  it('sends only the role chosen with the role switch, if the user holds it; a reset forgets it', async () => {
    setToken('abc');
    setRoles(['ROLE_ADMIN', 'ROLE_SYS_BUYER']);
    setActingRole('ROLE_SYS_BUYER');
    const seen: InternalAxiosRequestConfig[] = [];
    await client({ status: 200, data: { code: 200 } }, recorder(), seen).get('/api/x');
    expect(seen[0]?.headers.get('RoleCode')).toBe('ROLE_SYS_BUYER');
    setRoles(['ROLE_ADMIN']);
    await client({ status: 200, data: { code: 200 } }, recorder(), seen).get('/api/x');
    expect(seen[1]?.headers.get('RoleCode')).toBe('ROLE_ADMIN');
    setRoles(['ROLE_ADMIN', 'ROLE_SYS_BUYER']);
    expect(getActingRole()).toBe('ROLE_SYS_BUYER');
    resetToken();
    setToken('abc');
    setRoles(['ROLE_ADMIN', 'ROLE_SYS_BUYER']);
    expect(getActingRole()).toBeUndefined();
    await client({ status: 200, data: { code: 200 } }, recorder(), seen).get('/api/x');
    expect(seen[2]?.headers.get('RoleCode')).toBe('ROLE_ADMIN,ROLE_SYS_BUYER');
  });

  it('keeps an explicit Authorization header (sign-in Basic client header)', async () => {
    setToken('abc');
    const seen: InternalAxiosRequestConfig[] = [];
    await client({ status: 200, data: {} }, recorder(), seen).post('/api/uaa/oauth/token', '', {
      headers: { Authorization: 'Basic YnJvd3Nlcjo=' },
    });
    expect(seen[0]?.headers.get('Authorization')).toBe('Basic YnJvd3Nlcjo=');
  });

  it('repeats array parameters (id=1&id=2)', async () => {
    const seen: InternalAxiosRequestConfig[] = [];
    const http = client({ status: 200, data: { code: 200 } }, recorder(), seen);
    await http.post('/api/admin/sysuser/delete', null, { params: { id: [1, 2] } });
    expect(http.getUri(seen[0])).toBe('/api/admin/sysuser/delete?id=1&id=2');
  });

  it('passes answers with code 200, without a code, and blobs', async () => {
    const ui = recorder();
    await expect(client({ status: 200, data: { code: 200, data: 1 } }, ui).get('/a')).resolves.toBeTruthy();
    await expect(client({ status: 200, data: { access_token: 'x' } }, ui).get('/a')).resolves.toBeTruthy();
    await expect(client({ status: 200, data: new Blob(['x']) }, ui).get('/a')).resolves.toBeTruthy();
    expect(ui.toasts).toEqual([]);
  });

  it('a code other than 200 is a toast with the message, and a rejection', async () => {
    const ui = recorder();
    const error = await failure(client({ status: 200, data: { code: 500, message: 'Boom' } }, ui).get('/a'));
    expect(error.message).toBe('Boom');
    expect(error.code).toBe(500);
    expect(ui.toasts).toEqual(['Boom']);
    expect(ui.confirms).toBe(0);
  });

  it('a code other than 200 without a message toasts the default Error text', async () => {
    const ui = recorder();
    await failure(client({ status: 200, data: { code: 7 } }, ui).get('/a'));
    expect(ui.toasts).toEqual(['t:errors.generic']);
  });

  it.each([50008, 50012, 50014])(
    'code %i also asks to log in again; Cancel keeps the session',
    async (code) => {
      setToken('abc');
      const ui = recorder(false);
      await failure(client({ status: 200, data: { code, message: 'Gone' } }, ui).get('/a'));
      await vi.waitFor(() => expect(ui.confirms).toBe(1));
      expect(ui.toasts).toEqual(['Gone']);
      expect(ui.reloads).toBe(0);
      expect(getToken()).toBe('abc');
    },
  );

  it('Re-Login resets the token and reloads the page', async () => {
    setToken('abc');
    setRoles(['ROLE_ADMIN']);
    const ui = recorder(true);
    await failure(client({ status: 200, data: { code: 50012, message: 'Gone' } }, ui).get('/a'));
    await vi.waitFor(() => expect(ui.reloads).toBe(1));
    expect(getToken()).toBeUndefined();
  });

  it('HTTP 502 navigates to /502 without a toast', async () => {
    const ui = recorder();
    await failure(client({ status: 502, data: 'Bad Gateway' }, ui).get('/a'));
    expect(ui.paths).toEqual(['/502']);
    expect(ui.toasts).toEqual([]);
  });

  it('invalid_token: toast, token reset, home', async () => {
    setToken('abc');
    setRoles(['ROLE_ADMIN']);
    const ui = recorder();
    const error = await failure(
      client({ status: 401, data: { code: 401, error: 'invalid_token', message: 'expired' } }, ui).get('/a'),
    );
    expect(error.status).toBe(401);
    expect(ui.toasts).toEqual(['t:errors.invalidToken']);
    expect(ui.paths).toEqual(['/ecobid']);
    expect(getToken()).toBeUndefined();
  });

  it('invalid_token from several calls at once toasts and navigates once', async () => {
    const ui = recorder();
    const http = client({ status: 401, data: { code: 401, error: 'invalid_token', message: 'x' } }, ui);
    await Promise.all([failure(http.get('/a')), failure(http.get('/b')), failure(http.get('/c'))]);
    expect(ui.toasts).toHaveLength(1);
    expect(ui.paths).toHaveLength(1);
  });

  it('another HTTP error with a message toasts the message and keeps field errors', async () => {
    const ui = recorder();
    const body = {
      code: 400,
      message: '请求数据校验失败',
      errors: [{ field: '/username', message: '不能为空' }],
    };
    const error = await failure(client({ status: 400, data: body }, ui).post('/a', {}));
    expect(ui.toasts).toEqual(['请求数据校验失败']);
    expect(error.status).toBe(400);
    expect(error.errors).toEqual([{ field: '/username', message: '不能为空' }]);
  });

  it('silent calls reject without a toast', async () => {
    const ui = recorder();
    await failure(
      client({ status: 409, data: { code: 409, message: 'clash' } }, ui).get('/a', { silent: true }),
    );
    await failure(client('network', ui).get('/a', { silent: true }));
    expect(ui.toasts).toEqual([]);
  });

  it.each<Answer>(['network', 'timeout', { status: 500, data: 'oops' }, { status: 404 }])(
    'no answer or no message (%j): the network-failure toast',
    async (answer) => {
      const ui = recorder();
      const error = await failure(client(answer, ui).get('/a'));
      expect(error.message).toBe('t:errors.network');
      expect(ui.toasts).toEqual(['t:errors.network']);
    },
  );
});
