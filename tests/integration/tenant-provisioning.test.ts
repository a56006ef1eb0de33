import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const addTenant = (payload: Record<string, unknown>, headers = t.auth) =>
  t.request({ method: 'POST', url: '/api/admin/systenant/add', headers, payload });

const list = async (headers: { authorization: string }, api: string): Promise<Record<string, unknown>[]> => {
  const response = await t.request({ method: 'GET', url: `/api/${api}/query?pageSize=1000`, headers });
  expect(response.statusCode, `${api}: ${response.body}`).toBe(200);
  return response.json().data.records as Record<string, unknown>[];
};

describe('a new tenant', () => {
  let admin: { tenantCode: string; username: string; initialPassword: string };
  let headers: { authorization: string };

  beforeAll(async () => {
    const created = await addTenant({
      tenantCode: 'greenco',
      tenantName: '绿色科技',
      tenantEmail: 'it@greenco.example',
      tenantTel: '010-8888-0000',
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().data).toMatchObject({ tenantCode: 'greenco', tenantName: '绿色科技' });
    admin = created.json().data.admin;
    const signedIn = await t.signIn(admin.username, admin.initialPassword, 'greenco');
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    headers = { authorization: `Bearer ${signedIn.json().access_token}` };
  });

  it('comes with an administrator whose password is shown once and stored only hashed', async () => {
    expect(admin).toMatchObject({ tenantCode: 'greenco', username: 'admin' });
    expect(admin.initialPassword.length).toBeGreaterThanOrEqual(12);
    expect(admin.initialPassword).not.toBe(ADMIN_PASSWORD);
    const [stored] = await t.sql<{ password: string }>(
      "select password from sys_user where tenant_code = 'greenco' and username = 'admin'",
    );
    expect(stored?.password).not.toContain(admin.initialPassword);
    const listed = JSON.stringify(await list(t.auth, 'admin/systenant'));
    expect(listed).toContain('greenco');
    expect(listed).not.toContain(admin.initialPassword);
    // the default tenant's admin still signs in with their own password
    expect((await t.signIn('admin', ADMIN_PASSWORD)).statusCode).toBe(200);
    expect((await t.signIn('admin', admin.initialPassword)).statusCode).toBe(400);
  });

  it('signs its administrator into its own data only: roles, root organisation, users', async () => {
    const me = await t.request({ method: 'GET', url: '/api/uaa/users/getSysUser', headers });
    expect(me.json().data).toMatchObject({
      username: 'admin',
      tenantCode: 'greenco',
      roles: ['ROLE_ADMIN'],
      orgName: '绿色科技',
      email: 'it@greenco.example',
      // named as the tenant's administrator, not the platform's 超级管理员
      nickname: '租户管理员',
    });
    const users = await list(headers, 'admin/sysuser');
    expect(users.map((row) => [row.username, row.tenantCode])).toEqual([['admin', 'greenco']]);
    const roles = await list(headers, 'admin/sysrole');
    expect(roles.map((row) => row.roleCode).sort()).toEqual([
      'ROLE_ADMIN',
      'ROLE_SYS_BUYER',
      'ROLE_SYS_BUYER_SUB',
      'ROLE_SYS_SUPPLIER',
      'ROLE_SYS_TOURIST',
    ]);
    expect(roles.every((row) => row.tenantCode === 'greenco')).toBe(true);
    expect(roles.find((row) => row.roleCode === 'ROLE_ADMIN')).toMatchObject({ roleName: '租户管理员' });
    const orgs = await list(headers, 'admin/sysorg');
    expect(orgs.map((row) => [row.orgName, row.orgParent])).toEqual([['绿色科技', 0]]);
    const menus = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/queryCurrentAuthority',
      headers,
    });
    expect(menus.json().data.menu).toEqual(expect.arrayContaining(['/sysuser', '/sysrole']));

    // what it adds stays in its tenant
    const added = await t.request({
      method: 'POST',
      url: '/api/admin/sysuser/add',
      headers,
      payload: {
        username: 'clerk',
        nickname: 'Clerk',
        password: 'secret-1',
        email: 'clerk@greenco.example',
        mobile: '13900000001',
        phone: '010-1',
        roleId: roles.find((row) => row.roleCode === 'ROLE_SYS_BUYER')?.id,
        orgId: orgs[0]?.id,
      },
    });
    expect(added.statusCode, added.body).toBe(200);
    expect((await list(t.auth, 'admin/sysuser')).map((row) => row.username)).not.toContain('clerk');
    // and it is no platform administrator
    expect((await t.request({ method: 'GET', url: '/api/admin/systenant/query', headers })).statusCode).toBe(
      403,
    );
    expect((await addTenant({ tenantCode: 'sneaky', tenantName: 'Sneaky' }, headers)).statusCode).toBe(403);
  });

  it('is created whole or not at all', async () => {
    const count = async (code: string) =>
      (
        await t.sql<{ tenants: number; roles: number; orgs: number }>(
          `select (select count(*)::int from sys_tenant where tenant_code = $1) as tenants,
                  (select count(*)::int from sys_role where tenant_code = $1) as roles,
                  (select count(*)::int from sys_org where tenant_code = $1) as orgs`,
          [code],
        )
      )[0];
    const again = await addTenant({ tenantCode: 'greenco', tenantName: 'Again' });
    expect(again.statusCode).toBe(409);
    expect(await count('greenco')).toEqual({ tenants: 1, roles: 5, orgs: 1 });

    // a tenant code whose users are still there (say, of a deleted tenant) is refused, leaving nothing behind
    await t.sql(`insert into sys_user (username, nickname, password, status, tenant_code)
      values ('ghost', 'Ghost', 'x', '1', 'leftover')`);
    const leftover = await addTenant({ tenantCode: 'leftover', tenantName: 'Leftover' });
    expect(leftover.statusCode).toBe(409);
    expect(leftover.json().errors[0].field).toBe('/tenantCode');
    expect(await count('leftover')).toEqual({ tenants: 0, roles: 0, orgs: 0 });
  });
});
