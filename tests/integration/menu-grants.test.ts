import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editorMenus } from '../../src/server/features/demo/seed.js';
import { grantedCallsOf, menuCallsOf } from '../../src/server/features/rbac/permissions/menu-calls.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

/**
 * Issue 39 point 1: granting a menu to a role grants what the menu's screens call (menu-calls.ts),
 * with writes only behind the matching button; a role given only menus and buttons can use every
 * screen of its menus, and the seeded 编辑 (ROLE_EDITOR) every screen but 权限管理.
 */

interface MenuNode {
  id: number;
  menuCode: string;
  menuComponent?: string;
  menuPath?: string;
  children?: MenuNode[];
}
interface Authority {
  menus: MenuNode[];
  buttons: Record<string, string[]>;
}

let t: TestApp;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const post = (url: string, payload: unknown) =>
  t.request({ method: 'POST', url, headers: t.auth, payload: payload as Record<string, unknown> });

async function addRole(code: string): Promise<number> {
  const added = await post('/api/admin/sysrole/add', { roleCode: code, roleName: code });
  expect(added.statusCode, added.body).toBe(200);
  return added.json().data.id as number;
}

/** Grants menus and buttons (menuCode:button) to a role through the role screen's calls. */
async function grant(roleId: number, roleCode: string, menuIds: number[], buttons: string[]): Promise<void> {
  const menus = await post('/api/admin/sysmenu/authorizeMenuToRole', { roleId, menuIds });
  expect(menus.statusCode, menus.body).toBe(200);
  if (buttons.length === 0) return;
  const granted = await post('/api/admin/sysmenu/authorizeMenuButtonToRole', { roleCode, buttons });
  expect(granted.statusCode, granted.body).toBe(200);
}

const flatten = (nodes: MenuNode[]): MenuNode[] =>
  nodes.flatMap((node) => [node, ...flatten(node.children ?? [])]);

async function authorityOf(token: string): Promise<Authority> {
  const response = await t.request({
    method: 'POST',
    url: '/api/account/sysuserdetail/queryCurrentAuthority',
    headers: bearer(token),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as Authority;
}

/**
 * Calls every call of every menu of the caller (as the menu's screens would, with empty input)
 * and returns those answered 403: none is expected.
 */
async function refusedCalls(token: string): Promise<string[]> {
  const authority = await authorityOf(token);
  const entityNamed = (name: string) => t.app.ctx.registry.get(name);
  const refused: string[] = [];
  const seen = new Set<string>();
  let called = 0;
  for (const menu of flatten(authority.menus)) {
    const calls = menuCallsOf(menu.menuComponent ?? '', entityNamed);
    expect(calls, `menu ${menu.menuCode} (${menu.menuComponent}) has no known screen`).toBeDefined();
    const buttons = new Set(authority.buttons[menu.menuCode] ?? []);
    for (const call of grantedCallsOf(calls ?? { read: [] }, buttons)) {
      // a call several screens make is made once
      if (seen.has(call)) continue;
      seen.add(call);
      const [method = 'GET', pattern = ''] = call.split(' ');
      // a pattern of a whole area (网盘): its listing stands for it
      const url = pattern.replace(/\/\*\*$/, '/list').replace(/\/\*(?=\/|$)/g, '/x');
      const response = await t.request({
        method: method as 'GET',
        url,
        headers: bearer(token),
        ...(method === 'GET' ? {} : { payload: {} }),
      });
      called += 1;
      if (response.statusCode === 403) refused.push(`${menu.menuCode}: ${call} → ${response.body}`);
    }
  }
  expect(called).toBeGreaterThan(0);
  return refused;
}

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('a role given only menus and buttons', () => {
  let staffToken: string;
  let menuRows: { id: number; code: string; parent: number; buttons: string[] }[];

  beforeAll(async () => {
    const rows = await t.sql<{ id: number; code: string; parent: number; buttons: unknown }>(
      "select id, menu_code as code, menu_parent as parent, menu_button as buttons from sys_menu where tenant_code = 'default'",
    );
    menuRows = rows.map((row) => ({
      id: Number(row.id),
      code: row.code,
      parent: Number(row.parent),
      buttons: Array.isArray(row.buttons) ? row.buttons.map(String) : [],
    }));
    // every menu but 权限管理, with every button: what an administrator building a staff role does
    const menus = editorMenus(menuRows);
    const roleId = await addRole('ROLE_STAFF_ALL');
    await grant(
      roleId,
      'ROLE_STAFF_ALL',
      menus.map((menu) => menu.id),
      menus.flatMap((menu) => menu.buttons.map((button) => `${menu.code}:${button}`)),
    );
    staffToken = (await createUserWithRole(t, 'staffall', 'ROLE_STAFF_ALL')).token;
  });

  it('can call every call of every screen of its menus (no 403)', async () => {
    const authority = await authorityOf(staffToken);
    const codes = flatten(authority.menus).map((menu) => menu.menuCode);
    expect(codes).toEqual(
      expect.arrayContaining(['sysuser', 'sysorg', 'model', 'netdisc', 'elk', 'onlinesysuser']),
    );
    // the platform's pages are not a tenant role's, whatever it is granted
    expect(codes).not.toEqual(expect.arrayContaining(['systenant']));
    expect(codes).not.toContain('flowcontrol');
    expect(await refusedCalls(staffToken)).toEqual([]);
  }, 240_000);

  it("is not shown the writes of shared (platform-wide) entities, which are the platform administrator's", async () => {
    const authority = await authorityOf(staffToken);
    expect(authority.buttons.sysdict ?? []).toEqual(['export']);
    expect(authority.buttons.sysuser).toEqual(expect.arrayContaining(['add', 'update', 'delete', 'export']));
  });

  it('gets the 工作台 figures and the 网盘 quota its menus call', async () => {
    for (const url of [
      '/api/admin/sysuser/query?currentPage=1&pageSize=1',
      '/api/admin/sysuser/querySignInsPerDay?days=14&utcOffset=480',
      '/api/admin/sysorg/query?currentPage=1&pageSize=1',
      '/api/file/netdisc/quota',
    ]) {
      const response = await t.request({ method: 'GET', url, headers: bearer(staffToken) });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 200 });
    }
  });

  it('is refused what its menus do not call: 权限管理, role assignment, the platform', async () => {
    for (const [method, url] of [
      ['POST', '/api/admin/sysrole/add'],
      ['GET', '/api/admin/sysurl/query'],
      ['GET', '/api/admin/sysmenu/queryMenuButtonByRoleCode?roleCode=ROLE_ADMIN'],
      ['POST', '/api/admin/sysrole/authorizeRoleToUser'],
      ['POST', '/api/admin/sysmenu/authorizeMenuToRole'],
      ['GET', '/api/admin/systenant/query'],
      ['GET', '/api/monitor/config'],
    ] as const) {
      const response = await t.request({
        method,
        url,
        headers: bearer(staffToken),
        ...(method === 'POST' ? { payload: {} } : {}),
      });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 403 });
    }
  });

  it('writes only with the matching button', async () => {
    const sysuser = menuRows.find((menu) => menu.code === 'sysuser');
    const roleId = await addRole('ROLE_USER_READER');
    await grant(roleId, 'ROLE_USER_READER', [sysuser?.id ?? 0], ['sysuser:export']);
    const { token } = await createUserWithRole(t, 'userreader', 'ROLE_USER_READER');
    const call = (method: 'GET' | 'POST' | 'PUT', url: string) =>
      t.request({ method, url, headers: bearer(token), ...(method === 'GET' ? {} : { payload: {} }) });
    expect((await call('GET', '/api/admin/sysuser/query')).statusCode).toBe(200);
    expect((await call('POST', '/api/admin/sysuser/export')).statusCode).toBe(200);
    // the list page's referenced organisations are read with it
    expect((await call('GET', '/api/admin/sysorg/querySysOrgTree')).statusCode).toBe(200);
    for (const [method, url] of [
      ['POST', '/api/admin/sysuser/add'],
      ['PUT', '/api/admin/sysuser/update'],
      ['POST', '/api/admin/sysuser/delete?id=1'],
      ['POST', '/api/admin/sysuser/import'],
      ['POST', '/api/admin/sysorg/add'],
      ['GET', '/api/admin/sysuser/queryOnlineSysUser'],
    ] as const) {
      expect({ url, status: (await call(method, url)).statusCode }).toEqual({ url, status: 403 });
    }
    // the menu's method matters: a read path is not a write
    expect((await call('POST', '/api/admin/sysuser/query')).statusCode).not.toBe(200);
  });

  it('does not show a menu whose screen this server does not know', async () => {
    const roleId = await addRole('ROLE_ODD');
    const added = await post('/api/admin/sysmenu/add', {
      menuCode: 'oddpage',
      menuName: 'odd',
      menuPath: '/oddpage',
      menuComponent: 'nowhere/oddpage',
      menuParent: 0,
      menuStatus: '1',
      menuSequence: 999,
    });
    expect(added.statusCode, added.body).toBe(200);
    const sysdict = menuRows.find((menu) => menu.code === 'sysdict');
    await grant(roleId, 'ROLE_ODD', [added.json().data.id as number, sysdict?.id ?? 0], []);
    const { token } = await createUserWithRole(t, 'oddone', 'ROLE_ODD');
    const codes = flatten((await authorityOf(token)).menus).map((menu) => menu.menuCode);
    expect(codes).toContain('sysdict');
    expect(codes).not.toContain('oddpage');
  });
});

describe('the seeded 编辑 (ROLE_EDITOR)', () => {
  it('sees every menu but 权限管理 and is refused none of their calls', async () => {
    const { token } = await createUserWithRole(t, 'editor1', 'ROLE_EDITOR');
    const codes = flatten((await authorityOf(token)).menus).map((menu) => menu.menuCode);
    expect(codes).toEqual(expect.arrayContaining(['workbench', 'sysuser', 'netdisc', 'model', 'chartline']));
    expect(codes).not.toContain('authority');
    expect(codes).not.toContain('sysrole');
    expect(codes).not.toContain('sysurl');
    expect(await refusedCalls(token)).toEqual([]);
  }, 240_000);
});
