import { useCustom, useCustomMutation, useList, type BaseRecord, type HttpError } from '@refinedev/core';
import { useCallback } from 'react';
import { useMenus } from '../layout/MenuProvider.js';
import { isButtonGranted } from '../providers/access.js';

/** Query parameters as the API reads them (repeated keys for lists). */
export type ApiQuery = Record<string, string | number | (string | number)[] | undefined>;

export interface ApiRead<T> {
  data: T | undefined;
  isLoading: boolean;
  isError: boolean;
  refetch: () => Promise<unknown>;
}

/**
 * GET one of the extra endpoints of docs/product.md §7 through Refine's data provider (useCustom); the
 * answer's `data` as T. Disabled while `enabled` is false (e.g. before the record is known).
 */
export function useApiGet<T>(url: string, query?: ApiQuery, enabled = true): ApiRead<T> {
  const { query: result } = useCustom<BaseRecord, HttpError, ApiQuery>({
    url,
    method: 'get',
    config: query ? { query } : {},
    queryOptions: { enabled, retry: false, refetchOnWindowFocus: false },
  });
  return {
    data: result.data?.data as T | undefined,
    isLoading: result.isLoading,
    isError: result.isError,
    refetch: result.refetch,
  };
}

const TREE_FRESH_MS = 5 * 60_000;

/**
 * The whole tree of a tree entity (its querySys<Name>Tree) through the data provider's getList
 * (meta.tree): the top-level records with their children.
 */
export function useTree<T extends BaseRecord>(resource: string, enabled = true): ApiRead<T[]> {
  const { query, result } = useList<T>({
    resource,
    pagination: { mode: 'off' },
    meta: { tree: true },
    // One read serves the list and every form's parent select (writes through the data
    // provider invalidate it); a large tree (行政区域) is not read again for 新增.
    queryOptions: { enabled, retry: false, refetchOnWindowFocus: false, staleTime: TREE_FRESH_MS },
  });
  return {
    data: query.data ? result.data : undefined,
    isLoading: query.isLoading,
    isError: query.isError,
    refetch: query.refetch,
  };
}

export interface ApiWrite {
  /**
   * POST/PUT through the data provider; resolves with the answer's data, rejects with HttpError.
   * `silent`: the caller shows a failure itself (a field's error in a dialog), no toast.
   */
  send: <T>(
    method: 'post' | 'put' | 'delete',
    url: string,
    values?: unknown,
    options?: { silent?: boolean; timeoutMs?: number },
  ) => Promise<T>;
  isSending: boolean;
}

/** Writes to the extra endpoints through Refine (useCustomMutation); query strings go in the url. */
export function useApiWrite(): ApiWrite {
  const { mutateAsync, mutation } = useCustomMutation<BaseRecord, HttpError, unknown>();
  const send = useCallback(
    async <T>(
      method: 'post' | 'put' | 'delete',
      url: string,
      values?: unknown,
      options: { silent?: boolean; timeoutMs?: number } = {},
    ): Promise<T> => {
      const meta = {
        ...(options.silent ? { silent: true } : {}),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      };
      const answer = await mutateAsync({
        url,
        method,
        values: values ?? {},
        ...(Object.keys(meta).length > 0 ? { meta } : {}),
      });
      return answer.data as T;
    },
    [mutateAsync],
  );
  return { send, isSending: mutation.isPending };
}

/** `url?name=value&name=value…` for the endpoints that take their input as query parameters. */
export function withQuery(url: string, query: ApiQuery): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text ? `${url}?${text}` : url;
}

/**
 * Whether the role may use a button of a menu (docs/product.md §6, buttons): the buttons
 * queryCurrentAuthority grants, by menu code.
 */
export function useCanButton(menuCode: string): (button: string) => boolean {
  const { buttons } = useMenus();
  return useCallback((button: string) => isButtonGranted(buttons, menuCode, button), [buttons, menuCode]);
}
