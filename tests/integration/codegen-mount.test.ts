import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInTemplates, generateForward } from '../../generators/forward.js';
import { srcRootFrom, writeGenerated } from '../../generators/write.js';
import { entityInput, PROJECT_ROOT, TEMPLATES_DIR } from '../generators/support.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

/**
 * Issue 35: a generated module mounts through the module mechanism with no step but placing its
 * folder. Modules are generated (as `npm run gen:mount` does) into a package folder of a
 * MODULE_DIRS root: a tenant-less entity whose name has a digit before letters and a tree, both
 * bringing their schema, and an entity of schemas/. The app started on them adds each module's
 * menu with its per-action buttons, and the engine serves the brought entities' API.
 */
const SHAPES = join(PROJECT_ROOT, 'tests', 'generators', 'fixtures', 'shapes');
const shape = (name: string) => ({
  name,
  schema: JSON.parse(readFileSync(join(SHAPES, `${name}.schema.json`), 'utf8')) as unknown,
});

describe('a generated module placed in a module folder', () => {
  const root = join(PROJECT_ROOT, '.tmp', `mount-${randomBytes(4).toString('hex')}`);
  let t: TestApp;
  const dataOf = <T>(response: LightMyRequestResponse): T => (response.json() as { data: T }).data;
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: Record<string, unknown>) =>
    t.request({
      method,
      url,
      headers: { ...t.auth, 'accept-language': 'en' },
      ...(payload ? { payload } : {}),
    });

  beforeAll(async () => {
    mkdirSync(root, { recursive: true });
    const files = await generateForward(
      {
        serviceName: 'gen',
        packageName: 'gen',
        srcRoot: srcRootFrom(root, 'gen', PROJECT_ROOT),
        entities: [shape('yudaodemo01contact'), shape('category'), entityInput('sysregion')],
        bringSchemas: ['yudaodemo01contact', 'category'],
      },
      builtInTemplates(TEMPLATES_DIR),
    );
    expect(writeGenerated(root, files).every((entry) => entry.outcome === 'new')).toBe(true);
    t = await startTestApp({ env: { MODULE_DIRS: relative(PROJECT_ROOT, root) } });
  }, 300_000);

  afterAll(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('brings the schema of an entity schemas/ does not have, and only then', () => {
    expect(
      existsSync(join(root, 'gen', 'yudaodemo01contact', 'schemas', 'yudaodemo01contact.schema.json')),
    ).toBe(true);
    expect(existsSync(join(root, 'gen', 'sysregion', 'schemas'))).toBe(false);
  });

  it('adds each module menu at start, with its page and a button per action', async () => {
    const menus = await t.sql<{ menu_code: string; menu_component: string; menu_button: unknown }>(
      `select menu_code, menu_component, menu_button from sys_menu where menu_code like 'gen\\_%' order by menu_code`,
    );
    expect(menus.map((menu) => [menu.menu_code, menu.menu_component])).toEqual([
      ['gen_category', 'gen/category'],
      ['gen_sysregion', 'gen/sysregion'],
      ['gen_yudaodemo01contact', 'gen/yudaodemo01contact'],
    ]);
    for (const menu of menus) expect(menu.menu_button).toEqual(['add', 'update', 'delete', 'export']);
  });

  it('the engine serves a brought tenant-less entity: add, list, change, delete', async () => {
    const base = '/api/yudao/demo01contact';
    const added = await call('POST', `${base}/add`, { name: '张三', sex: 1 });
    expect(added.statusCode, added.body).toBe(200);
    const record = dataOf<{ id: number; version: number }>(added);
    const listed = await call('GET', `${base}/query?currentPage=1&pageSize=10`);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(dataOf<{ records: { name: string }[] }>(listed).records.map((row) => row.name)).toEqual(['张三']);
    const changed = await call('PUT', `${base}/update`, {
      id: record.id,
      version: record.version,
      name: '李四',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const refused = await call('POST', `${base}/add`, { sex: 1 });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('name');
    const deleted = await call('POST', `${base}/delete?id=${record.id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await t.sql('select id from yudao_demo01_contact')).toEqual([]);
  });
  it("grants a role the module's calls through its menu and buttons, as every other page's (no menu.sql)", async () => {
    const [menu] = await t.sql<{ id: number }>(`select id from sys_menu where menu_code = 'gen_category'`);
    const admin = (url: string, payload: Record<string, unknown>) =>
      t.request({ method: 'POST', url, headers: t.auth, payload });
    const role = await admin('/api/admin/sysrole/add', { roleCode: 'ROLE_GEN_CLERK', roleName: 'clerk' });
    expect(role.statusCode, role.body).toBe(200);
    const roleId = dataOf<{ id: number }>(role).id;
    const menus = await admin('/api/admin/sysmenu/authorizeMenuToRole', { roleId, menuIds: [menu?.id] });
    expect(menus.statusCode, menus.body).toBe(200);
    // No URL row of the module exists: the grant is the menu's.
    expect(await t.sql(`select url from sys_url where url like '/api/shop/%'`)).toEqual([]);
    const { token } = await createUserWithRole(t, 'genclerk', 'ROLE_GEN_CLERK');
    const as = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
      t.request({
        method,
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(payload ? { payload } : {}),
      });
    // A tenant's entity (a tenant-less one's writes are the platform administrator's).
    const base = '/api/shop/category';
    expect((await as('GET', `${base}/query?currentPage=1&pageSize=5`)).statusCode).toBe(200);
    // Without its button, the menu's add is refused; with it, granted.
    expect((await as('POST', `${base}/add`, { categoryName: '五金', parentId: 0 })).statusCode).toBe(403);
    const buttons = await admin('/api/admin/sysmenu/authorizeMenuButtonToRole', {
      roleCode: 'ROLE_GEN_CLERK',
      buttons: ['gen_category:add'],
    });
    expect(buttons.statusCode, buttons.body).toBe(200);
    const added = await as('POST', `${base}/add`, { categoryName: '五金', parentId: 0 });
    expect(added.statusCode, added.body).toBe(200);
    expect((await as('POST', `${base}/delete?id=${dataOf<{ id: number }>(added).id}`)).statusCode).toBe(403);
  });
});
