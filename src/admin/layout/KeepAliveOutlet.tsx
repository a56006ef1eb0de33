import { Button, Result } from 'antd';
import { Suspense, useRef, type ReactNode } from 'react';
import { useLocation, useOutlet, type Location } from 'react-router';
import { useT } from '../i18n.js';
import { KeptPageShown } from '../lib/kept-page.js';
import { findPage } from '../lib/menus.js';
import { MenuPage } from './MenuPage.js';
import { useApp } from '../store.js';
import { ErrorBoundary } from './ErrorBoundary.js';
import { useMenus } from './MenuProvider.js';
import { RouteLoading } from './RouteLoading.js';

/** One page, its failures kept inside it and sent to the error log. */
function Guarded({ children }: { children: ReactNode }) {
  const app = useApp();
  const t = useT();
  return (
    <ErrorBoundary
      onError={(error, info) =>
        app.addErrorLog({
          message: error.message,
          info: info.componentStack?.trim().split('\n')[0] ?? '',
          url: window.location.href,
          stack: error.stack ?? '',
        })
      }
      fallback={(error, reset) => (
        <Result
          status="error"
          title={t('admin.errorLog.pageFailed')}
          subTitle={error.message}
          extra={<Button onClick={reset}>{t('admin.tags.refresh')}</Button>}
        />
      )}
    >
      <Suspense fallback={<RouteLoading />}>{children}</Suspense>
    </ErrorBoundary>
  );
}

/**
 * The tags view's cached list made real (docs/product.md §4): a visited page whose route is cached stays
 * mounted, hidden, while another page shows, so its filters, paging and scroll survive; a noCache
 * route, a closed tag or a Refresh drops it. Each kept page renders its own path.
 */
export function KeepAliveOutlet() {
  const location = useLocation();
  const outlet = useOutlet();
  const { tags } = useApp();
  const { routes } = useMenus();
  const kept = useRef(new Map<string, Location>());
  const page = findPage(routes, location.pathname);
  // The current page is kept from its first render on (its tag is added just after), unless noCache.
  const isCached = page !== undefined && !page.meta.noCache;

  for (const code of [...kept.current.keys()]) {
    if (!tags.cached.includes(code) && code !== page?.code) kept.current.delete(code);
  }
  if (page && isCached) kept.current.set(page.code, location);

  return (
    <>
      {[...kept.current].map(([code, at]) => (
        <div key={code} className="admin-kept-page" hidden={code !== page?.code}>
          <KeptPageShown.Provider value={code === page?.code}>
            <Guarded>
              <MenuPage path={at.pathname} />
            </Guarded>
          </KeptPageShown.Provider>
        </div>
      ))}
      {!isCached && <Guarded key={location.pathname}>{outlet}</Guarded>}
    </>
  );
}
