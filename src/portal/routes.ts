/** Header tabs in the order of docs/product.md §2.2; the active one is kept in session storage (currentIndex). */
export const TABS = [
  { key: 'home', path: 'home' },
  { key: 'noticeList', path: '/noticeList' },
  { key: 'aboutus', path: '/aboutus' },
  { key: 'coproblem', path: '/coproblem' },
  { key: 'contactus', path: '/contactus' },
] as const;

export const CURRENT_INDEX_KEY = 'currentIndex';

/** The portal's own personal centre, used until a site configures buyer and supplier programs. */
export const PERSONAL_PATH = '/personal';

export function tabPath(path: string, product: string): string {
  return path === 'home' ? `/${product}` : path;
}

/** The tab a path belongs to, or undefined for pages outside the tabs (details, sign-up info). */
export function tabIndexOf(pathname: string, product: string): number | undefined {
  const map: Record<string, number> = {
    [`/${product}`]: 0,
    [`/${product}2`]: 0,
    '/noticeList': 1,
    '/noticeDetail': 1,
    '/aboutus': 2,
    '/service': 2,
    '/coproblem': 3,
    '/comproblem': 3,
    '/novice': 3,
    '/contactus': 4,
  };
  return map[pathname];
}

const TITLES: Record<string, string> = {
  huanxianbaoList: 'routes.idleList',
  huanxinbaodetail: 'routes.idleDetail',
  purchaseList: 'routes.purchaseList',
  purchaseDetail: 'routes.purchaseDetail',
  noticeList: 'routes.noticeList',
  noticeDetail: 'routes.noticeDetail',
  buysettlein: 'routes.buysettlein',
  sellsettlein: 'routes.sellsettlein',
  aboutus: 'routes.aboutus',
  service: 'routes.service',
  coproblem: 'routes.coproblem',
  contactus: 'routes.contactus',
  comproblem: 'routes.comproblem',
  novice: 'routes.novice',
  biddingAgreement: 'routes.biddingAgreement',
  login: 'routes.login',
  register: 'routes.register',
  newRegister: 'routes.newRegister',
  touristRegister: 'routes.touristRegister',
  forgetPwd: 'routes.forgetPwd',
  personal: 'routes.personal',
  '502': 'routes.502',
  '404': 'routes.404',
};

/** The i18n key of a route's title (docs/product.md §2.1 page title). */
export function titleKeyOf(pathname: string, product: string): string | undefined {
  const name = pathname.replace(/^\/+|\/+$/g, '');
  if (name === product || name === `${product}2`) return 'routes.home';
  // the personal centre's sections share its title
  return TITLES[name] ?? (name.startsWith('personal/') ? TITLES.personal : undefined);
}
