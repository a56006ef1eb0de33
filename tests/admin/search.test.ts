import { describe, expect, it } from 'vitest';
import { toRoutes } from '../../src/admin/lib/menus.js';
import { createMenuSearch, searchItems } from '../../src/admin/lib/search.js';
import type { MenuNode } from '../../src/engine/api-types.js';
import { createI18n } from '../../src/web/i18n.js';

let nextId = 1;
function node(code: string, path: string, component: string, children: MenuNode[] = []): MenuNode {
  nextId += 1;
  return {
    id: nextId,
    menuCode: code,
    menuName: code,
    menuPath: path,
    menuComponent: component,
    menuStatus: '1',
    menuSequence: nextId,
    children,
  };
}

// The seeded menus that "yonghu" used to bring up beside 用户管理.
const routes = toRoutes(
  [
    node('workbench', '/workbench', 'workbench'),
    node('admin', '/system', 'layout', [
      node('sysuser', '/sysuser', 'entity/sysuser'),
      node('appclient', '/appclient', 'entity/appclient'),
      node('onlinesysuser', '/onlinesysuser', 'admin/onlinesysuser'),
    ]),
  ],
  ['ROLE_ADMIN'],
);
const zh = createI18n('zh');
const title = (route: { code: string; name: string }): string =>
  zh.t(`menus.${route.code}`, { defaultValue: route.name });
const search = createMenuSearch(searchItems(routes, title, true));
const titles = (query: string): string[] => search.search(query).map((item) => item.title);

describe('menu search results (issue 19.8)', () => {
  it('say where each page is', () => {
    const [first] = search.search('用户管理');
    expect(first?.title).toBe('用户管理');
    expect(first?.trail).toEqual(['系统管理']);
    expect(search.search('工作台')[0]?.trail).toEqual([]);
  });

  it.each(['yonghu', 'yhgl', 'yh', '用户'])('"%s" lists 用户管理, not the loose fuzzy hits', (query) => {
    const found = titles(query);
    expect(found[0]).toBe('用户管理');
    expect(found).not.toContain('工作台');
    expect(found).not.toContain('应用客户端');
  });

  it('keeps fuzzy hits when nothing starts with the query', () => {
    expect(titles('guanli')).toContain('用户管理');
  });
});

describe('a query inside a title (issue 39 point 10)', () => {
  const logRoutes = toRoutes(
    [
      node('monitor', '/monitor', 'layout', [
        node('elk', '/elk', 'monitor/elk'),
        node('audit', '/monitor/audit', 'monitor/audit'),
      ]),
      node('demo', '/demo', 'layout', [node('demoerrorlog', '/demo/errorlog', 'demo/errorlog')]),
    ],
    ['ROLE_ADMIN'],
  );
  const logSearch = createMenuSearch(searchItems(logRoutes, title, true));

  it('日志 finds 日志检索 first, and 错误日志 and 审计日志 too', () => {
    const found = logSearch.search('日志').map((item) => item.title);
    expect(found[0]).toBe('日志检索');
    expect(found).toContain('错误日志');
    expect(found).toContain('审计日志');
  });
});
