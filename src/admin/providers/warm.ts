import type { BaseRecord, GetListResponse } from '@refinedev/core';
import { listColumns } from '../../engine/index.js';
import { entityOf, findPage, toRoutes } from '../lib/menus.js';
import { peekBootstrap } from './bootstrap.js';
import { dataProvider } from './data.js';
import { loadResources } from './resources.js';

/** The list screen's first page (EntityList.tsx's useTable). */
export const FIRST_PAGE_SIZE = 20;
/** Above this many ids a reference lookup reads its target whole (entity/lookups.ts). */
const MAX_LOOKUP_IDS = 200;

/** How long an answer asked ahead stays good for its screen. */
const WARM_MS = 10_000;

interface Warm<T> {
  value: T;
  at: number;
}

/** The lookups' answers asked ahead that have arrived, for the list's first rows (taken once). */
const dicts = new Map<string, Warm<unknown>>();
const refs = new Map<string, Warm<BaseRecord[]>>();
/** A list's first page asked for at boot, by resource, once it has arrived. */
const firstPages = new Map<string, Warm<GetListResponse<BaseRecord>>>();

function take<T>(table: Map<string, Warm<T>>, key: string): Warm<T> | undefined {
  const warm = table.get(key);
  table.delete(key);
  return warm && Date.now() - warm.at < WARM_MS ? warm : undefined;
}

/**
 * The first page of a list asked for at boot, if it has arrived (taken once): the list screen's
 * first render shows its rows, not a loading table rendered once more when they come.
 */
export function takeWarmFirstPage(resource: string): GetListResponse<BaseRecord> | undefined {
  return take(firstPages, resource)?.value;
}

/** A dictionary's items asked for at boot, if they have arrived. */
export function takeWarmDict(dict: string): Warm<unknown> | undefined {
  return take(dicts, dict);
}

/** The records of a reference lookup asked for at boot (ids as entity/lookups.ts sorts them). */
export function takeWarmRefs(resource: string, ids: readonly string[]): Warm<BaseRecord[]> | undefined {
  return take(refs, `${resource}?${ids.join(',')}`);
}

/**
 * A cold load of a generated list (a new user's first visit): its first page and the labels of its
 * dictionary and reference columns are asked for at boot, through the data provider with
 * `meta.warm`, while the shell and the list screen's scripts are still being run. The screen's own
 * asks, made when it mounts, take these answers (data.ts) instead of waiting for the network after
 * the render.
 * Nothing happens for another page, a tree list, or a page without the server's bootstrap.
 */
export async function warmFirstList(path: string): Promise<void> {
  const authority = peekBootstrap('authority');
  if (!authority) return;
  const route = findPage(toRoutes(authority.menus, []), path);
  const name = route ? entityOf(route) : undefined;
  if (!name) return;
  const resources = await loadResources();
  const api = resources.get(name);
  const entity = api?.entity;
  if (!api || !entity || api.treeEndpoint) return;
  const columns = listColumns(entity).filter((column) => column.isVisible);
  const sysdict = resources.get('sysdict')?.base ?? 'admin/sysdict';
  for (const dict of new Set(columns.flatMap((column) => (column.dict ? [column.dict] : [])))) {
    void dataProvider
      .custom?.({
        url: `/api/${sysdict}/queryDictByDictType`,
        method: 'get',
        query: { dictType: dict },
        meta: { warm: true },
      })
      .then((answer) => dicts.set(dict, { value: answer.data, at: Date.now() }))
      .catch(() => undefined);
  }
  const page = await dataProvider.getList({
    resource: name,
    pagination: { currentPage: 1, pageSize: FIRST_PAGE_SIZE },
    meta: { warm: true },
  });
  firstPages.set(name, { value: page, at: Date.now() });
  const records: readonly BaseRecord[] = page.data;
  for (const column of columns) {
    const target = column.ref ? resources.get(column.ref) : undefined;
    if (!target?.entity) continue;
    // the ids as entity/lookups.ts asks for them: distinct, as text, sorted
    const ids = [
      ...new Set(
        records
          .flatMap((record) => {
            const value = record[column.field];
            return Array.isArray(value) ? (value as unknown[]) : [value];
          })
          .filter((value) => value !== null && value !== undefined && value !== '')
          .map(String),
      ),
    ].sort();
    if (ids.length === 0 || ids.length > MAX_LOOKUP_IDS) continue;
    // kept for the lookup's first render too (takeWarmRefs): the labels show with the rows, not after
    void dataProvider
      .getMany?.({ resource: target.name, ids, meta: { warm: true } })
      .then((answer) => refs.set(`${target.name}?${ids.join(',')}`, { value: answer.data, at: Date.now() }))
      .catch(() => undefined);
  }
}
