import { useCustom, type BaseRecord, type HttpError } from '@refinedev/core';
import dayjs from 'dayjs';
import type { Dashboard, NamedCount } from '../../../../engine/api-types.js';

/** Budgets are yuan; charts show 万元 (ten thousands), as the portal does. */
/** Yuan (exact decimal digits from the server) as 万元 with two decimals, for a chart's axis. */
export const tenThousands = (yuan: number | string): number => Math.round(Number(yuan) / 100) / 100;

export type { Dashboard, NamedCount };

/**
 * The dashboard figures of the caller's tenant, in the browser's time zone; `refreshMs` reads
 * them again on that interval (the big screens).
 */
export function useDashboard(
  days: number,
  refreshMs?: number,
): { data: Dashboard | undefined; isError: boolean } {
  const { query } = useCustom<BaseRecord, HttpError>({
    url: '/api/demo/dashboard',
    method: 'get',
    config: { query: { days, utcOffset: dayjs().utcOffset() } },
    queryOptions: {
      retry: false,
      refetchOnWindowFocus: false,
      ...(refreshMs ? { refetchInterval: refreshMs } : {}),
    },
  });
  return { data: query.data?.data as Dashboard | undefined, isError: query.isError };
}
