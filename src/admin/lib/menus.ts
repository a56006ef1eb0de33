/**
 * The back-office route table, built from the server's menu tree (docs/product.md §2.3, §6): pure functions,
 * shared by the sidebar, breadcrumb, tags view, menu search and the page router.
 */
import type { MenuNode, RouteMeta } from '../../engine/api-types.js';
import { ADMIN_ROLE } from '../../engine/roles.js';

export interface AppRoute {
  code: string;
  /** Back-office path without the /admin base, e.g. /sysuser. */
  path: string;
  /** Server name of the menu, used when no translation exists. */
  name: string;
  icon: string | undefined;
  /** layout for a group, entity/<name> for a generated screen, else a page name. */
  component: string;
  meta: RouteMeta;
  buttons: string[];
  children: AppRoute[];
}

export const HOME_PATH = '/workbench';

function sequenceOf(node: MenuNode): number {
  return node.menuSequence ?? 0;
}

/** Whether a role list may see a route: ROLE_ADMIN all, others by meta.roles, none → everyone. */
export function canSee(meta: RouteMeta, roles: readonly string[]): boolean {
  if (roles.includes(ADMIN_ROLE)) return true;
  if (!meta.roles || meta.roles.length === 0) return true;
  return meta.roles.some((role) => roles.includes(role));
}

/** Enabled menus the roles may see, ordered by sequence. */
export function toRoutes(nodes: readonly MenuNode[], roles: readonly string[]): AppRoute[] {
  return (
    [...nodes]
      .filter((node) => (node.menuStatus ?? '1') === '1')
      .sort((a, b) => sequenceOf(a) - sequenceOf(b) || a.id - b.id)
      .map((node): AppRoute => {
        const meta = node.menuMeta ?? {};
        return {
          code: node.menuCode,
          path: node.menuPath.startsWith('/') ? node.menuPath : `/${node.menuPath}`,
          name: node.menuName,
          icon: node.menuIcon ?? meta.icon ?? undefined,
          component: node.menuComponent || 'layout',
          meta,
          buttons: node.menuButton ?? [],
          children: toRoutes(node.children ?? [], roles),
        };
      })
      .filter((route) => canSee(route.meta, roles))
      // A group whose children are all invisible has nothing to show.
      .filter(
        (route) =>
          route.component !== 'layout' || route.children.length > 0 || route.meta.alwaysShow === true,
      )
  );
}

export function isGroup(route: AppRoute): boolean {
  return route.component === 'layout';
}

/** Every route, depth first. */
export function flatten(routes: readonly AppRoute[]): AppRoute[] {
  return routes.flatMap((route) => [route, ...flatten(route.children)]);
}

/**
 * Whether a route's path takes a location's path. A route path may hold parameters, as the
 * template's /example/edit/:id(\d+): `:name(\d+)` takes digits only, `:name` any one segment.
 */
export function pathMatches(pattern: string, path: string): boolean {
  if (!pattern.includes('/:')) return pattern === path;
  const wanted = pattern.split('/');
  const given = path.split('/');
  if (wanted.length !== given.length) return false;
  return wanted.every((part, index) => {
    const segment = given[index] ?? '';
    if (!part.startsWith(':')) return part === segment;
    if (segment === '') return false;
    return part.endsWith('(\\d+)') ? /^\d+$/.test(segment) : !part.includes('(');
  });
}

/** The chain of routes from the top level to the page at path, or [] when no page matches. */
export function matchChain(routes: readonly AppRoute[], path: string): AppRoute[] {
  for (const route of routes) {
    if (!isGroup(route) && pathMatches(route.path, path)) return [route];
    const below = matchChain(route.children, path);
    if (below.length > 0) return [route, ...below];
  }
  return [];
}

export function findPage(routes: readonly AppRoute[], path: string): AppRoute | undefined {
  return matchChain(routes, path).at(-1);
}

export interface Crumb {
  code: string;
  path: string;
  /** Whether the item is a link (not the last one, not noRedirect, not a group). */
  isLink: boolean;
}

/** docs/product.md §2.4: workbench first unless the first match is the home; noRedirect and last items are not links. */
export function breadcrumbs(routes: readonly AppRoute[], path: string): Crumb[] {
  const chain = matchChain(routes, path);
  const first = chain[0];
  const items = first && first.path !== HOME_PATH ? [homeRoute(routes), ...chain] : chain;
  return items.map((route, index) => ({
    code: route.code,
    path: route.path,
    isLink: index < items.length - 1 && !route.meta.noRedirect && !isGroup(route),
  }));
}

function homeRoute(routes: readonly AppRoute[]): AppRoute {
  return (
    flatten(routes).find((route) => route.path === HOME_PATH) ?? {
      code: 'workbench',
      path: HOME_PATH,
      name: 'workbench',
      icon: 'dashboard',
      component: 'workbench',
      meta: {},
      buttons: [],
      children: [],
    }
  );
}

/**
 * The page a group's own path opens (/codegenerator → its first visible page), so that a parent
 * path typed or bookmarked does not end on 404; undefined when no group has that path.
 */
export function firstPageUnder(routes: readonly AppRoute[], path: string): AppRoute | undefined {
  const group = flatten(routes).find((route) => isGroup(route) && route.path === path);
  if (!group) return undefined;
  return flatten(group.children).find((route) => !isGroup(route) && !route.meta.hidden);
}

/** The sidebar's tree: hidden routes removed; a group with one visible child shows the child unless alwaysShow. */
export function sidebarTree(routes: readonly AppRoute[]): AppRoute[] {
  return routes
    .filter((route) => !route.meta.hidden)
    .map((route) => {
      const children = sidebarTree(route.children);
      const only = children[0];
      if (
        isGroup(route) &&
        children.length === 1 &&
        only &&
        !route.meta.alwaysShow &&
        only.children.length === 0
      ) {
        return only;
      }
      return { ...route, children };
    });
}

/** The menu key to highlight for a path: the page itself or its meta.activeMenu. */
export function activeMenuPath(routes: readonly AppRoute[], path: string): string {
  return findPage(routes, path)?.meta.activeMenu ?? path;
}

/** Paths of the groups above a path, to open them in the sidebar. */
export function openGroups(routes: readonly AppRoute[], path: string): string[] {
  return matchChain(routes, path)
    .slice(0, -1)
    .map((route) => route.path);
}

/** The entity behind a generated screen (menuComponent entity/<name>). */
export function entityOf(route: AppRoute): string | undefined {
  return route.component.startsWith('entity/') ? route.component.slice('entity/'.length) : undefined;
}
