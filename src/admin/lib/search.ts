import Fuse, { type IFuseOptions } from 'fuse.js';
import { pinyin } from 'pinyin-pro';
import { isGroup, type AppRoute } from './menus.js';

/**
 * Menu search (docs/product.md §2.4, §9): fuzzy over the translated title (weight 0.7) and the pinyin
 * title and path (0.3). Loaded on demand: fuse.js and pinyin-pro stay out of the first load.
 */

export interface SearchItem {
  path: string;
  code: string;
  title: string;
  /** Titles of the groups above the page, outermost first (系统管理 for 用户管理). */
  trail: string[];
  /** Full pinyin and initials of the title (yonghuguanli, yhgl), when pinyin search is on. */
  pinyinTitle: string[];
}

export const SEARCH_OPTIONS: IFuseOptions<SearchItem> = {
  shouldSort: true,
  threshold: 0.4,
  distance: 100,
  minMatchCharLength: 1,
  keys: [
    { name: 'title', weight: 0.7 },
    { name: 'pinyinTitle', weight: 0.3 },
    { name: 'path', weight: 0.3 },
  ],
};

export const MAX_PATTERN_LENGTH = 32;

export function pinyinOf(title: string): string[] {
  const full = pinyin(title, { toneType: 'none', type: 'array' }).join('');
  const initials = pinyin(title, { pattern: 'first', toneType: 'none', type: 'array' }).join('');
  return [full, initials];
}

/** The visible pages under routes, each with the titles of the groups above it. */
function pages(
  routes: readonly AppRoute[],
  trail: readonly AppRoute[],
): { route: AppRoute; trail: AppRoute[] }[] {
  return routes.flatMap((route) => [
    ...(isGroup(route) || route.meta.hidden ? [] : [{ route, trail: [...trail] }]),
    ...pages(route.children, [...trail, route]),
  ]);
}

/** Visible pages with a title; pinyin only when asked (zh with the setting on). */
export function searchItems(
  routes: readonly AppRoute[],
  title: (route: AppRoute) => string,
  withPinyin: boolean,
): SearchItem[] {
  return pages(routes, [])
    .map(({ route, trail }) => ({ route, trail, text: title(route) }))
    .filter(({ text }) => text.trim() !== '')
    .map(({ route, trail, text }) => ({
      path: route.path,
      code: route.code,
      title: text,
      trail: trail.map(title).filter((group) => group.trim() !== ''),
      pinyinTitle: withPinyin ? pinyinOf(text) : [],
    }));
}

/**
 * Whether the query is the start of the title, its pinyin or its initials (用户, yonghu, yh):
 * what the person meant, unlike a fuzzy hit such as 工作台 for "yonghu".
 */
function isPrefixMatch(item: SearchItem, pattern: string): boolean {
  const query = pattern.toLowerCase();
  return [item.title, ...item.pinyinTitle, item.path.replace(/^\//, '')].some((text) =>
    text.toLowerCase().startsWith(query),
  );
}

/** Whether the translated title holds the query (日志 in 错误日志): as meant as a prefix match. */
function isTitleMatch(item: SearchItem, pattern: string): boolean {
  return item.title.toLowerCase().includes(pattern.toLowerCase());
}

export interface MenuSearch {
  search(query: string): SearchItem[];
}

/**
 * Exact and prefix matches of the title, pinyin or initials come first, then titles that hold the
 * query (日志 finds 日志检索 first, then 错误日志 and 审计日志), and when there are any, the loose
 * fuzzy hits are left out; otherwise fuse's ranking stands.
 */
export function createMenuSearch(items: readonly SearchItem[]): MenuSearch {
  const fuse = new Fuse(items, SEARCH_OPTIONS);
  return {
    search: (query) => {
      const pattern = query.trim().slice(0, MAX_PATTERN_LENGTH);
      if (!pattern) return [];
      const found = fuse.search(pattern).map((result) => result.item);
      const prefixed = found.filter((item) => isPrefixMatch(item, pattern));
      const prefixedNotFound = items.filter((item) => !found.includes(item) && isPrefixMatch(item, pattern));
      const holding = [...found, ...items.filter((item) => !found.includes(item))].filter(
        (item) => !isPrefixMatch(item, pattern) && isTitleMatch(item, pattern),
      );
      const strong = [...prefixed, ...prefixedNotFound, ...holding];
      return strong.length > 0 ? strong : found;
    },
  };
}
