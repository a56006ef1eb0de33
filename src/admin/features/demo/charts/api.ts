import { useCustom, type BaseRecord, type HttpError } from '@refinedev/core';
import dayjs from 'dayjs';

/** Budgets are yuan; charts show 万元 (ten thousands), as the portal does. */
export const tenThousands = (yuan: number): number => Math.round(yuan / 100) / 100;

/** The figures of GET /api/demo/dashboard (features/demo/services/dashboard.ts). */
export interface NamedCount {
  name: string;
  count: number;
}
export interface Dashboard {
  totals: {
    users: number;
    activeUsers: number;
    orgs: number;
    notices: number;
    purchases: number;
    budget: number;
    online: number;
  };
  signIns: { day: string; signIns: number; users: number }[];
  notices: { day: string; count: number }[];
  noticesByCategory: NamedCount[];
  purchasesByMonth: { month: string; count: number; budget: number }[];
  purchasesByCategory: { name: string; count: number; budget: number }[];
  purchasesByRegion: NamedCount[];
  /** Per province, named as the map of China names them. */
  purchasesByProvince: NamedCount[];
  usersByOrg: NamedCount[];
  usersByStatus: NamedCount[];
  recentPurchases: {
    id: number;
    title: string;
    buyerName: string | null;
    region: string | null;
    budget: number | null;
    publishTime: string | null;
  }[];
  generatedAt: string;
}

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
