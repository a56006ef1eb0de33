import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, data, errorFields } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Issue 18 part B: SPEC §7's PUT and DELETE vue-element-admin/role/{key} on the real roles, and
 * the template demo menus (SPEC §2.3: examples, tables, nested menus, excel, zip, pdf, tab) with
 * SPEC §6's visibility for the demo editor and visitor.
 */
interface Route {
  path: string;
  name: string;
  meta: { title: string };
  children?: Route[];
}

let t: TestApp;
let api: Api;
beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t);
  // a demo editor and a demo visitor to sign in as
  const registry = t.app.ctx.registry;
  const roles = await api.records(registry.require('sysrole'));
  const orgs = await api.records(registry.require('sysorg'));
  for (const [username, code, mobile] of [
    ['demoeditor', 'ROLE_EDITOR', '13900000021'],
    ['demovisitor', 'ROLE_VISITOR', '13900000022'],
  ] as const) {
    const added = await api.add(registry.require('sysuser'), {
      username,
      nickname: username,
      password: 'demo-pass-123',
      email: `${username}@example.com`,
      countryCode: '+86',
      mobile,
      phone: '010-1',
      status: '1',
      roleId: roles.find((role) => role.roleCode === code)?.id,
      orgId: orgs[0]?.id,
    });
    expect(added.statusCode, added.body).toBe(200);
  }
});
afterAll(async () => {
  await t?.close();
});

const names = (routes: Route[]): string[] =>
  routes.flatMap((route) => [route.name, ...names(route.children ?? [])]);

describe('vue-element-admin role/{key}: PUT and DELETE on the real roles', () => {
  interface TemplateRole {
    key: string;
    name: string;
    description: string | null;
    routes: Route[];
  }
  const rolesNow = async (): Promise<TemplateRole[]> =>
    data<TemplateRole[]>(await api.get('/api/vue-element-admin/roles'));

  it('PUT renames the role and makes the given routes its menu grants; bad input is a 4xx naming the field', async () => {
    const created = await api.post('/api/vue-element-admin/role', {
      key: 'ROLE_PUT_DEMO',
      name: 'Before',
      description: 'first',
    });
    expect(created.statusCode, created.body).toBe(200);
    const routes = data<Route[]>(await api.get('/api/vue-element-admin/routes'));
    const workbench = routes.find((route) => route.name === 'workbench');
    const file = routes.find((route) => route.name === 'file');
    expect(workbench && file).toBeTruthy();
    const updated = await api.put('/api/vue-element-admin/role/ROLE_PUT_DEMO', {
      key: 'ROLE_PUT_DEMO',
      name: 'After',
      description: 'second',
      routes: [workbench, file],
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(data(updated)).toEqual({ status: 'success' });
    const role = (await rolesNow()).find((item) => item.key === 'ROLE_PUT_DEMO');
    expect(role).toMatchObject({ name: 'After', description: 'second' });
    expect(names(role?.routes ?? []).sort()).toEqual(names([workbench as Route, file as Route]).sort());
    const [row] = await t.sql<{ role_name: string }>(
      `select role_name from sys_role where role_code = 'ROLE_PUT_DEMO'`,
    );
    expect(row?.role_name).toBe('After');

    // routes left out: the grants stay; an empty list takes them all away
    expect((await api.put('/api/vue-element-admin/role/ROLE_PUT_DEMO', { name: 'Again' })).statusCode).toBe(
      200,
    );
    expect(names((await rolesNow()).find((item) => item.key === 'ROLE_PUT_DEMO')?.routes ?? [])).toContain(
      'workbench',
    );
    expect(
      (await api.put('/api/vue-element-admin/role/ROLE_PUT_DEMO', { name: 'Again', routes: [] })).statusCode,
    ).toBe(200);
    expect((await rolesNow()).find((item) => item.key === 'ROLE_PUT_DEMO')?.routes).toEqual([]);

    const unknownMenu = await api.put('/api/vue-element-admin/role/ROLE_PUT_DEMO', {
      name: 'Never',
      routes: [{ path: '/nowhere', name: 'no-such-menu' }],
    });
    expect(unknownMenu.statusCode).toBe(400);
    expect(errorFields(unknownMenu)).toEqual(['/routes']);
    expect((await rolesNow()).find((item) => item.key === 'ROLE_PUT_DEMO')?.name).toBe('Again');
    const renamedKey = await api.put('/api/vue-element-admin/role/ROLE_PUT_DEMO', { key: 'ROLE_OTHER' });
    expect(renamedKey.statusCode).toBe(400);
    expect(errorFields(renamedKey)).toEqual(['/key']);
    const emptyName = await api.put('/api/vue-element-admin/role/ROLE_PUT_DEMO', { name: '' });
    expect(emptyName.statusCode).toBe(400);
    const missing = await api.put('/api/vue-element-admin/role/ROLE_NO_SUCH', { name: 'x' });
    expect(missing.statusCode).toBe(404);
  });

  it('PUT is one transaction: a failure while the grants are written leaves the name and the grants as they were', async () => {
    expect(
      (await api.post('/api/vue-element-admin/role', { key: 'ROLE_PUT_ATOMIC', name: 'Kept' })).statusCode,
    ).toBe(200);
    const routes = data<Route[]>(await api.get('/api/vue-element-admin/routes'));
    const workbench = routes.find((route) => route.name === 'workbench') as Route;
    const file = routes.find((route) => route.name === 'file') as Route;
    expect(
      (await api.put('/api/vue-element-admin/role/ROLE_PUT_ATOMIC', { routes: [workbench] })).statusCode,
    ).toBe(200);
    const [role] = await t.sql<{ id: number; version: number }>(
      `select id, version from sys_role where role_code = 'ROLE_PUT_ATOMIC'`,
    );
    // The database refuses the new grants of this role: the rename before them must be undone too.
    await t.sql(`create function test_refuse_grant() returns trigger language plpgsql as $$
      begin raise exception 'grant refused by the test'; end $$`);
    await t.sql(`create trigger test_refuse_grant before insert on sys_role_menu for each row
      when (new.role_id = ${Number(role?.id)}) execute function test_refuse_grant()`);
    try {
      // (t.request: the Api helper refuses any 5xx, and here the database fails on purpose)
      const failed = await t.request({
        method: 'PUT',
        url: '/api/vue-element-admin/role/ROLE_PUT_ATOMIC',
        headers: t.auth,
        payload: { name: 'Changed', description: 'changed', routes: [workbench, file] },
      });
      expect(failed.statusCode).toBe(500);
    } finally {
      await t.sql('drop trigger test_refuse_grant on sys_role_menu');
      await t.sql('drop function test_refuse_grant()');
    }
    const after = (await rolesNow()).find((item) => item.key === 'ROLE_PUT_ATOMIC');
    expect(after).toMatchObject({ name: 'Kept', description: null });
    expect(names(after?.routes ?? [])).toEqual(names([workbench]));
    const [row] = await t.sql<{ role_name: string; version: number }>(
      `select role_name, version from sys_role where role_code = 'ROLE_PUT_ATOMIC'`,
    );
    expect(row).toEqual({ role_name: 'Kept', version: role?.version });
    // The same change goes through once the database accepts it.
    expect(
      (
        await api.put('/api/vue-element-admin/role/ROLE_PUT_ATOMIC', {
          name: 'Changed',
          routes: [workbench, file],
        })
      ).statusCode,
    ).toBe(200);
    const changed = (await rolesNow()).find((item) => item.key === 'ROLE_PUT_ATOMIC');
    expect(changed?.name).toBe('Changed');
    expect(names(changed?.routes ?? []).sort()).toEqual(names([workbench, file]).sort());
  });

  it('DELETE removes a role; a role a user holds is refused with 409; an unknown key is a 404', async () => {
    expect(
      (await api.post('/api/vue-element-admin/role', { key: 'ROLE_DELETE_DEMO', name: 'Doomed' })).statusCode,
    ).toBe(200);
    const removed = await api.call({ method: 'DELETE', url: '/api/vue-element-admin/role/ROLE_DELETE_DEMO' });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(data(removed)).toEqual({ status: 'success' });
    expect((await rolesNow()).map((role) => role.key)).not.toContain('ROLE_DELETE_DEMO');
    const [count] = await t.sql<{ n: number }>(
      `select count(*)::int as n from sys_role where role_code = 'ROLE_DELETE_DEMO'`,
    );
    expect(count?.n).toBe(0);

    const again = await api.call({ method: 'DELETE', url: '/api/vue-element-admin/role/ROLE_DELETE_DEMO' });
    expect(again.statusCode).toBe(404);
    // the administrator's role is held by admin
    const held = await api.call({ method: 'DELETE', url: '/api/vue-element-admin/role/ROLE_ADMIN' });
    expect(held.statusCode).toBe(409);
    expect((await rolesNow()).map((role) => role.key)).toContain('ROLE_ADMIN');
  });

  it('a visitor may not change roles', async () => {
    const visitor = await t.signIn('demovisitor', 'demo-pass-123');
    expect(visitor.statusCode, visitor.body).toBe(200);
    const token = (visitor.json() as { access_token: string }).access_token;
    const refused = await t.request({
      method: 'DELETE',
      url: '/api/vue-element-admin/role/ROLE_EDITOR',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(refused.statusCode).toBe(403);
  });
});

describe('demo menus (SPEC §2.3) and who sees them (SPEC §6)', () => {
  it('the demo pages hang under 组件示例 three levels deep; the editor sees them, the visitor does not; a missing one comes back on the next start, granted to the editor', async () => {
    const menus = await t.sql<{ id: number; code: string; parent: number; path: string }>(
      `select id, menu_code as code, menu_parent as parent, menu_path as path from sys_menu`,
    );
    const byCode = new Map(menus.map((menu) => [menu.code, menu]));
    const chain = (code: string): string[] => {
      const found: string[] = [];
      for (let menu = byCode.get(code); menu; menu = menus.find((item) => item.id === menu?.parent))
        found.unshift(menu.code);
      return found;
    };
    expect(chain('menu1-2-1')).toEqual(['demo', 'nested', 'menu1', 'menu1-2', 'menu1-2-1']);
    expect(chain('exampleedit')).toEqual(['demo', 'example', 'exampleedit']);
    expect(byCode.get('exampleedit')?.path).toBe('/example/edit/:id(\\d+)');
    for (const code of ['examplelist', 'examplecreate', 'dynamictable', 'dragtable', 'inlineedittable'])
      expect(byCode.has(code), code).toBe(true);
    for (const code of ['complextable', 'exportexcel', 'selectexcel', 'mergeheader', 'uploadexcel'])
      expect(byCode.has(code), code).toBe(true);
    for (const code of ['exportzip', 'pdfdemo', 'tabdemo', 'menu1-1', 'menu1-2-2', 'menu1-3', 'menu2'])
      expect(byCode.has(code), code).toBe(true);

    const codesOf = async (username: string): Promise<string[]> => {
      const signed = await t.signIn(username, 'demo-pass-123');
      expect(signed.statusCode, signed.body).toBe(200);
      const token = (signed.json() as { access_token: string }).access_token;
      const authority = await t.request({
        method: 'POST',
        url: '/api/account/sysuserdetail/queryCurrentAuthority',
        headers: { authorization: `Bearer ${token}` },
      });
      const found: string[] = [];
      JSON.stringify(authority.json(), (key, value: unknown) => {
        if (key === 'menuCode' && typeof value === 'string') found.push(value);
        return value;
      });
      return found;
    };
    expect(await codesOf('demoeditor')).toEqual(
      expect.arrayContaining(['demo', 'examplelist', 'exampleedit', 'menu1-2-1', 'exportzip', 'tabdemo']),
    );
    expect(await codesOf('demovisitor')).toEqual(['workbench']);

    // an installation seeded before a demo page existed: the next start adds it, for the editor too
    await t.sql(`delete from sys_menu where menu_code = 'tabdemo'`);
    const { seedDemo } = await import('../../src/server/features/demo/seed.js');
    const { loadI18n } = await import('../../src/server/lib/i18n.js');
    await seedDemo(t.app.ctx, loadI18n(t.app.ctx.config.localesDir));
    const [again] = await t.sql<{ n: number }>(
      `select count(*)::int as n from sys_menu where menu_code = 'tabdemo'`,
    );
    expect(again?.n).toBe(1);
    expect(await codesOf('demoeditor')).toContain('tabdemo');
    // nothing doubles on a later start
    const before = await t.sql<{ n: number }>(`select count(*)::int as n from sys_menu`);
    await seedDemo(t.app.ctx, loadI18n(t.app.ctx.config.localesDir));
    expect(await t.sql<{ n: number }>(`select count(*)::int as n from sys_menu`)).toEqual(before);
  });
});
