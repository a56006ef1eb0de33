/** The tags view (docs/product.md §2.4, §4): visited and cached lists, pure and immutable. */

export interface Tag {
  /** Full path with query, the tag's identity. */
  fullPath: string;
  /** Route path (no query), to look the route up. */
  path: string;
  /** Route code, for the title (menus.<code>). */
  code: string;
  affix: boolean;
  noCache: boolean;
}

export interface TagsState {
  visited: Tag[];
  /** Codes of routes kept alive between visits (not the noCache ones). */
  cached: string[];
}

export const emptyTags: TagsState = { visited: [], cached: [] };

export function addTag(state: TagsState, tag: Tag): TagsState {
  const existing = state.visited.findIndex((item) => item.path === tag.path);
  const visited =
    existing >= 0
      ? state.visited.map((item, index) => (index === existing ? { ...item, fullPath: tag.fullPath } : item))
      : [...state.visited, tag];
  const cached = tag.noCache || state.cached.includes(tag.code) ? state.cached : [...state.cached, tag.code];
  return { visited, cached };
}

/** Affixed tags lead the strip, in the given order; the others keep theirs. */
export function withAffixed(state: TagsState, affixed: readonly Tag[]): TagsState {
  const lead = affixed.map((tag) => state.visited.find((item) => item.path === tag.path) ?? tag);
  const rest = state.visited.filter((tag) => !affixed.some((item) => item.path === tag.path));
  const cached = [
    ...state.cached,
    ...affixed.filter((tag) => !tag.noCache && !state.cached.includes(tag.code)).map((tag) => tag.code),
  ];
  return { visited: [...lead, ...rest], cached };
}

function keep(state: TagsState, visited: Tag[]): TagsState {
  const codes = new Set(visited.map((tag) => tag.code));
  return { visited, cached: state.cached.filter((code) => codes.has(code)) };
}

export function closeTag(state: TagsState, path: string): TagsState {
  return keep(
    state,
    state.visited.filter((tag) => tag.path !== path || tag.affix),
  );
}

export function closeOthers(state: TagsState, path: string): TagsState {
  return keep(
    state,
    state.visited.filter((tag) => tag.affix || tag.path === path),
  );
}

export function closeAll(state: TagsState): TagsState {
  return keep(
    state,
    state.visited.filter((tag) => tag.affix),
  );
}

/** Drops a route from the cache so that its next visit renders afresh (Refresh). */
export function uncache(state: TagsState, code: string): TagsState {
  return { ...state, cached: state.cached.filter((item) => item !== code) };
}

/** Where to go after closing: stay unless the active tag closed, then the last tag, else home. */
export function nextPath(after: TagsState, activePath: string, home: string): string | undefined {
  if (after.visited.some((tag) => tag.path === activePath)) return undefined;
  return after.visited.at(-1)?.fullPath ?? home;
}
