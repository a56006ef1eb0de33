import Fuse, { type IFuseOptions } from 'fuse.js';
import { pinyin } from 'pinyin-pro';
import { flatten, isGroup, type AppRoute } from './menus.js';

/**
 * Menu search (SPEC §2.4, §9): fuzzy over the translated title (weight 0.7) and the pinyin
 * title and path (0.3). Loaded on demand: fuse.js and pinyin-pro stay out of the first load.
 */

export interface SearchItem {
  path: string;
  code: string;
  title: string;
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

/** Visible pages with a title; pinyin only when asked (zh with the setting on). */
export function searchItems(
  routes: readonly AppRoute[],
  title: (route: AppRoute) => string,
  withPinyin: boolean,
): SearchItem[] {
  return flatten(routes)
    .filter((route) => !isGroup(route) && !route.meta.hidden)
    .map((route) => ({ route, text: title(route) }))
    .filter(({ text }) => text.trim() !== '')
    .map(({ route, text }) => ({
      path: route.path,
      code: route.code,
      title: text,
      pinyinTitle: withPinyin ? pinyinOf(text) : [],
    }));
}

export interface MenuSearch {
  search(query: string): SearchItem[];
}

export function createMenuSearch(items: readonly SearchItem[]): MenuSearch {
  const fuse = new Fuse(items, SEARCH_OPTIONS);
  return {
    search: (query) => {
      const pattern = query.trim().slice(0, MAX_PATTERN_LENGTH);
      return pattern ? fuse.search(pattern).map((result) => result.item) : [];
    },
  };
}
