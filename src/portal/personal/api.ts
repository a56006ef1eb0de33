import { apiGet, apiPost, apiPut } from '../../web/http.js';
import type {
  OidcLinkView,
  OwnDetail,
  RenewedSession,
  TwoFactorSetup,
  TwoFactorStatus,
} from '../../engine/api-types.js';
import { setToken } from '../../web/session.js';
import type { Purchase } from '../api.js';

export type { OwnDetail };

export type ProfileChange = Partial<Pick<OwnDetail, 'nickname' | 'email' | 'phone' | 'address' | 'profile'>>;

export interface MyNotification {
  id: number;
  title: string;
  content: string;
  type: string | null;
  priority: string | null;
  publisher: string | null;
  publishTime: string | null;
  isRead: boolean;
}

export interface MyPage<T> {
  records: T[];
  total: number;
  currentPage: number;
  pageSize: number;
}

const ACCOUNT = '/api/account/sysuserdetail';
const TWO_FACTOR = '/api/account/twoFactor';
const NOTIFICATION = '/api/admin/notification';
// Forms and pages show their own failures: no toast on top of them.
const QUIET = { silent: true };

/** The account endpoints every signed-in user has (docs/product.md §7 "Sign-in and account"). */
export const personalApi = {
  /** Two-factor sign-in (README "Two-factor sign-in"): state, enrolment, confirmation, turning off. */
  twoFactorStatus: () => apiGet<TwoFactorStatus>(`${TWO_FACTOR}/status`, undefined, QUIET),
  twoFactorSetup: () => apiPost<TwoFactorSetup>(`${TWO_FACTOR}/setup`, {}, QUIET),
  twoFactorEnable: (code: string) =>
    apiPost<{ recoveryCodes: string[] }>(`${TWO_FACTOR}/enable`, { code: code.trim() }, QUIET),
  twoFactorDisable: (password: string, code: string) =>
    apiPost<null>(`${TWO_FACTOR}/disable`, { password, code: code.trim() }, QUIET),
  /** OpenID Connect providers linked or not (README "Single sign-on"); linking leaves for the provider. */
  oidcLinks: () => apiGet<OidcLinkView[]>('/api/oidc/links', undefined, QUIET),
  oidcLink: (providerId: number) =>
    apiPost<{ url: string }>('/api/oidc/link', { providerId, app: 'portal' }, QUIET),
  oidcUnlink: (providerId: number) =>
    apiPost<{ unlinked: boolean }>('/api/oidc/unlink', { providerId }, QUIET),
  detail: () => apiGet<OwnDetail>(`${ACCOUNT}/querySysUserDetail`, undefined, QUIET),
  updateProfile: (change: ProfileChange & { version: number }) =>
    apiPut<OwnDetail>(`${ACCOUNT}/updateSysUserDetail`, change, QUIET),
  /** A new mobile number takes a live SMS code sent to it. */
  updateMobile: (change: { mobile: string; smsCaptcha: string; version: number }) =>
    apiPut<OwnDetail>(`${ACCOUNT}/updateSysUserDetail`, change, QUIET),
  /** The change ends every session of the user, this page's too: the page goes on with the fresh one. */
  updatePassword: async (id: number, password: string, newPassword: string): Promise<void> => {
    const renewed = await apiPut<RenewedSession>(`${ACCOUNT}/updatePassword`, undefined, {
      ...QUIET,
      params: { id, password, newPassword },
    });
    setToken(renewed.access_token);
  },
  notifications: (currentPage: number, pageSize: number) =>
    apiGet<MyPage<MyNotification> & { unread: number }>(
      `${NOTIFICATION}/queryMyNotification`,
      { currentPage, pageSize, sort: '-publishTime' },
      QUIET,
    ),
  markRead: (id: number) =>
    apiPost<{ read: number }>(`${NOTIFICATION}/markNotificationRead`, undefined, {
      ...QUIET,
      params: { id },
    }),
  purchases: (currentPage: number, pageSize: number) =>
    apiGet<MyPage<Purchase & { published: boolean }>>(
      '/api/notification/purchase/queryMyPurchase',
      { currentPage, pageSize },
      QUIET,
    ),
};
