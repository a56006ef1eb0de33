import { describe, expect, it } from 'vitest';
import {
  activeMenuPath,
  breadcrumbs,
  canSee,
  entityOf,
  findPage,
  openGroups,
  sidebarTree,
  toRoutes,
} from '../../src/admin/lib/menus.js';
import type { MenuNode } from '../../src/engine/api-types.js';
import { createMenuSearch, pinyinOf, searchItems } from '../../src/admin/lib/search.js';
import { createI18n } from '../../src/web/i18n.js';

let nextId = 1;
function node(
  code: string,
  path: string,
  component: string,
  extra: Partial<MenuNode> = {},
  children: MenuNode[] = [],
): MenuNode {
  nextId += 1;
  return {
    id: nextId,
    menuCode: code,
    menuName: code,
    menuPath: path,
    menuComponent: component,
    menuStatus: '1',
    children,
    ...extra,
  };
}

const tree: MenuNode[] = [
  node('workbench', '/workbench', 'workbench', { menuSequence: 10, menuMeta: { affix: true } }),
  node('admin', '/system', 'layout', { menuSequence: 40, menuMeta: { alwaysShow: true } }, [
    node('sysuser', '/sysuser', 'entity/sysuser', { menuSequence: 10 }),
    node('sysrole', '/sysrole', 'entity/sysrole', { menuSequence: 20 }),
    node('sysregion', '/sysregion', 'entity/sysregion', { menuSequence: 5, menuStatus: '0' }),
    node('onlinesysuser', '/onlinesysuser', 'admin/onlinesysuser', {
      menuSequence: 30,
      menuMeta: { roles: ['ROLE_X'] },
    }),
  ]),
  node('oa', '/oa', 'layout', { menuSequence: 50 }, [
    node('myprocess', '/myprocess', 'oa/myprocess'),
    node('myprocessdetails', '/myprocessdetails', 'oa/myprocessdetails', {
      menuMeta: { hidden: true, activeMenu: '/myprocess' },
    }),
  ]),
  node('monitor', '/monitor', 'layout', { menuSequence: 60 }, [
    node('metrics', '/monitor/metrics', 'monitor/metrics'),
  ]),
  node('profile', '/profile/index', 'profile', { menuSequence: 70, menuMeta: { hidden: true } }),
];

const admin = toRoutes(tree, ['ROLE_ADMIN']);

describe('route table from the menu tree', () => {
  it('orders by sequence and drops disabled menus', () => {
    expect(admin.map((route) => route.code)).toEqual(['workbench', 'admin', 'oa', 'monitor', 'profile']);
    expect(admin[1]?.children.map((route) => route.code)).toEqual(['sysuser', 'sysrole', 'onlinesysuser']);
  });

  it('shows ROLE_ADMIN everything and others what their roles allow', () => {
    expect(canSee({ roles: ['ROLE_X'] }, ['ROLE_ADMIN'])).toBe(true);
    expect(canSee({ roles: ['ROLE_X'] }, ['ROLE_Y'])).toBe(false);
    expect(canSee({}, ['ROLE_Y'])).toBe(true);
    const buyer = toRoutes(tree, ['ROLE_SYS_BUYER']);
    expect(buyer[1]?.children.map((route) => route.code)).toEqual(['sysuser', 'sysrole']);
  });

  it('finds pages, entity screens and active menus', () => {
    expect(findPage(admin, '/sysuser')?.code).toBe('sysuser');
    expect(findPage(admin, '/system')).toBeUndefined();
    expect(findPage(admin, '/nowhere')).toBeUndefined();
    const sysuser = findPage(admin, '/sysuser');
    expect(sysuser && entityOf(sysuser)).toBe('sysuser');
    expect(activeMenuPath(admin, '/myprocessdetails')).toBe('/myprocess');
    expect(openGroups(admin, '/sysuser')).toEqual(['/system']);
  });

  it('builds the sidebar: hidden routes out, single-child groups collapsed unless alwaysShow', () => {
    const side = sidebarTree(admin);
    // oa has one visible child (the details page is hidden), so the child stands in for it.
    expect(side.map((route) => route.code)).toEqual(['workbench', 'admin', 'myprocess', 'metrics']);
    expect(side[1]?.children.map((route) => route.code)).toEqual(['sysuser', 'sysrole', 'onlinesysuser']);
  });
});

describe('breadcrumb (SPEC §2.4)', () => {
  it('puts the workbench first unless the page is the home', () => {
    expect(breadcrumbs(admin, '/sysuser')).toEqual([
      { code: 'workbench', path: '/workbench', isLink: true },
      { code: 'admin', path: '/system', isLink: false },
      { code: 'sysuser', path: '/sysuser', isLink: false },
    ]);
    expect(breadcrumbs(admin, '/workbench')).toEqual([
      { code: 'workbench', path: '/workbench', isLink: false },
    ]);
  });

  it('noRedirect items are not links', () => {
    const routes = toRoutes(
      [
        node('a', '/a', 'a', { menuMeta: { noRedirect: true } }, [node('b', '/b', 'b')]),
        node('c', '/c', 'c'),
      ],
      ['ROLE_ADMIN'],
    );
    expect(breadcrumbs(routes, '/a').map((crumb) => crumb.isLink)).toEqual([true, false]);
  });
});

describe('menu search (SPEC §2.4)', () => {
  const zh = createI18n('zh');
  const title = (route: { code: string; name: string }): string =>
    zh.t(`menus.${route.code}`, { defaultValue: route.name });
  const search = createMenuSearch(searchItems(admin, title, true));

  it('computes full pinyin and initials', () => {
    expect(pinyinOf('用户管理')).toEqual(['yonghuguanli', 'yhgl']);
  });

  it.each(['yonghu', 'yh', '用户', 'sysuser'])('"%s" finds 用户管理 first', (query) => {
    expect(search.search(query)[0]?.title).toBe('用户管理');
  });

  it('excludes hidden and untitled routes', () => {
    const items = searchItems(admin, title, true);
    expect(items.map((item) => item.code)).not.toContain('myprocessdetails');
    expect(items.map((item) => item.code)).not.toContain('profile');
    expect(searchItems(admin, () => '', true)).toEqual([]);
  });

  it('without pinyin (other languages or the setting off) pinyin does not match', () => {
    const plain = createMenuSearch(searchItems(admin, title, false));
    expect(plain.search('yonghu').map((item) => item.title)).not.toContain('用户管理');
    expect(plain.search('')).toEqual([]);
  });
});
