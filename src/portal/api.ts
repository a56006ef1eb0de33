import type {
  HomepictureRecord,
  IdleequipmentRecord,
  NoticeRecord,
  PurchaseRecord,
} from '../generated/entities.js';
import type { NoticeDetail, Page, PortalParams } from '../engine/api-types.js';
import { apiGet, apiPost } from '../web/http.js';

/** The public records as the portal endpoints return them (bookkeeping columns removed). */
type Public<T> = Omit<T, 'tenantCode' | 'createdBy' | 'updatedBy' | 'version'>;
export type Notice = Public<NoticeRecord>;
export type Picture = Public<HomepictureRecord>;
export type Purchase = Public<PurchaseRecord>;
export type Idle = Public<IdleequipmentRecord>;

export type { PortalParams };

export interface PageQuery {
  currentPage: number;
  pageSize: number;
}

const NOTICE = '/api/notification/notice';
/** Detail pages show their own failure in the page (ui/detail.tsx): no toast besides it. */
const QUIET = { silent: true };
const HOME = '/api/notification/home';

// docs/product.md §7 "Notification and home": public, read-only.
export const portalApi = {
  params: () => apiGet<PortalParams>(`${HOME}/params`, undefined, { silent: true }),
  first4: () => apiGet<Notice[]>(`${NOTICE}/queryFirst4`),
  notices: (query: PageQuery & { title?: string }) =>
    apiGet<Page<Notice>>(`${NOTICE}/queryNotices`, { ...query }),
  notice: (id: number) => apiGet<Notice>(`${NOTICE}/queryNotice`, { id }, QUIET),
  noticeDetail: (id: number) => apiPost<NoticeDetail<Notice>>(`${NOTICE}/queryNoticeDetail`, { id }, QUIET),
  orderRotation: (limit = 10) => apiPost<Purchase[]>(`${NOTICE}/queryOrderRotation`, { limit }),
  pictures: () => apiPost<Picture[]>(`${HOME}/pictures`, {}),
  purchases: (query: PageQuery & { title?: string; category?: string; region?: string }) =>
    apiPost<Page<Purchase>>(`${HOME}/order/notices`, undefined, { params: { ...query } }),
  purchase: (id: number) => apiPost<Purchase>(`${HOME}/order/detail`, { id }, QUIET),
  idle: (query: PageQuery & { name?: string; category?: string }) =>
    apiPost<Page<Idle>>(`${HOME}/show/attr`, { ...query }),
  idleRank: (limit = 8) => apiPost<Idle[]>(`${HOME}/show/attr/rank`, undefined, { params: { limit } }),
  idleDetail: (id: number) => apiPost<Idle>(`${HOME}/show/detail`, { id }, QUIET),
};
