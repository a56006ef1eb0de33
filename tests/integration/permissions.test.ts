import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

let t: TestApp;
const PORTAL_ROLES = ['ROLE_SYS_BUYER', 'ROLE_SYS_SUPPLIER', 'ROLE_SYS_BUYER_SUB'];
const tokens = new Map<string, string>();
const userWithRole = async (username: string, roleCode: string): Promise<string> =>
  (await createUserWithRole(t, username, roleCode)).token;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  t = await startTestApp();
  tokens.set('ROLE_ADMIN', t.auth.authorization.slice('Bearer '.length));
  for (const [index, role] of PORTAL_ROLES.entries())
    tokens.set(role, await userWithRole(`matrix${index}`, role));
});
afterAll(async () => {
  await t.close();
});

/** A concrete URL for a route pattern (no path parameters in the API today). */
const concrete = (url: string): string => url.replace(/:[a-zA-Z]+/g, '1');

describe('the permission matrix, generated from the route table', () => {
  it('refuses every non-public /api route without a token', async () => {
    const routes = t.app.routeTable.filter(
      (route) => route.url.startsWith('/api/') && !route.config.isPublic,
    );
    expect(routes.length).toBeGreaterThan(80);
    for (const route of routes) {
      const response = await t.request({ method: route.method as 'GET', url: concrete(route.url) });
      expect({ route: `${route.method} ${route.url}`, status: response.statusCode }).toEqual({
        route: `${route.method} ${route.url}`,
        status: 401,
      });
    }
  });

  it('lets ROLE_ADMIN through everywhere and the portal roles only into their own self-service routes', async () => {
    const routes = t.app.routeTable.filter(
      (route) => route.url.startsWith('/api/') && !route.config.isPublic && !route.url.endsWith('/logout'),
    );
    for (const [role, token] of tokens) {
      for (const route of routes) {
        const response = await t.request({
          method: route.method as 'GET',
          url: concrete(route.url),
          headers: bearer(token),
        });
        const isAllowed = role === 'ROLE_ADMIN' || route.config.isSelfService === true;
        const outcome =
          response.statusCode === 401
            ? 'unauthenticated'
            : response.statusCode === 403
              ? 'forbidden'
              : 'allowed';
        expect({ role, route: `${route.method} ${route.url}`, outcome }).toEqual({
          role,
          route: `${route.method} ${route.url}`,
          outcome: isAllowed ? 'allowed' : 'forbidden',
        });
      }
    }
  });

  it('opens exactly the URLs granted to a role through sysurl', async () => {
    const added = await t.request({
      method: 'POST',
      url: '/api/admin/sysurl/add',
      headers: t.auth,
      payload: { url: '/api/admin/sysregion/**', description: 'regions' },
    });
    expect(added.statusCode).toBe(200);
    const [role] = await t.sql<{ id: number }>("select id from sys_role where role_code = 'ROLE_SYS_BUYER'");
    const granted = await t.request({
      method: 'POST',
      url: '/api/admin/sysurl/authorizeRoleToUrl',
      headers: t.auth,
      payload: { urlId: added.json().data.id, roleIds: [role?.id] },
    });
    expect(granted.statusCode).toBe(200);
    const buyer = bearer(tokens.get('ROLE_SYS_BUYER') ?? '');
    expect(
      (await t.request({ method: 'GET', url: '/api/admin/sysregion/query?regionParent=0', headers: buyer }))
        .statusCode,
    ).toBe(200);
    expect(
      (await t.request({ method: 'GET', url: '/api/admin/sysregion/querySysRegionTree', headers: buyer }))
        .statusCode,
    ).toBe(200);
    expect(
      (await t.request({ method: 'GET', url: '/api/admin/sysuser/query', headers: buyer })).statusCode,
    ).toBe(403);
    const supplier = bearer(tokens.get('ROLE_SYS_SUPPLIER') ?? '');
    expect(
      (await t.request({ method: 'GET', url: '/api/admin/sysregion/query', headers: supplier })).statusCode,
    ).toBe(403);
    const roles = await t.request({
      method: 'GET',
      url: `/api/admin/sysurl/queryRoleIdByUrlId?urlId=${added.json().data.id}`,
      headers: t.auth,
    });
    expect(roles.json().data).toEqual([role?.id]);
  });

  it('refuses a RoleCode header naming a role the user does not hold', async () => {
    const admin = { ...t.auth, rolecode: 'ROLE_SYS_BUYER' };
    const authority = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/queryRoleInfo',
      headers: admin,
    });
    expect(authority.statusCode).toBe(403); // the admin does not hold ROLE_SYS_BUYER
    const own = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/queryRoleInfo',
      headers: { ...t.auth, rolecode: 'ROLE_ADMIN' },
    });
    expect(own.json().data).toMatchObject({ roles: ['ROLE_ADMIN'], currentRole: 'ROLE_ADMIN' });
  });
});

describe('role assignments', () => {
  it('replaces the users of a role, needing at least one, and the roles of a user', async () => {
    const [role] = await t.sql<{ id: number }>(
      "select id from sys_role where role_code = 'ROLE_SYS_SUPPLIER'",
    );
    const empty = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/authorizeUserToRole',
      headers: t.auth,
      payload: { roleId: role?.id, userIds: [] },
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors[0].field).toBe('/userIds');
    const missing = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/authorizeUserToRole',
      headers: t.auth,
      payload: { roleId: role?.id, userIds: [999999] },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0].field).toBe('/userIds');
    const ok = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/authorizeUserToRole',
      headers: t.auth,
      payload: { roleId: role?.id, userIds: [1] },
    });
    expect(ok.statusCode).toBe(200);
    const held = await t.request({
      method: 'GET',
      url: '/api/admin/sysrole/queryRoleName?userId=1',
      headers: t.auth,
    });
    const checked = (held.json().data as { roleCode: string; checked: boolean }[])
      .filter((row) => row.checked)
      .map((row) => row.roleCode);
    expect(checked).toEqual(['ROLE_SYS_SUPPLIER']);
    const relogin = await t.signIn('admin', ADMIN_PASSWORD);
    const me = await t.request({
      method: 'GET',
      url: '/api/uaa/users/getSysUser',
      headers: bearer(relogin.json().access_token),
    });
    expect(me.json().data.roles).toEqual(['ROLE_ADMIN', 'ROLE_SYS_SUPPLIER']);
    const cleared = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/authorizeRoleToUser',
      headers: t.auth,
      payload: { userId: 1, roleIds: [] },
    });
    expect(cleared.statusCode).toBe(200);
  });

  it('keeps one data-field row per role code', async () => {
    const duplicate = await t.request({
      method: 'POST',
      url: '/api/admin/sysmenu/authorizeMenuDataToRole',
      headers: t.auth,
      payload: {
        menuCode: 'sysuser',
        rows: [
          { roleCode: 'ROLE_SYS_BUYER', dataFields: ['email'] },
          { roleCode: 'ROLE_SYS_BUYER', dataFields: [] },
        ],
      },
    });
    expect(duplicate.statusCode).toBe(400);
    expect(duplicate.json().errors[0].field).toBe('/rows/1/roleCode');
  });
});

describe('data-field permissions', () => {
  it('removes a hidden field from query, export and filters for that role only', async () => {
    const url = await t.request({
      method: 'POST',
      url: '/api/admin/sysurl/add',
      headers: t.auth,
      payload: { url: '/api/admin/sysuser/**' },
    });
    const [role] = await t.sql<{ id: number }>(
      "select id from sys_role where role_code = 'ROLE_SYS_BUYER_SUB'",
    );
    await t.request({
      method: 'POST',
      url: '/api/admin/sysurl/authorizeRoleToUrl',
      headers: t.auth,
      payload: { urlId: url.json().data.id, roleIds: [role?.id] },
    });
    const saved = await t.request({
      method: 'POST',
      url: '/api/admin/sysmenu/authorizeMenuDataToRole',
      headers: t.auth,
      payload: {
        menuCode: 'sysuser',
        rows: [{ roleCode: 'ROLE_SYS_BUYER_SUB', dataFields: ['email', 'mobile'] }],
      },
    });
    expect(saved.statusCode).toBe(200);
    const sub = bearer(tokens.get('ROLE_SYS_BUYER_SUB') ?? '');

    const listed = await t.request({ method: 'GET', url: '/api/admin/sysuser/query', headers: sub });
    expect(listed.statusCode).toBe(200);
    const record = listed.json().data.records[0] as Record<string, unknown>;
    expect(record).toHaveProperty('username');
    expect(record).not.toHaveProperty('email');
    expect(record).not.toHaveProperty('mobile');
    const adminListed = await t.request({ method: 'GET', url: '/api/admin/sysuser/query', headers: t.auth });
    expect(adminListed.json().data.records[0]).toHaveProperty('email');

    const filtered = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/query?email=admin',
      headers: sub,
    });
    expect(filtered.statusCode).toBe(400);
    expect(filtered.json().errors[0].field).toBe('/email');

    const exported = await t.request({
      method: 'POST',
      url: '/api/admin/sysuser/export',
      headers: { ...sub, 'accept-language': 'en' },
      payload: {},
    });
    expect(exported.statusCode).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
    const headers = (workbook.worksheets[0]?.getRow(1).values as unknown[]).filter(Boolean);
    expect(headers).toContain('User name');
    expect(headers).not.toContain('Email');
    expect(headers).not.toContain('Mobile');

    const listedRows = await t.request({
      method: 'GET',
      url: '/api/admin/sysmenu/queryDataFieldByMenuCode?menuCode=sysuser',
      headers: t.auth,
    });
    const [row] = listedRows.json().data as { id: number }[];
    const removed = await t.request({
      method: 'POST',
      url: `/api/admin/sysmenu/deleteDataField?id=${row?.id}`,
      headers: t.auth,
    });
    expect(removed.json().data).toEqual({ deleted: 1 });
    const again = await t.request({ method: 'GET', url: '/api/admin/sysuser/query', headers: sub });
    expect(again.json().data.records[0]).toHaveProperty('email');
  });
});

describe('tenants', () => {
  let other: { authorization: string };
  beforeAll(async () => {
    const tenant = await t.request({
      method: 'POST',
      url: '/api/admin/systenant/add',
      headers: t.auth,
      payload: { tenantCode: 'tenantb', tenantName: 'Tenant B' },
    });
    expect(tenant.statusCode).toBe(200);
    // Tenant provisioning gave tenant B its administrator, shown once in the answer.
    expect(tenant.json().data.admin).toMatchObject({ tenantCode: 'tenantb', username: 'admin' });
    const signedIn = await t.signIn('admin', tenant.json().data.admin.initialPassword as string, 'tenantb');
    expect(signedIn.statusCode).toBe(200);
    other = bearer(signedIn.json().access_token);
  });

  it('never shows, changes or exports another tenant’s rows, for every tenant entity', async () => {
    for (const entity of t.app.ctx.registry.all.filter((item) => item.isTenantScoped)) {
      const base = `/api/${entity.api}`;
      const mine = (
        await t.request({ method: 'GET', url: `${base}/query?pageSize=10000`, headers: t.auth })
      ).json().data.records as Record<string, unknown>[];
      const theirs = (
        await t.request({ method: 'GET', url: `${base}/query?pageSize=10000`, headers: other })
      ).json().data.records as Record<string, unknown>[];
      const key = entity.key.name;
      const theirKeys = new Set(theirs.map((row) => row[key]));
      expect(
        theirs.every((row) => row.tenantCode === 'tenantb'),
        entity.name,
      ).toBe(true);
      const target = mine[0];
      if (!target) continue;
      expect(theirKeys.has(target[key]), entity.name).toBe(false);
      const update = await t.request({
        method: 'PUT',
        url: `${base}/update`,
        headers: other,
        payload: { [key]: target[key], version: target.version },
      });
      expect(update.statusCode, entity.name).toBe(404);
      const remove = await t.request({
        method: 'POST',
        url: `${base}/delete?${key}=${encodeURIComponent(String(target[key]))}`,
        headers: other,
      });
      expect(remove.statusCode, entity.name).toBe(404);
      const exported = await t.request({
        method: 'POST',
        url: `${base}/export`,
        headers: other,
        payload: {},
      });
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
      expect(workbook.worksheets[0]?.actualRowCount, entity.name).toBe(theirs.length + 1);
    }
  });

  it('lets other tenants read shared entities but not change them, and keeps platform entities to the platform admin', async () => {
    expect(
      (await t.request({ method: 'GET', url: '/api/admin/sysdict/query', headers: other })).statusCode,
    ).toBe(200);
    const change = await t.request({
      method: 'POST',
      url: '/api/admin/sysdict/add',
      headers: other,
      payload: { dictType: 'x_test', dictName: 'X', dictParent: 0 },
    });
    expect(change.statusCode).toBe(403);
    expect(
      (await t.request({ method: 'GET', url: '/api/admin/systenant/query', headers: other })).statusCode,
    ).toBe(403);
    expect(
      (await t.request({ method: 'GET', url: '/api/uaa/appclient/query', headers: other })).statusCode,
    ).toBe(403);
    expect(
      (await t.request({ method: 'GET', url: '/api/admin/systenant/query', headers: t.auth })).statusCode,
    ).toBe(200);
  });
});
