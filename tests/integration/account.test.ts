import { PERSONAL_OFFICE_MENUS } from '../../src/server/features/workflow/menus.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_CLIENT, startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

interface MenuNode {
  id: number;
  menuCode: string;
  menuPath: string;
  children?: MenuNode[];
}

const codes = (nodes: MenuNode[]): string[] =>
  nodes.flatMap((node) => [node.menuCode, ...codes(node.children ?? [])]);

const createUser = (username: string, roleCode: string) => createUserWithRole(t, username, roleCode);

describe('queryCurrentAuthority', () => {
  it('gives ROLE_ADMIN every enabled menu, its paths and its buttons', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/queryCurrentAuthority',
      headers: t.auth,
    });
    expect(response.statusCode).toBe(200);
    const data = response.json().data as {
      roles: string[];
      menus: MenuNode[];
      menu: string[];
      buttons: Record<string, string[]>;
    };
    expect(data.roles).toEqual(['ROLE_ADMIN']);
    expect(codes(data.menus)).toEqual(
      expect.arrayContaining(['workbench', 'sysuser', 'sysregion', 'datapermission']),
    );
    expect(data.menu).toEqual(expect.arrayContaining(['/workbench', '/sysuser']));
    expect(data.buttons.sysuser).toEqual(expect.arrayContaining(['add', 'update', 'delete', 'export']));
  });

  it('narrows the tree to one top-level menu with parentId, and refuses a bad one', async () => {
    const all = (
      await t.request({
        method: 'POST',
        url: '/api/account/sysuserdetail/queryCurrentAuthority',
        headers: t.auth,
      })
    ).json().data.menus as MenuNode[];
    const system = all.find((node) => node.menuCode === 'admin');
    expect(system).toBeDefined();
    const narrowed = await t.request({
      method: 'POST',
      url: `/api/account/sysuserdetail/queryCurrentAuthority?parentId=${system?.id}`,
      headers: t.auth,
    });
    expect((narrowed.json().data.menus as MenuNode[]).map((node) => node.menuCode)).toEqual(['admin']);
    const bad = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/queryCurrentAuthority?parentId=abc',
      headers: t.auth,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('/parentId');
  });

  it('gives another role only the menus granted to it, with their ancestors', async () => {
    const { token } = await createUser('buyer1', 'ROLE_SYS_BUYER');
    const headers = { authorization: `Bearer ${token}` };
    const none = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/queryCurrentAuthority',
      headers,
    });
    expect(none.json().data.menus).toEqual([]);

    const [role] = await t.sql<{ id: number }>("select id from sys_role where role_code = 'ROLE_SYS_BUYER'");
    const [menu] = await t.sql<{ id: number }>("select id from sys_menu where menu_code = 'sysuser'");
    await t.sql("insert into sys_role_menu (tenant_code, role_id, menu_id) values ('default', $1, $2)", [
      role?.id,
      menu?.id,
    ]);
    await t.sql(
      "insert into sys_role_button (tenant_code, role_id, menu_id, button) values ('default', $1, $2, 'export')",
      [role?.id, menu?.id],
    );
    const granted = (
      await t.request({ method: 'POST', url: '/api/account/sysuserdetail/queryCurrentAuthority', headers })
    ).json().data;
    // besides the personal office, which every back-office role has (issue 13)
    const office = (code: string): boolean => PERSONAL_OFFICE_MENUS.includes(code);
    expect(codes(granted.menus).filter((code: string) => !office(code))).toEqual(['admin', 'sysuser']);
    expect(Object.fromEntries(Object.entries(granted.buttons).filter(([code]) => !office(code)))).toEqual({
      sysuser: ['export'],
    });
  });
});

describe('updatePassword', () => {
  it('checks the current password and the new one against the user schema', async () => {
    const { id, token } = await createUser('changer', 'ROLE_SYS_SUPPLIER');
    const headers = { authorization: `Bearer ${token}` };
    const wrong = await t.request({
      method: 'PUT',
      url: `/api/account/sysuserdetail/updatePassword?password=nope-nope&newPassword=secret-2&id=${id}`,
      headers,
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors).toEqual([{ field: '/password', message: '原密码不正确' }]);
    const short = await t.request({
      method: 'PUT',
      url: `/api/account/sysuserdetail/updatePassword?password=secret-1&newPassword=123&id=${id}`,
      headers,
    });
    expect(short.statusCode).toBe(400);
    expect(short.json().errors[0].field).toBe('/newPassword');
    const otherUser = await t.request({
      method: 'PUT',
      url: '/api/account/sysuserdetail/updatePassword?password=secret-1&newPassword=secret-2&id=1',
      headers,
    });
    expect(otherUser.statusCode).toBe(403);
    expect((await t.signIn('changer', 'secret-1')).statusCode).toBe(200);
  });

  it('changes the password, ends every session of the user, its own too, and answers a fresh one', async () => {
    const { id, token } = await createUser('mover', 'ROLE_SYS_SUPPLIER');
    const other = (await t.signIn('mover', 'secret-1')).json().access_token as string;
    const headers = { authorization: `Bearer ${token}` };
    const changed = await t.request({
      method: 'PUT',
      url: `/api/account/sysuserdetail/updatePassword?password=secret-1&newPassword=secret-2&id=${id}`,
      headers,
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers['cache-control']).toBe('no-store');
    const renewed = changed.json().data as {
      access_token: string;
      refresh_token: string;
      token_type: string;
    };
    expect(renewed).toMatchObject({ token_type: 'bearer', expires_in: expect.any(Number) });
    expect(renewed.access_token).not.toBe(token);
    expect((await t.signIn('mover', 'secret-1')).statusCode).toBe(400);
    expect((await t.signIn('mover', 'secret-2')).statusCode).toBe(200);
    const roleInfo = (bearer: string) =>
      t.request({
        method: 'POST',
        url: '/api/account/sysuserdetail/queryRoleInfo',
        headers: { authorization: `Bearer ${bearer}` },
      });
    // the page that made the change goes on with the fresh token, in the roles it had
    const stillIn = await roleInfo(renewed.access_token);
    expect(stillIn.statusCode).toBe(200);
    expect(stillIn.json().data.roles).toEqual(['ROLE_SYS_SUPPLIER']);
    // the token it changed the password with is over, as every other session of the user
    expect((await roleInfo(token)).statusCode).toBe(401);
    expect((await roleInfo(other)).statusCode).toBe(401);
    // the fresh session's refresh token works once, like any sign-in's
    const refreshed = await t.request({
      method: 'POST',
      url: '/api/uaa/oauth/token',
      headers: { authorization: BROWSER_CLIENT, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: renewed.refresh_token,
      }).toString(),
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
  });
});
