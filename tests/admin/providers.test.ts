import { AxiosError, AxiosHeaders, type InternalAxiosRequestConfig } from 'axios';
import { afterEach, describe, expect, it } from 'vitest';
import { createAccessControlProvider, isButtonGranted } from '../../src/admin/providers/access.js';
import {
  dataProvider,
  errorText,
  fieldName,
  filterParams,
  sortParam,
  toHttpError,
  validationErrors,
} from '../../src/admin/providers/data.js';
import type { CurrentAuthority } from '../../src/engine/api-types.js';
import { derivedResource, resourcesFromSchemas } from '../../src/admin/providers/resources.js';
import type { EntitySchema } from '../../src/engine/index.js';
import { realSources } from '../engine/fixtures.js';
import { signInBody } from '../../src/admin/providers/auth.js';
import { ApiError, http } from '../../src/web/http.js';

describe('data provider mapping (DESIGN.md HTTP contract → Refine)', () => {
  it('maps Refine filters to query parameters', () => {
    expect(
      filterParams([
        { field: 'username', operator: 'contains', value: 'ad' },
        { field: 'status', operator: 'eq', value: '1' },
        { field: 'roleId', operator: 'in', value: [1, 2] },
        { field: 'createdAt', operator: 'between', value: ['2024-01-01', ''] },
        { field: 'empty', operator: 'eq', value: '' },
        { operator: 'or', value: [] },
      ]),
    ).toEqual({ username: 'ad', status: '1', roleId: [1, 2], createdAt: '2024-01-01,' });
  });

  it('maps sorters to sort=field,-field', () => {
    expect(
      sortParam([
        { field: 'menuSequence', order: 'asc' },
        { field: 'id', order: 'desc' },
      ]),
    ).toBe('menuSequence,-id');
    expect(sortParam([])).toBeUndefined();
  });

  it('maps failures to HttpError with field errors keyed by field name', () => {
    expect(fieldName('/username')).toBe('username');
    expect(fieldName('/address/city')).toBe('address.city');
    const error = new ApiError('请求数据校验失败', {
      status: 400,
      code: 400,
      errors: [
        { field: '/username', message: '不能为空' },
        { field: '/username', message: '格式不正确' },
        { field: '/email', message: '不能为空' },
      ],
    });
    expect(toHttpError(error)).toEqual({
      message: '请求数据校验失败',
      statusCode: 400,
      errors: { username: ['不能为空', '格式不正确'], email: ['不能为空'] },
    });
    expect(validationErrors([])).toEqual({});
    expect(toHttpError(new ApiError('gone', { status: 409 }))).toEqual({ message: 'gone', statusCode: 409 });
    expect(toHttpError(new Error('x'))).toEqual({ message: 'x', statusCode: 0 });
  });
});

describe('data provider over HTTP (the API answers through a stand-in adapter)', () => {
  const seen: string[] = [];
  const adapter = http.defaults.adapter;
  afterEach(() => {
    http.defaults.adapter = adapter;
    seen.length = 0;
  });
  /** Answers /api/schemas with nothing (derived resources) and every other URL from `answers`. */
  function serve(answers: Record<string, { status: number; data: unknown }>): void {
    http.defaults.adapter = async (config: InternalAxiosRequestConfig) => {
      const url = `${config.url ?? ''}${config.params ? `?${new URLSearchParams(config.params as Record<string, string>)}` : ''}`;
      seen.push(`${config.method ?? 'get'} ${url}`);
      const answer = answers[config.url ?? ''] ?? {
        status: 200,
        data: { code: 200, message: 'success', data: {} },
      };
      const response = { ...answer, statusText: '', headers: new AxiosHeaders(), config };
      if (answer.status >= 400) throw new AxiosError('failed', 'ERR_BAD_REQUEST', config, null, response);
      return response;
    };
  }

  it('reads a tree through getList (meta.tree) from the tree endpoint, filters applied', async () => {
    const tree = [{ id: 1, children: [{ id: 2 }] }, { id: 3 }];
    // The tree endpoint is the one the schemas name (querySysMenuTree for sysmenu).
    serve({
      '/api/schemas': {
        status: 200,
        data: {
          code: 200,
          message: 'success',
          data: {
            entities: realSources()
              .filter((source) => source.name === 'sysmenu')
              .map((source) => ({ name: source.name, schema: source.json })),
          },
        },
      },
      '/api/admin/sysmenu/querySysMenuTree': {
        status: 200,
        data: { code: 200, message: 'success', data: tree },
      },
    });
    const answer = await dataProvider.getList({
      resource: 'sysmenu',
      meta: { tree: true },
      filters: [{ field: 'menuName', operator: 'contains', value: '系统' }],
    });
    expect(answer).toEqual({ data: tree, total: 2 });
    expect(seen).toContain(`get /api/admin/sysmenu/querySysMenuTree?menuName=${encodeURIComponent('系统')}`);
  });

  it('reads the next page of a list after the cursor of the page before, and says when the total is estimated', async () => {
    serve({
      '/api/schemas': {
        status: 200,
        data: {
          code: 200,
          message: 'success',
          data: {
            entities: realSources()
              .filter((source) => source.name === 'sysuser')
              .map((source) => ({ name: source.name, schema: source.json })),
          },
        },
      },
      '/api/admin/sysuser/query': {
        status: 200,
        data: {
          code: 200,
          message: 'success',
          data: {
            records: [{ id: 9 }],
            total: 1234567,
            totalExact: false,
            cursor: 'after-p1',
            currentPage: 1,
            pageSize: 1,
          },
        },
      },
    });
    const list = (currentPage: number, status = '1') =>
      dataProvider.getList({
        resource: 'sysuser',
        pagination: { currentPage, pageSize: 1 },
        filters: [{ field: 'status', operator: 'eq', value: status }],
      });
    expect(await list(1)).toEqual({
      data: [{ id: 9 }],
      total: 1234567,
      totalExact: false,
      countTimedOut: false,
    });
    await list(2);
    await list(2, '0');
    const queries = seen.filter((line) => line.includes('/sysuser/query'));
    expect(queries[0]).not.toContain('after=');
    expect(queries[1]).toContain('after=after-p1');
    // Another filter is another list: its page 2 is not "after" page 1 of this one.
    expect(queries[2]).not.toContain('after=');
  });

  it('answers a custom call with the envelope data, and a failure as HttpError keyed by field', async () => {
    serve({
      '/api/account/sysuserdetail/querySysUserDetail': {
        status: 200,
        data: { code: 200, message: 'success', data: { id: 7 } },
      },
      '/api/account/sysuserdetail/updatePassword': {
        status: 400,
        data: {
          code: 400,
          message: '请求数据校验失败',
          errors: [{ field: '/password', message: '原密码错误' }],
        },
      },
    });
    await expect(
      dataProvider.custom?.({ url: '/api/account/sysuserdetail/querySysUserDetail', method: 'get' }),
    ).resolves.toEqual({ data: { id: 7 } });
    const failure: unknown = await dataProvider
      .custom?.({
        url: '/api/account/sysuserdetail/updatePassword',
        method: 'put',
        query: { password: 'x', newPassword: 'y' },
        meta: { silent: true },
      })
      .catch((error: unknown) => error);
    expect(failure).toEqual({
      message: '请求数据校验失败',
      statusCode: 400,
      errors: { password: ['原密码错误'] },
    });
    expect(errorText(failure)).toBe('原密码错误');
    expect(errorText({ message: 'gone', statusCode: 409 })).toBe('gone');
  });
});

describe('access control (SPEC §6: buttons hidden by role)', () => {
  const authority: CurrentAuthority = {
    roles: ['ROLE_A'],
    currentRole: 'ROLE_A',
    postCode: null,
    menus: [],
    menu: [],
    buttons: { sysuser: ['add', 'update'], sysrole: [] },
    fieldRights: {},
  };

  it('grants the buttons the authority lists under the menu code, and no other', async () => {
    expect(isButtonGranted(authority.buttons, 'sysuser', 'add')).toBe(true);
    expect(isButtonGranted(authority.buttons, 'sysuser', 'delete')).toBe(false);
    expect(isButtonGranted(authority.buttons, 'sysrole', 'add')).toBe(false);
    expect(isButtonGranted(authority.buttons, 'sysorg', 'add')).toBe(false);
    const provider = createAccessControlProvider(async () => authority);
    await expect(provider.can({ resource: 'sysuser', action: 'update' })).resolves.toEqual({ can: true });
    await expect(provider.can({ resource: 'sysuser', action: 'export' })).resolves.toEqual({ can: false });
    await expect(provider.can({ action: 'add' })).resolves.toEqual({ can: false });
  });
});

describe("resource table from the server's schemas", () => {
  const answer = {
    data: {
      entities: realSources().map((source) => ({ name: source.name, schema: source.json as EntitySchema })),
    },
  };

  it('reads bases, keys, tree endpoints and the entity of every schema', () => {
    const table = resourcesFromSchemas(answer);
    const region = table.get('sysregion');
    expect(region).toMatchObject({
      base: 'admin/sysregion',
      deleteKey: 'regionCode',
      treeEndpoint: 'querySysRegionTree',
    });
    expect(region?.entity?.fieldsByName.get('regionType')?.dict).toBe('region_type');
    expect(table.get('appclient')).toMatchObject({
      base: 'uaa/appclient',
      deleteKey: 'id',
      treeEndpoint: undefined,
    });
    expect(table.size).toBe(answer.data.entities.length);
  });

  it('leaves out a schema the browser cannot build instead of failing every screen', () => {
    const broken = { name: 'broken', schema: { title: 'Broken' } as unknown as EntitySchema };
    const table = resourcesFromSchemas({ data: { entities: [...answer.data.entities, broken] } });
    expect(table.has('broken')).toBe(false);
    expect(table.has('sysuser')).toBe(true);
  });

  it('falls back to admin/<name> and uaa/appclient', () => {
    expect(derivedResource('sysuser').base).toBe('admin/sysuser');
    expect(derivedResource('appclient').base).toBe('uaa/appclient');
    expect(derivedResource('sysregion').deleteKey).toBe('regionCode');
  });
});

describe('sign-in request (SPEC §5, §7)', () => {
  it('account mode: fixed scope, client and tenant; trims the user name, not the password', () => {
    const body = signInBody({ type: 'account', username: '  admin ', password: ' secret ' });
    expect(Object.fromEntries(body)).toEqual({
      scope: 'ui',
      client_id: 'browser',
      tenantCode: 'default',
      type: 'account',
      grant_type: 'password',
      username: 'admin',
      password: ' secret ',
    });
  });

  it('mobile mode: grant mobile, trims the mobile number and the code', () => {
    const body = signInBody({ type: 'mobile', mobile: ' 13800000000 ', smsCaptcha: ' 1234 ' });
    expect(body.get('grant_type')).toBe('mobile');
    expect(body.get('mobile')).toBe('13800000000');
    expect(body.get('smsCaptcha')).toBe('1234');
    expect(body.has('password')).toBe(false);
  });

  it("a named tenant (the sign-in page's ?tenant=) is sent trimmed; blank falls back to default", () => {
    expect(
      signInBody({ type: 'account', username: 'admin', password: 'x', tenantCode: ' alpha ' }).get(
        'tenantCode',
      ),
    ).toBe('alpha');
    expect(
      signInBody({ type: 'account', username: 'admin', password: 'x', tenantCode: '  ' }).get('tenantCode'),
    ).toBe('default');
  });
});
