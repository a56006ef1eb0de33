import { describe, expect, it } from 'vitest';
import { findPage, pathMatches, type AppRoute } from '../../src/admin/lib/menus.js';

/** Route paths with parameters (the template's /example/edit/:id(\d+), SPEC §2.3). */
describe('route paths with parameters', () => {
  it(':id(\\d+) takes digits only; :name one segment; plain paths match exactly', () => {
    expect(pathMatches('/example/edit/:id(\\d+)', '/example/edit/42')).toBe(true);
    expect(pathMatches('/example/edit/:id(\\d+)', '/example/edit/abc')).toBe(false);
    expect(pathMatches('/example/edit/:id(\\d+)', '/example/edit/4a')).toBe(false);
    expect(pathMatches('/example/edit/:id(\\d+)', '/example/edit/')).toBe(false);
    expect(pathMatches('/example/edit/:id(\\d+)', '/example/edit/1/2')).toBe(false);
    expect(pathMatches('/user/:name', '/user/anna')).toBe(true);
    expect(pathMatches('/user/:name([a-z]+)', '/user/anna')).toBe(false);
    expect(pathMatches('/example/list', '/example/list')).toBe(true);
    expect(pathMatches('/example/list', '/example/list/1')).toBe(false);
  });

  it('findPage resolves a parameter route to its page', () => {
    const page = (code: string, path: string, hidden = false): AppRoute => ({
      code,
      path,
      name: code,
      icon: undefined,
      component: `demo/${code}`,
      meta: hidden ? { hidden } : {},
      buttons: [],
      children: [],
    });
    const routes: AppRoute[] = [
      {
        ...page('example', '/example'),
        component: 'layout',
        children: [page('list', '/example/list'), page('edit', '/example/edit/:id(\\d+)', true)],
      },
    ];
    expect(findPage(routes, '/example/edit/7')?.code).toBe('edit');
    expect(findPage(routes, '/example/edit/x')).toBeUndefined();
  });
});
