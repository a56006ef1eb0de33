import { describe, expect, it } from 'vitest';
import {
  fieldName,
  filterParams,
  sortParam,
  toHttpError,
  validationErrors,
} from '../../src/admin/providers/data.js';
import { derivedResource, resourcesFromSchemas } from '../../src/admin/providers/resources.js';
import type { EntitySchema } from '../../src/engine/index.js';
import { realSources } from '../engine/fixtures.js';
import { signInBody } from '../../src/admin/providers/auth.js';
import { ApiError } from '../../src/web/http.js';

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
});
