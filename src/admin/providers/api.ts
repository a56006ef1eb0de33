import { useDataProvider } from '@refinedev/core';
import { useCallback } from 'react';

/** One call of docs/product.md §7 that is not CRUD. */
export interface ApiCall {
  method: 'get' | 'post' | 'put' | 'delete';
  url: string;
  /** Query parameters; a list is sent as repeated keys. */
  query?: Record<string, unknown>;
  payload?: unknown;
  /** The caller shows the failure itself: no toast. */
  isSilent?: boolean;
}

/**
 * Imperative calls (a save button, a code request, a query inside react-query) through the data
 * provider's custom, so the layout and the pages reach the API the way the screens do: the answer's
 * data, or a rejected HttpError {message, statusCode, errors keyed by field}.
 */
export function useApiCall(): <T>(call: ApiCall) => Promise<T> {
  const dataProvider = useDataProvider();
  return useCallback(
    async <T>(call: ApiCall): Promise<T> => {
      const { custom } = dataProvider();
      if (!custom) throw new Error('The data provider has no custom method');
      const answer = await custom({
        url: call.url,
        method: call.method,
        query: call.query,
        payload: call.payload,
        meta: { silent: call.isSilent === true },
      });
      return answer.data as T;
    },
    [dataProvider],
  );
}
