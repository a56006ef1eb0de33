import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/server/features/demo/seed.js';
import { loadI18n } from '../../src/server/lib/i18n.js';
import { Api, body, data, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';

/** SPEC §7's development calls answered from the article entity and the real roles (issue 18), and SPEC §6's demo roles. */
interface Envelope<T> {
  code: number;
  data: T;
}
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
});
afterAll(async () => {
  await t?.close();
});

const names = (routes: Route[]): string[] =>
  routes.flatMap((route) => [route.name, ...names(route.children ?? [])]);

describe('article calls', () => {
  it('article/list pages the seeded articles in SPEC shape, filtered and sorted', async () => {
    const response = await api.get('/api/article/list', { page: '1', limit: '5', sort: '-id' });
    expect(response.statusCode, response.body).toBe(200);
    const answer = body<Envelope<{ total: number; items: Row[] }>>(response);
    expect(answer.code).toBe(200);
    expect(answer.data.total).toBe(30);
    expect(answer.data.items).toHaveLength(5);
    const ids = answer.data.items.map((item) => Number(item.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(Object.keys(answer.data.items[0] ?? {})).toEqual(
      expect.arrayContaining([
        'importance',
        'type',
        'status',
        'display_time',
        'content_short',
        'platforms',
        'timestamp',
      ]),
    );
    const ascending = data<{ items: Row[] }>(await api.get('/api/article/list', { limit: '3', sort: '+id' }));
    expect(Number(ascending.items[0]?.id)).toBeLessThan(Number(ascending.items[1]?.id));

    const filtered = data<{ total: number; items: Row[] }>(
      await api.get('/api/article/list', { importance: '3', type: 'JP', limit: '50' }),
    );
    expect(filtered.total).toBeGreaterThan(0);
    expect(filtered.items.every((item) => item.importance === 3 && item.type === 'JP')).toBe(true);
    const bad = await api.get('/api/article/list', { importance: '7' });
    expect(bad.statusCode).toBe(400);
  });

  it('article/create, update and detail change and read the entity; pv sums pageviews by platform', async () => {
    const created = await api.post('/api/article/create', {
      title: 'Mock created article',
      author: 'tester',
      importance: 2,
      type: 'US',
      status: 'draft',
      platforms: ['a-platform'],
      pageviews: 5,
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(data(created)).toBe('success');
    const listed = data<{ items: Row[] }>(await api.get('/api/article/list', { title: 'Mock created' }));
    const id = Number(listed.items[0]?.id);
    const record = await api.records(t.app.ctx.registry.require('article'), { title: 'Mock created' });
    const updated = await api.post('/api/article/update', {
      id,
      version: record[0]?.version,
      status: 'published',
      title: 'Mock created article',
      author: 'tester',
      importance: 2,
      type: 'US',
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const detail = data<Row>(await api.get('/api/article/detail', { id: String(id) }));
    expect(detail).toMatchObject({ id, status: 'published', type: 'US' });
    const refused = await api.post('/api/article/create', {
      title: 'No author',
      importance: 1,
      type: 'US',
      status: 'draft',
    });
    expect(refused.statusCode).toBe(400);

    const pv = data<{ pvData: { key: string; pv: number }[] }>(await api.get('/api/article/pv'));
    const [sum] = await t.sql<{ pv: number }>(
      `select sum(pageviews)::int as pv from demo_article where platforms @> '["a-platform"]'::jsonb`,
    );
    expect(pv.pvData.find((item) => item.key === 'a-platform')?.pv).toBe(sum?.pv);
  });
});

describe('vue-element-admin calls and demo roles', () => {
  it('routes come from the menus; roles list the seeded demo roles with SPEC §6 visibility', async () => {
    const routes = data<Route[]>(await api.get('/api/vue-element-admin/routes'));
    expect(names(routes)).toEqual(expect.arrayContaining(['workbench', 'authority', 'article']));
    const roles = data<{ key: string; name: string; routes: Route[] }[]>(
      await api.get('/api/vue-element-admin/roles'),
    );
    const editor = roles.find((role) => role.key === 'ROLE_EDITOR');
    const visitor = roles.find((role) => role.key === 'ROLE_VISITOR');
    expect(editor?.name).toBe('编辑');
    expect(names(editor?.routes ?? [])).not.toContain('authority');
    expect(names(editor?.routes ?? [])).not.toContain('datapermission');
    expect(names(editor?.routes ?? [])).toEqual(expect.arrayContaining(['workbench', 'article', 'sysuser']));
    expect(names(visitor?.routes ?? [])).toEqual(['workbench']);

    const created = await api.post('/api/vue-element-admin/role', { key: 'ROLE_MOCKED', name: 'Mocked' });
    expect(created.statusCode, created.body).toBe(200);
    expect(data(created)).toEqual({ key: 'ROLE_MOCKED' });
  });

  it('a user of the editor role gets every menu except 权限管理 and may call the article API; a visitor gets the workbench', async () => {
    const registry = t.app.ctx.registry;
    const roles = await api.records(registry.require('sysrole'));
    const orgs = await api.records(registry.require('sysorg'));
    for (const [username, code] of [
      ['demoeditor', 'ROLE_EDITOR'],
      ['demovisitor', 'ROLE_VISITOR'],
    ] as const) {
      const added = await api.add(registry.require('sysuser'), {
        username,
        nickname: username,
        password: 'demo-pass-123',
        email: `${username}@example.com`,
        countryCode: '+86',
        mobile: username === 'demoeditor' ? '13900000011' : '13900000012',
        phone: '010-1',
        status: '1',
        roleId: roles.find((role) => role.roleCode === code)?.id,
        orgId: orgs[0]?.id,
      });
      expect(added.statusCode, added.body).toBe(200);
    }
    const menusOf = async (username: string): Promise<{ token: string; codes: string[] }> => {
      const signed = await t.signIn(username, 'demo-pass-123');
      expect(signed.statusCode, signed.body).toBe(200);
      const token = (signed.json() as { access_token: string }).access_token;
      const authority = await t.request({
        method: 'POST',
        url: '/api/account/sysuserdetail/queryCurrentAuthority',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(authority.statusCode, authority.body).toBe(200);
      const found: string[] = [];
      JSON.stringify(authority.json(), (key, value: unknown) => {
        if (key === 'menuCode' && typeof value === 'string') found.push(value);
        return value;
      });
      return { token, codes: found };
    };
    const editor = await menusOf('demoeditor');
    expect(editor.codes).toEqual(expect.arrayContaining(['workbench', 'article', 'sysuser']));
    expect(editor.codes).not.toContain('authority');
    // the component demos (组件示例) are the editor's too, not the visitor's
    expect(editor.codes).toEqual(
      expect.arrayContaining(['demo', 'democomponents', 'demoguide', 'demoerrorlog']),
    );
    const list = await t.request({
      method: 'GET',
      url: '/api/article/list?limit=2',
      headers: { authorization: `Bearer ${editor.token}` },
    });
    expect(list.statusCode, list.body).toBe(200);
    const visitor = await menusOf('demovisitor');
    expect(visitor.codes).toEqual(['workbench']);
    const refused = await t.request({
      method: 'GET',
      url: '/api/article/list',
      headers: { authorization: `Bearer ${visitor.token}` },
    });
    expect(refused.statusCode).toBe(403);
  });
});

describe('component demo menus', () => {
  it('a demo menu missing at a start is added again and granted to the existing editor role', async () => {
    const db = t.app.ctx.db;
    const grantedToEditor = async (): Promise<number> =>
      (
        await sql<{ n: number }>`select count(*)::int as n from sys_role_menu rm
          join sys_role r on r.id = rm.role_id join sys_menu m on m.id = rm.menu_id
          where r.role_code = 'ROLE_EDITOR' and m.menu_code = 'demoicons'`.execute(db)
      ).rows[0]?.n ?? 0;
    expect(await grantedToEditor()).toBe(1);
    await sql`delete from sys_role_menu where menu_id in (select id from sys_menu where menu_code = 'demoicons')`.execute(
      db,
    );
    await sql`delete from sys_menu where menu_code = 'demoicons'`.execute(db);
    await seedDemo(t.app.ctx, loadI18n(t.app.ctx.config.localesDir));
    const menus = await sql<{
      path: string;
      parent: string;
    }>`select m.menu_path as path, p.menu_code as parent
      from sys_menu m join sys_menu p on p.id = m.menu_parent where m.menu_code = 'demoicons'`.execute(db);
    expect(menus.rows).toEqual([{ path: '/icon', parent: 'demo' }]);
    expect(await grantedToEditor()).toBe(1);
    const visitor = await sql<{ n: number }>`select count(*)::int as n from sys_role_menu rm
      join sys_role r on r.id = rm.role_id where r.role_code = 'ROLE_VISITOR'`.execute(db);
    expect(visitor.rows[0]?.n).toBe(1);
  });
});
