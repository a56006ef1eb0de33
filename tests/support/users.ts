import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { freshMobile } from './identity.js';

export const USER_PASSWORD = 'secret-1';

/** Adds a user of the default tenant with the given role through the API and signs it in. */
export async function createUserWithRole(
  t: TestApp,
  username: string,
  roleCode: string,
): Promise<{ id: number; token: string }> {
  const [role] = await t.sql<{ id: number }>(
    'select id from sys_role where role_code = $1 and tenant_code = $2',
    [roleCode, 'default'],
  );
  const added = await t.request({
    method: 'POST',
    url: '/api/admin/sysuser/add',
    headers: t.auth,
    payload: {
      username,
      nickname: username,
      password: USER_PASSWORD,
      email: `${username}@example.com`,
      mobile: freshMobile(),
      phone: '010-1234',
      roleId: role?.id,
      orgId: 1,
    },
  });
  expect(added.statusCode, added.body).toBe(200);
  const signedIn = await t.signIn(username, USER_PASSWORD);
  expect(signedIn.statusCode, signedIn.body).toBe(200);
  return { id: added.json().data.id as number, token: signedIn.json().access_token as string };
}

/** Adds a tenant through the platform administrator and signs its own administrator in. */
export async function signedInTenantAdmin(
  t: TestApp,
  tenantCode: string,
): Promise<{ authorization: string }> {
  const created = await t.request({
    method: 'POST',
    url: '/api/admin/systenant/add',
    headers: t.auth,
    payload: {
      tenantCode,
      tenantName: tenantCode,
      tenantEmail: `a@${tenantCode}.example`,
      tenantTel: '010-1',
    },
  });
  expect(created.statusCode, created.body).toBe(200);
  const admin = created.json().data.admin as { username: string; initialPassword: string };
  const signedIn = await t.signIn(admin.username, admin.initialPassword, tenantCode);
  expect(signedIn.statusCode, signedIn.body).toBe(200);
  return { authorization: `Bearer ${signedIn.json().access_token as string}` };
}

/** Adds a role of the default tenant given these menus (by code) and buttons (menuCode:button). */
export async function addRoleWithMenus(
  t: TestApp,
  roleCode: string,
  menuCodes: string[],
  buttons: string[] = [],
): Promise<void> {
  const post = (url: string, payload: Record<string, unknown>) =>
    t.request({ method: 'POST', url, headers: t.auth, payload });
  const role = await post('/api/admin/sysrole/add', { roleCode, roleName: roleCode });
  expect(role.statusCode, role.body).toBe(200);
  const menus = await t.sql<{ id: number }>(
    "select id from sys_menu where menu_code = any($1) and tenant_code = 'default'",
    [menuCodes],
  );
  const granted = await post('/api/admin/sysmenu/authorizeMenuToRole', {
    roleId: role.json().data.id,
    menuIds: menus.map((menu) => menu.id),
  });
  expect(granted.statusCode, granted.body).toBe(200);
  if (buttons.length === 0) return;
  const pressed = await post('/api/admin/sysmenu/authorizeMenuButtonToRole', { roleCode, buttons });
  expect(pressed.statusCode, pressed.body).toBe(200);
}
