import { useEffect, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { usePortal } from '../context.js';
import { NoticeList } from '../pages/NoticeList.js';
import { Footer } from './Footer.js';
import { Header } from './Header.js';
import { SidePanel } from './SidePanel.js';

/**
 * The public layout of docs/product.md §2.2: header tabs, the page, footer, side panel and back-to-top (the
 * consultation button is on every screen: App). The notice list stays mounted once visited (kept alive), so its page,
 * search and scroll position survive a visit to a notice.
 */
export function PortalLayout() {
  const { pathname } = useLocation();
  const { t } = usePortal();
  const isNoticeList = pathname === '/noticeList';
  const [hasVisitedNotices, setHasVisitedNotices] = useState(isNoticeList);
  useEffect(() => {
    if (isNoticeList) setHasVisitedNotices(true);
  }, [isNoticeList]);
  return (
    <div className="portal">
      {/* WCAG 2.4.1: keyboard users jump over the header; focus moves, the URL keeps no hash */}
      <a
        className="skip-link"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        {t('header.skipToMain')}
      </a>
      <Header />
      <main className="portal-main" id="main" tabIndex={-1}>
        {hasVisitedNotices && (
          <div hidden={!isNoticeList}>
            <NoticeList isActive={isNoticeList} />
          </div>
        )}
        {!isNoticeList && <Outlet />}
      </main>
      <Footer />
      <SidePanel />
    </div>
  );
}
